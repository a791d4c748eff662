//! Latency curves: one workload run at increasing load, and the highest load at which a
//! latency limit still holds.
//!
//! `nines curve` runs the points; everything it decides is here, so `nines sweep --curve` and
//! the viewer's curve chart show the same numbers:
//!
//! - which points to run: a ladder of queue depths or job counts (`1,2,4,8`), or vdbench's
//!   curve (the Vdbench 5.04 reference, "curve=": first a run at the maximum rate, then
//!   reruns at a percentage of that maximum each, 10%, 20%, ... 100%), where each rerun is
//!   rate-limited with Poisson arrivals so its latency is measured at a known offered load
//!   (from the due time of each I/O, as `nines run --rate-iops` does);
//! - what each point's archive says it is: its load in `param` (so `nines sweep --param qd`
//!   or `--param offered_iops` tabulates it as any sweep) and the whole point under the
//!   metadata key `curve`;
//! - the curve table: per point the achieved IOPS and levels of nines, each with its 95%
//!   interval, computed as `nines check` computes them ([`crate::spec`]);
//! - the target: the highest load whose level meets a limit such as `read p99.99 <= 1ms`,
//!   i.e. whose 95% interval lies under it with enough I/Os beyond the level (thin support
//!   is never a pass), searched upwards and stopped at the first load that clearly fails
//!   (its whole interval above the limit).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::quantile::Level;
use crate::run::Run;
use crate::spec::{self, Check, Limit, Metric, Op, RunCheck, Section, Selector, Spec, Verdict};
use crate::units::{format_ns, format_rate, group};

// ---------------------------------------------------------------------------------------
// Points

/// What a curve varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Queue depth per job, closed loop.
    Qd,
    /// Job count, closed loop.
    Jobs,
    /// Offered IOPS, a percentage of a first uncapped run's IOPS (vdbench's curve).
    Rate,
}

impl Mode {
    /// The metadata key the point's load is stored under in `param`.
    pub fn param(self) -> &'static str {
        match self {
            Mode::Qd => "qd",
            Mode::Jobs => "jobs",
            Mode::Rate => "offered_iops",
        }
    }

    fn from_key(s: &str) -> Option<Mode> {
        match s {
            "qd" => Some(Mode::Qd),
            "jobs" => Some(Mode::Jobs),
            "rate" => Some(Mode::Rate),
            _ => None,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Mode::Qd => "qd",
            Mode::Jobs => "jobs",
            Mode::Rate => "rate",
        }
    }
}

/// Why a curve's ladder, steps, rate points or target could not be had; each message quotes
/// what was written (`text`) and says what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CurveError {
    #[error("{value} is outside 1..={max}")]
    OutsideLadder { value: u32, max: u32 },
    #[error("expected a whole number, found {0:?}")]
    NotWhole(String),
    #[error("{0:?}: the range ends below its start")]
    RangeBackwards(String),
    #[error("{0:?}: a value appears twice")]
    ValueTwice(String),
    #[error("{0:?}: a curve needs at least 2 points")]
    TooFewPoints(String),
    #[error("expected a number of steps (e.g. 10) or percentages (10,50,90,100), found {0:?}")]
    NotSteps(String),
    #[error("{0} steps: give 2 to 100")]
    StepCount(u32),
    #[error("expected a percentage, found {0:?}")]
    NotPercentage(String),
    #[error("{0}: a step is a percentage above 0 and at most 100")]
    StepOutOfRange(String),
    #[error("{0:?}: a percentage appears twice")]
    PercentageTwice(String),
    /// The maximum run's IOPS, not a positive rate.
    #[error("the maximum run measured {0} IOPS: no rate to take percentages of")]
    NoMaximum(f64),
    /// A `--limit` that is no limit as a spec reads it.
    #[error("--limit {text:?}: {error}")]
    Limit { text: String, error: spec::LimitError },
    #[error("--limit {0:?}: a curve searches for the highest load under an upper limit on latency, e.g. 'read p99.99 <= 1ms'")]
    NotUpperOnLatency(String),
}

