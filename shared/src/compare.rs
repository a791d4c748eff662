//! Baseline against candidate: did the tail move, and by more than the measurement allows?
//!
//! Each side is one run or a set of runs. A side's interval for a level is:
//! - one run: the level's distribution-free 95% confidence interval ([`crate::quantile`]);
//! - several runs: their variability band, from the lowest to the highest value among the
//!   runs (the SDC talk "Latency is more than just a number": the run-to-run spread of high levels is larger than any one run's
//!   interval suggests).
//!
//! A change is called significant only when the two intervals do not overlap. A level that
//! has no interval on a side (too few I/Os beyond it for an upper bound, or missing in one of
//! the runs) is `unknown`: a 6-nines value driven by three I/Os is never called an
//! improvement. IOPS and the mean get intervals too: for one run, mean +- 1.96 standard errors
//! (IOPS: over its windows; mean latency: over its I/Os, by the central limit theorem); for
//! sets, the band across runs.
//!
//! A set is compared by its runs' values, never by adding histograms of different runs, so
//! no count can pass what one run holds (2^63 - 1, [`crate::run::Run::check_counts`]).

use serde::Serialize;

use crate::quantile::Support;
use crate::run::{is_direction, Run};
use crate::series::{direction_windows, Direction};
use crate::stats::{run_stats, tag_name, Options, RunStats, TagStats};

const Z95: f64 = 1.959_963_984_540_054;

/// One side's value of a measure, with its interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    /// Runs on this side that have a value.
    pub runs: usize,
    /// The value (one run) or the nearest-rank median across runs (several).
    pub value: Option<f64>,
    /// 95% interval (one run) or variability band (several); `None` when unknown.
    pub interval: Option<(f64, f64)>,
}

/// How the candidate compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Intervals do not overlap, and the candidate is better.
    Better,
    /// Intervals do not overlap, and the candidate is worse.
    Worse,
    /// Intervals overlap: the difference is within what the measurement allows.
    Same,
    /// A side has no interval: too few I/Os (or runs) to tell.
    Unknown,
}

/// A measure (IOPS, mean or a level) compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub label: String,
    pub base: Side,
    pub cand: Side,
    /// (candidate - baseline) / baseline, in percent.
    pub change_pct: Option<f64>,
    /// The intervals do not overlap.
    pub significant: bool,
    pub verdict: Verdict,
}

impl Change {
    /// An interval of this measure as a change from the baseline's value, in percent (the
    /// same arithmetic as `change_pct`); `None` without a baseline value or an interval.
    pub fn relative_pct(&self, interval: Option<(f64, f64)>) -> Option<(f64, f64)> {
        let b = self.base.value.filter(|b| *b != 0.0)?;
        interval.map(|(lo, hi)| ((lo - b) / b * 100.0, (hi - b) / b * 100.0))
    }
}

/// One direction compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TagComparison {
    pub tag: String,
    pub iops: Change,
    pub mean: Change,
    pub levels: Vec<Change>,
}

/// Baseline against candidate, per direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
    pub tags: Vec<TagComparison>,
    /// The settings in which the runs are not one workload ([`crate::workload_key`]), filled
    /// in by the caller that read the runs' keys; left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workload: Vec<crate::workload_key::Difference>,
}

fn overlap(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Nearest-rank median (the lower middle for an even count: never averaged).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    crate::sort::sort_by_f64(&mut v, |&x| x);
    Some(v[v.len().div_ceil(2) - 1])
}

/// One run's value of a measure and its interval.
pub type Measured = (Option<f64>, Option<(f64, f64)>);

/// Combine per-run (value, interval) into a side. `total` is the number of runs on the side:
/// a level missing in some run makes the band unknown.
fn side(per_run: &[Measured]) -> Side {
    let values: Vec<f64> = per_run.iter().filter_map(|p| p.0).collect();
    let runs = values.len();
    match per_run.len() {
        0 => Side { runs: 0, value: None, interval: None },
        1 => Side { runs, value: per_run[0].0, interval: per_run[0].1 },
        n => {
            let interval = if runs == n {
                let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                Some((lo, hi))
            } else {
                None
            };
            Side { runs, value: median(values), interval }
        }
    }
}

