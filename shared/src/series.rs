//! Runtime series: per-window levels, median, max and IOPS, with exact re-aggregation.
//!
//! Every merge here is of windows of one run, whose counts add up to at most 2^63 - 1
//! ([`crate::run::Run::check_counts`]): exact, no count can overflow.

use serde::Serialize;

use crate::hist::Accumulator;
use crate::quantile::{Level, Support};
use crate::run::{is_direction, Run, Window};

/// How to regroup adjacent windows before computing a series. Merging is exact
/// (histogram addition), so zooming out never loses the tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Grouping {
    /// Keep the windows as recorded.
    Native,
    /// Merge adjacent windows until each group holds at least this many I/Os.
    MinIos(u64),
    /// Merge windows into groups of this many seconds.
    Seconds(f64),
    /// Merge adjacent windows so that at most this many points remain.
    Points(usize),
}

/// Which direction(s) a series is about.
#[derive(Clone, Debug, PartialEq)]
pub enum Direction {
    /// One tag (`None` = untagged).
    Tag(Option<String>),
    /// Every direction tag merged, window by window.
    All,
}

/// One point of a runtime series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    pub start_s: f64,
    pub length_s: f64,
    pub count: u64,
    pub iops: f64,
    pub p50_ns: Option<u64>,
    /// Value and support per requested level; `None` where no I/O lies beyond the level.
    pub levels: Vec<(Option<u64>, Support)>,
    pub max_ns: Option<u64>,
}

/// The windows of one direction, in time order. For [`Direction::All`], windows of every
/// direction tag that start at the same time are merged.
pub fn direction_windows(run: &Run, dir: &Direction) -> Vec<Window> {
    let mut ws: Vec<&Window> = match dir {
        Direction::Tag(t) => run.windows_of(t.as_deref()).collect(),
        Direction::All => run.windows.iter().filter(|w| is_direction(w.tag.as_deref())).collect(),
    };
    crate::sort::sort_by_f64(&mut ws, |w| w.start_s);
    if matches!(dir, Direction::Tag(_)) {
        return ws.into_iter().cloned().collect();
    }
    let mut out: Vec<Window> = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        let mut j = i + 1;
        while j < ws.len() && (ws[j].start_s - ws[i].start_s).abs() < 1e-6 {
            j += 1;
        }
        out.push(merge_group(&ws[i..j], None));
        i = j;
    }
    out
}

fn merge_group(group: &[&Window], tag: Option<Option<String>>) -> Window {
    let mut acc = Accumulator::new(group[0].hist.layout());
    for w in group {
        acc.add(&w.hist);
    }
    let start = group.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let end = group.iter().map(|w| w.end_s()).fold(f64::NEG_INFINITY, f64::max);
    Window { start_s: start, length_s: end - start, tag: tag.unwrap_or_else(|| group[0].tag.clone()), hist: acc.finish() }
}

/// Regroup time-ordered windows of one direction.
pub fn regroup(windows: &[Window], g: Grouping) -> Vec<Window> {
    if windows.is_empty() {
        return Vec::new();
    }
    let refs: Vec<&Window> = windows.iter().collect();
    let mut groups: Vec<&[&Window]> = Vec::new();
    match g {
        Grouping::Native => return windows.to_vec(),
        Grouping::Points(k) => {
            let size = windows.len().div_ceil(k.max(1));
            groups.extend(refs.chunks(size));
        }
        Grouping::Seconds(t) => {
            let t0 = windows[0].start_s;
            let key = |w: &Window| ((w.start_s - t0) / t.max(1e-9) + 1e-9).floor() as i64;
            let mut i = 0;
            while i < refs.len() {
                let k = key(refs[i]);
                let mut j = i + 1;
                while j < refs.len() && key(refs[j]) == k {
                    j += 1;
                }
                groups.push(&refs[i..j]);
                i = j;
            }
        }
        Grouping::MinIos(n) => {
            let mut i = 0;
            while i < refs.len() {
                let mut j = i;
                let mut c = 0;
                while j < refs.len() && (c < n || j == i) {
                    c += refs[j].hist.count();
                    j += 1;
                }
                // a short tail joins the group before it
                if c < n && !groups.is_empty() && j == refs.len() {
                    let prev = groups.pop().unwrap();
                    let start = i - prev.len();
                    groups.push(&refs[start..j]);
                } else {
                    groups.push(&refs[i..j]);
                }
                i = j;
            }
        }
    }
    groups.into_iter().map(|grp| merge_group(grp, None)).collect()
}

