//! The run model: metadata plus a list of windows, each a histogram for one direction.

use serde_json::{Map, Value};

use crate::hist::Hist;

/// One window of one direction (tag): the latencies of the I/Os that completed in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// Start, in seconds from the run's start.
    pub start_s: f64,
    /// Length in seconds.
    pub length_s: f64,
    /// Direction and measure, e.g. `read`, `write`, `read.svc`; `None` for untagged logs.
    pub tag: Option<String>,
    /// Latencies in nanoseconds.
    pub hist: Hist,
}

impl Window {
    pub fn end_s(&self) -> f64 {
        self.start_s + self.length_s
    }
}

/// Something a reader should know that does not stop the run from being used.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Warning {
    /// Line (1-based) the warning is about, when there is one.
    pub line: Option<usize>,
    /// A sentence saying what happened and what to do about it.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The tag name used for windows without a tag.
pub const UNTAGGED: &str = "untagged";
/// The name of the row that merges every direction.
pub const ALL: &str = "all";

/// A measured run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// Display name: the metadata's `name`, else the file name without extension.
    pub name: String,
    /// Where the run came from (a file name), for messages.
    pub source: String,
    /// Run start in seconds since the epoch, if the log says.
    pub start_time: Option<f64>,
    /// Metadata: nines' `#[nines {...}]` object(s), merged; empty for foreign logs.
    pub meta: Map<String, Value>,
    /// Windows in file order.
    pub windows: Vec<Window>,
    /// Non-fatal problems found while reading.
    pub warnings: Vec<Warning>,
}

/// Is `tag` a direction (to be merged into "all") rather than an auxiliary measure such as
/// `read.svc` (service time) or `read.slat`? Auxiliary measures carry a `.suffix`.
pub fn is_direction(tag: Option<&str>) -> bool {
    tag.is_none_or(|t| !t.contains('.'))
}

impl Run {
    /// Distinct tags in order of first appearance (`None` = untagged).
    pub fn tags(&self) -> Vec<Option<String>> {
        let mut out: Vec<Option<String>> = Vec::new();
        for w in &self.windows {
            if !out.contains(&w.tag) {
                out.push(w.tag.clone());
            }
        }
        out
    }

    /// Start of the first window and end of the last (seconds from run start).
    pub fn span(&self) -> Option<(f64, f64)> {
        let start = self.windows.iter().map(|w| w.start_s).reduce(f64::min)?;
        let end = self.windows.iter().map(Window::end_s).reduce(f64::max)?;
        Some((start, end))
    }

    /// Duration covered by the windows, in seconds.
    pub fn duration_s(&self) -> f64 {
        self.span().map_or(0.0, |(a, b)| (b - a).max(0.0))
    }

    /// A copy holding only the windows that start in `[from, to)` seconds.
    pub fn slice(&self, from: Option<f64>, to: Option<f64>) -> Run {
        let from = from.unwrap_or(f64::NEG_INFINITY);
        let to = to.unwrap_or(f64::INFINITY);
        Run {
            windows: self
                .windows
                .iter()
                .filter(|w| w.start_s >= from && w.start_s < to)
                .cloned()
                .collect(),
            ..self.clone()
        }
    }

    /// Windows of one tag, in order.
    pub fn windows_of<'a>(&'a self, tag: Option<&'a str>) -> impl Iterator<Item = &'a Window> + 'a {
        self.windows.iter().filter(move |w| w.tag.as_deref() == tag)
    }

    /// Merge several runs (e.g. the same job on several hosts) into one: windows are kept
    /// as they are, so per-direction stats merge exactly.
    pub fn merged(name: &str, runs: &[Run]) -> Run {
        let mut out = Run { name: name.to_string(), source: name.to_string(), ..Run::default() };
        out.start_time = runs.iter().filter_map(|r| r.start_time).reduce(f64::min);
        for r in runs {
            let shift = match (r.start_time, out.start_time) {
                (Some(a), Some(b)) => a - b,
                _ => 0.0,
            };
            out.windows.extend(r.windows.iter().map(|w| Window { start_s: w.start_s + shift, ..w.clone() }));
        }
        out
    }
}
