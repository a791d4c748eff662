//! Steady state as a pure function of per-window values, so the collector (to stop a run early)
//! and the viewer (to recompute it when a threshold changes) use the same code.
//!
//! Two families of rules:
//!
//! - **fio's criteria** (`--steadystate` in fio, `--steady` in nines), after fio's
//!   `steadystate.c`: over a rolling window of samples of IOPS, bandwidth or mean latency,
//!   - `iops:L`, `bw:L`, `lat:L` (deviation): every sample lies within `L` of the window's mean,
//!     i.e. `max |y_i - mean| < L`;
//!   - `iops_slope:L`, `bw_slope:L`, `lat_slope:L`: the least-squares slope, per second, is
//!     below `L` in absolute value.
//!
//!   `L` is absolute (IOPS, bytes/s, ns; for slopes per second) or, with a `%` suffix, a
//!   percentage of the window's mean. As in fio, the comparison is strict.
//! - **SNIA PTS** (its steady-state section, as "SSD Benchmarking 201, Part 2: Steady State
//!   and Tail Latency" applies it): over a window of rounds (5 in the PTS) the range of the tracked
//!   value (max - min) is no more than 20% of its average, and the least-squares line's change
//!   across the window (slope times the window's span) is no more than 10% of the average (the
//!   PTS 2.0.2 definition of steady state: both limits are inclusive).
//!
//! ```
//! use nines_core::steady::{Criterion, evaluate, pts};
//! let iops = [100.0, 95.0, 114.0, 95.5, 95.5];
//! // One sample is 14% above the mean: fio's iops:10% does not hold...
//! assert!(!evaluate(&"iops:10%".parse::<Criterion>().unwrap(), &iops, 1.0).unwrap().holds);
//! // ...but the range is 19% of the average, so the PTS rule does.
//! assert!(pts(&iops).unwrap().holds);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// What a criterion tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// I/Os per second of all directions.
    Iops,
    /// Bytes per second of all directions.
    Bw,
    /// Mean completion latency in nanoseconds.
    Lat,
}

/// Which test a criterion applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Every sample within the limit of the mean.
    Deviation,
    /// Least-squares slope (per second) below the limit.
    Slope,
}

/// A limit: absolute, in the metric's unit (per second for slopes), or a percentage of the mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Absolute(f64),
    Percent(f64),
}

/// A fio-style steady-state criterion, e.g. `iops:10%` or `iops_slope:0.1%`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Criterion {
    pub metric: Metric,
    pub test: Test,
    pub limit: Limit,
}

/// Why a criterion could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CriterionError {
    /// No `:` between the name and the limit.
    #[error("steady-state criterion {0:?} has no limit; write it like iops:10% or iops_slope:0.1%")]
    NoLimit(String),
    /// The name is not one of the six criteria.
    #[error("unknown steady-state criterion {0:?}; expected iops, iops_slope, bw, bw_slope, lat or lat_slope")]
    Name(String),
    /// The limit is not a positive number.
    #[error("steady-state limit {0:?} is not a positive number (optionally followed by %)")]
    Limit(String),
}

impl FromStr for Criterion {
    type Err = CriterionError;
    fn from_str(s: &str) -> Result<Criterion, CriterionError> {
        let (name, limit) = s.split_once(':').ok_or_else(|| CriterionError::NoLimit(s.to_string()))?;
        let (metric, test) = match name.trim().to_ascii_lowercase().as_str() {
            "iops" => (Metric::Iops, Test::Deviation),
            "iops_slope" => (Metric::Iops, Test::Slope),
            "bw" => (Metric::Bw, Test::Deviation),
            "bw_slope" => (Metric::Bw, Test::Slope),
            "lat" => (Metric::Lat, Test::Deviation),
            "lat_slope" => (Metric::Lat, Test::Slope),
            _ => return Err(CriterionError::Name(name.to_string())),
        };
        let l = limit.trim();
        let (num, pct) = match l.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (l, false),
        };
        let v: f64 = num.parse().map_err(|_| CriterionError::Limit(limit.to_string()))?;
        if !v.is_finite() || v <= 0.0 {
            return Err(CriterionError::Limit(limit.to_string()));
        }
        let limit = if pct { Limit::Percent(v) } else { Limit::Absolute(v) };
        Ok(Criterion { metric, test, limit })
    }
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = match self.metric {
            Metric::Iops => "iops",
            Metric::Bw => "bw",
            Metric::Lat => "lat",
        };
        let t = match self.test {
            Test::Deviation => "",
            Test::Slope => "_slope",
        };
        match self.limit {
            Limit::Absolute(v) => write!(f, "{m}{t}:{v}"),
            Limit::Percent(v) => write!(f, "{m}{t}:{v}%"),
        }
    }
}