/// Compare two sides of one measure. `higher_is_better` for IOPS, not for latencies.
fn change(label: &str, base: Side, cand: Side, higher_is_better: bool) -> Change {
    let change_pct = match (base.value, cand.value) {
        (Some(b), Some(c)) if b != 0.0 => Some((c - b) / b * 100.0),
        _ => None,
    };
    let (significant, verdict) = match (base.interval, cand.interval, base.value, cand.value) {
        (Some(bi), Some(ci), Some(b), Some(c)) => {
            if overlap(bi, ci) {
                (false, Verdict::Same)
            } else if (c > b) == higher_is_better {
                (true, Verdict::Better)
            } else {
                (true, Verdict::Worse)
            }
        }
        _ => (false, Verdict::Unknown),
    };
    Change { label: label.to_string(), base, cand, change_pct, significant, verdict }
}

/// One run's measure (value and 95% interval) against another's, judged as [`compare`] judges
/// a change (the intervals overlap or not): what a trend across nightly runs asks of each.
pub fn measured_change(label: &str, base: Measured, cand: Measured, higher_is_better: bool) -> Change {
    change(label, side(&[base]), side(&[cand]), higher_is_better)
}

/// IOPS of one run and direction with a 95% interval over its windows.
fn iops_of(run: &Run, tag: &str, stats: &TagStats) -> Measured {
    let dir = if tag == crate::run::ALL {
        Direction::All
    } else {
        let t = run.tags().into_iter().find(|t| tag_name(t.as_deref()) == tag).flatten();
        Direction::Tag(t)
    };
    let rates: Vec<f64> = direction_windows(run, &dir)
        .iter()
        .filter(|w| w.length_s > 0.0 && !run.is_partial(w))
        .map(|w| w.hist.count() as f64 / w.length_s)
        .collect();
    let n = rates.len() as f64;
    if rates.len() < 2 {
        return (Some(stats.iops), None);
    }
    let mean = rates.iter().sum::<f64>() / n;
    let sd = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = Z95 * sd / n.sqrt();
    (Some(stats.iops), Some((stats.iops - half, stats.iops + half)))
}

fn mean_of(stats: &TagStats) -> Measured {
    if stats.count == 0 {
        return (None, None);
    }
    let half = Z95 * stats.stdev_ns / (stats.count as f64).sqrt();
    (Some(stats.mean_ns), Some((stats.mean_ns - half, stats.mean_ns + half)))
}

/// Compare baseline runs with candidate runs, per direction present on both sides.
/// Runs may be given owned or borrowed (`&[Run]` or `&[&Run]`).
pub fn compare<B: std::borrow::Borrow<Run>, C: std::borrow::Borrow<Run>>(base: &[B], cand: &[C], opts: &Options) -> Comparison {
    let base: Vec<&Run> = base.iter().map(|r| r.borrow()).collect();
    let cand: Vec<&Run> = cand.iter().map(|r| r.borrow()).collect();
    let bs: Vec<RunStats> = base.iter().map(|r| run_stats(r, opts)).collect();
    let cs: Vec<RunStats> = cand.iter().map(|r| run_stats(r, opts)).collect();
    compare_stats(&base, &bs, &cand, &cs, opts)
}

/// [`compare`] with each run's stats computed already (`run_stats(run, opts)`, the same
/// options), so that a caller holding them (the viewer's table) does not compute them again.
pub fn compare_stats<B: std::borrow::Borrow<RunStats>, C: std::borrow::Borrow<RunStats>>(
    base: &[&Run],
    bs: &[B],
    cand: &[&Run],
    cs: &[C],
    opts: &Options,
) -> Comparison {
    let b: Vec<Summary> = base.iter().zip(bs).map(|(r, s)| Summary::of(r, s.borrow().clone())).collect();
    let c: Vec<Summary> = cand.iter().zip(cs).map(|(r, s)| Summary::of(r, s.borrow().clone())).collect();
    compare_summaries(&b, &c, opts)
}

