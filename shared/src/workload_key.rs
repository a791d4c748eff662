//! A run's workload key: what it ran, from its metadata, as the few settings that change its
//! latencies (pattern, read share, block size, queue depth, jobs, O_SYNC, O_DIRECT, fsync,
//! rate, random distribution, engine). One definition decides, wherever runs are put together:
//!
//! - what counts as a repeat: runs of the same key (a `nines compare` side, run-to-run spread);
//! - what a sweep's line joins: runs of the same key but for the swept parameter;
//! - what a trend compares: runs of the same key.
//!
//! The key is read from what `nines run` writes (`workload`, `engine`, several `jobs`) or, for
//! a run imported from fio's JSON, from its first job's options over the global ones, with
//! fio's defaults for an option not given (fio's HOWTO: `iodepth=1`, `numjobs=1`,
//! `rwmixread=50`, `bs=4k`, `sync=0`, `direct=0`). A setting a run does not state (a latency
//! list, an HdrHistogram log of another tool) is unknown, and an unknown setting never makes two
//! runs differ: only two stated, different values do.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::meta::{RunMeta, Size};

/// The settings of a key, in the order they are printed.
pub const KEYS: [&str; 11] = ["rw", "mix", "bs", "qd", "jobs", "sync", "direct", "fsync", "rate", "distribution", "engine"];

/// A run's workload: each setting of [`KEYS`] it states, as text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkloadKey(Vec<(&'static str, String)>);

impl WorkloadKey {
    /// The key of a run's metadata.
    pub fn of(meta: &RunMeta) -> WorkloadKey {
        let mut k = WorkloadKey::default();
        if let Some(w) = &meta.workload {
            let rw = w.rw.as_deref().map(pattern);
            k.put("rw", rw.clone());
            if rw.as_deref().is_some_and(mixed) {
                k.put("mix", w.read_pct.map(|p| p.to_string()));
            }
            let bs = if w.bs_bytes.is_empty() {
                w.bs.as_ref().map(|b| match b {
                    Size::Bytes(n) => n.to_string(),
                    Size::Text(t) => t.clone(),
                })
            } else {
                Some(split(&w.bs_bytes))
            };
            k.put("bs", bs);
            k.put("qd", w.qd.map(|q| q.to_string()));
            k.put("jobs", w.jobs.map(|j| j.to_string()));
            // nines run states these always: an absent one is the setting off
            k.put("sync", w.sync.map(|s| s.to_string()));
            k.put("direct", w.direct.map(|d| d.to_string()));
            k.put("fsync", w.sync.map(|_| w.fsync_every.unwrap_or(0).to_string()));
            k.put("rate", w.sync.map(|_| rate(w.rate_iops_per_job, w.rate_bytes_per_job, w.arrival.as_deref())));
            k.put("distribution", w.random_distribution.clone());
            if meta.jobs.len() > 1 {
                // a run of several concurrent job sections: their number is part of what ran
                k.0.retain(|(n, _)| *n != "jobs");
                k.put("jobs", Some(format!("{} sections", meta.jobs.len())));
            }
            k.put("engine", meta.engine.as_ref().and_then(|e| e.name.clone()));
        } else if let Some(opts) = fio_options(meta) {
            k.fio(&opts);
        }
        k
    }

    fn put(&mut self, name: &'static str, v: Option<String>) {
        if let Some(v) = v {
            self.0.push((name, v));
            // kept in KEYS order
            crate::sort::sort_by(&mut self.0, |a, b| position(a.0).cmp(&position(b.0)));
        }
    }

