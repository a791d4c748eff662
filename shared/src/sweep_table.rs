//! Sweep tables (rendered by [`crate::export`]): IOPS, mean, p99 and p99.99 against a
//! parameter such as the number of fio threads or jobs, as when a baseline and a patched
//! storage stack are compared over a sweep of fio threads, one row per parameter value and configuration, and the candidate's change
//! against the baseline in percent.
//!
//! Each point is one run's statistics: no histograms of different runs are added, so no count
//! can pass what one run holds ([`crate::run::Run::check_counts`]).

use serde::Serialize;
use serde_json::Value;

use crate::quantile::{Level, Support};
use crate::run::Run;
use crate::stats::{run_stats, Options};
use crate::workload_key::{setting_of, varying, WorkloadKey};

/// Why a sweep table could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// A run has no value for the parameter; label it (e.g. `nines import --sweep`) or put the
    /// value in its file name (`numjobs-16.hlog`, `fio-16-jobs/fio.json`).
    #[error("{run}: no value for parameter '{param}' in its metadata (param, workload) or file name")]
    NoParam { run: String, param: String },
    /// A run lacks the direction asked for.
    #[error("{run}: no '{tag}' direction")]
    NoTag { run: String, tag: String },
}

/// The value of a sweep parameter for a run: from `meta.param` (exact key, or a key that
/// contains the name, such as `fio-*-jobs` for `jobs`), then `meta.workload`, then the file
/// name (`NAME=16`, `NAME-16`, `NAME_16`, `16-NAME`, `16NAME`).
pub fn param_value(run: &Run, name: &str) -> Option<f64> {
    let num = number;
    {
        let p = &run.meta.param;
        if let Some(v) = p.get(name).and_then(num) {
            return Some(v);
        }
        if let Some(v) = p.iter().find(|(k, _)| k.contains(name)).and_then(|(_, v)| num(v)) {
            return Some(v);
        }
    }
    if let Some(v) = run.meta.workload_value(name).as_ref().and_then(num) {
        return Some(v);
    }
    // a fio json+ document read as it is: its first job's options, then the global ones
    if let Some(doc) = run.meta.fio.first() {
        let job = doc.get("jobs").and_then(|j| j.get(0)).and_then(|j| j.get("job options")).and_then(|o| o.get(name));
        if let Some(v) = job.or_else(|| doc.get("global options").and_then(|o| o.get(name))).and_then(num) {
            return Some(v);
        }
    }
    from_file_name(&run.source, name)
}

/// Parameters a set of runs could be swept by: keys of their `param` metadata, and numeric
/// `workload` keys whose value differs between the runs (the CLI's `--param` choices, as the
/// viewer offers them). Names in file names are not guessed.
pub fn param_names(runs: &[&Run]) -> Vec<String> {
    let mut out = numeric_keys(runs, "param");
    for k in numeric_keys(runs, "workload") {
        let mut vals: Vec<f64> = runs.iter().filter_map(|r| r.meta.workload_value(&k).as_ref().and_then(number)).collect();
        crate::sort::sort_by_f64(&mut vals, |&x| x);
        vals.dedup();
        if vals.len() >= 2 && !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// A number, or a string that holds one (labels from file names are strings).
fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// Keys of the metadata object `field` with a numeric value in any of the runs, in order.
fn numeric_keys(runs: &[&Run], field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        let section = match field {
            "param" => r.meta.param.clone(),
            _ => r.meta.to_map().remove(field).and_then(|v| v.as_object().cloned()).unwrap_or_default(),
        };
        {
            for (k, v) in &section {
                if number(v).is_some() && !out.contains(k) {
                    out.push(k.clone());
                }
            }
        }
    }
    out
}

fn from_file_name(source: &str, name: &str) -> Option<f64> {
    let lower = source.to_ascii_lowercase();
    let name = name.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = None;
    let mut from = 0;
    while let Some(pos) = lower[from..].find(&name) {
        let at = from + pos;
        // NAME[=-_]DIGITS
        let mut i = at + name.len();
        while i < bytes.len() && matches!(bytes[i], b'=' | b'-' | b'_') {
            i += 1;
        }
        let digits: String = lower[i..].chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            found = digits.parse().ok();
        } else {
            // DIGITS[-_]NAME
            let mut j = at;
            while j > 0 && matches!(bytes[j - 1], b'-' | b'_') {
                j -= 1;
            }
            let start = lower[..j].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |k| k + 1);
            if start < j {
                found = lower[start..j].parse().ok();
            }
        }
        from = at + name.len();
    }
    found
}

