//! Trends across many runs (a site's nightly runs): each run's whole-run levels per
//! direction with their intervals, small enough to list a thousand runs in a site's
//! manifest, and each run's change against the run before it (or a pinned baseline) judged
//! as `nines compare` judges a change: beyond noise only when the two 95% intervals do not
//! overlap ([`crate::compare`]).

use serde_json::{json, Value};

use crate::compare::{self, Verdict};
use crate::run::Run;
use crate::stats::RunStats;
use crate::workload_key::{WorkloadKey, WorkloadKeyError};

/// One level of one direction of a run: its value and 95% interval (ns), and the I/Os beyond.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelSummary {
    pub label: String,
    pub value_ns: Option<u64>,
    pub ci95_ns: Option<(u64, u64)>,
    pub beyond: u64,
}

/// Which part of a [`Summary`]'s JSON form is not as [`Summary::to_json`] writes it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("'start' is not a number")]
    Start,
    #[error(transparent)]
    Workload(#[from] WorkloadKeyError),
    #[error("no 'tags' list")]
    NoTags,
    /// The tag at this index of the list.
    #[error("tag {0}: expected [tag, count, levels]")]
    Tag(usize),
    /// A level (its index) of a tag.
    #[error("tag '{tag}': level {index}: expected [label, value, lo, hi, beyond]")]
    Level { tag: String, index: usize },
}

/// A run's whole-run levels per direction, as a site's manifest keeps them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Summary {
    /// Run start, seconds since the epoch, when the run says.
    pub start: Option<f64>,
    /// What the run ran ([`WorkloadKey`]): a trend compares a run with repeats of its workload
    /// only. `None` in a manifest written before nines kept it.
    pub workload: Option<WorkloadKey>,
    /// Per tag (`read`, `write`, `all`, ...): its I/Os and levels.
    pub tags: Vec<(String, u64, Vec<LevelSummary>)>,
}

impl Summary {
    /// The summary of `run` from its stats (`nines stats`'s numbers, levels without support
    /// kept without a value).
    pub fn of(run: &Run, stats: &RunStats) -> Summary {
        let tags = stats
            .tags
            .iter()
            .map(|(t, s)| {
                let levels = s
                    .levels
                    .iter()
                    .map(|l| LevelSummary {
                        label: l.label.clone(),
                        value_ns: l.value_ns.filter(|_| l.support != crate::quantile::Support::None),
                        ci95_ns: l.ci95_ns,
                        beyond: l.beyond,
                    })
                    .collect();
                (t.clone(), s.count, levels)
            })
            .collect();
        Summary { start: run.start_time, workload: Some(WorkloadKey::of(&run.meta)), tags }
    }

    /// The manifest's form: `{"start": S, "workload": {"rw": "randrw", ...}, "tags": [["read", N, [[label, value, lo, hi,
    /// beyond], ...]], ...]}` in the stats' tag order, a value or bound `null` where the run
    /// has none.
    pub fn to_json(&self) -> Value {
        let tags: Vec<Value> = self
            .tags
            .iter()
            .map(|(t, n, lv)| {
                let lv: Vec<Value> =
                    lv.iter().map(|l| json!([l.label, l.value_ns, l.ci95_ns.map(|c| c.0), l.ci95_ns.map(|c| c.1), l.beyond])).collect();
                json!([t, n, lv])
            })
            .collect();
        let mut v = json!({ "start": self.start, "tags": tags });
        if let Some(k) = &self.workload {
            v["workload"] = k.to_json();
        }
        v
    }