    /// The key of a fio job's options (strings, as fio's JSON writes them).
    fn fio(&mut self, o: &Map<String, Value>) {
        let get = |names: &[&str]| names.iter().find_map(|n| o.get(*n)).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
        let rw = pattern(&get(&["rw", "readwrite"]).unwrap_or_else(|| "read".into()));
        if mixed(&rw) {
            let mix = match (get(&["rwmixread"]), get(&["rwmixwrite"])) {
                (Some(r), _) => r,
                (None, Some(w)) => w.trim().parse::<u32>().map_or(w, |w| 100u32.saturating_sub(w).to_string()),
                (None, None) => "50".into(),
            };
            self.put("mix", Some(mix));
        }
        self.put("rw", Some(rw.clone()));
        let bs = get(&["bs", "blocksize"]).unwrap_or_else(|| "4k".into());
        self.put("bs", Some(crate::units::parse_size(&bs).map_or(bs, |b| split(&[(b, 100)]))));
        self.put("qd", Some(get(&["iodepth"]).unwrap_or_else(|| "1".into())));
        self.put("jobs", Some(get(&["numjobs"]).unwrap_or_else(|| "1".into())));
        let flag = |names: &[&str]| get(names).is_some_and(|v| !matches!(v.trim(), "0" | "none" | "false" | ""));
        self.put("sync", Some(flag(&["sync"]).to_string()));
        self.put("direct", Some(flag(&["direct"]).to_string()));
        self.put("fsync", Some(get(&["fsync"]).unwrap_or_else(|| "0".into())));
        let rate_iops = get(&["rate_iops"]).and_then(|r| r.trim().parse::<f64>().ok());
        let rate_bytes = get(&["rate"]).and_then(|r| crate::units::parse_size(&r).ok());
        let arrival = get(&["rate_process"]).filter(|_| rate_iops.is_some() || rate_bytes.is_some());
        self.put("rate", Some(rate(rate_iops, rate_bytes, arrival.as_deref())));
        if rw.starts_with("rand") {
            self.put("distribution", Some(get(&["random_distribution"]).unwrap_or_else(|| "random".into())));
        }
        self.put("engine", get(&["ioengine"]));
    }

    /// A setting's value, when the run states it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Whether the run states nothing of its workload.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The settings both keys state with different values, in [`KEYS`] order.
    pub fn differences(&self, other: &WorkloadKey) -> Vec<&'static str> {
        self.0.iter().filter(|(n, v)| other.get(n).is_some_and(|w| w != v)).map(|(n, _)| *n).collect()
    }

    /// Whether two runs are repeats of one workload: no setting both state differs.
    pub fn repeats(&self, other: &WorkloadKey) -> bool {
        self.differences(other).is_empty()
    }

    /// The key less the settings named (a sweep's parameter).
    pub fn without(&self, names: &[&str]) -> WorkloadKey {
        WorkloadKey(self.0.iter().filter(|(n, _)| !names.contains(n)).cloned().collect())
    }

    /// `k=v` for the settings named that the run states, space-separated.
    pub fn describe(&self, names: &[&str]) -> String {
        self.0.iter().filter(|(n, _)| names.contains(n)).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
    }

    /// Every setting as `k=v`, space-separated.
    pub fn text(&self) -> String {
        self.describe(&KEYS)
    }

    /// The JSON form a site's manifest keeps: `{"rw": "randrw", "qd": "1", ...}`, the
    /// settings the run states.
    pub fn to_json(&self) -> Value {
        Value::Object(self.0.iter().map(|(n, v)| (n.to_string(), Value::String(v.clone()))).collect())
    }

    /// Read [`WorkloadKey::to_json`]'s form; settings nines does not know are left out (a
    /// newer nines may know more), a value that is not a string is an error naming it.
    pub fn from_json(v: &Value) -> Result<WorkloadKey, WorkloadKeyError> {
        let o = v.as_object().ok_or(WorkloadKeyError::NotObject)?;
        let mut k = WorkloadKey::default();
        for (n, v) in o {
            if let Some(&name) = KEYS.iter().find(|&&k| k == n) {
                let v = v.as_str().ok_or(WorkloadKeyError::NotString(name))?;
                k.put(name, Some(v.to_string()));
            }
        }
        Ok(k)
    }
}

/// What is wrong with a workload key's JSON form ([`WorkloadKey::from_json`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadKeyError {
    #[error("'workload' is not an object")]
    NotObject,
    /// A setting (its name) whose value is not a string.
    #[error("'workload': '{0}' is not a string")]
    NotString(&'static str),
}

fn position(name: &str) -> usize {
    KEYS.iter().position(|&k| k == name).unwrap_or(KEYS.len())
}

