//! QoS specs: limits on levels of nines, the max, the mean and IOPS, and the verdict a run
//! gets against each.
//!
//! A spec is what a storage vendor promises and a customer checks ("4k random reads at QD1:
//! 99.99% under 1 ms"), written one limit a line:
//!
//! ```text
//! # vendor X, 4k random QoS
//! all max <= 50ms                 # before any section: every run
//! [workload.rw=randread workload.qd=1]
//! read p99.99 <= 1ms
//! read p99.9999 <= 5ms
//! read iops >= 10k
//! [name=*write*]
//! write p99.9 < 2ms
//! write mean <= 200us
//! ```
//!
//! A limit is `DIRECTION METRIC OP VALUE`: a direction (a tag such as `read`, `write`,
//! `trim`, or `all` for every direction merged), a metric (`pQ` for the level at Q percent,
//! `median`, `max`, `mean`, `iops`), `<=`, `<`, `>=` or `>`, and a latency with its unit
//! (`ns`, `us`, `ms`, `s`) or an I/O rate (`50000`, `50k`, `1.5m`). A section `[KEY=GLOB ...]`
//! selects the runs its limits apply to: every condition must hold; `name` is the run's
//! name, `file` its file name, any other key a dotted path into its metadata
//! (`workload.qd`, `param.numjobs`, `host.name`); `*` and `?` are wildcards. `[*]` selects
//! every run again.
//!
//! Verdicts never treat thin evidence as a pass (after the SDC talk "Latency is more than
//! just a number": a level needs about 100 I/Os beyond it before it can be trusted):
//!
//! - a level is judged on its distribution-free 95% interval ([`crate::quantile`]): *meets*
//!   when the whole interval is within the limit, *fails* when the whole interval is beyond
//!   it, *cannot tell* when it straddles the limit, when it has no interval (too few I/Os
//!   beyond the level), or when it would meet but fewer than
//!   [`crate::quantile::RELIABLE_BEYOND`] I/Os lie beyond it;
//! - the max is the run's observed maximum, known to its bucket: judged on the bucket;
//! - the mean is judged on the interval of the mean computed with every I/O at its bucket's
//!   lower, then upper edge, widened by 1.96 standard errors (normal approximation; fewer
//!   than 100 I/Os cannot tell);
//! - IOPS are judged on the run's rate with the window-to-window spread as its error:
//!   ± t(0.975, k - 1) s / sqrt(k) over the k windows' rates (fewer than 2 windows cannot
//!   tell).
//!
//! Runs from coarser sources (fio's buckets) are judged at their stated precision: their
//! levels, intervals and max are widened to the source's buckets first
//! ([`crate::precision`]).

use serde::Serialize;
use serde_json::Value;

use crate::hist::{Accumulator, Hist};
use crate::precision::Precision;
use crate::quantile::{ci95_rank_bounds, level_stat, Level, Support, RELIABLE_BEYOND};
use crate::run::{is_direction, Run, ALL};
use crate::tag::tag_name;
use crate::units::{format_ns, format_rate, group};

/// What a limit bounds.
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    Level(Level),
    Max,
    Mean,
    Iops,
}

impl Metric {
    /// The metric as a spec writes it: `p99.99`, `max`, `mean`, `iops`.
    pub fn label(&self) -> String {
        match self {
            Metric::Level(l) => l.label.clone(),
            Metric::Max => "max".into(),
            Metric::Mean => "mean".into(),
            Metric::Iops => "iops".into(),
        }
    }

    fn is_latency(&self) -> bool {
        !matches!(self, Metric::Iops)
    }
}

/// How a value must compare with the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Le,
    Lt,
    Ge,
    Gt,
}

impl Op {
    pub fn text(self) -> &'static str {
        match self {
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }

    /// The verdict of a quantity known to lie in `[lo, hi]` against `limit`.
    fn judge(self, lo: f64, hi: f64, limit: f64) -> Verdict {
        let (meets, fails) = match self {
            Op::Le => (hi <= limit, lo > limit),
            Op::Lt => (hi < limit, lo >= limit),
            Op::Ge => (lo >= limit, hi < limit),
            Op::Gt => (lo > limit, hi <= limit),
        };
        if meets {
            Verdict::Meets
        } else if fails {
            Verdict::Fails
        } else {
            Verdict::CannotTell
        }
    }
}

/// One limit: `read p99.99 <= 1ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    /// The direction: a tag name, or `all`.
    pub tag: String,
    pub metric: Metric,
    pub op: Op,
    /// Nanoseconds for latency metrics, I/Os per second for `iops`.
    pub value: f64,
    /// Where it was written: `FILE:LINE`, or `--limit`.
    pub at: String,
}

impl Limit {
    /// The limit written back in the grammar's canonical form.
    pub fn text(&self) -> String {
        let v = if self.metric.is_latency() { format_ns(self.value as u64) } else { format_rate(self.value) };
        format!("{} {} {} {v}", self.tag, self.metric.label(), self.op.text())
    }

    /// Does one observed value (a window's level, say) lie beyond the limit? A plain
    /// comparison, without an interval: for marking windows on a runtime chart, not a verdict.
    pub fn broken_by(&self, v: f64) -> bool {
        match self.op {
            Op::Le => v > self.value,
            Op::Lt => v >= self.value,
            Op::Ge => v < self.value,
            Op::Gt => v <= self.value,
        }
    }
}

/// The envelope a 1-CDF curve of direction `tag` must stay under, from the upper limits on
/// its levels and its max among `limits`: the corners (latency ns, share of I/Os slower) of
/// the staircase, by increasing latency. `p99.99 <= 1ms` says at most 1e-4 of the I/Os are
/// slower than 1 ms, so the corner is (1 ms, 1e-4) and the curve must pass at or below it;
/// `max <= 50ms` is the corner (50 ms, 0). A limit another one already implies (a looser
/// bound further right) makes no corner. Lower limits (`>=`) and IOPS and mean limits bound
/// nothing on the curve and are left out.
pub fn envelope(limits: &[&Limit], tag: &str) -> Vec<(f64, f64)> {
    let mut corners: Vec<(f64, f64)> = limits
        .iter()
        .filter(|l| l.tag == tag && matches!(l.op, Op::Le | Op::Lt))
        .filter_map(|l| match &l.metric {
            Metric::Level(q) => Some((l.value, (q.den - q.num) as f64 / q.den as f64)),
            Metric::Max => Some((l.value, 0.0)),
            Metric::Mean | Metric::Iops => None,
        })
        .collect();
    crate::sort::sort_by(&mut corners, |a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(corners.len());
    for (x, share) in corners {
        if share < out.last().map_or(1.0, |c| c.1) {
            out.push((x, share));
        }
    }
    out
}

/// A section's run selector: conditions that must all hold (none: every run).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selector {
    /// `(key, glob)` pairs.
    pub conditions: Vec<(String, String)>,
}

impl Selector {
    /// Does `run` match every condition?
    pub fn matches(&self, run: &Run) -> bool {
        self.conditions.iter().all(|(key, glob)| match key.as_str() {
            "name" => glob_match(glob, &run.name),
            "file" => glob_match(glob, file_name(&run.source)),
            path => meta_value(run, path).is_some_and(|v| glob_match(glob, &v)),
        })
    }

