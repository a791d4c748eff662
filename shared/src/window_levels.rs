//! How often the tail is bad, not only how bad: a level computed on each recorded window of a
//! direction, and the spread of those per-window values (min, p50, p90, p99 and max of, say,
//! the per-second p99s), with the share of windows and of I/Os beyond a limit.
//!
//! Every per-window value is a level as [`crate::quantile`] computes it: the I/O at rank
//! ceil(q*N) of the window, stated as the upper edge of its bucket, never interpolated. A
//! window with no I/O beyond the level (fewer I/Os than the level needs: a p99.99 needs
//! 10,000) has no value for it; such windows are counted (`too_few`) and left out of the
//! summary. Windows with 1 to 99 I/Os beyond the level are used and counted as thin, as the
//! levels of `nines stats` are marked. The summary of the per-window values is itself taken
//! by nearest rank (the value at rank ceil(q*k) of the k values): with fewer than 100
//! windows their p99 is their max.
//!
//! An I/O lies beyond a limit when the upper edge of its bucket does, as a level's value is
//! that edge: a window's level breaks the limit exactly when more than its share (1 - q) of
//! the window's I/Os lie beyond it, so the two counts agree.

use serde::Serialize;

use crate::hist::Hist;
use crate::precision::Precision;
use crate::quantile::LevelError;
use crate::quantile::{value_at, Level, Support};
use crate::spec::{parse_latency, parse_limit, LimitErrorKind, Metric, Op};
use crate::units::format_ns;

/// An upper limit on a level in every window: `p99.99=2ms` for every direction, or a QoS
/// spec's limit (`read p99.99 <= 2ms`, as `nines check --limit` takes) for one.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowLimit {
    /// The direction it is for (a tag, or `all`); `None` for every one.
    pub tag: Option<String>,
    pub level: Level,
    /// `<=` or `<`.
    pub op: Op,
    pub value_ns: u64,
}

impl WindowLimit {
    /// `<= 2ms`.
    pub fn text(&self) -> String {
        format!("{} {}", self.op.text(), format_ns(self.value_ns))
    }

    /// Does a value (a window's level, an I/O's bucket edge) lie beyond the limit?
    pub fn broken_by(&self, v: u64) -> bool {
        match self.op {
            Op::Lt => v >= self.value_ns,
            _ => v > self.value_ns,
        }
    }

    /// Does it bound the level `level` of the direction `tag`?
    pub fn applies(&self, tag: &str, level: &Level) -> bool {
        self.tag.as_deref().is_none_or(|t| t == tag) && same_level(&self.level, level)
    }
}

fn same_level(a: &Level, b: &Level) -> bool {
    u128::from(a.num) * u128::from(b.den) == u128::from(b.num) * u128::from(a.den)
}

/// One limit as written: `p99.99=2ms` (every direction; the level as `--levels` takes it, the
/// latency with its unit) or `read p99.99 <= 2ms` (a spec's syntax; an upper limit on a
/// level). The error names the item and what is expected.
pub fn parse_window_limit(s: &str) -> Result<WindowLimit, WindowLimitError> {
    let t = s.trim();
    let text = || s.to_string();
    if t.contains(['<', '>']) {
        let l = parse_limit(t).map_err(|e| WindowLimitError::Limit { text: text(), kind: e.kind })?;
        let Metric::Level(level) = l.metric else {
            return Err(WindowLimitError::NotOnLevel(text()));
        };
        if !matches!(l.op, Op::Le | Op::Lt) {
            return Err(WindowLimitError::NotUpper(text()));
        }
        return Ok(WindowLimit { tag: Some(l.tag), level, op: l.op, value_ns: l.value as u64 });
    }
    let Some((level, value)) = t.split_once('=') else {
        return Err(WindowLimitError::NotLimit(text()));
    };
    let level = crate::quantile::parse_level(level).map_err(|e| WindowLimitError::Level { text: text(), error: e })?;
    let value_ns = parse_latency(value.trim()).map_err(|kind| WindowLimitError::Limit { text: text(), kind })? as u64;
    Ok(WindowLimit { tag: None, level, op: Op::Le, value_ns })
}