    /// Read [`Summary::to_json`]'s form; the error says which part is not as written.
    pub fn from_json(v: &Value) -> Result<Summary, SummaryError> {
        let start = match v.get("start") {
            None | Some(Value::Null) => None,
            Some(s) => Some(s.as_f64().ok_or(SummaryError::Start)?),
        };
        let workload = v.get("workload").map(WorkloadKey::from_json).transpose()?;
        let tags = v.get("tags").and_then(Value::as_array).ok_or(SummaryError::NoTags)?;
        let mut out = Vec::with_capacity(tags.len());
        for (k, tv) in tags.iter().enumerate() {
            let bad_tag = || SummaryError::Tag(k);
            let (t, n, lv) = match tv.as_array().map(Vec::as_slice) {
                Some([t, n, lv]) => (t.as_str().ok_or_else(bad_tag)?, n.as_u64().ok_or_else(bad_tag)?, lv.as_array().ok_or_else(bad_tag)?),
                _ => return Err(bad_tag()),
            };
            let mut levels = Vec::with_capacity(lv.len());
            for (i, l) in lv.iter().enumerate() {
                let bad = || SummaryError::Level { tag: t.to_string(), index: i };
                let a = l.as_array().filter(|a| a.len() == 5).ok_or_else(bad)?;
                let opt = |x: &Value| -> Result<Option<u64>, SummaryError> {
                    if x.is_null() {
                        Ok(None)
                    } else {
                        x.as_u64().map(Some).ok_or_else(bad)
                    }
                };
                let (lo, hi) = (opt(&a[2])?, opt(&a[3])?);
                levels.push(LevelSummary {
                    label: a[0].as_str().ok_or_else(bad)?.to_string(),
                    value_ns: opt(&a[1])?,
                    ci95_ns: lo.zip(hi),
                    beyond: a[4].as_u64().ok_or_else(bad)?,
                });
            }
            out.push((t.to_string(), n, levels));
        }
        Ok(Summary { start, workload, tags: out })
    }

    /// A level of a direction.
    pub fn level(&self, tag: &str, label: &str) -> Option<&LevelSummary> {
        self.tags.iter().find(|(t, ..)| t == tag)?.2.iter().find(|l| l.label == label)
    }
}

/// One run's point on a trend: the level's value and interval, and how it compares with its
/// reference run (the previous run with a value, or the baseline).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub value: Option<f64>,
    pub interval: Option<(f64, f64)>,
    /// `None` for the first run and the baseline itself.
    pub verdict: Option<Verdict>,
    /// Index of the run compared with.
    pub against: Option<usize>,
}