/// Other labels of a run than the swept parameter, as `k=v` (its configuration).
fn config_of(run: &Run, name: &str) -> String {
    run.meta
        .param
        .iter()
        .filter(|(k, _)| k.as_str() != name && !k.contains(name))
        .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One run's numbers in a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub run: String,
    pub iops: f64,
    pub mean_ns: f64,
    /// `None` when no I/O lies beyond the level.
    pub p99_ns: Option<u64>,
    pub p99_99_ns: Option<u64>,
    /// Whether p99.99 is thin (fewer than 100 I/Os beyond it).
    pub p99_99_thin: bool,
}

/// Candidate change in percent per column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Changes {
    pub iops_pct: Option<f64>,
    pub mean_pct: Option<f64>,
    pub p99_pct: Option<f64>,
    pub p99_99_pct: Option<f64>,
}

/// One row: a parameter value in one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub param: f64,
    pub config: String,
    pub base: Point,
    pub cand: Option<Point>,
    pub change: Option<Changes>,
}

/// A sweep table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepTable {
    pub param: String,
    pub tag: String,
    pub rows: Vec<Row>,
    /// Workload settings other than the parameter in which the runs differ
    /// ([`crate::workload_key`]): the rows are split by them (in `config`), a line each.
    /// Left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_settings: Vec<String>,
}

fn point(run: &Run, tag: &str) -> Result<Point, SweepError> {
    let opts = Options { levels: vec![Level::nines(2), Level::nines(4)], ..Options::default() };
    let s = run_stats(run, &opts);
    let t = s.tags.get(tag).ok_or_else(|| SweepError::NoTag { run: run.source.clone(), tag: tag.into() })?;
    Ok(Point {
        run: run.name.clone(),
        iops: t.iops,
        mean_ns: t.mean_ns,
        p99_ns: t.levels[0].value_ns,
        p99_99_ns: t.levels[1].value_ns,
        p99_99_thin: t.levels[1].support == Support::Thin,
    })
}

fn pct(b: f64, c: f64) -> Option<f64> {
    (b != 0.0).then(|| (c - b) / b * 100.0)
}