/// Why a `--window-limit` item is no limit on a level: the item as written (`text`) and what
/// was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WindowLimitError {
    /// Its limit (or its latency) as a spec reads it.
    #[error("{text:?}: {kind}")]
    Limit { text: String, kind: LimitErrorKind },
    #[error("{0:?}: expected a limit on a level, such as 'read p99.99 <= 2ms'")]
    NotOnLevel(String),
    #[error("{0:?}: expected an upper limit (<= or <) on the level")]
    NotUpper(String),
    #[error("{0:?} is not a limit: expected LEVEL=LATENCY such as p99.99=2ms, or 'read p99.99 <= 2ms'")]
    NotLimit(String),
    #[error("{text:?}: {error}")]
    Level { text: String, error: LevelError },
}

/// The per-window levels of one direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowLevels {
    /// Windows of the direction in the selected range, with or without I/O.
    pub windows: usize,
    pub levels: Vec<WindowLevel>,
}

/// One level over the windows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowLevel {
    pub label: String,
    pub quantile: f64,
    /// Windows with at least one I/O beyond the level: the ones summarised.
    pub supported: usize,
    /// Of those, the windows with 1 to 99 I/Os beyond the level (thin).
    pub thin: usize,
    /// Windows with no I/O beyond the level (too few I/Os for it), left out.
    pub too_few: usize,
    pub min_ns: Option<u64>,
    pub p50_ns: Option<u64>,
    pub p90_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<LimitShare>,
}

/// How often, and for how many I/Os, a limit was broken.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimitShare {
    /// `<= 2ms`.
    pub limit: String,
    pub limit_ns: u64,
    /// Supported windows whose level lies beyond the limit.
    pub windows_beyond: usize,
    /// `windows_beyond / supported`; `None` without a supported window.
    pub windows_beyond_share: Option<f64>,
    /// I/Os of every window (supported or not) beyond the limit.
    pub ios_beyond: u64,
    pub ios: u64,
    /// `ios_beyond / ios`; `None` without I/O.
    pub ios_beyond_share: Option<f64>,
    /// The IOPS of the supported windows whose level met the limit: their I/Os over their
    /// time ([`iops_met`]); `None` when none did.
    pub iops_met: Option<f64>,
}

/// One window as its per-window levels see it: its I/Os, its length (seconds) and the value of
/// each level asked for, in order (`None` where no I/O lies beyond the level). A form that keeps
/// each window's levels but not its histogram (a compact form's level-0 points) gives these.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowValues {
    pub ios: u64,
    pub length_s: f64,
    pub values: Vec<Option<u64>>,
}

/// The levels `levels` of each of `windows` (one direction's, in any order, each with its
/// length in seconds) and their spread, with the limits among `limits` that apply to direction
/// `tag`. A run from a coarser source (`precision`, fio's buckets) states each value at that
/// precision, as its levels are.
pub fn window_levels(
    tag: &str,
    windows: &[(&Hist, f64)],
    levels: &[Level],
    limits: &[WindowLimit],
    precision: Option<&Precision>,
) -> WindowLevels {
    let values: Vec<WindowValues> = windows
        .iter()
        .map(|&(h, length_s)| WindowValues {
            ios: h.count(),
            length_s,
            values: levels.iter().map(|l| value_at(h, l).map(|v| stated(precision, v))).collect(),
        })
        .collect();
    let beyond = |l: &WindowLimit| windows.iter().map(|(h, _)| ios_beyond(h, l, precision)).sum();
    spread_of_windows(tag, &values, levels, limits, &beyond)
}

/// A value as a coarser source (`precision`, fio's buckets) states it: the upper edge of its
/// bucket (the lower edge of an open last bucket); unchanged without one.
pub fn stated(precision: Option<&Precision>, v: u64) -> u64 {
    match precision {
        Some(p) => {
            let b = p.bucket(v);
            if b.at_least {
                b.lo
            } else {
                b.hi
            }
        }
        None => v,
    }
}