/// What a comparison needs of a run: its name, its stats and, per tag, its IOPS with the 95%
/// interval of its windows' rates. A few kilobytes whatever the run's length, so a caller
/// comparing many runs can read them one at a time and keep only these.
#[derive(Clone, Debug)]
pub struct Summary {
    pub name: String,
    pub stats: RunStats,
    iops: Vec<(String, Measured)>,
}

impl Summary {
    /// The summary of `run`, whose stats are `stats` (`run_stats(run, opts)`).
    pub fn of(run: &Run, stats: RunStats) -> Summary {
        let iops = stats.tags.iter().map(|(t, s)| (t.clone(), iops_of(run, t, s))).collect();
        Summary { name: run.name.clone(), stats, iops }
    }
}

/// [`compare`] of runs' [`Summary`]s.
pub fn compare_summaries(base: &[Summary], cand: &[Summary], opts: &Options) -> Comparison {
    let mut tags: Vec<String> = Vec::new();
    for s in base.iter().chain(cand.iter()) {
        for (t, _) in s.stats.tags.iter() {
            let on_both = base.iter().all(|r| r.stats.tags.get(t).is_some()) && cand.iter().all(|r| r.stats.tags.get(t).is_some());
            if on_both && !tags.contains(t) {
                tags.push(t.clone());
            }
        }
    }
    // directions first, then auxiliary measures, "all" last (as in stats)
    crate::sort::sort_by(&mut tags, |a, b| {
        let key = |t: &String| (t == crate::run::ALL, !is_direction(Some(t)));
        key(a).cmp(&key(b))
    });
    let per_side = |runs: &[Summary], tag: &str| {
        let iops: Vec<Measured> = runs.iter().map(|r| r.iops.iter().find(|(t, _)| t == tag).map_or((None, None), |(_, m)| *m)).collect();
        let mean: Vec<_> = runs.iter().map(|r| mean_of(&r.stats.tags[tag])).collect();
        let levels: Vec<Vec<_>> = (0..opts.levels.len())
            .map(|i| {
                runs.iter()
                    .map(|r| {
                        let l = &r.stats.tags[tag].levels[i];
                        let v = if l.support == Support::None { None } else { l.value_ns.map(|v| v as f64) };
                        (v, l.ci95_ns.map(|(a, b)| (a as f64, b as f64)))
                    })
                    .collect()
            })
            .collect();
        (iops, mean, levels)
    };
    let tags = tags
        .into_iter()
        .map(|tag| {
            let (bi, bm, bl) = per_side(base, &tag);
            let (ci, cm, cl) = per_side(cand, &tag);
            TagComparison {
                iops: change("IOPS", side(&bi), side(&ci), true),
                mean: change("mean", side(&bm), side(&cm), false),
                levels: opts.levels.iter().enumerate().map(|(i, l)| change(&l.label, side(&bl[i]), side(&cl[i]), false)).collect(),
                tag,
            }
        })
        .collect();
    Comparison {
        baseline: base.iter().map(|r| r.name.clone()).collect(),
        candidate: cand.iter().map(|r| r.name.clone()).collect(),
        tags,
        workload: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::Window;

    /// A run of `windows` one-second windows of `per` reads each, latencies from `f(i)`.
    fn run(name: &str, windows: usize, per: u64, f: impl Fn(u64) -> u64) -> Run {
        let l = Layout::default_ns();
        let ws = (0..windows)
            .map(|s| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("read".into()),
                hist: Hist::from_values(l, (0..per).map(|i| f(i * windows as u64 + s as u64))),
            })
            .collect();
        Run { name: name.into(), source: name.into(), windows: ws, ..Run::default() }
    }

    #[test]
    fn a_partial_last_window_is_no_rate_in_the_iops_interval() {
        // 200 reads in each of five whole seconds, then 102 in [5.0 s, 5.5 s) of a list
        let mut text = String::from("time,latency_us\n");
        for i in 0..1000 {
            text.push_str(&format!("{:.4},100\n", i as f64 / 200.0));
        }
        for i in 0..102 {
            text.push_str(&format!("{:.4},100\n", 5.0 + i as f64 / 204.0));
        }
        let r = crate::import::list::read("l.csv", text.as_bytes(), None, 1.0).unwrap();
        let s = run_stats(&r, &Options::default());
        let all = s.tags.iter().find(|(t, _)| t == crate::run::ALL).unwrap().1.clone();
        let (value, interval) = iops_of(&r, crate::run::ALL, &all);
        // the five whole windows' rates are equal: no spread from 102 / 0.495 s = 206 IOPS
        let (lo, hi) = interval.unwrap();
        assert_eq!((value, lo, hi), (Some(all.iops), all.iops, all.iops));
    }

    /// Latencies whose tail is set by `tail`: 1 in 1000 I/Os takes `tail` ns.
    fn lat(tail: u64) -> impl Fn(u64) -> u64 {
        move |i| if i % 1000 == 999 { tail + (i % 7) * 1000 } else { 100_000 + (i * 7919) % 50_000 }
    }

    #[test]
    fn a_real_change_is_significant() {
        let base = run("base", 10, 100_000, lat(5_000_000));
        let cand = run("cand", 10, 100_000, lat(2_000_000));
        let c = compare(&[base], &[cand], &Options::default());
        let read = &c.tags[0];
        assert_eq!(read.tag, "read");
        let p9999 = read.levels.iter().find(|l| l.label == "p99.99").unwrap();
        assert_eq!(p9999.verdict, Verdict::Better, "{p9999:?}");
        assert!(p9999.change_pct.unwrap() < -50.0);
        let p50 = read.levels.iter().find(|l| l.label == "p50").unwrap();
        assert_eq!(p50.verdict, Verdict::Same, "{p50:?}");
    }

    #[test]
    fn a_level_driven_by_three_ios_is_not_an_improvement() {
        // 3,000 I/Os: p99.9 has 3 I/Os beyond it. The candidate's tail is lower, but the
        // interval has no upper bound: unknown, not better.
        let tail6 = |tail: u64| move |i: u64| if i % 500 == 499 { tail + i } else { 100_000 + (i * 7919) % 50_000 };
        let base = run("base", 1, 3_000, tail6(9_000_000));
        let cand = run("cand", 1, 3_000, tail6(4_000_000));
        let c = compare(&[base], &[cand], &Options::default());
        let l = c.tags[0].levels.iter().find(|l| l.label == "p99.9").unwrap();
        assert!(l.change_pct.unwrap() < -40.0);
        assert_eq!(l.verdict, Verdict::Unknown, "{l:?}");
        assert!(!l.significant);
    }

    #[test]
    fn sets_compare_by_their_band() {
        let base: Vec<Run> = [100_000u64, 104_000, 98_000].iter().map(|&b| run("b", 5, 20_000, move |i| b + (i * 7919) % 50_000)).collect();
        let overlapping: Vec<Run> = [101_000u64, 97_000].iter().map(|&b| run("c", 5, 20_000, move |i| b + (i * 7919) % 50_000)).collect();
        let c = compare(&base, &overlapping, &Options::default());
        let p50 = &c.tags[0].levels[0];
        assert_eq!(p50.base.runs, 3);
        assert_eq!(p50.verdict, Verdict::Same, "{p50:?}");
        let slower: Vec<Run> = [130_000u64, 128_000].iter().map(|&b| run("c", 5, 20_000, move |i| b + (i * 7919) % 50_000)).collect();
        let c = compare(&base, &slower, &Options::default());
        assert_eq!(c.tags[0].levels[0].verdict, Verdict::Worse);
        assert!(crate::export::text::comparison(&c).contains("run band"));
    }

    #[test]
    fn iops_interval_from_windows() {
        let base = run("base", 20, 10_000, lat(1_000_000));
        let cand = run("cand", 20, 12_000, lat(1_000_000));
        let c = compare(&[base], &[cand], &Options::default());
        assert_eq!(c.tags[0].iops.verdict, Verdict::Better);
        assert!((c.tags[0].iops.change_pct.unwrap() - 20.0).abs() < 1e-9);
        let text = crate::export::text::comparison(&c);
        assert!(text.contains("IOPS") && text.contains("+20.0%") && text.contains("better"), "{text}");
    }
}
