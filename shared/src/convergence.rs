//! The steady-state check of a finished run, as the SNIA PTS asks a report to show it: the
//! tracked result per round, the measurement window of the last N rounds with its limits
//! (range <= 20% of the average, the fitted line's change across the window <= 10% of it),
//! when the rule first held, and fio-style criteria over the same rounds.

use serde::Serialize;

use crate::quantile::{value_at, Level, Support};
use crate::run::Run;
use crate::series::{direction_windows, regroup, Direction, Grouping};
use crate::steady::{evaluate, pts, pts_first_steady, Criterion, Evaluation, Metric, PtsEvaluation};

/// What is tracked per round.
#[derive(Clone, Debug, PartialEq)]
pub enum Track {
    Iops,
    /// MB/s from IOPS and the run's bytes per I/O.
    Bw,
    /// Mean latency, ns.
    Mean,
    /// A level of nines, ns.
    Level(Level),
}

/// A `--track` that names nothing a run can be tracked by (the text as written).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot track {0:?}: expected iops, bw, mean or a level such as p99 or p99.99")]
pub struct TrackError(pub String);

impl std::str::FromStr for Track {
    type Err = TrackError;
    fn from_str(s: &str) -> Result<Track, TrackError> {
        match s {
            "iops" => Ok(Track::Iops),
            "bw" => Ok(Track::Bw),
            "mean" | "lat" => Ok(Track::Mean),
            _ => {
                let q = s.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()).map(|p| p / 100.0);
                q.and_then(Level::from_quantile).filter(|l| l.num < l.den).map(Track::Level).ok_or_else(|| TrackError(s.to_string()))
            }
        }
    }
}

impl Track {
    pub fn label(&self) -> String {
        match self {
            Track::Iops => "IOPS".into(),
            Track::Bw => "MB/s".into(),
            Track::Mean => "mean latency".into(),
            Track::Level(l) => l.label.clone(),
        }
    }
}

/// Why the check could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SteadyError {
    /// Fewer rounds than the measurement window.
    #[error("{have} rounds, fewer than the {need} the measurement window needs; use --rounds {have} or shorter rounds")]
    TooFewRounds { have: usize, need: usize },
    /// MB/s needs the bytes per I/O.
    #[error("the run does not record its block size, so MB/s cannot be tracked; track iops instead")]
    NoBlockSize,
    /// A fio criterion on a metric that this run cannot give.
    #[error("criterion {0} tracks bandwidth, which needs the run's block size")]
    CriterionNeedsBw(String),
}

/// One round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    pub start_s: f64,
    pub length_s: f64,
    pub count: u64,
    /// The tracked value; `None` where a level has no I/O beyond it in this round.
    pub value: Option<f64>,
}

/// A fio-style criterion over the measurement window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CriterionResult {
    pub criterion: String,
    pub last: Option<Evaluation>,
    /// Rounds after which the criterion first held (a run with `--steady` would have stopped).
    pub first_steady_after: Option<usize>,
}

/// The steady-state report of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SteadyReport {
    pub track: String,
    pub direction: String,
    pub rounds: Vec<Round>,
    /// Rounds in the measurement window (the PTS uses 5).
    pub window: usize,
    /// The PTS rule over the last `window` rounds.
    pub last: Option<PtsEvaluation>,
    /// Rounds after which the PTS rule first held.
    pub first_steady_after: Option<usize>,
    pub criteria: Vec<CriterionResult>,
}

