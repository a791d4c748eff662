//! One run in two forms: do two inputs hold the same measurements?
//!
//! fio reports one run several ways: its json+ results and, per job, its histogram and
//! latency logs (fio HOWTO, "Log File Formats": `write_hist_log=NAME` writes
//! `NAME_clat_hist.N.log` for the job's N-th copy, `write_lat_log=NAME` writes
//! `NAME_clat.N.log`, `NAME_lat.N.log` and `NAME_slat.N.log`; without a NAME, the job's name).
//! Each holds the same I/Os, so adding two of them up counts every I/O twice. A nines archive
//! made from one of them keeps what tells its origin: the json+ documents' report times and
//! job names (metadata `fio`), the logs' file names (`sources`).
//!
//! [`same_run`] says why two runs are the same run, from what each carries:
//! - two json+ documents with the same report time (`timestamp_ms`) and job names;
//! - json+ results and a log of one of their jobs (the log's name is the job's name or its
//!   `write_hist_log`/`write_lat_log`) holding the same measure (completion, total or
//!   submission latency);
//! - two logs of the same job, job number and measure (`x_clat.1.log` and
//!   `x_clat_hist.1.log`);
//! - any two runs with the same windows (tag, start, length and every bucket): the same
//!   measurements however they were named, such as a copy of an archive.
//!
//! Pure: the caller decides what to do (`nines import` refuses to add them up).

use serde_json::Value;

use crate::run::Run;

/// Which latency a fio log or json+ summary holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measure {
    /// Completion latency (`clat`, and the histogram logs): nines' direction tags (`read`).
    Clat,
    /// Total latency (`lat`): `read.lat`.
    Lat,
    /// Submission latency (`slat`): `read.slat`.
    Slat,
}

impl Measure {
    fn text(self) -> &'static str {
        match self {
            Measure::Clat => "completion latency",
            Measure::Lat => "total latency",
            Measure::Slat => "submission latency",
        }
    }

    /// Does a run with these tags hold this measure?
    fn in_tags(self, tags: &[Option<String>]) -> bool {
        tags.iter().flatten().any(|t| {
            let measure = t.rsplit('/').next().unwrap_or(t).split_once('.').map(|(_, m)| m);
            match self {
                Measure::Clat => measure.is_none(),
                Measure::Lat => measure == Some("lat"),
                Measure::Slat => measure == Some("slat"),
            }
        })
    }
}

/// A fio log's name taken apart: `PREFIX_KIND.N.log` (or `PREFIX_KIND.log`, fio's name with
/// `per_job_logs=0`).
#[derive(Clone, Debug, PartialEq)]
struct LogName {
    file: String,
    prefix: String,
    measure: Measure,
    /// The job's copy (fio's N, from 1); `None`: every copy's I/Os in one log.
    job: Option<u64>,
}