/// The result of applying a criterion to a window of samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    /// Mean of the samples.
    pub mean: f64,
    /// Largest absolute deviation from the mean (deviation test) or the least-squares slope
    /// per second (slope test), in the metric's unit.
    pub measure: f64,
    /// What was compared with the limit: `measure` itself, or its absolute value as a
    /// percentage of the mean for a percent limit.
    pub criterion: f64,
    /// The criterion holds: `|criterion| < limit`.
    pub holds: bool,
}

/// Least-squares slope of `ys` against their index (0, 1, 2, ...). `None` for fewer than two.
pub fn slope(ys: &[f64]) -> Option<f64> {
    let n = ys.len();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let xm = (nf - 1.0) / 2.0;
    let ym = ys.iter().sum::<f64>() / nf;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in ys.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - ym);
        sxx += dx * dx;
    }
    Some(sxy / sxx)
}

/// Apply a fio-style criterion to a window of samples taken every `sample_s` seconds.
/// `None` when there are fewer than two samples, a sample is not finite, or `sample_s` is not
/// positive. A percent limit with a mean of zero never holds.
pub fn evaluate(c: &Criterion, values: &[f64], sample_s: f64) -> Option<Evaluation> {
    if values.len() < 2 || values.iter().any(|v| !v.is_finite()) || sample_s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let measure = match c.test {
        Test::Deviation => values.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max),
        Test::Slope => slope(values)? / sample_s,
    };
    let (criterion, holds) = match c.limit {
        Limit::Absolute(l) => (measure, measure.abs() < l),
        Limit::Percent(l) => {
            if mean == 0.0 {
                (f64::INFINITY, false)
            } else {
                let p = 100.0 * measure / mean;
                (p, p.abs() < l)
            }
        }
    };
    Some(Evaluation { mean, measure, criterion, holds })
}

/// The first end index `e` (exclusive, `e >= n`) such that the criterion holds over
/// `values[e - n..e]`: with one sample per window, the number of windows after which a run
/// using a rolling window of `n` samples would have stopped.
pub fn first_steady(c: &Criterion, values: &[f64], n: usize, sample_s: f64) -> Option<usize> {
    if n < 2 {
        return None;
    }
    (n..=values.len()).find(|&e| evaluate(c, &values[e - n..e], sample_s).is_some_and(|ev| ev.holds))
}

/// The SNIA PTS steady-state test over a window of rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PtsEvaluation {
    /// Average of the tracked value over the window.
    pub average: f64,
    /// Largest minus smallest value.
    pub range: f64,
    /// Least-squares slope per round.
    pub slope: f64,
    /// The fitted line's change across the window: |slope| x (rounds - 1).
    pub excursion: f64,
    /// `range <= 20%` of the average.
    pub range_ok: bool,
    /// `excursion <= 10%` of the average.
    pub slope_ok: bool,
    /// Both limits hold.
    pub holds: bool,
}

impl PtsEvaluation {
    /// The fitted line's value at the first and the last of the window's `rounds` rounds (the
    /// least-squares line passes through the window's centre at its average).
    pub fn fitted_ends(&self, rounds: usize) -> (f64, f64) {
        let half = self.slope * (rounds.max(1) - 1) as f64 / 2.0;
        (self.average - half, self.average + half)
    }
}