/// A ladder of queue depths or job counts: `1,2,4,8,16`, or `1..64` for the powers of two
/// from the first to the last. Values are distinct, from 1 to `max`, and sorted.
pub fn parse_ladder(s: &str, max: u32) -> Result<Vec<u32>, CurveError> {
    let num = |w: &str| -> Result<u32, CurveError> {
        let w = w.trim();
        match w.parse::<u32>() {
            Ok(v) if (1..=max).contains(&v) => Ok(v),
            Ok(value) => Err(CurveError::OutsideLadder { value, max }),
            Err(_) => Err(CurveError::NotWhole(w.to_string())),
        }
    };
    let mut v: Vec<u32> = if let Some((a, b)) = s.split_once("..") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(CurveError::RangeBackwards(s.to_string()));
        }
        let mut out = Vec::new();
        let mut x = a;
        while x < b {
            out.push(x);
            x = x.saturating_mul(2);
        }
        out.push(b);
        out
    } else {
        s.split(',').map(num).collect::<Result<_, _>>()?
    };
    v.sort_unstable();
    let n = v.len();
    v.dedup();
    if v.len() != n {
        return Err(CurveError::ValueTwice(s.to_string()));
    }
    if v.len() < 2 {
        return Err(CurveError::TooFewPoints(s.to_string()));
    }
    Ok(v)
}

/// vdbench's curve steps as percentages of the maximum: `10` for ten even steps (10%, 20%,
/// ... 100%), or a list of percentages (`10,50,70,80,90,100`, vdbench's own default), each
/// above 0 and at most 100 (`%` signs allowed). Sorted, distinct.
pub fn parse_steps(s: &str) -> Result<Vec<f64>, CurveError> {
    let t = s.trim();
    if !t.contains(',') && !t.contains('%') {
        let n: u32 = t.parse().map_err(|_| CurveError::NotSteps(t.to_string()))?;
        if !(2..=100).contains(&n) {
            return Err(CurveError::StepCount(n));
        }
        return Ok((1..=n).map(|k| f64::from(k) * 100.0 / f64::from(n)).collect());
    }
    let mut v = Vec::new();
    for w in t.split(',') {
        let w = w.trim();
        let p: f64 = w.trim_end_matches('%').trim().parse().map_err(|_| CurveError::NotPercentage(w.to_string()))?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(CurveError::StepOutOfRange(w.to_string()));
        }
        v.push(p);
    }
    crate::sort::sort_by_f64(&mut v, |&x| x);
    let n = v.len();
    v.dedup();
    if v.len() != n {
        return Err(CurveError::PercentageTwice(t.to_string()));
    }
    if v.len() < 2 {
        return Err(CurveError::TooFewPoints(t.to_string()));
    }
    Ok(v)
}

/// One point of a curve, as its archive's metadata records it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mark {
    pub mode: Mode,
    /// The point's place in the curve (0 for the maximum run of a rate curve, then from 1).
    pub point: u32,
    pub qd: u32,
    pub jobs: u32,
    /// Rate curves: the IOPS offered, over all jobs, and the percentage of the maximum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_pct: Option<f64>,
    /// Rate curves: the maximum run's IOPS the steps are percentages of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_iops: Option<f64>,
    /// The uncapped run that measured the maximum.
    pub max_run: bool,
}

/// The metadata key a curve point is stored under (beside `param`).
pub const META_KEY: &str = "curve";

impl Mark {
    /// The load this point was run at: its queue depth, job count or offered IOPS; `None`
    /// for the maximum run (uncapped).
    pub fn load(&self) -> Option<f64> {
        match self.mode {
            Mode::Qd => Some(f64::from(self.qd)),
            Mode::Jobs => Some(f64::from(self.jobs)),
            Mode::Rate => self.offered_iops.filter(|_| !self.max_run),
        }
    }

    /// The per-job rate a rate point runs at (`nines run --rate-iops` is per job).
    pub fn rate_per_job(&self) -> Option<f64> {
        self.load().filter(|_| self.mode == Mode::Rate).map(|r| r / f64::from(self.jobs.max(1)))
    }

    /// The load in words: `qd 8`, `1 job`, `4 jobs`, `5,000 IOPS offered (50%)`, `maximum (uncapped)`.
    pub fn text(&self) -> String {
        match (self.mode, self.max_run) {
            (Mode::Qd, _) => format!("qd {}", self.qd),
            (Mode::Jobs, _) => format!("{} job{}", self.jobs, if self.jobs == 1 { "" } else { "s" }),
            (Mode::Rate, true) => "maximum (uncapped)".into(),
            (Mode::Rate, false) => format!(
                "{} IOPS offered{}",
                format_rate(self.offered_iops.unwrap_or(0.0)),
                self.offered_pct.map_or(String::new(), |p| format!(" ({}%)", trim(p)))
            ),
        }
    }