/// fio's and nines' names of one pattern made one (fio's `readwrite` is `rw`).
fn pattern(rw: &str) -> String {
    match rw.trim() {
        "readwrite" => "rw".into(),
        "randreadwrite" => "randrw".into(),
        p => p.to_string(),
    }
}

/// Whether a pattern mixes reads and writes (its read share matters).
fn mixed(rw: &str) -> bool {
    matches!(rw, "rw" | "randrw")
}

/// Block sizes and their shares as `4096` or `4096/70:65536/30`.
fn split(bs: &[(u64, u32)]) -> String {
    match bs {
        [(b, _)] => b.to_string(),
        _ => bs.iter().map(|(b, p)| format!("{b}/{p}")).collect::<Vec<_>>().join(":"),
    }
}

fn rate(iops: Option<f64>, bytes: Option<u64>, arrival: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(r) = iops {
        parts.push(format!("{r}iops"));
    }
    if let Some(b) = bytes {
        parts.push(format!("{b}B/s"));
    }
    if parts.is_empty() {
        return "none".into();
    }
    if let Some(a) = arrival {
        parts.push(a.to_string());
    }
    parts.join("/")
}

/// A fio run's first job's options over its global options.
fn fio_options(meta: &RunMeta) -> Option<Map<String, Value>> {
    let doc = meta.fio.first()?;
    let mut o = doc.get("global options").and_then(Value::as_object).cloned().unwrap_or_default();
    let job = doc.get("jobs").and_then(|j| j.get(0)).and_then(|j| j.get("job options")).and_then(Value::as_object);
    for (k, v) in job.into_iter().flatten() {
        o.insert(k.clone(), v.clone());
    }
    (!o.is_empty() || doc.get("jobs").is_some()).then_some(o)
}

/// The setting a sweep parameter names (`iodepth` and `qd` are the queue depth, `numjobs`
/// the jobs, `offered_iops` the rate), when it names one.
pub fn setting_of(param: &str) -> Option<&'static str> {
    let p = param.to_ascii_lowercase();
    let name = match p.as_str() {
        "qd" | "iodepth" | "queue_depth" => "qd",
        "jobs" | "numjobs" | "threads" => "jobs",
        "offered_iops" | "offered_pct" | "rate" | "rate_iops" | "rate_iops_per_job" => "rate",
        "bs" | "blocksize" | "block_size" | "bs_bytes" => "bs",
        "mix" | "read_pct" | "rwmixread" => "mix",
        "rw" | "readwrite" | "pattern" => "rw",
        "engine" | "ioengine" => "engine",
        other => return KEYS.iter().find(|&&k| k == other).copied(),
    };
    Some(name)
}

/// The settings whose stated values differ among `keys`, in [`KEYS`] order.
pub fn varying<'a>(keys: impl IntoIterator<Item = &'a WorkloadKey> + Clone) -> Vec<&'static str> {
    KEYS.iter()
        .copied()
        .filter(|n| {
            let mut vals = keys.clone().into_iter().filter_map(|k| k.get(n));
            vals.next().is_some_and(|first| vals.any(|v| v != first))
        })
        .collect()
}

/// A setting in which the runs of a comparison are not one workload: the values each side
/// states (more than one on a side: that side's runs are not repeats).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub key: String,
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
}

