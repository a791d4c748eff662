//! The run model: metadata plus a list of windows, each a histogram for one direction.

use crate::hist::Hist;
use crate::meta::RunMeta;

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
    pub meta: RunMeta,
    /// Windows in file order.
    pub windows: Vec<Window>,
    /// Non-fatal problems found while reading.
    pub warnings: Vec<Warning>,
    /// What the devices under the target and the host were doing, one record a window of
    /// the run's clock (the archive's `#[context ...]` comment lines), in file order; empty
    /// for runs recorded without it and for foreign logs.
    pub context: Vec<crate::context::WindowContext>,
}

/// The windows of a run hold more I/Os than an HdrHistogram log can: their counts add up to
/// more than 2^63 - 1 ([`MAX_COUNT`](crate::hist::MAX_COUNT)). A run within that limit can be merged in any way and
/// written back exactly; split the input into several runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CountError {
    /// The file (or other source) of the window.
    pub source_name: String,
    /// Index (0-based) of that file's window at which the running total passes the limit.
    pub window: usize,
    /// Its tag.
    pub tag: Option<String>,
    /// Its start, in seconds from its run's start.
    pub start_s: f64,
}

impl CountError {
    fn at(source_name: &str, window: usize, w: &Window) -> CountError {
        CountError { source_name: source_name.to_string(), window, tag: w.tag.clone(), start_s: w.start_s }
    }

    /// What was wrong, without the file name (for errors that name the file and line).
    pub fn reason(&self) -> String {
        format!(
            "window {} ({} starting at {:.3} s) takes the run's I/O count past 2^63-1 (9223372036854775807), \
             the most an HdrHistogram log holds; expected at most that many I/Os in one run: split the input \
             into several runs",
            self.window + 1,
            self.tag.as_deref().unwrap_or(UNTAGGED),
            self.start_s
        )
    }
}

impl std::fmt::Display for CountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.source_name, self.reason())
    }
}

impl std::error::Error for CountError {}

/// Suffix given to a tag that would take a name the outputs use for rows of their own
/// ([`ALL`], and [`UNTAGGED`] when the run also has windows without a tag): the tag becomes an
/// auxiliary measure (`all.log`), shown in a row of its own and not merged into `all`, so no
/// output has two rows or JSON keys of one name and nothing is counted twice.
pub const RESERVED_SUFFIX: &str = ".log";

/// Is `tag` a direction of the whole run (merged into "all"), rather than an auxiliary measure
/// such as `read.svc` or one scope's share such as `host07/read`? See [`crate::tag`].
pub use crate::tag::{is_direction, ALL, UNTAGGED};

impl Run {
    /// Check the invariant every reader establishes: the counts of all windows add up to at
    /// most [`MAX_COUNT`](crate::hist::MAX_COUNT) (2^63 - 1), so that any merge of any of them is exact and every
    /// window can be written to an HdrHistogram log. The error names the first window at
    /// which the running total passes the limit. It costs one addition per window.
    pub fn check_counts(&self) -> Result<(), CountError> {
        let mut total = 0_u64;
        for (i, w) in self.windows.iter().enumerate() {
            total = crate::hist::add_counts(total, w.hist.count()).map_err(|_| CountError::at(&self.source, i, w))?;
        }
        Ok(())
    }

    /// Rename tags that would take the name of a row the outputs make themselves: a tag
    /// named [`ALL`] (e.g. a foreign log's `Tag=all`), and a tag named [`UNTAGGED`] in a run
    /// that also has windows without a tag. Each becomes `NAME.log` (see
    /// [`RESERVED_SUFFIX`]; a number is added if that is taken too), with a warning.
    pub fn rename_reserved_tags(&mut self) {
        let has_untagged = self.windows.iter().any(|w| w.tag.is_none());
        let reserved = |t: &str| t == ALL || (has_untagged && t == UNTAGGED);
        if !self.windows.iter().any(|w| w.tag.as_deref().is_some_and(reserved)) {
            return;
        }
        let tags = self.tags();
        let mut renames: Vec<(String, String)> = Vec::new();
        for t in tags.iter().flatten().filter(|t| reserved(t)) {
            let mut new = format!("{t}{RESERVED_SUFFIX}");
            let mut k = 2;
            while tags.iter().flatten().any(|x| *x == new) || renames.iter().any(|(_, n)| *n == new) {
                new = format!("{t}{RESERVED_SUFFIX}.{k}");
                k += 1;
            }
            let row = if t == ALL { "the row that merges every direction" } else { "the row of the windows without a tag" };
            self.warnings.push(Warning {
                line: None,
                message: format!(
                    "tag {t:?} is the name of {row}: its windows are read as tag {new:?}, an auxiliary measure \
                     shown in a row of its own and not merged into {ALL:?} (so nothing is counted twice); rename \
                     the tag in the file to keep a name of its own"
                ),
            });
            renames.push((t.clone(), new));
        }
        for w in &mut self.windows {
            if let Some((_, new)) = renames.iter().find(|(old, _)| w.tag.as_deref() == Some(old.as_str())) {
                w.tag = Some(new.clone());
            }
        }
    }