    /// The selector as written: `[workload.qd=1]`, `[*]`.
    pub fn text(&self) -> String {
        if self.conditions.is_empty() {
            return "[*]".into();
        }
        format!("[{}]", self.conditions.iter().map(|(k, g)| format!("{k}={g}")).collect::<Vec<_>>().join(" "))
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The metadata value at a dotted path, as text (strings as they are, other values as JSON).
fn meta_value(run: &Run, path: &str) -> Option<String> {
    let mut v = Value::Object(run.meta.to_object());
    for key in path.split('.') {
        v = v.as_object()?.get(key)?.clone();
    }
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// Shell-style wildcards: `*` any run of characters, `?` one character, anything else
/// itself. Written here because the glob crates match paths (separators, classes), not names.
fn glob_match(glob: &str, text: &str) -> bool {
    let (g, t): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
    // classic two-pointer match with backtracking to the last star
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < t.len() {
        if i < g.len() && (g[i] == '?' || g[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < g.len() && g[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    g[i..].iter().all(|&c| c == '*')
}

/// Limits and the runs they apply to.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub selector: Selector,
    pub limits: Vec<Limit>,
}

/// A parsed spec: sections in file order (the first holds the limits before any header).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spec {
    pub sections: Vec<Section>,
}

/// Why a spec could not be read: the file, the 1-based line and column, and what was
/// expected there.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{source_name}:{line}:{column}: {message}")]
pub struct SpecError {
    pub source_name: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A limit or a section header that could not be read: the 1-based column (in characters) of
/// the text given where it goes wrong, and what was expected there.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("column {column}: {kind}")]
pub struct LimitError {
    pub column: usize,
    pub kind: LimitErrorKind,
}

/// What is wrong with a limit, a section header or one of their words; each message says what
/// was expected and quotes what was found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LimitErrorKind {
    #[error("expected KEY=GLOB (name=..., file=..., or a metadata path such as workload.qd=1), found {0:?}")]
    NotKeyGlob(String),
    #[error("expected a key of letters, digits, '.', '_' or '-' before '=', found {0:?}")]
    BadKey(String),
    /// `key=` with nothing after it (the key).
    #[error("expected a value after '{0}='")]
    NoGlob(String),
    #[error("expected a comparison: <=, <, >= or >")]
    NoComparison,
    #[error("expected DIRECTION METRIC before the comparison, e.g. 'read p99.99 <= 1ms'")]
    NoMetric,
    /// A word between the metric and the comparison.
    #[error("expected the comparison after the metric, found {0:?}")]
    AfterMetric(String),
    #[error("expected a direction (read, write, trim, all or a tag name), found {0:?}")]
    BadDirection(String),
    /// A direction one or two edits from one nines records ([`DIRECTIONS`]).
    #[error("expected a direction ({}, or a tag of the runs), found {tag:?}: did you mean {near:?}?", DIRECTIONS.join(", "))]
    Misspelt { tag: String, near: &'static str },
    #[error("expected a value after the comparison")]
    NoValue,
    /// Everything from the comparison on.
    #[error("expected one comparison (<=, <, >= or >) and a value, found {0:?}")]
    TwoComparisons(String),
    #[error("expected one value, found {0:?}")]
    TwoValues(String),
    #[error("expected a metric (pQ such as p99.99, median, max, mean or iops), found {0:?}")]
    NotMetric(String),
    #[error("{0:?}: at most 10 decimals of a percent")]
    TooManyDecimals(String),
    #[error("{0:?}: a level is above p0 and below p100 (use max for the maximum)")]
    LevelOutOfRange(String),
    #[error("expected a latency with its unit (ns, us, ms or s), e.g. 1ms, found {0:?}")]
    NotLatency(String),
    #[error("{0:?} is longer than 1000000000 s, the longest latency a limit takes")]
    LatencyTooLong(String),
    /// Above [`MAX_RATE`].
    #[error("{0:?} is above {max} I/Os per second (2^53), the highest rate a limit keeps exactly", max = crate::units::group(MAX_RATE as u64))]
    RateTooHigh(String),
    #[error("expected an I/O rate, e.g. 50000 or 50k, found {0:?}")]
    NotRate(String),
}

impl LimitErrorKind {
    fn at(self, column: usize) -> LimitError {
        LimitError { column, kind: self }
    }
}

/// A limit naming a direction that is none nines knows and no tag of the runs checked
/// ([`Spec::check_directions`]): where the limit was written (`at`), the direction it names,
/// and the runs' tags.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{at}: the direction {tag:?} is none of {} nor a tag of the runs (they have: {})",
    DIRECTIONS.join(", "),
    if .have.is_empty() { "no tags".into() } else { .have.join(", ") }
)]
pub struct DirectionError {
    pub at: String,
    pub tag: String,
    /// The runs' tags, sorted, each once.
    pub have: Vec<String>,
}

impl Spec {
    /// Parse a spec file's text; `source_name` names it in errors and in each limit's `at`.
    pub fn parse(source_name: &str, text: &str) -> Result<Spec, SpecError> {
        let mut spec = Spec { sections: vec![Section { selector: Selector::default(), limits: Vec::new() }] };
        for (n, raw) in text.lines().enumerate() {
            let err = |column: usize, message: String| SpecError { source_name: source_name.into(), line: n + 1, column, message };
            let line = raw.split('#').next().unwrap_or("");
            let body = line.trim();
            if body.is_empty() {
                continue;
            }
            let indent = char_col(line, line.len() - line.trim_start().len());
            if let Some(rest) = body.strip_prefix('[') {
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(err(indent + body.chars().count(), "expected ']' closing the section header".into()));
                };
                let selector = parse_selector(inner).map_err(|e| err(indent + e.column, e.kind.to_string()))?;
                spec.sections.push(Section { selector, limits: Vec::new() });
                continue;
            }
            let mut limit = parse_limit(body).map_err(|e| err(indent - 1 + e.column, e.kind.to_string()))?;
            limit.at = format!("{source_name}:{}", n + 1);
            spec.sections.last_mut().expect("a first section").limits.push(limit);
        }
        Ok(spec)
    }

    /// A spec of command-line limits (`--limit 'read p99.99 <= 1ms'`), for every run.
    pub fn from_limits(limits: &[String]) -> Result<Spec, SpecError> {
        let parsed = limits
            .iter()
            .map(|l| {
                parse_limit(l.trim()).map(|mut x| {
                    x.at = "--limit".into();
                    x
                })
            })
            .collect::<Result<Vec<Limit>, _>>()
            .map_err(|e| SpecError { source_name: "--limit".into(), line: 1, column: e.column, message: e.kind.to_string() })?;
        Ok(Spec { sections: vec![Section { selector: Selector::default(), limits: parsed }] })
    }

    /// Every limit of this spec and then of `other`.
    pub fn and(mut self, other: Spec) -> Spec {
        self.sections.extend(other.sections);
        self
    }

    /// The limits that apply to `run`, in spec order.
    pub fn limits_for(&self, run: &Run) -> Vec<&Limit> {
        self.sections.iter().filter(|s| s.selector.matches(run)).flat_map(|s| &s.limits).collect()
    }

    /// Number of limits in the spec.
    pub fn len(&self) -> usize {
        self.sections.iter().map(|s| s.limits.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// 1-based column of byte offset `at` in `s`.
fn char_col(s: &str, at: usize) -> usize {
    s[..at].chars().count() + 1
}

/// A selector's conditions; an error's column is within `inner`.
fn parse_selector(inner: &str) -> Result<Selector, LimitError> {
    let mut conditions = Vec::new();
    for (at, word) in words(inner) {
        if word == "*" {
            continue;
        }
        let Some((key, glob)) = word.split_once('=') else {
            return Err(LimitErrorKind::NotKeyGlob(word.to_string()).at(char_col(inner, at)));
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
            return Err(LimitErrorKind::BadKey(key.to_string()).at(char_col(inner, at)));
        }
        if glob.is_empty() {
            return Err(LimitErrorKind::NoGlob(key.to_string()).at(char_col(inner, at + word.len())));
        }
        conditions.push((key.to_string(), glob.to_string()));
    }
    Ok(Selector { conditions })
}

/// Whitespace-separated words with their byte offsets.
fn words(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split_whitespace().map(move |w| (w.as_ptr() as usize - s.as_ptr() as usize, w))
}

/// One limit, e.g. `read p99.99 <= 1ms` or `read p99.99<=1ms`; an error's column is within
/// `text`. `at` is left empty.
pub fn parse_limit(text: &str) -> Result<Limit, LimitError> {
    let col = |at: usize| char_col(text, at);
    let op_at = text.find(['<', '>']).ok_or_else(|| LimitErrorKind::NoComparison.at(col(text.len())))?;
    let (op, op_len) = match &text[op_at..] {
        s if s.starts_with("<=") => (Op::Le, 2),
        s if s.starts_with(">=") => (Op::Ge, 2),
        s if s.starts_with('<') => (Op::Lt, 1),
        _ => (Op::Gt, 1),
    };
    let head: Vec<(usize, &str)> = words(&text[..op_at]).collect();
    let (tag, metric_word) = match head.as_slice() {
        [(_, t), m] => (*t, *m),
        [] | [_] => {
            return Err(LimitErrorKind::NoMetric.at(col(op_at)));
        }
        [_, _, (at, extra), ..] => return Err(LimitErrorKind::AfterMetric(extra.to_string()).at(col(*at))),
    };
    if !tag.chars().all(|c| c.is_alphanumeric() || "._-:/".contains(c)) {
        return Err(LimitErrorKind::BadDirection(tag.to_string()).at(col(0)));
    }
    if let Some(near) = misspelt(crate::tag::Tag::parse(tag).direction) {
        return Err(LimitErrorKind::Misspelt { tag: tag.to_string(), near }.at(col(0)));
    }
    let metric = parse_metric(metric_word.1).map_err(|k| k.at(col(metric_word.0)))?;
    let value_at = op_at + op_len;
    let value_text = text[value_at..].trim();
    let value_col = col(value_at + (text[value_at..].len() - text[value_at..].trim_start().len()));
    if value_text.is_empty() {
        return Err(LimitErrorKind::NoValue.at(value_col));
    }
    if value_text.starts_with(['<', '>', '=']) {
        return Err(LimitErrorKind::TwoComparisons(text[op_at..].to_string()).at(value_col));
    }
    if value_text.split_whitespace().count() > 1 {
        return Err(LimitErrorKind::TwoValues(value_text.to_string()).at(value_col));
    }
    let value = if metric.is_latency() { parse_latency(value_text) } else { parse_rate(value_text) }.map_err(|k| k.at(value_col))?;
    Ok(Limit { tag: tag.to_string(), metric, op, value, at: String::new() })
}

/// The directions a limit names without knowing the runs: those nines records, and `all`.
pub const DIRECTIONS: [&str; 5] = ["read", "write", "trim", "sync", ALL];

/// The direction `word` is a slip of the pen for: one edit from a direction (two for a word of
/// four letters or more), and not a direction itself. A tag of another tool's log can be any
/// name; only one this close to a direction is taken for a misspelling (`red`, `wirte`).
fn misspelt(word: &str) -> Option<&'static str> {
    if DIRECTIONS.contains(&word) {
        return None;
    }
    let most = if word.chars().count() >= 4 { 2 } else { 1 };
    DIRECTIONS.iter().copied().find(|d| edits(word, d) <= most)
}

/// Levenshtein distance (insertions, deletions, substitutions) between two short words.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl Spec {
    /// A limit naming a direction that is no direction nines knows (read, write, trim, sync,
    /// all) and no tag of any of `tags` (the tags of every run checked): a spec error naming
    /// the limit's place, as a misspelling would be, not a verdict on each run.
    pub fn check_directions(&self, tags: &[String]) -> Result<(), DirectionError> {
        for l in self.sections.iter().flat_map(|s| &s.limits) {
            let d = crate::tag::Tag::parse(&l.tag).direction;
            if !DIRECTIONS.contains(&d) && !tags.contains(&l.tag) {
                let mut have: Vec<String> = tags.to_vec();
                have.sort_unstable();
                have.dedup();
                return Err(DirectionError { at: l.at.clone(), tag: l.tag.clone(), have });
            }
        }
        Ok(())
    }
}

fn parse_metric(w: &str) -> Result<Metric, LimitErrorKind> {
    let lower = w.to_ascii_lowercase();
    match lower.as_str() {
        "max" => return Ok(Metric::Max),
        "mean" | "avg" => return Ok(Metric::Mean),
        "iops" => return Ok(Metric::Iops),
        "median" => return Ok(Metric::Level(Level { label: "p50".into(), num: 1, den: 2 })),
        _ => {}
    }
    let expected = || LimitErrorKind::NotMetric(w.to_string());
    let pct = lower.strip_prefix('p').ok_or_else(expected)?;
    // (the same rule as quantile::level_of_percent, written out: routed through that function
    // and its error type, the viewer's page, which parses specs, grew by about 800 bytes
    // gzipped, past its size budget)
    if pct.is_empty() || !pct.chars().all(|c| c.is_ascii_digit() || c == '.') || pct.matches('.').count() > 1 {
        return Err(expected());
    }
    // the level as an exact fraction of a power of ten, from its decimal digits
    let (int, frac) = pct.split_once('.').unwrap_or((pct, ""));
    if frac.len() > 10 {
        return Err(LimitErrorKind::TooManyDecimals(w.to_string()));
    }
    let den = 100 * 10u64.pow(frac.len() as u32);
    let num: u64 = format!("{int}{frac}").parse().map_err(|_| expected())?;
    if num == 0 || num >= den {
        return Err(LimitErrorKind::LevelOutOfRange(w.to_string()));
    }
    Level::from_quantile(num as f64 / den as f64)
        .filter(|l| u128::from(l.num) * u128::from(den) == u128::from(num) * u128::from(l.den))
        .map(Metric::Level)
        .ok_or_else(expected)
}

/// A latency with its unit, in ns. Unlike a duration flag, a bare number is refused: a
/// spec line `read p99 <= 1` is too easily meant as 1 ms.
pub fn parse_latency(s: &str) -> Result<f64, LimitErrorKind> {
    let lower = s.to_ascii_lowercase();
    if !lower.ends_with("ns") && !lower.ends_with("us") && !lower.ends_with("µs") && !lower.ends_with("ms") && !lower.ends_with('s') {
        return Err(LimitErrorKind::NotLatency(s.to_string()));
    }
    crate::units::parse_duration_ns(s).map(|ns| ns as f64).map_err(|e| match e {
        crate::units::UnitError::DurationOutOfRange(_) => LimitErrorKind::LatencyTooLong(s.to_string()),
        _ => LimitErrorKind::NotLatency(s.to_string()),
    })
}

/// The highest I/O rate a limit takes: 2^53 I/Os per second, the largest up to which every
/// whole number is kept exactly (a limit is an `f64`). A higher one would be judged and shown
/// as another number (`1e26` printed as 18,446,744,073,709,551,615).
pub const MAX_RATE: f64 = 9_007_199_254_740_992.0;

/// An I/O rate: `50000`, `50k`, `1.5m` (k = 1,000), at most [`MAX_RATE`].
fn parse_rate(s: &str) -> Result<f64, LimitErrorKind> {
    let lower = s.to_ascii_lowercase().replace('_', "");
    let (num, mult) = match lower.chars().last() {
        Some('k') => (&lower[..lower.len() - 1], 1e3),
        Some('m') => (&lower[..lower.len() - 1], 1e6),
        Some('g') => (&lower[..lower.len() - 1], 1e9),
        _ => (&lower[..], 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * mult <= MAX_RATE => Ok(v * mult),
        Ok(v) if v >= 0.0 => Err(LimitErrorKind::RateTooHigh(s.to_string())),
        _ => Err(LimitErrorKind::NotRate(s.to_string())),
    }
}

/// A run's standing against one limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The limit cannot apply to the run: it names a direction the run does not issue (a
    /// write limit on a read-only run). Left out of the run's verdict.
    NotApplicable,
    Meets,
    CannotTell,
    Fails,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Meets => "meets",
            Verdict::Fails => "fails",
            Verdict::CannotTell => "cannot tell",
            Verdict::NotApplicable => "not applicable",
        }
    }

    /// The verdict as a key (JSON's spelling: `meets`, `fails`, `cannot_tell`), for pages'
    /// attributes and class names.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Meets => "meets",
            Verdict::Fails => "fails",
            Verdict::CannotTell => "cannot_tell",
            Verdict::NotApplicable => "not_applicable",
        }
    }

