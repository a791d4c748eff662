//! Levels of nines that never interpolate, with their support and confidence interval.
//!
//! The value at quantile q of N recorded I/Os is the value of the I/O at rank ceil(q*N)
//! (nearest rank, "next higher"), reported as the upper bound of its histogram bucket so it
//! never understates a latency. Ranks are computed in exact integer arithmetic: q*N in floating
//! point turns 0.9 * 10 into 9.000000000000002 and would pick the 10th I/O.
//!
//! Support: `beyond = N - rank` I/Os lie above the level. With none beyond, the level would just
//! repeat the maximum and is not shown; below 100 it is shown but marked thin; from 100 on it is
//! reliable (after the SDC talk "Latency is more than just a number": a level needs ~100x its bare minimum of I/Os).
//!
//! Confidence interval: distribution-free, from order statistics. The number of I/Os above the
//! true quantile is Binomial(N, 1-q); the 95% interval is the pair of order statistics whose
//! ranks leave at most 2.5% probability on each side (Hahn & Meeker, "Statistical Intervals",
//! 1991, section 5.2). The binomial is summed exactly when its variance is at most 1,000 and
//! taken as normal (widened by one rank each side) above that. The ranks are mapped to the
//! recorded values: lower bound = lower edge of its bucket, upper = upper edge.

use serde::Serialize;

use crate::hist::Hist;

/// A quantile as an exact fraction `num/den`, with its display label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    pub label: String,
    pub num: u64,
    pub den: u64,
}

impl Level {
    /// The level of `k` nines: 1 - 10^-k (k = 1..=12). `nines(3)` is p99.9.
    pub fn nines(k: u32) -> Level {
        assert!((1..=12).contains(&k), "1 to 12 nines");
        let den = 10_u64.pow(k);
        Level { label: label_of(den - 1, den), num: den - 1, den }
    }

    /// `k` when this is the level of `k` nines ([`Level::nines`]), else `None`.
    pub fn nines_count(&self) -> Option<u32> {
        (1..=12).find(|&k| *self == Level::nines(k))
    }

    /// Whether this is the median (1/2, however the fraction is written).
    pub fn is_median(&self) -> bool {
        u128::from(self.num) * 2 == u128::from(self.den)
    }

    /// The level at quantile `q` in (0, 1]: represented exactly when it has at most 12
    /// decimals, rounded to 12 decimals otherwise. `None` outside (0, 1].
    pub fn from_quantile(q: f64) -> Option<Level> {
        if !(q > 0.0 && q <= 1.0) {
            return None;
        }
        for k in 0..=12_u32 {
            let den = 10_u64.pow(k);
            let num = (q * den as f64).round();
            if (num / den as f64 - q).abs() <= 1e-15 || k == 12 {
                let num = num as u64;
                return Some(Level { label: label_of(num, den), num, den });
            }
        }
        None
    }

    /// The quantile as a float in [0, 1] (for display and JSON).
    pub fn quantile(&self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Rank (1-based, ascending) of the I/O at this level among `n`: ceil(q*n), at least 1.
    pub fn rank(&self, n: u64) -> u64 {
        rank_of(n, self.num, self.den)
    }

    /// `Level::nines(k).rank(n)` without building the level (its label is a formatted
    /// string): for loops over many groups, such as a zoom step's runtime points.
    pub fn nines_rank(k: u32, n: u64) -> u64 {
        assert!((1..=12).contains(&k), "1 to 12 nines");
        let den = 10_u64.pow(k);
        rank_of(n, den - 1, den)
    }
}

fn rank_of(n: u64, num: u64, den: u64) -> u64 {
    let r = (u128::from(n) * u128::from(num)).div_ceil(u128::from(den));
    (r as u64).max(1)
}

/// `p50`, `p99.9`, `p99.9999999`; labels as percentages without trailing zeros.
fn label_of(num: u64, den: u64) -> String {
    // percentage = num * 100 / den, printed exactly; at most 100, since a level's num <= den
    // (printed as a u64: formatting a u128 costs the viewer's wasm its own 1.5 KB routine)
    let int = (u128::from(num) * 100 / u128::from(den)) as u64;
    let mut rem = u128::from(num) * 100 % u128::from(den);
    let mut s = format!("p{int}");
    if rem != 0 {
        s.push('.');
        while rem != 0 {
            rem *= 10;
            s.push(char::from(b'0' + (rem / u128::from(den)) as u8));
            rem %= u128::from(den);
        }
    }
    s
}

/// The levels `nines stats` reports: p50, p90, p99, then 3 to 9 nines.
pub fn standard_levels() -> Vec<Level> {
    let mut v = vec![Level { label: "p50".into(), num: 1, den: 2 }, Level::nines(1), Level::nines(2)];
    v.extend((3..=9).map(Level::nines));
    v
}

/// Why a percent could not be read as a level ([`level_of_percent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PercentError {
    /// Not digits with at most one decimal point.
    NotANumber,
    /// More than 10 decimals of a percent (a level is kept to 12 decimals of a fraction).
    TooManyDecimals,
    /// Not above 0 and below 100.
    OutOfRange,
}