/// Apply the SNIA PTS rule to a window of rounds. `None` for fewer than two rounds, a
/// non-finite value or a non-positive average.
pub fn pts(values: &[f64]) -> Option<PtsEvaluation> {
    if values.len() < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let average = values.iter().sum::<f64>() / values.len() as f64;
    if average <= 0.0 {
        return None;
    }
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let range = max - min;
    let slope = slope(values)?;
    let excursion = slope.abs() * (values.len() - 1) as f64;
    let range_ok = range <= 0.2 * average;
    let slope_ok = excursion <= 0.1 * average;
    Some(PtsEvaluation { average, range, slope, excursion, range_ok, slope_ok, holds: range_ok && slope_ok })
}

/// The first end index `e` (exclusive, `e >= rounds`) at which the PTS rule holds over the last
/// `rounds` values (the PTS uses 5).
pub fn pts_first_steady(values: &[f64], rounds: usize) -> Option<usize> {
    if rounds < 2 {
        return None;
    }
    (rounds..=values.len()).find(|&e| pts(&values[e - rounds..e]).is_some_and(|p| p.holds))
}

/// A stretch of windows over which the SNIA PTS steady-state rule holds.
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyRegion {
    /// First window (index into the values).
    pub first: usize,
    /// One past the last window.
    pub end: usize,
    /// Average of the values over the region: the band is drawn at 90% to 110% of it.
    pub average: f64,
}