/// The I/Os of `h` beyond limit `l`: those whose bucket's upper edge (as `precision` states it)
/// lies beyond it.
pub fn ios_beyond(h: &Hist, l: &WindowLimit, precision: Option<&Precision>) -> u64 {
    let layout = h.layout();
    h.buckets().filter(|&(v, _)| l.broken_by(stated(precision, layout.highest_equivalent(v)))).map(|(_, c)| c).sum()
}

/// The spread of per-window levels (see [`window_levels`]) from each window's values, the
/// `ios_beyond` of each limit given by the caller (from the windows' histograms, or from
/// anything that merges the same I/Os: an I/O count beyond a limit adds over windows).
pub fn spread_of_windows(
    tag: &str,
    windows: &[WindowValues],
    levels: &[Level],
    limits: &[WindowLimit],
    ios_beyond: &dyn Fn(&WindowLimit) -> u64,
) -> WindowLevels {
    let ios: u64 = windows.iter().map(|w| w.ios).sum();
    let out = levels
        .iter()
        .enumerate()
        .map(|(i, level)| {
            // each supported window's value, with its I/Os and length (for the IOPS that met a limit)
            let (mut values, mut thin, mut too_few) = (Vec::new(), 0, 0);
            for w in windows {
                let n = w.ios;
                let beyond = n.saturating_sub(level.rank(n));
                match (n, Support::of(beyond), w.values.get(i).copied().flatten()) {
                    (1.., Support::Thin, Some(v)) => {
                        thin += 1;
                        values.push((v, n, w.length_s));
                    }
                    (1.., Support::Reliable, Some(v)) => values.push((v, n, w.length_s)),
                    _ => too_few += 1,
                }
            }
            let limits = limits.iter().filter(|l| l.applies(tag, level)).map(|l| limit_share(l, &values, ios, ios_beyond(l))).collect();
            let mut values: Vec<u64> = values.into_iter().map(|(v, _, _)| v).collect();
            values.sort_unstable();
            let k = values.len() as u64;
            let at = |q: &Level| (k > 0).then(|| values[(q.rank(k) - 1) as usize]);
            WindowLevel {
                label: level.label.clone(),
                quantile: level.quantile(),
                supported: values.len(),
                thin,
                too_few,
                min_ns: values.first().copied(),
                p50_ns: at(&Level { label: "p50".into(), num: 1, den: 2 }),
                p90_ns: at(&Level::nines(1)),
                p99_ns: at(&Level::nines(2)),
                max_ns: values.last().copied(),
                limits,
            }
        })
        .collect();
    WindowLevels { windows: windows.len(), levels: out }
}

/// How often limit `l` was broken: `supported` holds each supported window's (value, I/Os,
/// length in seconds); `ios` every I/O of the direction, `ios_beyond` those beyond the limit.
fn limit_share(l: &WindowLimit, supported: &[(u64, u64, f64)], ios: u64, ios_beyond: u64) -> LimitShare {
    let k = supported.len();
    let windows_beyond = supported.iter().filter(|w| l.broken_by(w.0)).count();
    LimitShare {
        limit: l.text(),
        limit_ns: l.value_ns,
        windows_beyond,
        windows_beyond_share: (k > 0).then(|| windows_beyond as f64 / k as f64),
        ios_beyond,
        ios,
        ios_beyond_share: (ios > 0).then(|| ios_beyond as f64 / ios as f64),
        iops_met: iops_met(l, supported),
    }
}