    /// The exit status of a check whose worst verdict this is: 0 meets, 1 fails, 2 cannot
    /// tell (and nothing applicable: nothing was judged).
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Meets => 0,
            Verdict::Fails => 1,
            Verdict::CannotTell | Verdict::NotApplicable => 2,
        }
    }

    /// The overall verdict of several: any failure fails; else any doubt cannot tell; limits
    /// that are not applicable are left out (none left: cannot tell, nothing was judged).
    pub fn overall(vs: impl IntoIterator<Item = Verdict>) -> Verdict {
        vs.into_iter().filter(|v| *v != Verdict::NotApplicable).max().unwrap_or(Verdict::CannotTell)
    }
}

/// One limit checked on one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// The limit in canonical form.
    pub limit: String,
    /// Where the limit was written.
    pub at: String,
    pub tag: String,
    pub metric: String,
    pub op: &'static str,
    /// The limit's value: ns, or I/Os per second for `iops`.
    pub limit_value: f64,
    /// `ns` or `iops`.
    pub unit: &'static str,
    /// The measured value (a level's value is its bucket's upper edge); `None` when the run
    /// has no such measure.
    pub value: Option<f64>,
    /// The range the verdict was judged on (a level's 95% interval, the max's bucket, the
    /// mean's or the rate's interval): `[lower, upper]`, a bound `None` where the run cannot
    /// give it (too few I/Os beyond a level for its upper bound, fio's clamp bucket).
    pub interval: Option<[Option<f64>; 2]>,
    /// I/Os of the direction.
    pub count: u64,
    /// For levels: I/Os beyond the level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beyond: Option<u64>,
    pub verdict: Verdict,
    /// Why the verdict is "cannot tell" (or a failure on missing data), in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The checks of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunCheck {
    pub file: String,
    pub name: String,
    pub verdict: Verdict,
    pub checks: Vec<Check>,
    /// Said when no limit of the spec applies to the run (its verdict is then "not
    /// applicable").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A window's start and length (seconds) and its I/O count.