    /// The archive's `param` (the load under [`Mode::param`], nothing for the maximum run)
    /// and its `curve` value.
    pub fn to_meta(&self) -> (Map<String, Value>, Value) {
        let mut param = Map::new();
        if let Some(l) = self.load() {
            param.insert(self.mode.param().into(), num(l));
        }
        let mut c = Map::new();
        c.insert("mode".into(), Value::from(self.mode.key()));
        c.insert("point".into(), Value::from(self.point));
        c.insert("qd".into(), Value::from(self.qd));
        c.insert("jobs".into(), Value::from(self.jobs));
        for (k, v) in [("offered_iops", self.offered_iops), ("offered_pct", self.offered_pct), ("max_iops", self.max_iops)] {
            if let Some(v) = v {
                c.insert(k.into(), num(v));
            }
        }
        if self.max_run {
            c.insert("max_run".into(), Value::Bool(true));
        }
        (param, Value::Object(c))
    }

    /// The point a run's metadata records, if it is one.
    pub fn of(run: &Run) -> Option<Mark> {
        let c = run.meta.other.get(META_KEY)?.as_object()?;
        let f = |k: &str| c.get(k).and_then(Value::as_f64);
        let u = |k: &str| f(k).filter(|v| *v >= 1.0 && *v <= f64::from(u32::MAX)).map(|v| v as u32);
        Some(Mark {
            mode: Mode::from_key(c.get("mode")?.as_str()?)?,
            point: f("point").map_or(0, |v| v.max(0.0) as u32),
            qd: u("qd").unwrap_or(1),
            jobs: u("jobs").unwrap_or(1),
            offered_iops: f("offered_iops"),
            offered_pct: f("offered_pct"),
            max_iops: f("max_iops"),
            max_run: c.get("max_run").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}

/// The points of a ladder curve over `values` (queue depths or job counts), the other
/// setting fixed.
pub fn ladder(mode: Mode, values: &[u32], qd: u32, jobs: u32) -> Vec<Mark> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| Mark {
            mode,
            point: i as u32 + 1,
            qd: if mode == Mode::Qd { v } else { qd },
            jobs: if mode == Mode::Jobs { v } else { jobs },
            offered_iops: None,
            offered_pct: None,
            max_iops: None,
            max_run: false,
        })
        .collect()
}

/// The maximum run of a rate curve (point 0).
pub fn max_run(qd: u32, jobs: u32) -> Mark {
    Mark { mode: Mode::Rate, point: 0, qd, jobs, offered_iops: None, offered_pct: None, max_iops: None, max_run: true }
}

/// The rate points of a curve once its maximum run measured `max_iops`: each percentage's
/// offered IOPS (over all jobs). An error when the maximum is not a positive rate.
pub fn rate_steps(max_iops: f64, pcts: &[f64], qd: u32, jobs: u32) -> Result<Vec<Mark>, CurveError> {
    if !(max_iops.is_finite() && max_iops > 0.0) {
        return Err(CurveError::NoMaximum(max_iops));
    }
    Ok(pcts
        .iter()
        .enumerate()
        .map(|(i, &p)| Mark {
            mode: Mode::Rate,
            point: i as u32 + 1,
            qd,
            jobs,
            offered_iops: Some(max_iops * p / 100.0),
            offered_pct: Some(p),
            max_iops: Some(max_iops),
            max_run: false,
        })
        .collect())
}

// ---------------------------------------------------------------------------------------
// The target

/// A `--limit` for a curve: an upper limit (`<=` or `<`) on a latency (a level, the mean or
/// the max), the only kind that a rising load can break and that a curve can search for.
pub fn target_limit(text: &str) -> Result<Limit, CurveError> {
    let mut l = spec::parse_limit(text.trim()).map_err(|error| CurveError::Limit { text: text.to_string(), error })?;
    if matches!(l.metric, Metric::Iops) || matches!(l.op, Op::Ge | Op::Gt) {
        return Err(CurveError::NotUpperOnLatency(text.to_string()));
    }
    l.at = "--limit".into();
    Ok(l)
}

/// Should a curve stop climbing after this verdict? Only a clear failure (the whole 95%
/// interval beyond the limit) stops it; a load that cannot tell does not.
pub fn stops(v: Verdict) -> bool {
    v == Verdict::Fails
}

/// The outcome of a search for the highest load that meets a limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    pub limit: String,
    /// The highest point (index into the points, by increasing load) that meets, below the
    /// first that fails.
    pub best: Option<usize>,
    /// The first point, by increasing load, that fails.
    pub first_fail: Option<usize>,
    /// Points below the first failure (or all, without one) that cannot tell.
    pub cannot_tell: Vec<usize>,
    /// Meets, fails or cannot tell of the whole search: meets when a load was found and the
    /// next point above it fails (or it is the highest), cannot tell when a point between the
    /// answer and the first failure could not tell, or when no point meets and none fails.
    pub verdict: Verdict,
}