/// The level at `pct` percent, written as decimal digits (`99.9`, `95`, `99.99999`): the
/// exact fraction of a power of ten its digits say, never rounded.
pub fn level_of_percent(pct: &str) -> Result<Level, PercentError> {
    if pct.is_empty() || !pct.chars().all(|c| c.is_ascii_digit() || c == '.') || pct.matches('.').count() > 1 || pct == "." {
        return Err(PercentError::NotANumber);
    }
    let (int, frac) = pct.split_once('.').unwrap_or((pct, ""));
    if frac.len() > 10 {
        return Err(PercentError::TooManyDecimals);
    }
    let den = 100 * 10u64.pow(frac.len() as u32);
    let int = int.trim_start_matches('0');
    if int.len() > 3 {
        return Err(PercentError::OutOfRange);
    }
    let num: u64 = format!("0{int}{frac}").parse().map_err(|_| PercentError::NotANumber)?;
    if num == 0 || num >= den {
        return Err(PercentError::OutOfRange);
    }
    Level::from_quantile(num as f64 / den as f64)
        .filter(|l| u128::from(l.num) * u128::from(den) == u128::from(num) * u128::from(l.den))
        .ok_or(PercentError::NotANumber)
}

/// A level as a user writes it: `p99.9`, `P99.9`, `99.9`, `99.9%` (percent of I/Os at or
/// below it, above 0 and below 100, at most 10 decimals) or `median`. The error names the
/// item and what is expected.
pub fn parse_level(s: &str) -> Result<Level, LevelError> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("median") {
        return Ok(Level { label: "p50".into(), num: 1, den: 2 });
    }
    let lower = t.to_ascii_lowercase();
    let pct = lower.strip_prefix('p').unwrap_or(&lower);
    let pct = pct.strip_suffix('%').unwrap_or(pct);
    level_of_percent(pct).map_err(|why| LevelError { text: s.to_string(), why })
}

/// A level as written that is none ([`parse_level`]): the text and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelError {
    pub text: String,
    pub why: PercentError,
}

impl std::fmt::Display for LevelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.text;
        match self.why {
            PercentError::NotANumber => {
                write!(f, "{s:?} is not a level: expected a percent such as p99.9, 99.9 or p95 (or median)")
            }
            PercentError::TooManyDecimals => write!(f, "{s:?} has more than 10 decimals of a percent"),
            PercentError::OutOfRange => {
                write!(f, "{s:?} is not a level: a level is above p0 and below p100 (the maximum is printed as max)")
            }
        }
    }
}

impl std::error::Error for LevelError {}

/// Levels in increasing order, each once (the order a table's columns take).
pub fn sorted_levels(mut levels: Vec<Level>) -> Vec<Level> {
    levels.sort_by(|a, b| (u128::from(a.num) * u128::from(b.den)).cmp(&(u128::from(b.num) * u128::from(a.den))));
    levels.dedup_by(|a, b| u128::from(a.num) * u128::from(b.den) == u128::from(b.num) * u128::from(a.den));
    levels
}

/// How far a level can be trusted, from the number of I/Os beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Support {
    /// No I/O beyond: the level would only repeat the maximum; not shown.
    None,
    /// 1 to 99 I/Os beyond: shown, marked, with the count.
    Thin,
    /// 100 or more I/Os beyond.
    Reliable,
}

/// I/Os beyond a level needed for it to count as reliable.
pub const RELIABLE_BEYOND: u64 = 100;

impl Support {
    pub fn of(beyond: u64) -> Support {
        match beyond {
            0 => Support::None,
            b if b < RELIABLE_BEYOND => Support::Thin,
            _ => Support::Reliable,
        }
    }
}