pub(crate) type WindowCount = (f64, f64, u64);

/// A direction's merged histogram and its windows.
struct Direction {
    hist: Hist,
    windows: Vec<WindowCount>,
}

/// Directions by name, in name order. A sorted `Vec`, not a `BTreeMap`: the viewer's wasm
/// (whose size is budgeted) would carry another compiled copy of the B-tree's code for it.
type Dirs = Vec<(String, Direction)>;

/// Where `name` is in `v` (sorted by name), or where it would go.
fn find<T>(v: &[(String, T)], name: &str) -> Result<usize, usize> {
    v.binary_search_by(|(k, _)| k.as_str().cmp(name))
}

/// The directions of `run` in `[from, to)` (window starts, seconds from the run's start),
/// each tag's and `all`'s (every direction merged, as `nines stats` does).
fn directions(run: &Run, from: f64, to: f64) -> (Dirs, f64) {
    let windows: Vec<_> = run.windows.iter().filter(|w| w.start_s >= from && w.start_s < to).collect();
    let mut tags: Vec<(String, (Accumulator, Vec<WindowCount>))> = Vec::new();
    let mut all: Vec<WindowCount> = Vec::new();
    let mut all_acc: Option<Accumulator> = None;
    let mut untagged_only = true;
    for w in &windows {
        let name = tag_name(w.tag.as_deref());
        untagged_only &= w.tag.is_none();
        let i = find(&tags, name).unwrap_or_else(|i| {
            tags.insert(i, (name.to_string(), (Accumulator::new(w.hist.layout()), Vec::new())));
            i
        });
        let e = &mut tags[i].1;
        e.0.add(&w.hist);
        e.1.push((w.start_s, w.length_s, w.hist.count()));
        if is_direction(w.tag.as_deref()) {
            all_acc.get_or_insert_with(|| Accumulator::new(w.hist.layout())).add(&w.hist);
            all.push((w.start_s, w.length_s, w.hist.count()));
        }
    }
    let start = windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let end = windows.iter().map(|w| w.end_s()).fold(f64::NEG_INFINITY, f64::max);
    let duration = if end > start { end - start } else { 0.0 };
    let mut out: Dirs = tags.into_iter().map(|(t, (a, w))| (t, Direction { hist: a.finish(), windows: w })).collect();
    if untagged_only {
        // a log without tags: its one direction is the whole run
        if let Some((_, d)) = out.pop() {
            out = vec![(ALL.into(), d)];
        }
    } else if let Some(a) = all_acc {
        // the windows of every direction that start together are one window of `all`: as
        // long as the longest, with the I/Os of all
        crate::sort::sort_by_f64(&mut all, |c| c.0);
        let mut w: Vec<WindowCount> = Vec::with_capacity(all.len());
        for c in all {
            match w.last_mut() {
                Some(l) if l.0.to_bits() == c.0.to_bits() => {
                    l.1 = l.1.max(c.1);
                    l.2 += c.2;
                }
                _ => w.push(c),
            }
        }
        let d = Direction { hist: a.finish(), windows: w };
        match find(&out, ALL) {
            Ok(i) => out[i].1 = d,
            Err(i) => out.insert(i, (ALL.into(), d)),
        }
    }
    (out, duration)
}

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom (1.96 from 31 on).
fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

