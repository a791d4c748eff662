//! Per-run, per-direction statistics: one result struct that every output renders
//! (`nines stats` text and JSON, the viewer's table, the report's static summary; the
//! renderers are in [`crate::export`]).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::hist::{Accumulator, Hist};
use crate::precision::Precision;
use crate::quantile::{level_stats, standard_levels, Level, LevelStat};
use crate::run::{is_direction, Run, Warning, Window, ALL};
use crate::series::{direction_windows, Direction};
pub use crate::tag::tag_name;
use crate::window_levels::{window_levels, WindowLevels, WindowLimit};

/// Statistics of one direction (or of all merged).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TagStats {
    pub count: u64,
    pub iops: f64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub levels: Vec<LevelStat>,
    /// The levels of each window and their spread, when asked for ([`attach_windows`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowLevels>,
}

impl TagStats {
    /// Restate these statistics at a source's precision (fio's buckets, a spectrum's steps):
    /// min and max widen to the source bucket's edges, each level as [`Precision::apply_level`].
    pub fn restate(&mut self, p: &Precision) {
        if self.count > 0 {
            self.min_ns = p.bucket(self.min_ns).lo;
            let b = p.bucket(self.max_ns);
            self.max_ns = if b.at_least { b.lo } else { b.hi };
        }
        for l in &mut self.levels {
            p.apply_level(l);
        }
    }
}

/// Ordered map of tag name to stats (serialised as a JSON object in this order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagMap(pub Vec<(String, TagStats)>);

impl TagMap {
    pub fn get(&self, tag: &str) -> Option<&TagStats> {
        self.0.iter().find(|(t, _)| t == tag).map(|(_, s)| s)
    }
    pub fn iter(&self) -> impl Iterator<Item = &(String, TagStats)> {
        self.0.iter()
    }
}

impl std::ops::Index<&str> for TagMap {
    type Output = TagStats;
    fn index(&self, tag: &str) -> &TagStats {
        self.get(tag).unwrap_or_else(|| panic!("no tag {tag:?}"))
    }
}

/// A tag's entry as JSON shows it: the tag's parsed scope and direction (and measure, when it
/// has one; see [`crate::tag`]), then its statistics.
#[derive(Serialize)]
struct TagEntry<'a> {
    scope: Option<&'a str>,
    direction: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    measure: Option<&'a str>,
    #[serde(flatten)]
    stats: &'a TagStats,
}

impl Serialize for TagMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            let t = crate::tag::Tag::parse(k);
            m.serialize_entry(k, &TagEntry { scope: t.scope, direction: t.direction, measure: t.measure, stats: v })?;
        }
        m.end()
    }
}

/// Statistics of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunStats {
    pub file: String,
    pub name: String,
    pub duration_s: f64,
    pub tags: TagMap,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// What to compute.
#[derive(Clone, Debug)]
pub struct Options {
    /// Only this tag (no "all" row).
    pub tag: Option<String>,
    /// Only windows starting at or after this many seconds from the run start.
    pub from: Option<f64>,
    /// Only windows starting before this many seconds from the run start.
    pub to: Option<f64>,
    pub levels: Vec<Level>,
}

impl Default for Options {
    fn default() -> Options {
        Options { tag: None, from: None, to: None, levels: standard_levels() }
    }
}

/// Statistics of a histogram over a duration.
pub fn tag_stats(h: &Hist, duration_s: f64, levels: &[Level]) -> TagStats {
    let mean_ns = h.mean();
    TagStats {
        count: h.count(),
        iops: if duration_s > 0.0 { h.count() as f64 / duration_s } else { 0.0 },
        min_ns: h.min(),
        max_ns: h.max(),
        mean_ns,
        stdev_ns: h.stdev_about(mean_ns),
        levels: level_stats(h, levels),
        windows: None,
    }
}

/// Merge windows into one histogram (exact). The windows are a run's: their counts add up to
/// at most 2^63 - 1 ([`Run::check_counts`]), so the sum cannot overflow; windows of several
/// runs go through [`Run::merged`] first, which checks.
pub fn merge_windows<'a>(windows: impl IntoIterator<Item = &'a Window>) -> Option<Hist> {
    let mut it = windows.into_iter().peekable();
    let first = it.peek()?;
    let mut acc = Accumulator::new(first.hist.layout());
    for w in it {
        acc.add(&w.hist);
    }
    Some(acc.finish())
}