/// The IOPS of the windows whose level met limit `l`: their I/Os over their time (of each
/// supported window's value, I/Os and length in seconds). `None` when no window with a length
/// met it. The rate a device kept while it held its QoS, as SNIA PTS reports IOPS against a
/// latency limit.
pub fn iops_met(l: &WindowLimit, supported: &[(u64, u64, f64)]) -> Option<f64> {
    let met = supported.iter().filter(|w| !l.broken_by(w.0) && w.2 > 0.0);
    let (ios, secs) = met.fold((0u64, 0.0f64), |(n, s), w| (n + w.1, s + w.2));
    (secs > 0.0).then(|| ios as f64 / secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;

    /// Five windows of values small enough to be recorded exactly (below 2048 ns):
    /// 1..=100, 1..=1000, 1..=10, none, and 199 I/Os of 100 ns with one of 2000 ns.
    fn windows() -> Vec<Hist> {
        let l = Layout::default_ns();
        vec![
            Hist::from_values(l, 1..=100),
            Hist::from_values(l, 1..=1000),
            Hist::from_values(l, 1..=10),
            Hist::empty(l),
            Hist::from_values(l, std::iter::repeat_n(100, 199).chain([2000])),
        ]
    }

    #[test]
    fn spread_of_per_window_levels_by_hand() {
        let ws = windows();
        let refs: Vec<(&Hist, f64)> = ws.iter().map(|h| (h, 1.0)).collect();
        let limits = [
            parse_window_limit("p99=150ns").unwrap(),
            parse_window_limit("read p99 < 100ns").unwrap(),
            parse_window_limit("write p99 <= 1ns").unwrap(),
        ];
        let r = window_levels("read", &refs, &[Level { label: "p50".into(), num: 1, den: 2 }, Level::nines(2)], &limits, None);
        assert_eq!(r.windows, 5);
        // p99 per window: rank 99 of 100 -> 99 (1 beyond, thin); rank 990 of 1000 -> 990 (10
        // beyond); rank 10 of 10 -> none beyond; empty; rank 198 of 200 -> 100 (2 beyond)
        let p99 = &r.levels[1];
        assert_eq!((p99.supported, p99.thin, p99.too_few), (3, 3, 2));
        // sorted [99, 100, 990]: p50 at rank 2, p90 and p99 at rank 3
        assert_eq!((p99.min_ns, p99.p50_ns, p99.p90_ns, p99.p99_ns, p99.max_ns), (Some(99), Some(100), Some(990), Some(990), Some(990)));
        // two limits apply to read's p99 (write's does not)
        assert_eq!(p99.limits.len(), 2);
        let le = &p99.limits[0];
        assert_eq!(le.limit, "<= 150ns");
        // only 990 breaks 150 ns; I/Os beyond: 151..=1000 (850) and the 2000 ns one
        assert_eq!((le.windows_beyond, le.ios_beyond, le.ios), (1, 851, 1310));
        assert_eq!(le.windows_beyond_share, Some(1.0 / 3.0));
        assert_eq!(le.ios_beyond_share, Some(851.0 / 1310.0));
        // < 100 ns: 100 and 990 break it; I/Os of 100 ns and more: 1 + 901 + 200
        let lt = &p99.limits[1];
        assert_eq!((lt.windows_beyond, lt.ios_beyond), (2, 1102));
        // p50: 50 (50 beyond), 500, 5 (5 beyond), empty, 100 (100 beyond: reliable)
        let p50 = &r.levels[0];
        assert_eq!((p50.supported, p50.thin, p50.too_few), (4, 2, 1));
        assert_eq!((p50.min_ns, p50.p50_ns, p50.max_ns), (Some(5), Some(50), Some(500)));
        assert!(p50.limits.is_empty());
    }

    #[test]
    fn no_supported_window_has_no_values() {
        let ws = windows();
        let r =
            window_levels("all", &[(&ws[2], 1.0), (&ws[3], 1.0)], &[Level::nines(4)], &[parse_window_limit("p99.99=1us").unwrap()], None);
        let l = &r.levels[0];
        assert_eq!((l.supported, l.too_few, l.min_ns, l.max_ns), (0, 2, None, None));
        assert_eq!(l.limits[0].windows_beyond_share, None);
        assert_eq!((l.limits[0].ios_beyond, l.limits[0].ios), (0, 10));
    }

    #[test]
    fn a_p9999_needs_ten_thousand_ios_in_a_window() {
        let l = Layout::default_ns();
        let (short, enough) = (Hist::from_values(l, 1..=9_999), Hist::from_values(l, 1..=10_000));
        let r = window_levels("read", &[(&short, 1.0), (&enough, 1.0)], &[Level::nines(4)], &[], None);
        let p = &r.levels[0];
        // 10,000 I/Os: rank 9,999, one beyond; 9,999: rank 9,999, none beyond
        assert_eq!((p.supported, p.thin, p.too_few, p.max_ns), (1, 1, 1, Some(l.highest_equivalent(9_999))));
    }

    #[test]
    fn iops_of_the_windows_that_met_a_limit() {
        let ws = windows();
        // lengths 1, 2, 4, 8 and 0.5 s
        let refs: Vec<(&Hist, f64)> = ws.iter().zip([1.0, 2.0, 4.0, 8.0, 0.5]).collect();
        let r = window_levels("read", &refs, &[Level::nines(2)], &[parse_window_limit("p99=150ns").unwrap()], None);
        // p99s 99 (100 I/Os, 1 s), 990 (1,000 I/Os, 2 s) and 100 (200 I/Os, 0.5 s): 99 and 100
        // meet 150 ns: 300 I/Os in 1.5 s
        assert_eq!(r.levels[0].limits[0].iops_met, Some(200.0));
        // none meets 1 ns; a window without length counts for nothing
        let l = parse_window_limit("p99=1ns").unwrap();
        assert_eq!(iops_met(&l, &[(99, 100, 1.0)]), None);
        assert_eq!(iops_met(&parse_window_limit("p99=1ms").unwrap(), &[(99, 100, 0.0), (5, 30, 2.0)]), Some(15.0));
    }

    #[test]
    fn spread_from_values_equals_spread_from_histograms() {
        let ws = windows();
        let refs: Vec<(&Hist, f64)> = ws.iter().map(|h| (h, 1.0)).collect();
        let levels = [Level { label: "p50".into(), num: 1, den: 2 }, Level::nines(2), Level::nines(3)];
        let limits = [parse_window_limit("p99=150ns").unwrap()];
        let from_hists = window_levels("read", &refs, &levels, &limits, None);
        // what a compact form keeps of each window: its I/Os and its levels
        let values: Vec<WindowValues> = ws
            .iter()
            .map(|h| WindowValues { ios: h.count(), length_s: 1.0, values: levels.iter().map(|l| value_at(h, l)).collect() })
            .collect();
        let beyond = |l: &WindowLimit| ws.iter().map(|h| ios_beyond(h, l, None)).sum();
        assert_eq!(spread_of_windows("read", &values, &levels, &limits, &beyond), from_hists);
    }

    #[test]
    fn limits_as_written() {
        let l = parse_window_limit("p99.99=2ms").unwrap();
        assert_eq!((l.tag, l.level, l.op, l.value_ns), (None, Level::nines(4), Op::Le, 2_000_000));
        let l = parse_window_limit(" write p99.9 < 500us ").unwrap();
        assert_eq!((l.tag.as_deref(), l.op, l.value_ns), (Some("write"), Op::Lt, 500_000));
        assert_eq!(parse_window_limit("99.9=1.5ms").unwrap().level, Level::nines(3));
        let err = |s: &str| parse_window_limit(s).unwrap_err().to_string();
        assert!(err("p101=2ms").contains("\"p101\" is not a level"), "{}", err("p101=2ms"));
        assert!(err("p99=2").contains("expected a latency with its unit"), "{}", err("p99=2"));
        assert!(err("p99").contains("expected LEVEL=LATENCY such as p99.99=2ms"));
        assert!(err("").contains("expected LEVEL=LATENCY"));
        assert!(err("read iops >= 10k").contains("expected a limit on a level"));
        assert!(err("read p99 >= 1ms").contains("expected an upper limit"));
        assert!(err("read q99 <= 1ms").contains("expected a metric"));
    }
}