/// Decide the target over points in increasing load, given each point's verdict against the
/// limit. The search climbs from the lowest load and stops at the first failure: a load above
/// a failure is never the answer, even if it happened to meet.
pub fn decide(limit: &str, verdicts: &[Verdict]) -> Decision {
    let first_fail = verdicts.iter().position(|v| *v == Verdict::Fails);
    let below = &verdicts[..first_fail.unwrap_or(verdicts.len())];
    let best = below.iter().rposition(|v| *v == Verdict::Meets);
    let cannot_tell: Vec<usize> = below.iter().enumerate().filter(|(_, v)| **v == Verdict::CannotTell).map(|(i, _)| i).collect();
    let doubt_above = cannot_tell.iter().any(|&i| best.is_none_or(|b| i > b));
    let verdict = match (best, first_fail) {
        (Some(_), _) if !doubt_above => Verdict::Meets,
        (None, Some(_)) if !doubt_above => Verdict::Fails,
        _ => Verdict::CannotTell,
    };
    Decision { limit: limit.into(), best, first_fail, cannot_tell, verdict }
}

// ---------------------------------------------------------------------------------------
// The table

/// A measured value with its 95% interval (bounds `None` where the run cannot give them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stat {
    pub label: String,
    pub value: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// Levels: I/Os beyond the level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beyond: Option<u64>,
}

impl Stat {
    fn of(c: &Check, label: String) -> Stat {
        let [lower, upper] = c.interval.unwrap_or([None, None]);
        Stat { label, value: c.value, lower, upper, beyond: c.beyond }
    }

    /// `812us [790us, 845us]`, `?` for a missing bound, `-` without a value.
    pub fn text(&self, latency: bool) -> String {
        let show = |v: f64| if latency { format_ns(v.round() as u64) } else { format_rate(v) };
        let Some(v) = self.value else { return "-".into() };
        let b = |x: Option<f64>| x.map_or("?".into(), show);
        let thin = if self.beyond.is_some_and(|b| b < crate::quantile::RELIABLE_BEYOND) { "*" } else { "" };
        format!("{}{thin} [{}, {}]", show(v), b(self.lower), b(self.upper))
    }
}

/// One run of a curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub file: String,
    pub run: String,
    /// The load it ran at: from its curve metadata, else the swept parameter's value.
    pub load: Option<f64>,
    /// The point's curve metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
    /// I/Os of the direction.
    pub count: u64,
    /// Achieved IOPS with the window-to-window 95% interval.
    pub iops: Stat,
    pub levels: Vec<Stat>,
    /// The target limit checked on this run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Check>,
}

impl Point {
    /// The load in words.
    pub fn load_text(&self, load_name: &str) -> String {
        match (&self.mark, self.load) {
            (Some(m), _) => m.text(),
            (None, Some(v)) => format!("{load_name} {}", trim(v)),
            (None, None) => "-".into(),
        }
    }
}

/// One set of runs (a curve; the baseline or the candidate of `nines sweep --with`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Set {
    pub label: String,
    /// By increasing load (the maximum run of a rate curve, without one, last), then IOPS.
    pub points: Vec<Point>,
    /// The highest load meeting the limit, over the points with a load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

/// A curve table: per set, per point, achieved IOPS and levels with their intervals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurveTable {
    pub tag: String,
    /// What `load` holds: `qd`, `jobs`, `offered_iops` or the swept parameter.
    pub load: String,
    pub levels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    pub sets: Vec<Set>,
}

/// The levels a curve shows by default: p50, p99, p99.9, p99.99.
pub fn default_levels() -> Vec<Level> {
    vec![Level { label: "p50".into(), num: 1, den: 2 }, Level::nines(2), Level::nines(3), Level::nines(4)]
}

/// A run's point: its load (curve metadata, else `param` by [`crate::sweep_table::param_value`]),
/// achieved IOPS and `levels` of direction `tag`, each with its interval as `nines check`
/// computes it, and `limit` checked.
pub fn point(run: &Run, tag: &str, levels: &[Level], param: Option<&str>, limit: Option<&Limit>) -> Point {
    point_with(run, tag, levels, param, limit, &whole_run)
}

/// How a run is checked against a spec: `nines check`'s [`spec::check_run`] over the whole
/// run, or a compact form's (`Compact::check_whole`), which keeps every window's count.
pub type Checker<'a> = &'a dyn Fn(&Run, &Spec) -> RunCheck;

/// [`spec::check_run`] over the whole run.
pub fn whole_run(run: &Run, spec: &Spec) -> RunCheck {
    spec::check_run(run, spec, None, None)
}