    /// What every reader does with the run it built, last: [`Run::rename_reserved_tags`],
    /// then [`Run::check_counts`].
    pub fn checked(mut self) -> Result<Run, CountError> {
        self.rename_reserved_tags();
        self.check_counts()?;
        Ok(self)
    }

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

    /// The window length, in seconds, of a run imported from per-I/O records (a latency
    /// list with times, a fio per-I/O latency log); `None` for every other run.
    pub fn per_io_window_s(&self) -> Option<f64> {
        let fio = self.meta.fio_lat_log.as_ref().map(|l| l.window_ms / 1e3);
        fio.or_else(|| self.meta.list.as_ref().and_then(|l| l.window_s)).filter(|w| w.is_finite() && *w > 0.0)
    }

    /// Whether a window of this run `length_s` long is partial: a window of a run imported
    /// from per-I/O records that ends before its window length (the last one, which ends at
    /// the run's last I/O). Its latencies are whole and counted everywhere, but its rate is
    /// not a rate over a window, so per-window rates (the IOPS interval of a spec, compare's
    /// noise) and steady state leave it out, as fio's IOPS and bandwidth logs only ever
    /// average whole `iops_avg_time` / `bwavgtime` periods (fio HOWTO, "Measurements and
    /// reporting"). The run's own IOPS (all I/Os over the span to the last one) keep it.
    ///
    /// Neither length gives that window a rate. Cut at its last I/O, 102 I/Os in the last
    /// half second of a run with 1 s windows read as 204 IOPS. As a whole window, the few
    /// I/Os a 60 s fio run completes in [60 s, 61 s) would read as a drop to a few IOPS
    /// (steady state lost), and the run's IOPS would count a second nothing was measured in.
    pub fn is_partial_length(&self, length_s: f64) -> bool {
        // within fio's LOG_MSEC_SLACK (1 ms, stat.c) of the window length, a window is whole
        self.per_io_window_s().is_some_and(|len| length_s > 0.0 && length_s + 1e-3 < len)
    }

    /// [`Run::is_partial_length`] of a window of this run.
    pub fn is_partial(&self, w: &Window) -> bool {
        self.is_partial_length(w.length_s)
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
        Run { windows: self.windows.iter().filter(|w| w.start_s >= from && w.start_s < to).cloned().collect(), ..self.clone() }
    }

    /// Windows of one tag, in order.
    pub fn windows_of<'a>(&'a self, tag: Option<&'a str>) -> impl Iterator<Item = &'a Window> + 'a {
        self.windows.iter().filter(move |w| w.tag.as_deref() == tag)
    }

    /// Merge several runs (e.g. the same job on several hosts) into one: windows are kept
    /// as they are, so per-direction stats merge exactly. An error when their counts add up
    /// to more than [`MAX_COUNT`](crate::hist::MAX_COUNT) (see [`Run::check_counts`]; it names the input and window
    /// where the total passes the limit), so the merged run keeps the invariant too.
    pub fn merged(name: &str, runs: &[Run]) -> Result<Run, CountError> {
        let mut out = Run { name: name.to_string(), source: name.to_string(), ..Run::default() };
        out.start_time = runs.iter().filter_map(|r| r.start_time).reduce(f64::min);
        let mut total = 0_u64;
        for r in runs {
            for (i, w) in r.windows.iter().enumerate() {
                total = crate::hist::add_counts(total, w.hist.count()).map_err(|_| CountError::at(&r.source, i, w))?;
            }
            let shift = match (r.start_time, out.start_time) {
                (Some(a), Some(b)) => a - b,
                _ => 0.0,
            };
            out.windows.extend(r.windows.iter().map(|w| Window { start_s: w.start_s + shift, ..w.clone() }));
        }
        Ok(out)
    }
}