/// A level computed on a histogram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelStat {
    pub label: String,
    pub quantile: f64,
    /// Upper edge of the bucket of the I/O at the level's rank; `None` when support is none.
    pub value_ns: Option<u64>,
    pub support: Support,
    /// I/Os ranked above the level: N - ceil(q*N).
    pub beyond: u64,
    /// Distribution-free 95% interval; `None` when there are too few I/Os beyond the level
    /// for an upper bound (or below it for a lower one).
    pub ci95_ns: Option<(u64, u64)>,
    /// Stated precision when the run came from a coarser source (fio's buckets): the level
    /// lies in `[lo, hi]` and `value_ns` is `hi`. Absent at histogram precision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket_ns: Option<(u64, u64)>,
    /// The level lies in a source bucket without upper edge (fio's clamp bucket, >= ~17 s):
    /// `value_ns` is a lower bound ("at least"). Absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
}

/// Value (upper bucket edge) at a level; `None` for an empty histogram.
pub fn value_at(h: &Hist, level: &Level) -> Option<u64> {
    let rank = level.rank(h.count());
    h.bucket_at_rank(rank).map(|b| h.layout().highest_equivalent(b))
}

/// Compute one level on a histogram.
pub fn level_stat(h: &Hist, level: &Level) -> LevelStat {
    let n = h.count();
    let rank = level.rank(n);
    let beyond = n.saturating_sub(rank);
    let support = if n == 0 { Support::None } else { Support::of(beyond) };
    let value_ns = match support {
        Support::None => None,
        _ => value_at(h, level),
    };
    let ci95_ns = if support == Support::None {
        None
    } else {
        ci95_ranks(n, level).and_then(|(lo, hi)| {
            let l = h.layout();
            Some((l.lowest_equivalent(h.bucket_at_rank(lo)?), l.highest_equivalent(h.bucket_at_rank(hi)?)))
        })
    };
    LevelStat {
        label: level.label.clone(),
        quantile: level.quantile(),
        value_ns,
        support,
        beyond,
        ci95_ns,
        bucket_ns: None,
        at_least: false,
    }
}

/// Compute several levels.
pub fn level_stats(h: &Hist, levels: &[Level]) -> Vec<LevelStat> {
    levels.iter().map(|l| level_stat(h, l)).collect()
}

/// 1-based ascending ranks `(lo, hi)` of the order statistics bounding a 95% interval for
/// `level` among `n` values; `None` where one bound falls outside the sample.
pub fn ci95_ranks(n: u64, level: &Level) -> Option<(u64, u64)> {
    match ci95_rank_bounds(n, level) {
        (Some(lo), Some(hi)) => Some((lo, hi)),
        _ => None,
    }
}

/// The ranks of [`ci95_ranks`] one by one: the lower bound exists while the sample reaches
/// far enough below the level, the upper one only with enough I/Os beyond it. A deep level
/// of a short run keeps its lower bound, which can still show a level beyond a limit.
pub fn ci95_rank_bounds(n: u64, level: &Level) -> (Option<u64>, Option<u64>) {
    if n == 0 {
        return (None, None);
    }
    // probability of lying beyond the quantile, exact from the fraction
    let p_beyond = (level.den - level.num) as f64 / level.den as f64;
    let (b_lo, b_hi) = beyond_bounds(n, p_beyond);
    // X_(lo) <= xi  iff  B <= n - lo ; choose lo = n - b_hi.
    // X_(hi) >= xi  iff  B >= n - hi + 1 ; choose hi = n - b_lo + 1.
    ((b_hi < n).then(|| n - b_hi), (b_lo > 0).then(|| n - b_lo + 1))
}