/// [`point`], each run checked by `check`.
pub fn point_with(run: &Run, tag: &str, levels: &[Level], param: Option<&str>, limit: Option<&Limit>, check: Checker) -> Point {
    let mark = Mark::of(run);
    let load = match &mark {
        Some(m) => m.load(),
        None => param.and_then(|p| crate::sweep_table::param_value(run, p)),
    };
    // a limit per measure (the bound is never used: only the value and interval are read)
    let probe = |metric: Metric| Limit { tag: tag.into(), metric, op: Op::Le, value: f64::MAX, at: String::new() };
    let mut limits: Vec<Limit> = vec![probe(Metric::Iops)];
    limits.extend(levels.iter().map(|l| probe(Metric::Level(l.clone()))));
    limits.extend(limit.cloned().map(|l| Limit { tag: l.tag.clone(), ..l }));
    let spec = Spec { sections: vec![Section { selector: Selector::default(), limits }] };
    let rc = check(run, &spec);
    let count = rc.checks.first().map_or(0, |c| c.count);
    let mut checks = rc.checks.into_iter();
    let iops = checks.next().map(|c| Stat::of(&c, "iops".into()));
    let lv: Vec<Check> = checks.by_ref().take(levels.len()).collect();
    Point {
        file: run.source.clone(),
        run: run.name.clone(),
        load,
        mark,
        count,
        iops: iops.unwrap_or(Stat { label: "iops".into(), value: None, lower: None, upper: None, beyond: None }),
        levels: lv.iter().zip(levels).map(|(c, l)| Stat::of(c, l.label.clone())).collect(),
        target: checks.next(),
    }
}

/// The curve table of `sets` (label and runs) for direction `tag` (`all`: every direction
/// merged): `levels` (default [`default_levels`], the limit's level added), the loads from
/// the runs' curve metadata or `param`, and with a `limit` each set's [`Decision`].
pub fn table(sets: &[(String, Vec<&Run>)], tag: &str, levels: &[Level], param: Option<&str>, limit: Option<&Limit>) -> CurveTable {
    table_with(sets, tag, levels, param, limit, &whole_run)
}

/// [`table`], each run checked by `check` (the viewer's compact forms).
pub fn table_with(
    sets: &[(String, Vec<&Run>)],
    tag: &str,
    levels: &[Level],
    param: Option<&str>,
    limit: Option<&Limit>,
    check: Checker,
) -> CurveTable {
    let mut levels = levels.to_vec();
    if let Some(Metric::Level(l)) = limit.map(|l| &l.metric) {
        if !levels.iter().any(|x| x.num * l.den == l.num * x.den) {
            levels.push(l.clone());
            insertion_sort(&mut levels, |a, b| u128::from(a.num) * u128::from(b.den) < u128::from(b.num) * u128::from(a.den));
        }
    }
    let mut load_name: Option<String> = param.map(str::to_string);
    let out_sets = sets
        .iter()
        .map(|(label, runs)| {
            let mut points: Vec<Point> = runs.iter().map(|r| point_with(r, tag, &levels, param, limit, check)).collect();
            if let Some(m) = points.iter().find_map(|p| p.mark.as_ref()) {
                load_name.get_or_insert_with(|| m.mode.param().to_string());
            }
            let iops = |p: &Point| p.iops.value.unwrap_or(0.0);
            let key = |p: &Point| (p.load.unwrap_or(f64::INFINITY), iops(p));
            insertion_sort(&mut points, |a, b| key(a).0.total_cmp(&key(b).0).then(key(a).1.total_cmp(&key(b).1)).is_lt());
            let decision = limit.map(|l| {
                let verdicts: Vec<Verdict> = points
                    .iter()
                    .filter(|p| p.load.is_some())
                    .map(|p| p.target.as_ref().map_or(Verdict::CannotTell, |c| c.verdict))
                    .collect();
                decide(&l.text(), &verdicts)
            });
            Set { label: label.clone(), points, decision }
        })
        .collect();
    CurveTable {
        tag: tag.into(),
        load: load_name.unwrap_or_else(|| "load".into()),
        levels: levels.iter().map(|l| l.label.clone()).collect(),
        limit: limit.map(Limit::text),
        sets: out_sets,
    }
}

/// The verdict of a table's search for the highest load meeting its limit (`None` without a
/// limit): any set's failure fails, else any set that cannot tell cannot tell.
pub fn verdict(t: &CurveTable) -> Option<Verdict> {
    t.limit.as_ref()?;
    Some(Verdict::overall(t.sets.iter().filter_map(|s| s.decision.as_ref().map(|d| d.verdict))))
}