/// The last component of a source path (`/` or `\\` separated), as a name shows it.
fn file_part(source: &str) -> &str {
    source.rsplit(['/', '\\']).next().unwrap_or(source)
}

/// Names for runs shown together, from their own names and their sources (file names),
/// such that no two are equal: a name no other run has is kept as it is; runs that share a
/// name are told apart by their file names (`b_randrw (b_hist.1.log)`), and where the file
/// names are the same too (or a run has none), the later ones get a number (`b_randrw #2`).
/// A numbered name never takes a name another run has. The order is that of `runs`.
pub fn distinct_names(runs: &[(&str, &str)]) -> Vec<String> {
    // Plain scans rather than maps or sorts: the lists are of the runs one page or command
    // shows, and maps or sorts would add their own code to the viewer's wasm (9 to 20 KB).
    let wanted: Vec<String> = runs
        .iter()
        .map(|&(name, source)| {
            let file = file_part(source);
            let shared = runs.iter().filter(|r| r.0 == name).nth(1).is_some();
            if !shared || file.is_empty() || file == name {
                name.to_string()
            } else {
                format!("{name} ({file})")
            }
        })
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(runs.len());
    for w in &wanted {
        let mut name = w.clone();
        let mut k = 1;
        while out.contains(&name) {
            k += 1;
            name = format!("{w} #{k}");
            if wanted.contains(&name) {
                name.clone_from(w);
            }
        }
        out.push(name);
    }
    out
}

/// Give runs shown together distinct names ([`distinct_names`] of their names and sources).
pub fn name_distinctly(runs: &mut [Run]) {
    let names = distinct_names(&runs.iter().map(|r| (r.name.as_str(), r.source.as_str())).collect::<Vec<_>>());
    for (r, n) in runs.iter_mut().zip(names) {
        r.name = n;
    }
}

/// Runs the unit tests of several modules share.
#[cfg(test)]
pub(crate) mod test_runs {
    use super::{Run, Window};
    use crate::hist::{Hist, Layout};

    /// `n` one-second windows of 700 reads and 300 writes each, latencies rising with time.
    pub(crate) fn two_directions(n: usize) -> Run {
        let l = Layout::default_ns();
        let mut windows = Vec::new();
        for s in 0..n {
            for (tag, k) in [("read", 700u64), ("write", 300)] {
                windows.push(Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: Some(tag.into()),
                    hist: Hist::from_values(l, (0..k).map(|i| 10_000 + i * 97 + s as u64 * 1_000)),
                });
            }
        }
        Run { name: "r".into(), source: "r.hlog".into(), windows, ..Run::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Accumulator, Layout, MAX_COUNT};

    fn window(start_s: f64, tag: Option<&str>, count: u64) -> Window {
        let mut acc = Accumulator::new(Layout::default_ns());
        acc.record_n(1000, count);
        Window { start_s, length_s: 1.0, tag: tag.map(String::from), hist: acc.finish() }
    }

    #[test]
    fn counts_are_checked_over_all_windows() {
        let half = MAX_COUNT / 2 + 1;
        let ok = Run {
            source: "a.hlog".into(),
            windows: vec![window(0.0, Some("read"), MAX_COUNT - 1), window(1.0, Some("write"), 1)],
            ..Run::default()
        };
        ok.check_counts().unwrap();
        let bad = Run {
            source: "b.hlog".into(),
            windows: vec![window(0.0, Some("read"), half), window(1.0, Some("write"), 7), window(2.0, Some("read"), half)],
            ..Run::default()
        };
        let e = bad.check_counts().unwrap_err();
        assert_eq!((e.window, e.tag.as_deref(), e.start_s), (2, Some("read"), 2.0));
        assert!(e.to_string().starts_with("b.hlog: window 3 (read starting at 2.000 s) takes the run's I/O count past 2^63-1"), "{e}");
        // a merge of runs each within the limit is checked as well, naming the input
        let e = Run::merged("m", &[ok.clone(), ok.clone()]).unwrap_err();
        assert_eq!((e.source_name.as_str(), e.window), ("a.hlog", 0));
        assert_eq!(Run::merged("m", std::slice::from_ref(&ok)).unwrap().windows.len(), 2);
    }