/// Compute the runtime series of a direction.
pub fn runtime_series(run: &Run, dir: &Direction, levels: &[Level], g: Grouping) -> Vec<SeriesPoint> {
    let windows = regroup(&direction_windows(run, dir), g);
    let median = Level { label: "p50".into(), num: 1, den: 2 };
    windows
        .iter()
        .map(|w| {
            let h = &w.hist;
            let value = |l: &Level| {
                let s = level_stat_fast(h, l);
                (s.0, s.1)
            };
            SeriesPoint {
                start_s: w.start_s,
                length_s: w.length_s,
                count: h.count(),
                iops: if w.length_s > 0.0 { h.count() as f64 / w.length_s } else { 0.0 },
                p50_ns: value(&median).0,
                levels: levels.iter().map(value).collect(),
                max_ns: if h.is_empty() { None } else { Some(h.max()) },
            }
        })
        .collect()
}

/// Value and support of a level without its confidence interval (series need many).
fn level_stat_fast(h: &crate::hist::Hist, l: &Level) -> (Option<u64>, Support) {
    let n = h.count();
    let beyond = n.saturating_sub(l.rank(n));
    let support = if n == 0 { Support::None } else { Support::of(beyond) };
    match support {
        Support::None => (None, support),
        _ => (crate::quantile::value_at(h, l), support),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::quantile::level_stat;
    use crate::stats::merge_windows;

    fn run(n: usize) -> Run {
        let l = Layout::default_ns();
        let mut windows = Vec::new();
        for s in 0..n {
            for (tag, k) in [("read", 700u64), ("write", 300)] {
                windows.push(Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: Some(tag.into()),
                    hist: Hist::from_values(l, (0..k).map(|i| 10_000 + i * 97 + s as u64 * 11)),
                });
            }
        }
        Run { windows, ..Run::default() }
    }

    #[test]
    fn regrouping_is_exact() {
        let r = run(10);
        let reads = direction_windows(&r, &Direction::Tag(Some("read".into())));
        let total = merge_windows(reads.iter()).unwrap();
        for g in [Grouping::Native, Grouping::Points(3), Grouping::Seconds(4.0), Grouping::MinIos(2000)] {
            let groups = regroup(&reads, g);
            assert_eq!(merge_windows(groups.iter()).unwrap(), total, "{g:?}");
        }
        assert_eq!(regroup(&reads, Grouping::Points(3)).len(), 3);
        assert_eq!(regroup(&reads, Grouping::Seconds(4.0)).len(), 3);
        let by_ios = regroup(&reads, Grouping::MinIos(2000));
        assert!(by_ios.iter().all(|w| w.hist.count() >= 2000), "{:?}", by_ios.iter().map(|w| w.hist.count()).collect::<Vec<_>>());
        assert_eq!(by_ios.len(), 3);
    }

    #[test]
    fn all_direction_merges_per_window() {
        let r = run(5);
        let all = direction_windows(&r, &Direction::All);
        assert_eq!(all.len(), 5);
        assert!(all.iter().all(|w| w.hist.count() == 1000));
        let s = runtime_series(&r, &Direction::All, &[Level::nines(2), Level::nines(4)], Grouping::Native);
        assert_eq!(s.len(), 5);
        assert_eq!(s[0].iops, 1000.0);
        assert_eq!(s[0].levels[0].1, Support::Thin);
        assert_eq!(s[0].levels[1].1, Support::None);
        let full = level_stat(&all[0].hist, &Level::nines(2));
        assert_eq!((full.value_ns, full.support), level_stat_fast(&all[0].hist, &Level::nines(2)));
    }
}