/// Where a per-window value (IOPS, MB/s) is in steady state: every run of `rounds` consecutive
/// windows for which [`pts`] holds (range <= 20% of the average, fitted
/// excursion <= 10%), with overlapping runs joined into regions.
pub fn steady_regions(values: &[f64], rounds: usize) -> Vec<SteadyRegion> {
    let mut out: Vec<SteadyRegion> = Vec::new();
    if rounds < 2 || values.len() < rounds {
        return out;
    }
    for e in rounds..=values.len() {
        if !pts(&values[e - rounds..e]).is_some_and(|p| p.holds) {
            continue;
        }
        match out.last_mut() {
            Some(r) if r.end >= e - rounds => r.end = e,
            _ => out.push(SteadyRegion { first: e - rounds, end: e, average: 0.0 }),
        }
    }
    for r in &mut out {
        r.average = values[r.first..r.end].iter().sum::<f64>() / (r.end - r.first) as f64;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Criterion {
        s.parse().unwrap()
    }

    #[test]
    fn parses_fio_criteria() {
        assert_eq!(c("iops:10%"), Criterion { metric: Metric::Iops, test: Test::Deviation, limit: Limit::Percent(10.0) });
        assert_eq!(c("iops_slope:0.1%"), Criterion { metric: Metric::Iops, test: Test::Slope, limit: Limit::Percent(0.1) });
        assert_eq!(c("bw:5000000"), Criterion { metric: Metric::Bw, test: Test::Deviation, limit: Limit::Absolute(5e6) });
        assert_eq!(c("lat_slope:20").test, Test::Slope);
        assert_eq!(c("iops_slope:0.1%").to_string(), "iops_slope:0.1%");
        assert!(matches!("iops".parse::<Criterion>(), Err(CriterionError::NoLimit(_))));
        assert!(matches!("qd:1".parse::<Criterion>(), Err(CriterionError::Name(_))));
        assert!(matches!("iops:-3%".parse::<Criterion>(), Err(CriterionError::Limit(_))));
        assert!(matches!("iops:x".parse::<Criterion>(), Err(CriterionError::Limit(_))));
    }

    #[test]
    fn deviation_by_hand() {
        // mean 100, largest deviation 10 (110 and 90): 10% of the mean.
        let v = [100.0, 110.0, 90.0, 105.0, 95.0];
        let e = evaluate(&c("iops:10%"), &v, 1.0).unwrap();
        assert_eq!(e.mean, 100.0);
        assert_eq!(e.measure, 10.0);
        assert_eq!(e.criterion, 10.0);
        assert!(!e.holds, "fio compares strictly");
        assert!(evaluate(&c("iops:10.5%"), &v, 1.0).unwrap().holds);
        assert!(evaluate(&c("iops:11"), &v, 1.0).unwrap().holds);
        assert!(!evaluate(&c("iops:10"), &v, 1.0).unwrap().holds);
    }

    #[test]
    fn slope_by_hand() {
        // x - 2 = -2..2, y - 100 = 0, 10, -10, 5, -5: sum of products -15, sum of squares 10.
        let v = [100.0, 110.0, 90.0, 105.0, 95.0];
        assert_eq!(slope(&v), Some(-1.5));
        let e = evaluate(&c("iops_slope:2%"), &v, 1.0).unwrap();
        assert_eq!(e.measure, -1.5);
        assert_eq!(e.criterion, -1.5);
        assert!(e.holds);
        assert!(!evaluate(&c("iops_slope:1%"), &v, 1.0).unwrap().holds);
        // Samples every 0.5 s: the slope per second doubles.
        assert_eq!(evaluate(&c("iops_slope:1%"), &v, 0.5).unwrap().measure, -3.0);
        // A perfect line 10, 20, 30: slope 10 per sample.
        assert_eq!(slope(&[10.0, 20.0, 30.0]), Some(10.0));
        assert_eq!(slope(&[1.0]), None);
    }

    #[test]
    fn pts_by_hand() {
        // Range 20 is 20% of the average 100: "no more than 20%" holds at the limit...
        let p = pts(&[100.0, 110.0, 90.0, 105.0, 95.0]).unwrap();
        assert_eq!(p.range, 20.0);
        assert_eq!(p.excursion, 6.0);
        assert!(p.range_ok && p.slope_ok && p.holds);
        // ...and a range of 21 does not.
        let p = pts(&[100.0, 110.0, 89.0, 106.0, 95.0]).unwrap();
        assert_eq!(p.range, 21.0);
        assert!(!p.range_ok && !p.holds);
        // The lopsided window of "SSD Benchmarking 201, Part 2": 14% over the mean, 5% under.
        let v = [100.0, 95.0, 114.0, 95.5, 95.5];
        let p = pts(&v).unwrap();
        assert_eq!(p.range, 19.0);
        assert!((p.slope - -0.85).abs() < 1e-12);
        assert!(p.holds);
        assert!(!evaluate(&c("iops:10%"), &v, 1.0).unwrap().holds);
        // A steady rise: range 8% but the fitted line moves 12%.
        let p = pts(&[94.0, 97.0, 100.0, 103.0, 106.0]).unwrap();
        assert!(p.range_ok && !p.slope_ok && !p.holds);
        assert_eq!(p.excursion, 12.0);
        // the fitted line runs through the points of an exact line
        assert_eq!(p.fitted_ends(5), (94.0, 106.0));
    }

    #[test]
    fn first_steady_windows() {
        // A drive that starts fast and settles at 100.
        let v = [300.0, 200.0, 150.0, 101.0, 99.0, 100.0, 100.5, 99.5, 100.0];
        assert_eq!(first_steady(&c("iops:5%"), &v, 3, 1.0), Some(6));
        assert_eq!(pts_first_steady(&v, 5), Some(8));
        assert_eq!(first_steady(&c("iops:5%"), &v[..4], 3, 1.0), None);
        assert_eq!(first_steady(&c("iops:5%"), &v, 1, 1.0), None);
    }

    #[test]
    fn degenerate_input() {
        assert!(evaluate(&c("iops:10%"), &[0.0, 0.0], 1.0).is_some_and(|e| !e.holds));
        assert!(evaluate(&c("iops:10%"), &[1.0, f64::NAN], 1.0).is_none());
        assert!(evaluate(&c("iops:10%"), &[1.0, 2.0], 0.0).is_none());
        assert!(pts(&[0.0, 0.0]).is_none());
    }

    #[test]
    fn steady_regions_skip_a_disturbed_stretch() {
        let mut v = vec![1000.0; 30];
        for (i, x) in v.iter_mut().enumerate().take(18).skip(12) {
            *x = if i % 2 == 0 { 400.0 } else { 1500.0 };
        }
        let r = steady_regions(&v, 5);
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!((r[0].first, r[0].end, r[0].average), (0, 12, 1000.0));
        assert_eq!((r[1].first, r[1].end), (18, 30));
        // a ramp that never settles within 10%
        let ramp: Vec<f64> = (0..20).map(|i| 100.0 + 10.0 * i as f64).collect();
        assert!(steady_regions(&ramp, 5).is_empty());
        assert!(steady_regions(&v[..3], 5).is_empty());
    }
}