/// The trend of level `label` of direction `tag` over `runs` in the order given, each run
/// judged against `baseline` when given, else against the nearest earlier run with a value;
/// either only when it is a repeat of the run's workload ([`WorkloadKey::repeats`]): a QD16
/// run after a QD1 run is no change of the system.
pub fn points(runs: &[&Summary], tag: &str, label: &str, baseline: Option<usize>) -> Vec<Point> {
    let measured: Vec<compare::Measured> = runs
        .iter()
        .map(|r| match r.level(tag, label) {
            Some(l) => (l.value_ns.map(|v| v as f64), l.ci95_ns.map(|(a, b)| (a as f64, b as f64))),
            None => (None, None),
        })
        .collect();
    let repeats = |a: usize, b: usize| match (&runs[a].workload, &runs[b].workload) {
        (Some(x), Some(y)) => x.repeats(y),
        _ => true,
    };
    let mut lasts: Vec<usize> = Vec::new();
    measured
        .iter()
        .enumerate()
        .map(|(i, &(value, interval))| {
            let against = match baseline {
                Some(b) if b != i && b < runs.len() => Some(b).filter(|&b| repeats(b, i)),
                Some(_) => None,
                None => lasts.iter().copied().filter(|&j| repeats(j, i)).max(),
            };
            if value.is_some() {
                // the last run with a value of each workload (a site holds few workloads)
                match lasts.iter_mut().find(|j| runs[**j].workload == runs[i].workload) {
                    Some(j) => *j = i,
                    None => lasts.push(i),
                }
            }
            let verdict = against.map(|a| compare::measured_change(label, measured[a], (value, interval), false).verdict);
            Point { value, interval, verdict, against }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::Window;
    use crate::stats::{run_stats, Options};

    /// A one-direction run whose 1 in 1000 reads take `tail` ns.
    fn run(tail: u64) -> Run {
        let l = Layout::default_ns();
        let windows = (0..5)
            .map(|s| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("read".into()),
                hist: Hist::from_values(l, (0..100_000u64).map(|i| if i % 1000 == 999 { tail + i } else { 100_000 + (i * 7919) % 50_000 })),
            })
            .collect();
        Run { name: format!("t{tail}"), source: "x".into(), start_time: Some(1e9 + tail as f64), windows, ..Run::default() }
    }

    #[test]
    fn summaries_round_trip_and_carry_the_stats_levels() {
        let r = run(5_000_000);
        let st = run_stats(&r, &Options::default());
        let s = Summary::of(&r, &st);
        assert_eq!(Summary::from_json(&s.to_json()).unwrap(), s);
        let p999 = s.level("read", "p99.9").unwrap();
        let want = st.tags.get("read").unwrap().levels.iter().find(|l| l.label == "p99.9").unwrap();
        assert_eq!((p999.value_ns, p999.ci95_ns, p999.beyond), (want.value_ns, want.ci95_ns, want.beyond));
        assert!(Summary::from_json(&json!({"tags": [["read", 1, [["p50", "x", null, null, 0]]]]}))
            .unwrap_err()
            .to_string()
            .contains("level 0"));
        assert!(Summary::from_json(&json!({"tags": [["read", 1]]})).unwrap_err().to_string().contains("tag 0"));
        assert!(Summary::from_json(&json!({"start": "now", "tags": {}})).is_err());
    }

    #[test]
    fn a_regression_beyond_noise_is_worse_and_a_baseline_is_compared_with() {
        let runs: Vec<Summary> = [5_000_000u64, 5_000_000, 9_000_000, 9_000_000, 2_000_000]
            .iter()
            .map(|&t| {
                let r = run(t);
                Summary::of(&r, &run_stats(&r, &Options::default()))
            })
            .collect();
        let refs: Vec<&Summary> = runs.iter().collect();
        let p = points(&refs, "read", "p99.99", None);
        let v: Vec<Option<Verdict>> = p.iter().map(|p| p.verdict).collect();
        assert_eq!(v, vec![None, Some(Verdict::Same), Some(Verdict::Worse), Some(Verdict::Same), Some(Verdict::Better)]);
        assert_eq!(p[2].against, Some(1));
        let b = points(&refs, "read", "p99.99", Some(0));
        assert_eq!(
            b.iter().map(|p| p.verdict).collect::<Vec<_>>(),
            vec![None, Some(Verdict::Same), Some(Verdict::Worse), Some(Verdict::Worse), Some(Verdict::Better)]
        );
        // a run of another workload is compared with the last repeat of its own, or with none
        let mut mixed = runs.clone();
        let keys = [("randrw", 1, false), ("randrw", 16, false), ("randwrite", 1, true), ("randrw", 1, false), ("randrw", 16, false)];
        for (s, (rw, qd, sync)) in mixed.iter_mut().zip(keys) {
            s.workload = Some(WorkloadKey::of(&crate::workload_key::tests::nines_run(rw, qd, sync)));
        }
        let mixed: Vec<&Summary> = mixed.iter().collect();
        let p = points(&mixed, "read", "p99.99", None);
        assert_eq!(p.iter().map(|p| p.against).collect::<Vec<_>>(), vec![None, None, None, Some(0), Some(1)]);
        assert_eq!(p[3].verdict, Some(Verdict::Worse));
        assert_eq!(p[4].verdict, Some(Verdict::Better));
        // a pinned baseline of another workload judges nothing
        assert!(points(&mixed, "read", "p99.99", Some(2)).iter().all(|p| p.verdict.is_none()));
        // a summary of an older manifest (no workload) is compared as before
        let mut old = Summary::of(&run(5_000_000), &run_stats(&run(5_000_000), &Options::default())).to_json();
        old.as_object_mut().unwrap().remove("workload");
        assert_eq!(Summary::from_json(&old).unwrap().workload, None);
        // a direction the runs do not have: no values, nothing judged beyond unknown
        assert!(points(&refs, "write", "p99", None).iter().all(|p| p.value.is_none() && p.verdict != Some(Verdict::Worse)));
    }
}