fn log_name(file: &str) -> Option<LogName> {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = base.strip_suffix(".log")?;
    let (head, job) = match stem.rsplit_once('.') {
        Some((h, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (h, Some(n.parse().ok()?)),
        _ => (stem, None),
    };
    // longest first: `_clat_hist` before `_clat`, `_clat` and `_slat` before `_lat`
    let (prefix, measure) = [("_clat_hist", Measure::Clat), ("_clat", Measure::Clat), ("_slat", Measure::Slat), ("_lat", Measure::Lat)]
        .iter()
        .find_map(|(suffix, m)| head.strip_suffix(suffix).filter(|p| !p.is_empty()).map(|p| (p, *m)))?;
    Some(LogName { file: file.to_string(), prefix: prefix.to_string(), measure, job })
}

/// One fio json+ document: its report time and its jobs' names and log names.
#[derive(Clone, Debug, PartialEq)]
struct Doc {
    timestamp_ms: Option<i64>,
    /// (job name, write_hist_log, write_lat_log) of each job.
    jobs: Vec<(String, Option<String>, Option<String>)>,
}

fn docs(run: &Run) -> Vec<Doc> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    run.meta
        .fio
        .iter()
        .map(|d| {
            let global = d.get("global options");
            let jobs = d
                .get("jobs")
                .and_then(Value::as_array)
                .map(|jobs| {
                    jobs.iter()
                        .map(|j| {
                            let opt =
                                |k: &str| text(j.get("job options").and_then(|o| o.get(k))).or_else(|| text(global.and_then(|g| g.get(k))));
                            (text(j.get("jobname")).unwrap_or_default(), opt("write_hist_log"), opt("write_lat_log"))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Doc { timestamp_ms: d.get("timestamp_ms").and_then(Value::as_i64), jobs }
        })
        .collect()
}

/// The fio logs a run was read from: its source, or the sources it was imported from.
fn logs(run: &Run) -> Vec<LogName> {
    let formats = run.meta.source_formats();
    if !formats.iter().any(|f| *f == "fio histogram log" || *f == "fio latency log") {
        return Vec::new();
    }
    let sources: Vec<&str> =
        if run.meta.sources.is_empty() { vec![run.source.as_str()] } else { run.meta.sources.iter().map(String::as_str).collect() };
    sources.into_iter().filter_map(log_name).collect()
}

/// What [`same_run`] compares of a run, small enough to keep for many runs while each run is
/// read and dropped in turn: its fio documents and log names, its tags, its start, and a
/// 128-bit digest of its windows (tag, start, length, layout and every bucket) in place of
/// the windows themselves.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    docs: Vec<Doc>,
    logs: Vec<LogName>,
    tags: Vec<Option<String>>,
    start_time: Option<f64>,
    windows: usize,
    digest: (u64, u64),
}

impl Identity {
    pub fn of(run: &Run) -> Identity {
        use std::hash::{Hash, Hasher};
        // two SipHash digests with different keys (std's DefaultHasher keys are fixed, so a
        // leading salt makes the second): 128 bits, so that two different runs are taken for
        // one by chance about once in 2^64 comparisons, and then refused loudly, never merged
        let mut h = (std::collections::hash_map::DefaultHasher::new(), std::collections::hash_map::DefaultHasher::new());
        0x6e69_6e65_735f_7275u64.hash(&mut h.1);
        for w in &run.windows {
            for hasher in [&mut h.0, &mut h.1] {
                w.tag.hash(hasher);
                w.start_s.to_bits().hash(hasher);
                w.length_s.to_bits().hash(hasher);
                w.hist.layout().hash(hasher);
                for b in w.hist.buckets() {
                    b.hash(hasher);
                }
            }
        }
        Identity {
            docs: docs(run),
            logs: logs(run),
            tags: run.tags(),
            start_time: run.start_time,
            windows: run.windows.len(),
            digest: (h.0.finish(), h.1.finish()),
        }
    }
}

/// Why `a` and `b` hold the same run (a sentence), or `None` when nothing says they do.
pub fn same_run(a: &Run, b: &Run) -> Option<String> {
    same_identity(&Identity::of(a), &Identity::of(b))
}

/// [`same_run`] of two runs' [`Identity`].
pub fn same_identity(a: &Identity, b: &Identity) -> Option<String> {
    let (da, db) = (&a.docs, &b.docs);
    for x in da {
        for y in db {
            if x.timestamp_ms.is_some() && x.timestamp_ms == y.timestamp_ms && !x.jobs.is_empty() && x.jobs == y.jobs {
                let names: Vec<&str> = x.jobs.iter().map(|j| j.0.as_str()).collect();
                return Some(format!(
                    "both hold fio's json+ results of job {} reported at timestamp_ms {}",
                    names.join(", "),
                    x.timestamp_ms.unwrap_or_default()
                ));
            }
        }
    }
    let (la, lb) = (&a.logs, &b.logs);
    for (docs, doc_run, logs) in [(da, a, lb), (db, b, la)] {
        for l in logs.iter() {
            let wrote = |(name, hist, lat): &(String, Option<String>, Option<String>)| {
                *name == l.prefix || (if l.file.contains("_hist.") { hist } else { lat }).as_deref() == Some(l.prefix.as_str())
            };
            if docs.iter().any(|d| d.jobs.iter().any(wrote)) && l.measure.in_tags(&doc_run.tags) {
                return Some(format!(
                    "'{}' is the {} log of fio job {} (fio names its logs after the job), whose json+ results hold the same I/Os",
                    l.file,
                    l.measure.text(),
                    l.prefix
                ));
            }
        }
    }
    for x in la {
        for y in lb {
            let one_job = x.job.is_none() || y.job.is_none() || x.job == y.job;
            if x.prefix == y.prefix && x.measure == y.measure && one_job {
                return Some(format!(
                    "both are {} logs of fio job {}{} (fio names its logs after the job and its copy)",
                    x.measure.text(),
                    x.prefix,
                    x.job.or(y.job).map_or(String::new(), |n| format!(", copy {n}"))
                ));
            }
        }
    }
    if a.windows > 0 && a.start_time == b.start_time && a.windows == b.windows && a.digest == b.digest {
        return Some(format!("they hold the same {} windows (every tag, start, length and bucket alike)", a.windows));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::read_any;

    fn json(stamp: u64, job: &str, hist: &str) -> Vec<u8> {
        format!(
            r#"{{"fio version": "fio-3.33", "timestamp_ms": {stamp}, "jobs": [{{"jobname": "{job}", "job options": {{"write_hist_log": "{hist}"}},
            "read": {{"total_ios": 1, "runtime": 1000, "clat_ns": {{"N": 1, "bins": {{"604": 1}}}}, "lat_ns": {{"N": 1, "bins": {{"700": 1}}}}}}}}]}}"#
        )
        .into_bytes()
    }

    fn hist_log() -> Vec<u8> {
        format!("100, 0, 4096, {}\n", vec!["1"; 1856].join(", ")).into_bytes()
    }

    #[test]
    fn the_identity_tells_copies_from_runs_that_differ_in_one_bucket() {
        use crate::hist::{Hist, Layout};
        use crate::run::Window;
        let run = |last: u64| Run {
            name: "r".into(),
            source: "r.hlog".into(),
            start_time: Some(1e9),
            windows: (0..3)
                .map(|s| Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: Some("read".into()),
                    hist: Hist::from_values(Layout::default_ns(), (1..=100).map(|i| i * 1000).chain([if s == 2 { last } else { 5 }])),
                })
                .collect(),
            ..Run::default()
        };
        let (a, copy, other) = (run(7_000_000), run(7_000_000), run(9_000_000));
        assert!(same_identity(&Identity::of(&a), &Identity::of(&copy)).is_some_and(|w| w.contains("same 3 windows")));
        assert_eq!(same_identity(&Identity::of(&a), &Identity::of(&other)), None);
        let later = Run { start_time: Some(1e9 + 1.0), ..copy };
        assert_eq!(same_run(&a, &later), None, "the same windows at another time are another run");
    }

    #[test]
    fn log_names_are_taken_apart_as_fio_makes_them() {
        let l = log_name("/d/mix_clat_hist.2.log").unwrap();
        assert_eq!((l.prefix.as_str(), l.measure, l.job), ("mix", Measure::Clat, Some(2)));
        assert_eq!(log_name("a_b_slat.1.log").map(|l| (l.prefix, l.measure)), Some(("a_b".into(), Measure::Slat)));
        assert_eq!(log_name("x_lat.log").map(|l| (l.measure, l.job)), Some((Measure::Lat, None)));
        assert_eq!(log_name("_clat.1.log"), None);
        assert_eq!(log_name("run.hlog"), None);
    }

    #[test]
    fn json_and_its_logs_are_one_run() {
        let j = read_any("r.json", &json(1_796_029_465_586, "job", "job")).unwrap();
        let h1 = read_any("job_clat_hist.1.log", &hist_log()).unwrap();
        let why = same_run(&j, &h1).unwrap();
        assert!(why.contains("'job_clat_hist.1.log' is the completion latency log of fio job job"), "{why}");
        assert!(same_run(&h1, &j).is_some(), "either order");
        // the log's name is the job's write_hist_log, not its name
        let renamed = read_any("r.json", &json(1, "other", "hists")).unwrap();
        assert!(same_run(&renamed, &read_any("hists_clat_hist.1.log", &hist_log()).unwrap()).is_some());
        assert!(same_run(&renamed, &h1).is_none(), "another job's log");
        // a log's copies are several jobs: added up, not the same run
        let h2 = read_any("job_clat_hist.2.log", &hist_log()).unwrap();
        let mut h2_other = h2.clone();
        h2_other.windows[0].hist = read_any("x.txt", b"5\n").unwrap().windows[0].hist.clone();
        assert_eq!(same_run(&h1, &h2_other), None);
        // the same copy as a latency log and a histogram log
        let lat = read_any("job_clat.1.log", b"0, 100, 0, 4096, 0\n").unwrap();
        assert!(same_run(&h1, &lat).unwrap().contains("both are completion latency logs of fio job job, copy 1"));
        // a total latency log is another measure of the json's, which has lat_ns too
        let tot = read_any("job_lat.1.log", b"0, 100, 0, 4096, 0\n").unwrap();
        assert!(same_run(&j, &tot).unwrap().contains("total latency"));
        assert_eq!(same_run(&lat, &tot), None, "completion and total latency of one job add up to nothing: different tags");
    }

    #[test]
    fn a_json_document_and_its_archive_are_one_run() {
        let bytes = json(1_796_029_465_586, "job", "job");
        let j = read_any("r.json", &bytes).unwrap();
        let mut renamed = j.clone();
        renamed.name = "another name".into();
        let archived = read_any("r.hlog", &crate::archive::write(Vec::new(), &renamed).unwrap()).unwrap();
        assert!(same_run(&j, &archived).unwrap().contains("fio's json+ results of job job reported at timestamp_ms 1796029465586"));
        // another report time: another run of the same job
        let later = read_any("s.json", &json(1_796_029_999_000, "job", "job")).unwrap();
        assert_eq!(same_run(&j, &later), None);
    }

    #[test]
    fn the_same_windows_are_the_same_run() {
        let a = read_any("a.txt", b"0,100\n0.5,200\n1.2,300\n").unwrap();
        let copy = read_any("b.csv", b"0,100\n0.5,200\n1.2,300\n").unwrap();
        assert!(same_run(&a, &copy).unwrap().contains("the same 2 windows"));
        let other = read_any("c.txt", b"0,100\n0.5,200\n1.2,301000\n").unwrap();
        assert_eq!(same_run(&a, &other), None);
    }
}