/// For B ~ Binomial(n, p): (smallest b with P(B <= b) > 0.025, smallest b with P(B <= b) >= 0.975).
fn beyond_bounds(n: u64, p: f64) -> (u64, u64) {
    const Z: f64 = 1.959_963_984_540_054;
    let nf = n as f64;
    let mean = nf * p;
    let var = nf * p * (1.0 - p);
    if var > 1000.0 {
        let sd = var.sqrt();
        // normal with continuity correction, each bound widened by one rank
        let lo = (mean - Z * sd - 0.5).floor();
        let hi = (mean + Z * sd - 0.5).ceil() + 1.0;
        return (lo.max(0.0) as u64, (hi.min(nf)) as u64);
    }
    // Exact: log pmf by recurrence over k = 0..=kmax, normalised at its maximum.
    let kmax = ((mean + 12.0 * var.sqrt() + 30.0).min(nf)) as u64;
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    let mut logs = Vec::with_capacity(kmax as usize + 1);
    let mut lpmf = nf * lq; // log P(B = 0)
    for k in 0..=kmax {
        logs.push(lpmf);
        let kf = k as f64;
        lpmf += (nf - kf).ln() - (kf + 1.0).ln() + lp - lq;
    }
    let peak = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pmf: Vec<f64> = logs.iter().map(|l| (l - peak).exp()).collect();
    let total: f64 = pmf.iter().sum();
    let (mut cum, mut lo, mut hi) = (0.0, None, None);
    for (k, x) in pmf.iter().enumerate() {
        cum += x / total;
        if lo.is_none() && cum > 0.025 {
            lo = Some(k as u64);
        }
        if hi.is_none() && cum >= 0.975 {
            hi = Some(k as u64);
            break;
        }
    }
    (lo.unwrap_or(0), hi.unwrap_or(kmax))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_knows_its_nines_and_the_median() {
        for k in 1..=12 {
            assert_eq!(Level::nines(k).nines_count(), Some(k));
        }
        let half = Level::from_quantile(0.5).unwrap();
        assert!(half.is_median() && half.nines_count().is_none());
        assert_eq!(Level::from_quantile(0.95).unwrap().nines_count(), None);
        assert!(!Level::nines(1).is_median());
    }

    #[test]
    fn nines_rank_is_the_rank_of_the_nines_level() {
        for k in 1..=12 {
            for n in [0, 1, 2, 9, 10, 11, 99, 1000, 123_456_789, u64::MAX / 3, u64::MAX] {
                assert_eq!(Level::nines_rank(k, n), Level::nines(k).rank(n), "k {k} n {n}");
            }
        }
    }
    use crate::hist::Layout;
    use proptest::prelude::*;

    #[test]
    fn labels() {
        let labels: Vec<String> = standard_levels().into_iter().map(|l| l.label).collect();
        assert_eq!(labels, ["p50", "p90", "p99", "p99.9", "p99.99", "p99.999", "p99.9999", "p99.99999", "p99.999999", "p99.9999999"]);
        assert_eq!(Level::from_quantile(0.995).unwrap().label, "p99.5");
        assert_eq!(Level::from_quantile(0.999).unwrap(), Level::nines(3));
        assert!(Level::from_quantile(0.0).is_none());
        assert!(Level::from_quantile(1.5).is_none());
    }

    #[test]
    fn levels_as_users_write_them() {
        for s in ["p99.9", "P99.9", "99.9", "99.9%", " p99.90 "] {
            assert_eq!(parse_level(s).unwrap(), Level::nines(3), "{s}");
        }
        assert_eq!(parse_level("p95").unwrap(), Level { label: "p95".into(), num: 95, den: 100 });
        assert_eq!(parse_level("p99.5").unwrap().label, "p99.5");
        assert_eq!(parse_level("9").unwrap().label, "p9", "a bare number is a percent");
        assert_eq!(parse_level("median").unwrap().label, "p50");
        assert_eq!(parse_level("p99.9999999999").unwrap(), Level::nines(12));
        let err = |s: &str| parse_level(s).unwrap_err().to_string();
        assert_eq!(parse_level("p0").unwrap_err(), LevelError { text: "p0".into(), why: PercentError::OutOfRange });
        assert!(err("p101").contains("\"p101\" is not a level: a level is above p0 and below p100"), "{}", err("p101"));
        assert!(err("p100").contains("below p100"));
        assert!(err("p0").contains("above p0"));
        assert!(err("p1000000000000000000000").contains("below p100"));
        assert!(err("foo").contains("\"foo\" is not a level: expected a percent such as p99.9"), "{}", err("foo"));
        for bad in ["", "p", "p.", "p9.9.9", "p-5", "p1e2", "99,9"] {
            assert!(parse_level(bad).is_err(), "{bad:?}");
        }
        assert!(err("p99.99999999999").contains("more than 10 decimals"));
        let got: Vec<String> = sorted_levels(["p99.99", "p95", "99.99", "p99.5"].iter().map(|s| parse_level(s).unwrap()).collect())
            .into_iter()
            .map(|l| l.label)
            .collect();
        assert_eq!(got, ["p95", "p99.5", "p99.99"]);
    }

    #[test]
    fn ranks_are_exact() {
        assert_eq!(Level::nines(1).rank(10), 9); // float: 0.9*10 = 9.000000000000002 -> 10
        assert_eq!(Level::nines(3).rank(1000), 999);
        assert_eq!(Level::nines(3).rank(1001), 1000);
        assert_eq!(Level::nines(9).rank(5), 5);
        assert_eq!(standard_levels()[0].rank(0), 1);
    }

    #[test]
    fn support_rules() {
        let h = Hist::from_values(Layout::default_ns(), 1..=100_000);
        let s = level_stats(&h, &standard_levels());
        let by = |l: &str| s.iter().find(|x| x.label == l).unwrap().clone();
        assert_eq!(by("p99.9").support, Support::Reliable);
        assert_eq!(by("p99.9").beyond, 100);
        assert_eq!(by("p99.99").support, Support::Thin);
        assert_eq!(by("p99.99").beyond, 10);
        assert_eq!(by("p99.999").support, Support::Thin);
        assert_eq!(by("p99.999").beyond, 1);
        assert_eq!(by("p99.9999").support, Support::None);
        assert_eq!(by("p99.9999").value_ns, None);
        assert_eq!(by("p50").value_ns, Some(h.layout().highest_equivalent(50_000)));
    }

    #[test]
    fn ci_brackets_the_level_and_widens_with_fewer_samples() {
        for n in [1_000u64, 100_000, 10_000_000] {
            let (lo, hi) = ci95_ranks(n, &Level::nines(2)).unwrap();
            let r = Level::nines(2).rank(n);
            assert!(lo < r && r < hi, "n={n} lo={lo} r={r} hi={hi}");
        }
        // 10 beyond a level: about 4 to 18 beyond it, by Poisson.
        let (lo, hi) = ci95_ranks(100_000, &Level::nines(4)).unwrap();
        assert!((100_000 - hi + 1) <= 5 && (100_000 - lo) >= 17, "{lo} {hi}");
        // Too few beyond for an upper bound.
        assert_eq!(ci95_ranks(1_000, &Level::nines(3)), None);
    }

    fn nearest_rank_higher(sorted: &[u64], level: &Level) -> u64 {
        sorted[(level.rank(sorted.len() as u64) - 1) as usize]
    }

    proptest! {
        // The oracle: exact nearest-rank of the sorted raw values, within histogram precision.
        #[test]
        fn quantiles_match_sorted_values(mut values in proptest::collection::vec(1u64..(1u64 << 40), 1..3000)) {
            let l = Layout::default_ns();
            let h = Hist::from_values(l, values.iter().copied());
            values.sort_unstable();
            for level in standard_levels().iter().chain([Level::from_quantile(0.37).unwrap()].iter()) {
                let exact = nearest_rank_higher(&values, level);
                let got = value_at(&h, level).unwrap();
                prop_assert_eq!(got, l.highest_equivalent(exact), "level {}", level.label);
                prop_assert!(got >= exact && got - exact < l.equivalent_range(exact));
            }
        }
    }

    /// Coverage: the 95% interval holds the true quantile in at least 94% of samples.
    #[test]
    fn ci_coverage_simulation() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Exp};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let exp = Exp::new(1.0 / 100_000.0).unwrap(); // mean 100 us in ns
        for (level, n) in [(Level::nines(2), 5_000u64), (Level::nines(3), 50_000), (Level::from_quantile(0.5).unwrap(), 2_000)] {
            // true quantile of Exp(lambda): -ln(1-q)/lambda
            let truth = -(1.0 - level.quantile()).ln() * 100_000.0;
            let trials = 400;
            let mut covered = 0;
            for _ in 0..trials {
                let h = Hist::from_values(
                    Layout::default_ns(),
                    (0..n).map(|_| {
                        let x: f64 = exp.sample(&mut rng);
                        x.round() as u64
                    }),
                );
                let s = level_stat(&h, &level);
                let (lo, hi) = s.ci95_ns.unwrap();
                if (lo as f64) <= truth && truth <= hi as f64 {
                    covered += 1;
                }
            }
            let share = covered as f64 / trials as f64;
            assert!(share >= 0.94, "{}: coverage {share}", level.label);
        }
    }
}