    #[test]
    fn reserved_tags_are_renamed() {
        let mut r =
            Run { windows: vec![window(0.0, Some("all"), 1), window(0.0, Some("read"), 1), window(1.0, Some("all"), 1)], ..Run::default() };
        r.rename_reserved_tags();
        assert_eq!(r.tags(), [Some("all.log".to_string()), Some("read".into())]);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].message.contains("\"all.log\", an auxiliary measure"), "{}", r.warnings[0]);
        assert!(!is_direction(Some("all.log")));
        // idempotent
        r.rename_reserved_tags();
        assert_eq!(r.warnings.len(), 1);
        // a taken name gets a number; "untagged" only with windows without a tag
        let mut r = Run {
            windows: vec![window(0.0, Some("all"), 1), window(0.0, Some("all.log"), 1), window(0.0, Some("untagged"), 1)],
            ..Run::default()
        };
        r.rename_reserved_tags();
        assert_eq!(r.tags(), [Some("all.log.2".to_string()), Some("all.log".into()), Some("untagged".into())]);
        let mut r = Run { windows: vec![window(0.0, None, 1), window(0.0, Some("untagged"), 1)], ..Run::default() };
        let r2 = r.clone().checked().unwrap();
        r.rename_reserved_tags();
        assert_eq!(r.tags(), [None, Some("untagged.log".to_string())]);
        assert_eq!(r, r2);
    }

    #[test]
    fn equal_names_are_told_apart_by_file_then_number() {
        let n = |runs: &[(&str, &str)]| distinct_names(runs);
        // unique names are kept, whatever the files
        assert_eq!(n(&[("a", "x/a.hlog"), ("b", "x/a.hlog")]), ["a", "b"]);
        assert!(n(&[]).is_empty());
        // one fio run read three ways: the file names, without their directories
        assert_eq!(
            n(&[("b_randrw", "d/b.json"), ("b_randrw", "d/b_clat_hist.1.log"), ("solo", "s.hlog"), ("b_randrw", r"C:\d\b_lat.1.log")]),
            ["b_randrw (b.json)", "b_randrw (b_clat_hist.1.log)", "solo", "b_randrw (b_lat.1.log)"]
        );
        // the same file twice (or no file): numbered in order
        assert_eq!(n(&[("r", "a/r.hlog"), ("r", "b/r.hlog"), ("r", "c.hlog")]), ["r (r.hlog)", "r (r.hlog) #2", "r (c.hlog)"]);
        assert_eq!(n(&[("r", ""), ("r", ""), ("r", "")]), ["r", "r #2", "r #3"]);
        assert_eq!(n(&[("r", "r"), ("r", "r")]), ["r", "r #2"]);
        // a number never takes another run's name
        assert_eq!(n(&[("r", ""), ("r #2", ""), ("r", "")]), ["r", "r #2", "r #3"]);
        assert_eq!(n(&[("r", "f"), ("r (f) #2", ""), ("r", "f")]), ["r (f)", "r (f) #2", "r (f) #3"]);
        // a file-named name that is another run's own name
        assert_eq!(n(&[("a (f)", "g"), ("a", "f"), ("a", "f")]), ["a (f)", "a (f) #2", "a (f) #3"]);
    }

    #[test]
    fn runs_are_renamed_in_place() {
        let mut runs = vec![
            Run { name: "j".into(), source: "j.json".into(), ..Run::default() },
            Run { name: "j".into(), source: "j_lat.1.log".into(), ..Run::default() },
            Run { name: "k".into(), source: "k.hlog".into(), ..Run::default() },
        ];
        name_distinctly(&mut runs);
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["j (j.json)", "j (j_lat.1.log)", "k"]);
        // idempotent once distinct
        name_distinctly(&mut runs);
        assert_eq!(runs[0].name, "j (j.json)");
    }
}