/// Sort `v` stably by `less`. By hand: a curve has tens of points and a few levels, and each
/// use of the standard library's sorts adds several KB to the viewer's wasm.
fn insertion_sort<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// A set's decision in words: the load found with its achieved IOPS and the level with its
/// interval, what fails above it, and what cannot tell (with the reason).
pub fn describe(set: &Set, load_name: &str) -> Vec<String> {
    let Some(d) = &set.decision else { return Vec::new() };
    // the decision's indices count the points with a load, which come first
    let pt = |i: usize| &set.points[i];
    let measured = |p: &Point| {
        p.target.as_ref().map_or(String::new(), |c| {
            let v = c.value_text();
            format!("{} {} = {v} [{}]", c.tag, c.metric, c.interval_text().replace("..", ", "))
        })
    };
    let mut out = Vec::new();
    match d.best {
        Some(b) => {
            let p = pt(b);
            out.push(format!(
                "highest load meeting '{}': {} ({} IOPS achieved), {}",
                d.limit,
                p.load_text(load_name),
                format_rate(p.iops.value.unwrap_or(0.0)),
                measured(p)
            ));
        }
        None => out.push(format!("no load tried meets '{}'", d.limit)),
    }
    for &i in &d.cannot_tell {
        let p = pt(i);
        let why = p.target.as_ref().and_then(|c| c.reason.clone()).unwrap_or_default();
        out.push(format!("cannot tell at {}: {} ({why})", p.load_text(load_name), measured(p)));
    }
    if let Some(f) = d.first_fail {
        let p = pt(f);
        out.push(format!("fails at {}: {}", p.load_text(load_name), measured(p)));
        let above = set.points.iter().skip(f + 1).filter(|p| p.load.is_some()).count();
        if above > 0 {
            out.push(format!("{above} point(s) above the first failure are not counted: the search stops there"));
        }
    } else if d.best.is_some() && d.best == set.points.iter().rposition(|p| p.load.is_some()) {
        out.push("the highest load tried still meets: the limit may hold beyond it".into());
    }
    out.push(format!("verdict: {}", d.verdict.text()));
    out
}