/// Check steady state over a run's rounds. `round` groups windows into rounds (windows as
/// recorded with [`Grouping::Native`]).
pub fn steady_report(
    run: &Run,
    dir: &Direction,
    track: &Track,
    window: usize,
    round: Grouping,
    criteria: &[Criterion],
) -> Result<SteadyReport, SteadyError> {
    let tag = match dir {
        Direction::All => None,
        Direction::Tag(t) => t.as_deref(),
    };
    let bytes = crate::bandwidth::bytes_per_io(run, tag);
    if *track == Track::Bw && bytes.is_none() {
        return Err(SteadyError::NoBlockSize);
    }
    // a partial last window (a per-I/O import's, cut at its last I/O) is no round: its rate is
    // not over a window (Run::is_partial)
    let mut whole = direction_windows(run, dir);
    whole.retain(|w| !run.is_partial(w));
    let windows = regroup(&whole, round);
    let rounds: Vec<Round> = windows
        .iter()
        .map(|w| {
            let n = w.hist.count();
            let iops = if w.length_s > 0.0 { n as f64 / w.length_s } else { 0.0 };
            let value = match track {
                Track::Iops => Some(iops),
                Track::Bw => bytes.map(|b| crate::bandwidth::mb_per_s(iops, b)),
                Track::Mean => (n > 0).then(|| w.hist.mean()),
                Track::Level(l) => {
                    let beyond = n.saturating_sub(l.rank(n));
                    (n > 0 && Support::of(beyond) != Support::None).then(|| value_at(&w.hist, l)).flatten().map(|v| v as f64)
                }
            };
            Round { start_s: w.start_s, length_s: w.length_s, count: n, value }
        })
        .collect();
    if rounds.len() < window.max(2) {
        return Err(SteadyError::TooFewRounds { have: rounds.len(), need: window.max(2) });
    }
    let values: Vec<f64> = rounds.iter().map(|r| r.value.unwrap_or(f64::NAN)).collect();
    let last = pts(&values[values.len() - window..]);
    let first_steady_after = pts_first_steady(&values, window);
    let sample_s = rounds.iter().map(|r| r.length_s).sum::<f64>() / rounds.len() as f64;
    let mut results = Vec::new();
    for c in criteria {
        let series: Vec<f64> = match c.metric {
            Metric::Iops => rounds.iter().map(|r| r.count as f64 / r.length_s.max(1e-12)).collect(),
            Metric::Bw => {
                let b = bytes.ok_or_else(|| SteadyError::CriterionNeedsBw(c.to_string()))?;
                rounds.iter().map(|r| r.count as f64 / r.length_s.max(1e-12) * b).collect()
            }
            Metric::Lat => windows.iter().map(|w| if w.hist.is_empty() { f64::NAN } else { w.hist.mean() }).collect(),
        };
        results.push(CriterionResult {
            criterion: c.to_string(),
            last: evaluate(c, &series[series.len() - window..], sample_s),
            first_steady_after: crate::steady::first_steady(c, &series, window, sample_s),
        });
    }
    let direction = match dir {
        Direction::All => crate::run::ALL.to_string(),
        Direction::Tag(t) => crate::stats::tag_name(t.as_deref()).to_string(),
    };
    Ok(SteadyReport { track: track.label(), direction, rounds, window, last, first_steady_after, criteria: results })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::Window;

    /// A run whose IOPS per one-second round are given.
    fn run(iops: &[u64]) -> Run {
        let l = Layout::default_ns();
        let windows = iops
            .iter()
            .enumerate()
            .map(|(s, &n)| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("write".into()),
                hist: Hist::from_values(l, (0..n).map(|i| 50_000 + i % 997)),
            })
            .collect();
        Run { windows, ..Run::default() }
    }

    #[test]
    fn lopsided_window_pts_holds_but_fio_deviation_does_not() {
        // From fresh to steady; the last five rounds range from 14% over to 5% under their mean,
        // the lopsided window of "SSD Benchmarking 201, Part 2: Steady State and Tail Latency".
        let r = run(&[300_000, 200_000, 150_000, 100_000, 95_000, 114_000, 95_500, 95_500]);
        let crit: Vec<Criterion> = vec!["iops:10%".parse().unwrap(), "iops_slope:0.1%".parse().unwrap()];
        let rep = steady_report(&r, &Direction::All, &Track::Iops, 5, Grouping::Native, &crit).unwrap();
        let p = rep.last.unwrap();
        assert!(p.range_ok && p.holds, "{p:?}");
        assert_eq!(rep.first_steady_after, Some(8));
        assert!(!rep.criteria[0].last.as_ref().unwrap().holds);
        let text = crate::export::text::steady(&rep);
        assert!(text.starts_with("steady: yes, over rounds 4..8"), "{text}");
        assert!(text.contains("fio iops:10%: does not hold"), "{text}");
    }

    #[test]
    fn drifting_run_is_not_steady() {
        let r = run(&[100_000, 104_000, 108_000, 112_000, 116_000, 120_000]);
        let rep = steady_report(&r, &Direction::All, &Track::Iops, 5, Grouping::Native, &[]).unwrap();
        let p = rep.last.unwrap();
        assert!(p.range_ok && !p.slope_ok, "{p:?}"); // range 14%, line moves 14%
        assert!(crate::export::text::steady(&rep).starts_with("steady: no"));
    }

    #[test]
    fn errors_and_tracks() {
        let r = run(&[1000, 1000, 1000]);
        assert_eq!(
            steady_report(&r, &Direction::All, &Track::Iops, 5, Grouping::Native, &[]).unwrap_err(),
            SteadyError::TooFewRounds { have: 3, need: 5 }
        );
        assert_eq!(steady_report(&r, &Direction::All, &Track::Bw, 2, Grouping::Native, &[]).unwrap_err(), SteadyError::NoBlockSize);
        assert_eq!("p99.9".parse::<Track>().unwrap(), Track::Level(Level::nines(3)));
        assert!("p100".parse::<Track>().is_err());
        let rep = steady_report(&r, &Direction::All, &"p99".parse().unwrap(), 3, Grouping::Native, &[]).unwrap();
        assert!(rep.last.unwrap().holds);
    }
}