/// Compute a run's statistics: one entry per tag, then `all` merging every direction
/// (auxiliary measures such as `read.svc` are not merged into `all`). Every merge is of the
/// run's own windows, exact by the run's count invariant ([`Run::check_counts`]); tag names
/// are distinct because readers rename a tag named `all` ([`Run::rename_reserved_tags`]).
pub fn run_stats(run: &Run, opts: &Options) -> RunStats {
    let (from, to) = (opts.from.unwrap_or(f64::NEG_INFINITY), opts.to.unwrap_or(f64::INFINITY));
    let in_range = |w: &&Window| w.start_s >= from && w.start_s < to;
    let windows: Vec<&Window> = run.windows.iter().filter(in_range).collect();
    let duration = span_of(&windows);
    // One pass: merge each tag's windows; tags in order of first appearance.
    let mut merged: Vec<(Option<String>, Accumulator)> = Vec::new();
    for w in &windows {
        if opts.tag.as_deref().is_some_and(|t| t != tag_name(w.tag.as_deref())) {
            continue;
        }
        let i = match merged.iter().position(|(t, _)| *t == w.tag) {
            Some(i) => i,
            None => {
                merged.push((w.tag.clone(), Accumulator::new(w.hist.layout())));
                merged.len() - 1
            }
        };
        merged[i].1.add(&w.hist);
    }
    let merged: Vec<(Option<String>, Hist)> = merged.into_iter().map(|(t, a)| (t, a.finish())).collect();
    let mut tags: Vec<(String, TagStats)> =
        merged.iter().map(|(t, h)| (tag_name(t.as_deref()).to_string(), tag_stats(h, duration, &opts.levels))).collect();
    if opts.tag.is_none() {
        let directions: Vec<&Hist> = merged.iter().filter(|(t, _)| is_direction(t.as_deref())).map(|(_, h)| h).collect();
        if merged.len() == 1 && merged[0].0.is_none() {
            // A log without tags: its one row is the whole run.
            tags[0].0 = ALL.to_string();
        } else if !directions.is_empty() {
            // Per-tag totals merge exactly into the total of all directions.
            tags.push((ALL.to_string(), tag_stats(&Hist::merge_all(directions), duration, &opts.levels)));
        }
    }
    // Runs from coarser sources (fio's buckets) state every value at that source's precision.
    if let Some(p) = &run.meta.precision {
        tags.iter_mut().for_each(|(_, s)| s.restate(p));
    }
    RunStats { file: run.source.clone(), name: run.name.clone(), duration_s: duration, tags: TagMap(tags), warnings: run.warnings.clone() }
}

/// Each level of `stats` (from [`run_stats`] with the same `opts`) computed on every window
/// too, with the `limits` judged per window ([`crate::window_levels`]): a tag's own windows, and
/// for `all` the directions' windows that start together, merged. Apart from [`run_stats`] so
/// that what does not ask for it (the viewer's page, whose size is budgeted) does not carry it.
pub fn attach_windows(run: &Run, opts: &Options, limits: &[WindowLimit], stats: &mut RunStats) {
    let (from, to) = (opts.from.unwrap_or(f64::NEG_INFINITY), opts.to.unwrap_or(f64::INFINITY));
    let in_range = |w: &Window| w.start_s >= from && w.start_s < to;
    let precision = run.meta.precision.as_ref();
    let untagged = run.windows.iter().all(|w| w.tag.is_none());
    for (name, s) in stats.tags.0.iter_mut() {
        let per_window = |hists: &[(&Hist, f64)]| Some(window_levels(name, hists, &opts.levels, limits, precision));
        s.windows = if name == ALL && !untagged {
            // `all`: the directions' windows that start together, merged
            let all: Vec<Window> = direction_windows(run, &Direction::All).into_iter().filter(|w| in_range(w)).collect();
            per_window(&all.iter().map(|w| (&w.hist, w.length_s)).collect::<Vec<_>>())
        } else {
            // a tag's own windows (an untagged log's one row, named `all`, included)
            let own = |w: &&Window| in_range(w) && (untagged || tag_name(w.tag.as_deref()) == name);
            per_window(&run.windows.iter().filter(own).map(|w| (&w.hist, w.length_s)).collect::<Vec<_>>())
        };
    }
}