/// Where the baseline and candidate runs are not all one workload: the settings that differ
/// between the sides or within one.
pub fn differences(base: &[WorkloadKey], cand: &[WorkloadKey]) -> Vec<Difference> {
    let all = base.iter().chain(cand);
    varying(all.clone())
        .into_iter()
        .map(|n| {
            let values = |set: &[WorkloadKey]| {
                let mut v: Vec<String> = Vec::new();
                for x in set.iter().filter_map(|k| k.get(n)) {
                    if !v.iter().any(|y| y == x) {
                        v.push(x.to_string());
                    }
                }
                v
            };
            Difference { key: n.to_string(), baseline: values(base), candidate: values(cand) }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// The metadata `nines run` writes for a workload (the fields the key reads).
    pub(crate) fn nines_run(rw: &str, qd: u32, sync: bool) -> RunMeta {
        crate::meta::tests::meta(json!({
            "workload": {"rw": rw, "read_pct": 70, "bs": "4KiB/100", "bs_bytes": [[4096, 100]], "qd": qd, "jobs": 1,
                         "direct": true, "sync": sync, "random_distribution": "random", "seed": qd},
            "engine": {"name": "io_uring"}
        }))
    }

    #[test]
    fn three_runs_repeats_sweep_lines_and_what_differs() {
        let qd1 = WorkloadKey::of(&nines_run("randrw", 1, false));
        let qd16 = WorkloadKey::of(&nines_run("randrw", 16, false));
        let sync = WorkloadKey::of(&nines_run("randwrite", 1, true));
        assert_eq!(
            qd1.text(),
            "rw=randrw mix=70 bs=4096 qd=1 jobs=1 sync=false direct=true fsync=0 rate=none distribution=random engine=io_uring"
        );
        // the mix is no setting of a pattern that does not mix
        assert_eq!(sync.get("mix"), None);
        // a repeat: the same key (the seed is no setting)
        assert!(qd1.repeats(&WorkloadKey::of(&nines_run("randrw", 1, false))));
        assert!(!qd1.repeats(&qd16) && !qd1.repeats(&sync));
        assert_eq!(qd1.differences(&qd16), ["qd"]);
        assert_eq!(qd1.differences(&sync), ["rw", "sync"]);
        // a qd sweep joins QD1 and QD16 randrw, not the sync randwrite run
        let q = setting_of("iodepth").unwrap();
        assert_eq!(q, "qd");
        assert_eq!(qd1.without(&[q]), qd16.without(&[q]));
        assert_ne!(qd1.without(&[q]), sync.without(&[q]));
        assert_eq!(varying([&qd1, &qd16, &sync]), ["rw", "qd", "sync"]);
        // a comparison names what differs between and within its sides
        let d = differences(&[qd1.clone(), qd16.clone()], std::slice::from_ref(&sync));
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["rw", "qd", "sync"]);
        assert_eq!((d[1].baseline.clone(), d[1].candidate.clone()), (vec!["1".to_string(), "16".into()], vec!["1".to_string()]));
        assert!(differences(std::slice::from_ref(&qd1), std::slice::from_ref(&qd1)).is_empty());
        // the manifest's form reads back
        assert_eq!(WorkloadKey::from_json(&sync.to_json()), Ok(sync));
        assert_eq!(WorkloadKey::from_json(&json!({"qd": "4", "color": "red"})), Ok(WorkloadKey(vec![("qd", "4".into())])));
        assert!(WorkloadKey::from_json(&json!({"qd": 4})).unwrap_err().to_string().contains("'qd'"));
    }

    #[test]
    fn an_unknown_setting_never_differs() {
        let list = WorkloadKey::of(&RunMeta::default());
        assert!(list.is_empty());
        let qd1 = WorkloadKey::of(&nines_run("randrw", 1, false));
        assert!(list.repeats(&qd1) && qd1.repeats(&list));
        assert!(differences(&[qd1], &[list]).is_empty());
    }

    #[test]
    fn fio_runs_take_their_job_options_over_the_global_ones_with_fios_defaults() {
        let meta = |job: Value| {
            crate::meta::tests::meta(
                json!({"fio": [{"global options": {"ioengine": "libaio", "iodepth": "32"}, "jobs": [{"job options": job}]}]}),
            )
        };
        let a = WorkloadKey::of(&meta(json!({"rw": "randrw", "rwmixwrite": "30", "bs": "4k"})));
        assert_eq!(
            a.text(),
            "rw=randrw mix=70 bs=4096 qd=32 jobs=1 sync=false direct=false fsync=0 rate=none distribution=random engine=libaio"
        );
        let b = WorkloadKey::of(&meta(json!({"readwrite": "randrw", "rwmixread": "70", "iodepth": "1", "sync": "1"})));
        assert_eq!(a.differences(&b), ["qd", "sync"]);
        // a nines run of the same settings is the same workload but for the engine
        let n = WorkloadKey::of(&nines_run("randrw", 32, false));
        assert_eq!(a.differences(&n), ["direct", "engine"]);
    }
}