/// A thousands-grouped count, for the table's I/O column.
pub fn count_text(n: u64) -> String {
    group(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;
    use crate::run::Window;
    use Verdict::{CannotTell as C, Fails as F, Meets as M};

    #[test]
    fn ladders_parse_lists_and_doubling_ranges() {
        assert_eq!(parse_ladder("8,1,2,4", 1024).unwrap(), [1, 2, 4, 8]);
        assert_eq!(parse_ladder("1..64", 1024).unwrap(), [1, 2, 4, 8, 16, 32, 64]);
        assert_eq!(parse_ladder("3..20", 1024).unwrap(), [3, 6, 12, 20]);
        assert!(parse_ladder("1,1,2", 64).unwrap_err().to_string().contains("twice"));
        assert!(parse_ladder("4", 64).unwrap_err().to_string().contains("at least 2"));
        assert!(parse_ladder("0,2", 64).unwrap_err().to_string().contains("outside"));
        assert!(parse_ladder("1,2,x", 64).unwrap_err().to_string().contains("\"x\""));
        assert!(parse_ladder("8..2", 64).unwrap_err().to_string().contains("below its start"));
        assert!(parse_ladder("1,128", 64).unwrap_err().to_string().contains("128 is outside 1..=64"));
    }

    #[test]
    fn steps_are_even_percentages_or_a_list() {
        assert_eq!(parse_steps("10").unwrap(), [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0]);
        assert_eq!(parse_steps("4").unwrap(), [25.0, 50.0, 75.0, 100.0]);
        assert_eq!(parse_steps("100,10%,50, 70,80,90").unwrap(), [10.0, 50.0, 70.0, 80.0, 90.0, 100.0]);
        assert!(parse_steps("1").is_err());
        assert!(parse_steps("10,120").unwrap_err().to_string().contains("at most 100"));
        assert!(parse_steps("0,50").is_err());
        assert!(parse_steps("ten").unwrap_err().to_string().contains("number of steps"));
        assert!(parse_steps("50,50%").unwrap_err().to_string().contains("twice"));
    }

    #[test]
    fn rate_steps_offer_percentages_of_the_maximum_split_over_jobs() {
        let pts = rate_steps(20_000.0, &[10.0, 50.0, 100.0], 16, 4).unwrap();
        assert_eq!(pts.iter().map(|m| m.load().unwrap()).collect::<Vec<_>>(), [2_000.0, 10_000.0, 20_000.0]);
        assert_eq!(pts[1].rate_per_job(), Some(2_500.0));
        assert_eq!((pts[2].point, pts[2].qd, pts[2].max_iops), (3, 16, Some(20_000.0)));
        assert_eq!(pts[0].text(), "2,000 IOPS offered (10%)");
        assert!(rate_steps(0.0, &[10.0, 20.0], 1, 1).is_err());
        assert!(rate_steps(f64::NAN, &[10.0, 20.0], 1, 1).is_err());
        let l = ladder(Mode::Jobs, &[1, 2, 4], 8, 1);
        assert_eq!(
            l.iter().map(|m| (m.qd, m.jobs, m.load())).collect::<Vec<_>>(),
            [(8, 1, Some(1.0)), (8, 2, Some(2.0)), (8, 4, Some(4.0))]
        );
        assert_eq!(l[2].rate_per_job(), None);
        assert_eq!((l[0].text(), l[2].text()), ("1 job".to_string(), "4 jobs".to_string()));
        assert_eq!(max_run(8, 2).load(), None);
    }

    #[test]
    fn a_mark_survives_the_metadata() {
        for m in [rate_steps(12_345.5, &[50.0], 8, 2).unwrap().remove(0), ladder(Mode::Qd, &[1, 32], 1, 3).remove(1), max_run(4, 1)] {
            let (param, curve) = m.to_meta();
            let mut meta = crate::meta::RunMeta { param: param.clone(), ..Default::default() };
            meta.other.insert(META_KEY.into(), curve);
            // through the archive's JSON form, as a reader sees it
            let meta = crate::meta::RunMeta::from_map(meta.to_map()).unwrap();
            let run = Run { meta, ..Run::default() };
            assert_eq!(Mark::of(&run).as_ref(), Some(&m));
            // the load is the sweep parameter too
            assert_eq!(crate::sweep_table::param_value(&run, m.mode.param()), m.load());
            assert_eq!(param.is_empty(), m.max_run);
        }
        assert_eq!(Mark::of(&Run::default()), None);
    }

    #[test]
    fn target_limits_are_upper_limits_on_latency() {
        assert_eq!(target_limit("read p99.99<=1ms").unwrap().value, 1e6);
        assert!(target_limit("all mean < 200us").is_ok());
        assert!(target_limit("read iops >= 10k").unwrap_err().to_string().contains("upper limit on latency"));
        assert!(target_limit("read p99 >= 1ms").is_err());
        let e = target_limit("read p99.99 <= 1").unwrap_err().to_string();
        assert!(e.contains("column") && e.contains("unit"), "{e}");
    }

    #[test]
    fn the_answer_is_the_last_load_meeting_below_the_first_failure() {
        // meets, meets, fails, (meets above a failure does not count)
        let d = decide("read p99.99 <= 1ms", &[M, M, F, M]);
        assert_eq!((d.best, d.first_fail, d.verdict), (Some(1), Some(2), Verdict::Meets));
        assert!(d.cannot_tell.is_empty());
        assert!(stops(F) && !stops(C) && !stops(M));
        // every load meets: the highest, and no failure
        assert_eq!(decide("x", &[M, M, M]).best, Some(2));
        assert_eq!(decide("x", &[M, M, M]).verdict, Verdict::Meets);
        // a thin point below the answer is reported but does not unsettle it
        let d = decide("x", &[C, M, M, F]);
        assert_eq!((d.best, d.cannot_tell.clone(), d.verdict), (Some(2), vec![0], Verdict::Meets));
    }

    #[test]
    fn cannot_tell_between_the_answer_and_the_failure_leaves_it_open() {
        let d = decide("x", &[M, C, F]);
        assert_eq!((d.best, d.first_fail, d.cannot_tell.clone(), d.verdict), (Some(0), Some(2), vec![1], Verdict::CannotTell));
        // nothing meets, nothing fails
        let d = decide("x", &[C, C]);
        assert_eq!((d.best, d.first_fail, d.verdict), (None, None, Verdict::CannotTell));
        // the lowest load already fails
        let d = decide("x", &[F, M]);
        assert_eq!((d.best, d.first_fail, d.verdict), (None, Some(0), Verdict::Fails));
        // the first loads cannot tell, then one fails: no load is known to meet
        assert_eq!(decide("x", &[C, F]).verdict, Verdict::CannotTell);
        assert_eq!(decide("x", &[]).verdict, Verdict::CannotTell);
    }

    /// A run of 1,000 `per` reads per second for 4 s whose latencies spread evenly from `lat`
    /// to 2 `lat`, labelled as a qd point.
    fn qd_run(qd: u32, per: u64, lat: u64) -> Run {
        let l = Layout::default_ns();
        let windows = (0..4)
            .map(|s| {
                let mut acc = crate::hist::Accumulator::new(l);
                for i in 0..1000 {
                    acc.record_n(lat + lat * i / 1000, per);
                }
                Window { start_s: s as f64, length_s: 1.0, tag: Some("read".into()), hist: acc.finish() }
            })
            .collect();
        let (param, curve) = ladder(Mode::Qd, &[qd], 1, 1)[0].to_meta();
        let mut meta = crate::meta::RunMeta { param, ..Default::default() };
        meta.other.insert(META_KEY.into(), curve);
        Run { name: format!("qd-{qd}"), source: format!("dir/qd-{qd}.hlog"), meta, windows, ..Run::default() }
    }

    #[test]
    fn the_table_finds_the_highest_qd_under_the_limit() {
        // latency doubles with each step; 100 us, 200 us, 400 us, 800 us, 1.6 ms
        let runs: Vec<Run> = [(16, 800_000), (1, 50_000), (2, 100_000), (4, 200_000), (8, 400_000)]
            .iter()
            .map(|&(qd, lat)| qd_run(qd, 300 * u64::from(qd.min(4)), lat))
            .collect();
        let limit = target_limit("read p99.99 <= 1ms").unwrap();
        let sets = vec![("runs".to_string(), runs.iter().collect::<Vec<_>>())];
        let t = table(&sets, "read", &default_levels(), None, Some(&limit));
        assert_eq!(t.load, "qd");
        assert_eq!(t.levels, ["p50", "p99", "p99.9", "p99.99"]);
        let s = &t.sets[0];
        assert_eq!(s.points.iter().map(|p| p.load.unwrap()).collect::<Vec<_>>(), [1.0, 2.0, 4.0, 8.0, 16.0], "sorted by load");
        assert_eq!(s.points[2].iops.value, Some(1_200_000.0));
        let p9999 = &s.points[3].levels[3];
        assert!(p9999.lower.unwrap() <= p9999.value.unwrap() && p9999.value.unwrap() <= p9999.upper.unwrap());
        let d = s.decision.as_ref().unwrap();
        assert_eq!((d.best, d.first_fail, d.verdict), (Some(3), Some(4), Verdict::Meets));
        let words = describe(s, &t.load).join("\n");
        assert!(words.contains("highest load meeting 'read p99.99 <= 1.00ms': qd 8 (1,200,000 IOPS achieved)"), "{words}");
        assert!(words.contains("fails at qd 16"), "{words}");
        let text = crate::export::text::curve(&t);
        assert!(text.contains("qd 8") && text.contains("p99.99") && text.contains("1,200,000 ["), "{text}");
        // a curve of short runs: too few I/Os beyond p99.99 for its upper bound
        let short: Vec<Run> = [1, 2].iter().map(|&qd| qd_run(qd, 1, 10_000)).collect();
        let t = table(&[("runs".into(), short.iter().collect())], "read", &default_levels(), None, Some(&limit));
        let d = t.sets[0].decision.as_ref().unwrap();
        assert_eq!((d.best, d.verdict, d.cannot_tell.clone()), (None, Verdict::CannotTell, vec![0, 1]));
        let words = describe(&t.sets[0], &t.load).join("\n");
        assert!(words.contains("cannot tell at qd 1") && words.contains("beyond p99.99"), "{words}");
    }

    #[test]
    fn a_limit_level_outside_the_defaults_is_added_in_order() {
        let runs = [qd_run(1, 5, 10_000), qd_run(2, 5, 20_000)];
        let limit = target_limit("read p99.999 <= 1ms").unwrap();
        let t = table(&[("runs".into(), runs.iter().collect())], "read", &default_levels(), None, Some(&limit));
        assert_eq!(t.levels, ["p50", "p99", "p99.9", "p99.99", "p99.999"]);
        // plain runs: the load from a parameter, or none (sorted by IOPS)
        let mut plain = qd_run(4, 1, 10_000);
        plain.meta = crate::meta::RunMeta::default();
        plain.source = "numjobs-4.hlog".into();
        let p = point(&plain, "read", &default_levels(), Some("numjobs"), None);
        assert_eq!((p.load, p.mark.is_none(), p.target.is_none()), (Some(4.0), true, true));
        assert_eq!(p.load_text("numjobs"), "numjobs 4");
        assert_eq!(point(&plain, "write", &default_levels(), None, None).iops.value, None, "no such direction");
    }
}