/// Seconds from the first window's start to the last window's end.
fn span_of(windows: &[&Window]) -> f64 {
    let start = windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let end = windows.iter().map(|w| w.end_s()).fold(f64::NEG_INFINITY, f64::max);
    if end > start {
        end - start
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;

    fn run() -> Run {
        let l = Layout::default_ns();
        let mut windows = Vec::new();
        for s in 0..4u64 {
            windows.push(Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("read".into()),
                hist: Hist::from_values(l, (1..=7000).map(|i| 50_000 + i * 13 + s)),
            });
            windows.push(Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("write".into()),
                hist: Hist::from_values(l, (1..=3000).map(|i| 20_000 + i * 71)),
            });
            windows.push(Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("read.svc".into()),
                hist: Hist::from_values(l, (1..=7000).map(|i| 40_000 + i)),
            });
        }
        Run { name: "t".into(), source: "t.hlog".into(), windows, ..Run::default() }
    }

    #[test]
    fn all_merges_directions_only() {
        let s = run_stats(&run(), &Options::default());
        let names: Vec<&str> = s.tags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(names, ["read", "write", "read.svc", "all"]);
        assert_eq!(s.tags["all"].count, 40_000);
        assert_eq!(s.tags["read"].iops, 7000.0);
        assert_eq!(s.duration_s, 4.0);
    }

    #[test]
    fn tag_and_range_filters() {
        let s = run_stats(&run(), &Options { tag: Some("write".into()), from: Some(1.0), to: Some(3.0), ..Options::default() });
        assert_eq!(s.tags.0.len(), 1);
        assert_eq!(s.tags["write"].count, 6000);
        assert_eq!(s.duration_s, 2.0);
    }

    #[test]
    fn windows_of_each_tag_and_of_all() {
        let limits = vec![crate::window_levels::parse_window_limit("p50=1ns").unwrap()];
        let opts = Options { from: Some(1.0), ..Options::default() };
        let mut s = run_stats(&run(), &opts);
        attach_windows(&run(), &opts, &limits, &mut s);
        let w = |t: &str| s.tags[t].windows.clone().unwrap();
        assert_eq!([w("read").windows, w("write").windows, w("read.svc").windows, w("all").windows], [3, 3, 3, 3]);
        // `all` merges read and write window by window, not read.svc: 10,000 I/Os a window
        let all_p50 = &w("all").levels[0];
        assert_eq!((all_p50.supported, all_p50.limits[0].ios, all_p50.limits[0].ios_beyond), (3, 30_000, 30_000));
        // read's windows differ by 1 ns a second: p50 of 7,000 is rank 3,500, 50,000 + 3,500 * 13 + s
        let l = Layout::default_ns();
        let read_p50 = &w("read").levels[0];
        assert_eq!(read_p50.min_ns, Some(l.highest_equivalent(50_000 + 3_500 * 13 + 1)));
        assert_eq!(read_p50.max_ns, Some(l.highest_equivalent(50_000 + 3_500 * 13 + 3)));
        assert!(run_stats(&run(), &Options::default()).tags["read"].windows.is_none());
    }

    #[test]
    fn text_shows_control_characters_escaped() {
        let mut r = run();
        r.name = "evil\u{1b}[2J".into();
        r.windows[0].tag = Some("re\u{1b}d".into());
        r.warnings.push(Warning { line: Some(3), message: "bad \u{7}".into() });
        let text = crate::export::text::stats(&[run_stats(&r, &Options::default())]);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(text.starts_with("evil\\u{1b}[2J (t.hlog)"), "{text}");
        assert!(text.contains("warning: t.hlog: line 3: bad \\u{7}\n"), "{text}");
    }

    #[test]
    fn json_shape() {
        let s = run_stats(&run(), &Options::default());
        let v: serde_json::Value = serde_json::from_str(&crate::export::json::stats(&[s])).unwrap();
        let lvl = &v["runs"][0]["tags"]["read"]["levels"][2];
        assert_eq!(lvl["label"], "p99");
        assert_eq!(lvl["support"], "reliable");
        assert!(lvl["ci95_ns"].is_array());
        assert!(v["runs"][0]["tags"]["read"]["levels"][9]["value_ns"].is_null());
    }
}