/// Check `run` (its windows starting in `[from, to)`, seconds from its start) against every
/// limit of `spec` that applies to it.
pub fn check_run(run: &Run, spec: &Spec, from: Option<f64>, to: Option<f64>) -> RunCheck {
    let (dirs, duration) = directions(run, from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
    check_directions(run, spec, dirs, duration)
}

/// Check the whole of `run`, each direction's windows (start, length, I/Os) given apart
/// from its histograms by `windows` (the key is the direction as a limit names it: a tag, or
/// `all`). A compact form holds exactly that: every direction's whole-run histogram and every
/// recorded window's count ([`crate::compact::Compact::check`]), so its verdicts are those
/// of the recorded run.
pub(crate) fn check_run_with(run: &Run, spec: &Spec, windows: impl Fn(&str) -> Option<Vec<WindowCount>>) -> RunCheck {
    let (mut dirs, duration) = directions(run, f64::NEG_INFINITY, f64::INFINITY);
    for (key, d) in dirs.iter_mut() {
        if let Some(w) = windows(key) {
            d.windows = w;
        }
    }
    check_directions(run, spec, dirs, duration)
}

fn check_directions(run: &Run, spec: &Spec, mut dirs: Dirs, duration: f64) -> RunCheck {
    // a partial last window (a per-I/O import's, cut at its last I/O) has no rate over a
    // window: left out of the IOPS interval, its I/Os still in every level and the run's rate
    for (_, d) in dirs.iter_mut() {
        d.windows.retain(|w| !run.is_partial_length(w.1));
    }
    let limits = spec.limits_for(run);
    let precision = run.meta.precision.as_ref();
    let mut checks: Vec<Check> =
        limits.iter().map(|l| check_one(l, find(&dirs, &l.tag).ok().map(|i| &dirs[i].1), duration, precision, &dirs)).collect();
    if !run.windows.is_empty() && run.windows.iter().all(|w| w.tag.is_none()) {
        // a log without directions (a list with no direction column) may hold the reads a
        // read limit is about: that limit cannot be told from it, it is not inapplicable
        for c in checks.iter_mut().filter(|c| c.verdict == Verdict::NotApplicable) {
            c.verdict = Verdict::CannotTell;
            c.reason = Some(format!("the run's I/Os have no direction (an untagged log): {} I/Os cannot be told apart; limit all", c.tag));
        }
    }
    let applicable = checks.iter().any(|c| c.verdict != Verdict::NotApplicable);
    let note = (!applicable).then(|| format!("no limit of the spec applies to {} ({})", run.name, run.source));
    // a run no limit applies to was not judged: not applicable (its exit status 2: nothing
    // was judged)
    let verdict = if applicable { Verdict::overall(checks.iter().map(|c| c.verdict)) } else { Verdict::NotApplicable };
    RunCheck { file: run.source.clone(), name: run.name.clone(), verdict, checks, note }
}

fn check_one(limit: &Limit, dir: Option<&Direction>, duration: f64, precision: Option<&Precision>, all: &[(String, Direction)]) -> Check {
    let mut c = Check {
        limit: limit.text(),
        at: limit.at.clone(),
        tag: limit.tag.clone(),
        metric: limit.metric.label(),
        op: limit.op.text(),
        limit_value: limit.value,
        unit: if limit.metric.is_latency() { "ns" } else { "iops" },
        value: None,
        interval: None,
        count: dir.map_or(0, |d| d.hist.count()),
        beyond: None,
        verdict: Verdict::CannotTell,
        reason: None,
    };
    let Some(d) = dir.filter(|d| d.hist.count() > 0) else {
        let have: Vec<&str> = all.iter().filter(|(_, d)| d.hist.count() > 0).map(|(t, _)| t.as_str()).collect();
        let have = if have.is_empty() { "none".into() } else { have.join(", ") };
        if dir.is_none() && !all.is_empty() {
            // the run never recorded the direction (a write limit on a read-only run): the
            // limit cannot apply to it
            c.verdict = Verdict::NotApplicable;
            c.reason = Some(format!("the run issues no {} I/Os (it has: {have})", limit.tag));
        } else {
            c.reason = Some(format!("the run has no {} I/Os (it has: {have})", limit.tag));
        }
        return c;
    };
    let h = &d.hist;
    let n = h.count();
    let l = h.layout();
    // a value's bucket at the run's precision: its source's where coarser than ours
    let bucket = |v: u64| match precision {
        Some(p) => {
            let b = p.bucket(v);
            (b.lo as f64, if b.at_least { f64::INFINITY } else { b.hi as f64 })
        }
        None => (l.lowest_equivalent(v) as f64, l.highest_equivalent(v) as f64),
    };
    match &limit.metric {
        Metric::Level(level) => {
            let mut s = level_stat(h, level);
            if let Some(p) = precision {
                p.apply_level(&mut s);
            }
            c.value = s.value_ns.map(|v| v as f64);
            c.beyond = Some(s.beyond);
            if s.support == Support::None {
                c.reason = Some(format!("no I/O lies beyond {} of {} I/Os: the level is not measured", level.label, group(n)));
                return c;
            }
            // each bound on its own: a short run's deep level keeps its lower bound, which
            // can still show the level beyond a limit
            let (lo_rank, hi_rank) = ci95_rank_bounds(n, level);
            let lo = lo_rank.and_then(|r| h.bucket_at_rank(r)).map(|v| bucket(v).0);
            let hi = hi_rank.and_then(|r| h.bucket_at_rank(r)).map(|v| bucket(v).1).filter(|v| v.is_finite());
            c.interval = Some([lo, hi]);
            c.verdict = limit.op.judge(lo.unwrap_or(0.0), hi.unwrap_or(f64::INFINITY), limit.value);
            if c.verdict == Verdict::Meets && s.beyond < RELIABLE_BEYOND {
                c.verdict = Verdict::CannotTell;
                c.reason = Some(format!(
                    "only {} I/Os beyond {} (a level needs {RELIABLE_BEYOND} to be trusted): thin support is not a pass",
                    s.beyond, level.label
                ));
            } else if c.verdict == Verdict::CannotTell {
                c.reason = Some(match (lo, hi) {
                    (Some(_), Some(_)) => "the 95% interval straddles the limit".into(),
                    (_, None) if s.at_least => format!("{} is in fio's clamp bucket: no upper bound", level.label),
                    (_, None) => format!("{} I/Os beyond {}: too few for the 95% interval's upper bound", s.beyond, level.label),
                    (None, _) => format!("too few I/Os below {} for the 95% interval's lower bound", level.label),
                });
            }
        }
        Metric::Max => {
            let (lo, hi) = bucket(h.max());
            c.value = Some(if hi.is_finite() { hi } else { lo });
            c.interval = Some([Some(lo), Some(hi).filter(|v| v.is_finite())]);
            c.verdict = limit.op.judge(lo, hi, limit.value);
            if c.verdict == Verdict::CannotTell {
                c.reason = Some("the limit falls inside the max's bucket".into());
            }
        }
        Metric::Mean => {
            c.value = Some(h.mean());
            if n < RELIABLE_BEYOND {
                c.reason = Some(format!("{n} I/Os: too few for an interval of the mean ({RELIABLE_BEYOND} needed)"));
                return c;
            }
            let (mut lo_sum, mut hi_sum) = (0.0, 0.0);
            for (v, k) in h.buckets() {
                let (lo, hi) = bucket(v);
                lo_sum += lo * k as f64;
                hi_sum += hi * k as f64;
            }
            let se = 1.96 * h.stdev() / (n as f64).sqrt();
            let (lo, hi) = ((lo_sum / n as f64 - se).max(0.0), hi_sum / n as f64 + se);
            c.interval = Some([Some(lo), Some(hi).filter(|v| v.is_finite())]);
            c.verdict = limit.op.judge(lo, hi, limit.value);
            if c.verdict == Verdict::CannotTell {
                c.reason = Some(if hi.is_finite() {
                    "the 95% interval of the mean straddles the limit".into()
                } else {
                    "I/Os in fio's clamp bucket leave the mean without an upper bound".into()
                });
            }
        }
        Metric::Iops => check_iops(&mut c, limit, d, duration),
    }
    c
}

/// An IOPS limit: the run's rate, with the 95% interval of the rate over its windows.
fn check_iops(c: &mut Check, limit: &Limit, d: &Direction, duration: f64) {
    let n = d.hist.count();
    let rate = if duration > 0.0 { n as f64 / duration } else { 0.0 };
    c.value = Some(rate);
    let rates: Vec<f64> = d.windows.iter().filter(|w| w.1 > 0.0).map(|&(_, len, k)| k as f64 / len).collect();
    let k = rates.len();
    if k < 2 {
        c.reason = Some(format!("{k} window: the rate's spread needs at least 2"));
        return;
    }
    let m = rates.iter().sum::<f64>() / k as f64;
    let s = (rates.iter().map(|r| (r - m).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt();
    let half = t975(k - 1) * s / (k as f64).sqrt();
    let (lo, hi) = ((rate - half).max(0.0), rate + half);
    c.interval = Some([Some(lo), Some(hi)]);
    c.verdict = limit.op.judge(lo, hi, limit.value);
    if c.verdict == Verdict::CannotTell {
        c.reason = Some(format!("the 95% interval of the rate over {k} windows straddles the limit"));
    }
}

impl Check {
    fn show(&self, v: f64) -> String {
        if self.unit == "iops" {
            format_rate(v)
        } else if v.is_finite() {
            format_ns(v.round() as u64)
        } else {
            "unbounded".into()
        }
    }

    /// The measured value as text (`812us`, `10,238`), `-` without one.
    pub fn value_text(&self) -> String {
        self.value.map_or("-".into(), |v| self.show(v))
    }

    /// The interval as text (`790us..845us`), `?` for a bound the run cannot give.
    pub fn interval_text(&self) -> String {
        let bound = |b: Option<f64>| b.map_or("?".into(), |v| self.show(v));
        self.interval.map_or("-".into(), |[lo, hi]| format!("{}..{}", bound(lo), bound(hi)))
    }
}

/// The overall verdict of several runs' checks and how many limits got each verdict (meets,
/// fails, cannot tell).
pub fn tally(checks: &[RunCheck]) -> (Verdict, [usize; 3]) {
    let count = |v: Verdict| checks.iter().flat_map(|r| &r.checks).filter(|c| c.verdict == v).count();
    (Verdict::overall(checks.iter().map(|r| r.verdict)), [count(Verdict::Meets), count(Verdict::Fails), count(Verdict::CannotTell)])
}

/// The checks of several runs as text: a block per run, one line per limit, and the overall
/// verdict.
pub fn text(checks: &[RunCheck]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for r in checks {
        let _ = writeln!(out, "{} ({}): {}", crate::table::shown(&r.name), crate::table::shown(&r.file), r.verdict.text());
        if let Some(n) = &r.note {
            let _ = writeln!(out, "  {}", crate::table::shown(n));
        }
        let width = r.checks.iter().map(|c| c.limit.chars().count()).max().unwrap_or(0);
        for c in &r.checks {
            let beyond = c.beyond.map(|b| format!(", {} beyond", group(b))).unwrap_or_default();
            let ios = format!("{} I/Os", group(c.count));
            let _ = write!(
                out,
                "  {:width$}  {:>9}  95% {:<21} {ios:>13}{beyond}  {}",
                c.limit,
                c.value_text(),
                c.interval_text(),
                c.verdict.text()
            );
            if let Some(why) = &c.reason {
                let _ = write!(out, ": {}", crate::table::shown(why));
            }
            let _ = writeln!(out, "  ({})", crate::table::shown(&c.at));
        }
    }
    let (all, [meets, fails, unsure]) = tally(checks);
    let na = checks.iter().flat_map(|r| &r.checks).filter(|c| c.verdict == Verdict::NotApplicable).count();
    let na = if na > 0 { format!(", {na} not applicable") } else { String::new() };
    let _ = writeln!(out, "overall: {} ({meets} meet, {fails} fail, {unsure} cannot tell{na})", all.text());
    out
}

/// The checks of several runs as JSON: `{"verdict", "counts", "runs": [RunCheck...]}`.
pub fn json(checks: &[RunCheck]) -> String {
    let (all, [meets, fails, unsure]) = tally(checks);
    serde_json::json!({
        "verdict": all,
        "counts": { "meets": meets, "fails": fails, "cannot_tell": unsure },
        "runs": checks,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;
    use crate::run::Window;

    fn run_of(reads: impl Fn(u64) -> Vec<u64>, windows: u64) -> Run {
        let l = Layout::default_ns();
        Run {
            name: "r".into(),
            source: "dir/r.hlog".into(),
            windows: (0..windows)
                .map(|s| Window { start_s: s as f64, length_s: 1.0, tag: Some("read".into()), hist: Hist::from_values(l, reads(s)) })
                .collect(),
            ..Run::default()
        }
    }

    /// 10,000 reads a window: 100-199.99 us, and 3 per window at 5 ms.
    fn run() -> Run {
        run_of(|s| (0..10_000u64).map(|i| if i < 3 { 5_000_000 + s } else { 100_000 + i * 10 }).collect(), 10)
    }

    #[test]
    fn a_scoped_tag_is_a_direction_of_a_limit() {
        // a cell of `nines pts`, a host of `nines merge`: SCOPE/DIRECTION (tag.rs)
        let l = parse_limit("rnd_0-100_4k/write p99.99 <= 2ms").unwrap();
        assert_eq!(l.tag, "rnd_0-100_4k/write");
        assert_eq!(parse_limit("host:7/nvme0n1/read p99 < 1ms").unwrap().tag, "host:7/nvme0n1/read");
        assert!(parse_limit("a|b p99 < 1ms").is_err());
    }

    #[test]
    fn the_envelope_keeps_the_binding_corners_and_marks_break_plain_comparisons() {
        let spec = Spec::parse(
            "e.spec",
            "read p99 <= 500us\nread p99.99 <= 1ms\nread p99.9 <= 2ms\nread max <= 50ms\nread mean <= 1us\nread iops >= 1\nwrite p99 <= 1us\nread p90 >= 1us",
        )
        .unwrap();
        let limits: Vec<&Limit> = spec.sections.iter().flat_map(|s| &s.limits).collect();
        // p99.9 <= 2ms is implied by p99.99 <= 1ms: no corner of its own
        assert_eq!(envelope(&limits, "read"), vec![(5e5, 0.01), (1e6, 1e-4), (5e7, 0.0)]);
        assert_eq!(envelope(&limits, "write"), vec![(1e3, 0.01)]);
        assert!(envelope(&limits, "all").is_empty());
        let le = parse_limit("read p99 <= 1ms").unwrap();
        assert!(!le.broken_by(1e6) && le.broken_by(1e6 + 1.0));
        let lt = parse_limit("read p99 < 1ms").unwrap();
        assert!(lt.broken_by(1e6) && !lt.broken_by(999_999.0));
        let ge = parse_limit("read iops >= 10k").unwrap();
        assert!(ge.broken_by(9_999.0) && !ge.broken_by(10_000.0));
    }

    #[test]
    fn limits_parse_with_and_without_spaces_and_name_their_column() {
        let l = parse_limit("read p99.99 <= 1ms").unwrap();
        assert_eq!((l.tag.as_str(), l.metric.label(), l.op, l.value), ("read", "p99.99".to_string(), Op::Le, 1e6));
        assert_eq!(parse_limit("read p99.99<=1ms").unwrap().value, 1e6);
        assert_eq!(parse_limit("write p99.9999 < 5ms").unwrap().metric, Metric::Level(Level::nines(6)));
        assert_eq!(parse_limit("all max <= 50ms").unwrap().metric, Metric::Max);
        assert_eq!(parse_limit("read iops >= 50k").unwrap().value, 50_000.0);
        assert_eq!(parse_limit("read iops > 1.5m").unwrap().value, 1_500_000.0);
        assert_eq!(parse_limit("read mean <= 200us").unwrap().value, 200_000.0);
        assert_eq!(parse_limit("read median <= 90us").unwrap().metric.label(), "p50");
        assert_eq!(parse_limit("read p99.5 <= 1ms").unwrap().metric.label(), "p99.5");
        assert_eq!(parse_limit("read p99.99 <= 1ms").unwrap().text(), "read p99.99 <= 1.00ms");
        let err = |s: &str| {
            let e = parse_limit(s).unwrap_err();
            (e.column, e.kind.to_string())
        };
        assert_eq!(err("read p99.99 <= 1").0, 16);
        assert!(err("read p99.99 <= 1").1.contains("unit"), "{:?}", err("read p99.99 <= 1"));
        assert_eq!(err("read q99 <= 1ms"), (6, "expected a metric (pQ such as p99.99, median, max, mean or iops), found \"q99\"".into()));
        assert_eq!(parse_limit("read q99 <= 1ms").unwrap_err(), LimitErrorKind::NotMetric("q99".into()).at(6));
        assert_eq!(err("read p99.99 = 1ms").0, 18);
        assert_eq!(err("p99 <= 1ms").0, 5);
        assert_eq!(err("read p99 extra <= 1ms").0, 10);
        assert!(err("read p100 <= 1ms").1.contains("below p100"));
        assert!(err("read iops >= lots").1.contains("I/O rate"));
        assert!(err("read p99 <= ").1.contains("expected a value"));
        assert!(err("read p99 <= 1ms 2ms").1.contains("one value"));
    }

    #[test]
    fn a_limit_beyond_what_it_keeps_exactly_is_refused_with_its_line() {
        // 1e26 used to be judged and shown as u64::MAX, 18,446,744,073,709,551,615
        let e = Spec::parse("qos.spec", "read p99 <= 1ms\nread iops >= 99999999999999999999999999\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 14), "{e}");
        assert!(
            e.to_string()
                .starts_with("qos.spec:2:14: \"99999999999999999999999999\" is above 9,007,199,254,740,992 I/Os per second (2^53)"),
            "{e}"
        );
        assert!(parse_limit("read iops >= 9007.3t").is_err(), "t is not a rate's suffix");
        assert!(parse_limit("read iops >= 9007200g").unwrap_err().kind.to_string().contains("2^53"));
        assert_eq!(parse_limit("read iops >= 9007199254740992").unwrap().value, MAX_RATE);
        let e = Spec::from_limits(&["read p99 <= 99999999999999999999s".into()]).unwrap_err();
        assert!(e.to_string().contains("--limit:1:13: \"99999999999999999999s\" is longer than 1000000000 s"), "{e}");
    }

    #[test]
    fn a_spec_has_comments_sections_and_errors_naming_file_line_and_column() {
        let text = "# vendor QoS\nall max <= 50ms  # every run\n\n[workload.qd=1 name=r*]\n  read p99.99 <= 1ms\n[*]\nread iops >= 1k\n";
        let spec = Spec::parse("qos.spec", text).unwrap();
        assert_eq!(spec.sections.len(), 3);
        assert_eq!(spec.len(), 3);
        assert_eq!(spec.sections[1].selector.conditions, vec![("workload.qd".into(), "1".into()), ("name".into(), "r*".into())]);
        assert_eq!(spec.sections[1].limits[0].at, "qos.spec:5");
        let e = Spec::parse("qos.spec", "read p99 <= 1ms\n  read p99 <== 1ms\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 14), "{e}");
        assert!(e.to_string().starts_with("qos.spec:2:14: expected one comparison"), "{e}");
        let e = Spec::parse("q", "[name=x\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 8), "{e}");
        let e = Spec::parse("q", "[name=x qd]\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9), "{e}");
        assert!(e.message.contains("KEY=GLOB"), "{e}");
        let e = Spec::parse("q", "[name=]\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 7), "{e}");
        let e = Spec::from_limits(&["read p99 <= 1ms".into(), "read p99 <= soon".into()]).unwrap_err();
        assert_eq!(e.to_string(), "--limit:1:13: expected a latency with its unit (ns, us, ms or s), e.g. 1ms, found \"soon\"");
    }

    #[test]
    fn selectors_match_names_files_and_metadata() {
        let mut r = run();
        r.meta.workload = Some(crate::meta::Workload { qd: Some(1), rw: Some("randread".into()), ..Default::default() });
        let sel = |s: &str| parse_selector(s).unwrap();
        assert!(sel("").matches(&r));
        assert!(sel("*").matches(&r));
        assert!(sel("name=r").matches(&r));
        assert!(sel("name=?").matches(&r));
        assert!(!sel("name=x*").matches(&r));
        assert!(sel("file=r.hlog").matches(&r));
        assert!(sel("file=*.hlog workload.qd=1 workload.rw=rand*").matches(&r));
        assert!(!sel("workload.qd=1 workload.rw=*write").matches(&r));
        assert!(!sel("host.name=*").matches(&r));
        assert!(glob_match("a*b*c", "aXbYbc"));
        assert!(!glob_match("a*b", "aXbc"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn a_clear_pass_a_clear_failure_and_a_level_with_three_ios_beyond_it() {
        let r = run();
        let spec = Spec::from_limits(&[
            "read p99 <= 1ms".into(),
            "read p99 <= 150us".into(),
            "read p99.99 <= 10ms".into(),
            "read p99.9999 <= 10ms".into(),
        ])
        .unwrap();
        let c = check_run(&r, &spec, None, None);
        let v: Vec<Verdict> = c.checks.iter().map(|c| c.verdict).collect();
        assert_eq!(v, [Verdict::Meets, Verdict::Fails, Verdict::CannotTell, Verdict::CannotTell], "{c:#?}");
        assert_eq!(c.verdict, Verdict::Fails);
        // p99.99 of 100,000: rank 99,990, 10 beyond: shown, but thin support is no pass
        assert_eq!(c.checks[2].beyond, Some(10));
        assert!(c.checks[2].reason.as_deref().unwrap().contains("thin support"), "{:?}", c.checks[2]);
        // p99.9999 of 100,000: no I/O beyond
        assert!(c.checks[3].reason.as_deref().unwrap().contains("not measured"), "{:?}", c.checks[3]);
        // the value is the level's bucket's upper edge, inside its interval
        let [Some(lo), Some(hi)] = c.checks[0].interval.unwrap() else { panic!("{c:#?}") };
        let val = c.checks[0].value.unwrap();
        assert!(lo <= val && val <= hi && hi <= 1e6);
        // three I/Os beyond: too few for an interval
        let small = run_of(|_| (0..3_000u64).map(|i| 100_000 + i * 10).collect(), 1);
        let c = check_run(&small, &Spec::from_limits(&["read p99.9 <= 1s".into()]).unwrap(), None, None);
        assert_eq!((c.checks[0].beyond, c.checks[0].verdict), (Some(3), Verdict::CannotTell));
        assert!(c.checks[0].reason.as_deref().unwrap().contains("too few for the 95% interval's upper bound"), "{:?}", c.checks[0]);
        // ...but enough for its lower one: a level clearly beyond a limit fails
        let c = check_run(&small, &Spec::from_limits(&["read p99.9 <= 1us".into()]).unwrap(), None, None);
        assert_eq!(c.checks[0].verdict, Verdict::Fails, "{c:#?}");
    }

    #[test]
    fn max_mean_and_iops_are_judged_on_their_intervals() {
        let r = run();
        let limits = [
            "all max <= 6ms",
            "all max > 6ms",
            "all max <= 5ms",
            "read mean <= 1ms",
            "read mean >= 1ms",
            "read iops >= 9k",
            "read iops >= 11k",
            "read iops >= 10k",
            "write p99 <= 1ms",
        ];
        let spec = Spec::from_limits(&limits.map(String::from)).unwrap();
        let c = check_run(&r, &spec, None, None);
        let v: Vec<Verdict> = c.checks.iter().map(|c| c.verdict).collect();
        use Verdict::*;
        // 5 ms lies inside the max's bucket (5.000-5.003 ms); every window holds exactly
        // 10,000 reads a second, so the rate's interval is the point 10k, which meets >= 10k
        assert_eq!(v, [Meets, Fails, CannotTell, Meets, Fails, Meets, Fails, Meets, NotApplicable], "{c:#?}");
        assert!(c.checks[8].reason.as_deref().unwrap().contains("issues no write I/Os"), "{:?}", c.checks[8]);
        // windows that vary: the rate has a spread
        let varying = run_of(|s| (0..(9_000 + 500 * (s % 3))).map(|i| 100_000 + i).collect(), 9);
        let c = check_run(&varying, &Spec::from_limits(&["read iops >= 9.5k".into()]).unwrap(), None, None);
        let [Some(lo), Some(hi)] = c.checks[0].interval.unwrap() else { panic!("{c:#?}") };
        assert!(lo < 9_500.0 && hi > 9_500.0 && c.checks[0].verdict == CannotTell, "{c:#?}");
        // the range selects windows
        let c = check_run(&varying, &Spec::from_limits(&["read iops >= 1k".into()]).unwrap(), Some(0.0), Some(1.0));
        assert_eq!((c.checks[0].count, c.checks[0].verdict), (9_000, CannotTell));
    }

    #[test]
    fn runs_from_fio_buckets_are_judged_at_their_precision() {
        let mut r = run();
        r.meta.precision = Some(Precision::Fio { coarseness: 0 });
        // fio's buckets are 64 a power of two: 5 ms lies in a bucket 64 us wide
        let c = check_run(&r, &Spec::from_limits(&["all max <= 5.01ms".into()]).unwrap(), None, None);
        let [Some(lo), Some(hi)] = c.checks[0].interval.unwrap() else { panic!("{c:#?}") };
        assert!(hi - lo > 10_000.0 && c.checks[0].verdict == Verdict::CannotTell, "{c:#?}");
    }

    #[test]
    fn sections_pick_the_limits_of_each_run_and_a_run_without_limits_is_not_applicable() {
        let spec = Spec::parse("s", "read p99 <= 1ms\n[name=other]\nread p99 <= 1us\n").unwrap();
        let r = run();
        assert_eq!(spec.limits_for(&r).len(), 1);
        assert_eq!(check_run(&r, &spec, None, None).verdict, Verdict::Meets);
        let only_other = Spec::parse("s", "[name=other]\nread p99 <= 1us\n").unwrap();
        let c = check_run(&r, &only_other, None, None);
        assert_eq!(c.verdict, Verdict::NotApplicable);
        assert!(c.note.is_some());
        // left out of the overall verdict beside a run that was judged
        let out = text(&[c.clone(), check_run(&r, &spec, None, None)]);
        assert!(out.contains("r (dir/r.hlog): not applicable\n  no limit of the spec applies"), "{out}");
        assert!(out.contains("overall: meets (1 meet, 0 fail, 0 cannot tell)"), "{out}");
        // alone, nothing was judged: cannot tell (exit status 2)
        let j: Value = serde_json::from_str(&json(&[c])).unwrap();
        assert_eq!((j["verdict"].as_str(), j["runs"][0]["verdict"].as_str()), (Some("cannot_tell"), Some("not_applicable")));
        assert_eq!(j["runs"][0]["name"], "r");
        // a section whose direction the run never issued: that limit is not applicable
        let c = check_run(&r, &Spec::parse("s", "read p99 <= 1ms\n[*]\ntrim p99 <= 1ms\n").unwrap(), None, None);
        assert_eq!((c.verdict, c.checks[1].verdict), (Verdict::Meets, Verdict::NotApplicable));
    }

    #[test]
    fn a_direction_limit_on_an_untagged_run_cannot_tell_and_on_a_run_without_it_is_not_applicable() {
        let untagged = |tag: Option<&str>| Run {
            name: "u".into(),
            source: "u.csv".into(),
            start_time: None,
            meta: Default::default(),
            windows: (0..3)
                .map(|s| Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: tag.map(String::from),
                    hist: Hist::from_values(Layout::default_ns(), (0..1000_u64).map(|v| 1000 + v).collect::<Vec<u64>>()),
                })
                .collect(),
            warnings: Vec::new(),
            context: Vec::new(),
        };
        let spec = Spec::parse("s", "all p50 <= 1ms\nwrite p99 <= 1ms\n").unwrap();
        // reads only: a write limit cannot apply
        let c = check_run(&untagged(Some("read")), &spec, None, None);
        assert_eq!((c.verdict, c.checks[1].verdict), (Verdict::Meets, Verdict::NotApplicable), "{c:#?}");
        // no directions at all: the writes may be among its I/Os
        let c = check_run(&untagged(None), &spec, None, None);
        assert_eq!((c.verdict, c.checks[1].verdict), (Verdict::CannotTell, Verdict::CannotTell), "{c:#?}");
        assert!(c.checks[1].reason.as_deref().unwrap().contains("no direction"), "{c:#?}");
    }

    #[test]
    fn a_misspelt_direction_is_a_spec_error() {
        let e = Spec::parse("qos.spec", "# vendor X\nread p99 <= 1ms\n  red p99 < 1ms\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3), "{e}");
        assert_eq!(
            e.to_string(),
            "qos.spec:3:3: expected a direction (read, write, trim, sync, all, or a tag of the runs), found \"red\": did you mean \"read\"?"
        );
        for (bad, near) in [("wirte", "write"), ("host7/reads", "read"), ("tirm.svc", "trim"), ("al", "all")] {
            let e = Spec::parse("s", &format!("{bad} p99 < 1ms")).unwrap_err().to_string();
            assert!(e.contains(&format!("did you mean {near:?}")), "{bad}: {e}");
        }
        // directions, scoped tags and other tools' tags far from a direction parse
        for ok in ["read", "host7/write.svc", "all", "sync", "A", "tag1", "lookups"] {
            assert!(Spec::parse("s", &format!("{ok} p99 < 1ms")).is_ok(), "{ok}");
        }
        // a name no run has is an error naming the limit, once the runs' tags are known
        let spec = Spec::parse("s", "read p99 <= 1ms\nlookups p99 <= 1ms\n").unwrap();
        assert!(spec.check_directions(&["lookups".into()]).is_ok());
        let e = spec.check_directions(&["read".into(), "write".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "s:2: the direction \"lookups\" is none of read, write, trim, sync, all nor a tag of the runs (they have: read, write)"
        );
    }
}