/// Build the sweep table of `base` runs (and, paired by configuration and parameter value,
/// `cand` runs) for the direction `tag` (`all` for every direction merged).
/// Runs may be given owned or borrowed (`&[Run]` or `&[&Run]`).
pub fn sweep<B: std::borrow::Borrow<Run>, C: std::borrow::Borrow<Run>>(
    base: &[B],
    cand: &[C],
    param: &str,
    tag: &str,
) -> Result<SweepTable, SweepError> {
    let base: Vec<&Run> = base.iter().map(|r| r.borrow()).collect();
    let cand: Vec<&Run> = cand.iter().map(|r| r.borrow()).collect();
    // a line joins runs of one workload but for the swept setting: the other settings in
    // which the runs of a side differ split them
    let swept: Vec<&str> = setting_of(param).into_iter().collect();
    let keys = |set: &[&Run]| set.iter().map(|r| WorkloadKey::of(&r.meta).without(&swept)).collect::<Vec<_>>();
    let mut other = varying(&keys(&base));
    for k in varying(&keys(&cand)) {
        if !other.contains(&k) {
            other.push(k);
        }
    }
    let key = |r: &Run| -> Result<(String, f64), SweepError> {
        let v = param_value(r, param).ok_or_else(|| SweepError::NoParam { run: r.source.clone(), param: param.into() })?;
        let mut config = config_of(r, param);
        let settings = WorkloadKey::of(&r.meta).describe(&other);
        if !settings.is_empty() {
            config = if config.is_empty() { settings } else { format!("{config}, {settings}") };
        }
        Ok((config, v))
    };
    let mut cands = Vec::new();
    for r in cand {
        cands.push((key(r)?, point(r, tag)?));
    }
    let mut rows = Vec::new();
    for r in base {
        let (config, v) = key(r)?;
        let b = point(r, tag)?;
        let c = cands.iter().find(|((cc, cv), _)| *cc == config && *cv == v).map(|(_, p)| p.clone());
        let change = c.as_ref().map(|c| Changes {
            iops_pct: pct(b.iops, c.iops),
            mean_pct: pct(b.mean_ns, c.mean_ns),
            p99_pct: b.p99_ns.zip(c.p99_ns).and_then(|(x, y)| pct(x as f64, y as f64)),
            p99_99_pct: b.p99_99_ns.zip(c.p99_99_ns).and_then(|(x, y)| pct(x as f64, y as f64)),
        });
        rows.push(Row { param: v, config, base: b, cand: c, change });
    }
    crate::sort::sort_by(&mut rows, |a, b| a.config.cmp(&b.config).then(a.param.total_cmp(&b.param)));
    Ok(SweepTable { param: param.into(), tag: tag.into(), rows, other_settings: other.iter().map(|s| s.to_string()).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::Window;
    use serde_json::json;

    fn run(source: &str, jobs: u64, disks: u64, scale: u64) -> Run {
        let l = Layout::default_ns();
        let windows = (0..4)
            .map(|s| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("write".into()),
                hist: Hist::from_values(l, (0..64 * jobs).map(|i| scale * (1 + (i % 10)))),
            })
            .collect();
        let meta = crate::meta::tests::meta(json!({"param": {"numjobs": jobs, "disks": disks}}));
        Run { name: format!("numjobs={jobs}"), source: source.into(), meta, windows, ..Run::default() }
    }

    #[test]
    fn parameter_names_are_labels_and_workload_keys_that_vary() {
        let a = run("a", 1, 2, 1000);
        let b = run("b", 4, 2, 1000);
        let c = Run { meta: crate::meta::tests::meta(json!({"workload": {"qd": 1, "jobs": 1, "rw": "randread"}})), ..Run::default() };
        let d = Run { meta: crate::meta::tests::meta(json!({"workload": {"qd": 16, "jobs": 1, "rw": "randread"}})), ..Run::default() };
        assert_eq!(param_names(&[&a, &b]), vec!["disks".to_string(), "numjobs".to_string()]);
        assert_eq!(param_names(&[&c, &d]), vec!["qd".to_string()]);
        assert!(param_names(&[&c]).is_empty());
    }

    #[test]
    fn a_line_joins_runs_of_one_workload_but_the_parameter() {
        // QD1 and QD16 randrw, and a QD1 O_SYNC randwrite run: a qd sweep is two lines
        let with = |source: &str, rw: &str, qd: u32, sync: bool| Run {
            meta: crate::workload_key::tests::nines_run(rw, qd, sync),
            ..run(source, 1, 1, 1000)
        };
        let runs = [with("qd1", "randrw", 1, false), with("qd16", "randrw", 16, false), with("sync", "randwrite", 1, true)];
        let t = sweep(&runs, &[] as &[Run], "qd", "write").unwrap();
        assert_eq!(t.other_settings, ["rw", "sync"]);
        let rows: Vec<(f64, &str)> = t.rows.iter().map(|r| (r.param, r.config.as_str())).collect();
        assert_eq!(rows, [(1.0, "rw=randrw sync=false"), (16.0, "rw=randrw sync=false"), (1.0, "rw=randwrite sync=true")]);
        // runs of one workload but the parameter: one line, nothing split
        let t = sweep(&runs[..2], &[] as &[Run], "qd", "write").unwrap();
        assert!(t.other_settings.is_empty() && t.rows.iter().all(|r| r.config.is_empty()));
        assert!(!serde_json::to_string(&t).unwrap().contains("other_settings"));
    }

    #[test]
    fn file_name_parameters() {
        let r = |s: &str| Run { source: s.into(), ..Run::default() };
        assert_eq!(param_value(&r("res/fio-16-jobs/fio.json"), "jobs"), Some(16.0));
        assert_eq!(param_value(&r("numjobs=32.hlog"), "numjobs"), Some(32.0));
        assert_eq!(param_value(&r("run_qd_8.hlog"), "qd"), Some(8.0));
        assert_eq!(param_value(&r("qd4-numjobs_2.hlog"), "numjobs"), Some(2.0));
        assert_eq!(param_value(&r("plain.hlog"), "numjobs"), None);
        let mut fio = r("x/fio.json");
        fio.meta =
            crate::meta::tests::meta(json!({"fio": [{"global options": {"bs": "8k"}, "jobs": [{"job options": {"numjobs": "64"}}]}]}));
        assert_eq!(param_value(&fio, "numjobs"), Some(64.0));
    }

    #[test]
    fn table_pairs_candidate_by_config_and_value() {
        let base = vec![run("b1", 1, 1, 1000), run("b2", 16, 1, 1000), run("b3", 16, 4, 1000)];
        let cand = vec![run("c2", 16, 1, 800), run("c1", 1, 1, 1100)];
        let t = sweep(&base, &cand, "numjobs", "write").unwrap();
        assert_eq!(t.rows.len(), 3);
        let r = &t.rows[1];
        assert_eq!((r.param, r.config.as_str()), (16.0, "disks=1"));
        assert!((r.change.as_ref().unwrap().mean_pct.unwrap() + 20.0).abs() < 0.5);
        assert!(t.rows[2].cand.is_none());
        assert_eq!(t.rows[0].base.iops, 64.0);
        let text = crate::export::text::sweep(&t);
        assert!(text.contains("numjobs (write), disks=1") && text.contains("-20.0%"), "{text}");
        let csv = crate::export::csv::sweep(&t);
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.lines().nth(1).unwrap().starts_with("disks=1,1,numjobs=1,64.000,"), "{csv}");
        let e = sweep(&[Run { source: "x.hlog".into(), ..Run::default() }], &[] as &[Run], "numjobs", "all").unwrap_err();
        assert!(e.to_string().contains("x.hlog: no value for parameter 'numjobs'"));
    }
}
