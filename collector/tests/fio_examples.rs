//! Every job file of fio's `examples/` (tests/data/fio-examples, from the fio repository; see
//! the README there) through `nines run JOB.fio`: each runs (forced onto the null engine with
//! a temporary target and 64 I/Os, so nothing real is touched) or is refused with its
//! unsupported options named. A file whose sections differ is tried section by section with
//! `--section`. The outcome of each is an `insta` snapshot
//! (`snapshots/fio_examples__fio-examples.snap`), so any change of behaviour shows; after an
//! intended change, `INSTA_UPDATE=always cargo test -p nines-qos --test fio_examples`.

use std::path::{Path, PathBuf};
use std::process::Command;

use nines_core::fio_job;

fn examples() -> PathBuf {
    nines_tests::root().join("tests/data/fio-examples")
}

/// The job sections of a file, when it parses (includes resolved beside it).
fn sections(dir: &Path, file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(file)).expect("readable");
    let mut inc = |n: &str, _: &str| {
        std::fs::read_to_string(dir.join(n)).map(|t| (n.to_string(), t)).map_err(|e| fio_job::IncludeError::from(e.to_string()))
    };
    match fio_job::parse(file, &text, &mut inc, &|_| None) {
        Ok(s) => s.into_iter().filter(|s| !s.is_global()).map(|s| s.name).collect(),
        Err(_) => Vec::new(),
    }
}

/// One `nines run` of a file (and section): what it ran, or its error.
fn outcome(dir: &Path, tmp: &Path, file: &str, section: Option<&str>) -> (bool, String) {
    let out = tmp.join("run.hlog");
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new(nines_tests::nines_bin());
    cmd.current_dir(dir).env_clear().arg("run").arg(file);
    if let Some(s) = section {
        cmd.args(["--section", s]);
    }
    cmd.args(["--engine", "null", "--ios", "64", "--size", "64m", "--quiet", "--no-summary", "--target"])
        .arg(tmp.join("target"))
        .arg("-o")
        .arg(&out);
    let r = cmd.output().expect("nines runs");
    let stderr = String::from_utf8_lossy(&r.stderr).replace(&tmp.display().to_string(), "TMP");
    if !r.status.success() {
        assert_eq!(r.status.code(), Some(1), "{file}: {stderr}");
        assert!(stderr.starts_with("nines: ") && !stderr.contains("panicked"), "{file}: {stderr}");
        return (false, format!("refused:\n{}", stderr.trim_end().trim_start_matches("nines: ")));
    }
    let bytes = std::fs::read(&out).expect("an archive");
    let run = nines_core::archive::read("run.hlog", &bytes).expect("a readable archive");
    let w = run.meta.workload.clone().unwrap_or_default();
    let s = run.meta.summary.clone().unwrap_or_default();
    let ios: u64 = s.ios.values().sum();
    assert!(ios >= 64, "{file}: {ios} I/Os recorded");
    let bs = w.bs_bytes.iter().map(|(b, p)| format!("{b}/{p}")).collect::<Vec<_>>().join(":");
    (
        true,
        format!(
            "runs: name={} rw={} read_pct={} bs={bs} qd={} jobs={} direct={} sync={} fsync_every={:?} rate_iops={:?} arrival={:?} dist={:?} seed={:?}",
            run.meta.name.clone().unwrap_or_default(),
            w.rw.unwrap_or_default(),
            w.read_pct.unwrap_or_default(),
            w.qd.unwrap_or_default(),
            w.jobs.unwrap_or_default(),
            w.direct.unwrap_or_default(),
            w.sync.unwrap_or_default(),
            w.fsync_every,
            w.rate_iops_per_job,
            w.arrival,
            w.random_distribution,
            w.seed,
        ),
    )
}

#[test]
fn every_fio_example_runs_or_is_refused_by_name() {
    let dir = examples();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/data/fio-examples")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 100, "{} example files", files.len());
    let mut table = String::new();
    let (mut ran, mut refused) = (0, 0);
    for f in &files {
        let (ok, text) = outcome(&dir, tmp.path(), f, None);
        table.push_str(&format!("== {f}\n{text}\n"));
        if ok {
            ran += 1;
            continue;
        }
        refused += 1;
        if text.contains("--section NAME") {
            for s in sections(&dir, f) {
                let (_, text) = outcome(&dir, tmp.path(), f, Some(&s));
                table.push_str(&format!("-- --section {s}\n{text}\n"));
            }
        }
    }
    table.insert_str(0, &format!("{} files: {ran} run, {refused} refused as a whole\n", files.len()));
    insta::assert_snapshot!("fio-examples", table);
}

/// A job file of one's own, end to end on a real file with io_uring: [global] and a job,
/// an include found beside the file, `${ENV}`, a flag overriding the file (said on stderr),
/// and what the archive records.
#[test]
fn a_job_file_runs_with_include_env_and_overrides() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let d = tmp.path();
    std::fs::write(d.join("common.inc"), "iodepth=4\nioengine=io_uring\n").expect("written");
    let job = format!(
        "; a skewed mixed job\n[global]\nsize=${{JOB_SIZE}}\nbuffered=1\ngroup_reporting\n\n[skewed]\nfilename={}\nrw=randrw\nrwmixread=70\nbssplit=4k/50:8k/50\nrandom_distribution=zipf:1.2\ntime_based\nruntime=10s\nlog_hist_msec=100\ninclude common.inc\n",
        d.join("target.dat").display()
    );
    std::fs::write(d.join("job.fio"), job).expect("written");
    let out = Command::new(nines_tests::nines_bin())
        .current_dir(d)
        .env("JOB_SIZE", "4m")
        .args(["run", "job.fio", "--runtime", "300ms", "--no-summary"])
        .output()
        .expect("nines runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("--runtime overrides runtime=10s (job.fio:14)"), "{stderr}");
    assert!(stderr.contains("group_reporting (job.fio:5) accepted"), "{stderr}");
    let bytes = std::fs::read(d.join("skewed.hlog")).expect("the archive is named after the job");
    let run = nines_core::archive::read("skewed.hlog", &bytes).expect("readable");
    let w = run.meta.workload.clone().expect("a workload");
    assert_eq!((w.rw.as_deref(), w.read_pct, w.qd, w.size_bytes), (Some("randrw"), Some(70), Some(4), Some(4 << 20)));
    assert_eq!(w.bs_bytes, [(4096, 50), (8192, 50)]);
    assert_eq!(w.random_distribution.as_deref(), Some("zipf:1.2"));
    assert_eq!(w.job_file.as_deref(), Some("job.fio [skewed]"));
    assert_eq!((w.direct, w.seed), (Some(false), Some(fio_job::DEFAULT_SEED)));
    assert_eq!(run.meta.window.as_ref().and_then(|r| r.length_s), Some(0.1), "log_hist_msec is the window");
    assert_eq!(run.meta.engine.as_ref().and_then(|e| e.requested.as_deref()), Some("uring"));
    let s = run.meta.summary.clone().expect("a summary");
    assert!(s.ios.get("read") > Some(0) && s.ios.get("write") > Some(0), "{:?}", s.ios);

    // every refusal of a file at once, with its line, before anything runs
    std::fs::write(d.join("bad.fio"), "[global]\nioengine=posixaio\n[a]\nfilename=x\nsize=1m\nverify=md5\nbsrange=4k-8k\n")
        .expect("written");
    let out = Command::new(nines_tests::nines_bin()).current_dir(d).args(["run", "bad.fio"]).output().expect("nines runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("nines: 3 problems in the job file:"), "{stderr}");
    for l in ["bad.fio:2: ioengine=posixaio", "bad.fio:6: verify=md5", "bad.fio:7: bsrange=4k-8k"] {
        assert!(stderr.contains(l), "{l} in {stderr}");
    }
    assert!(!d.join("x").exists() && !d.join("a.hlog").exists(), "nothing ran");
}

/// The job file most people have: libaio and direct I/O. It runs on io_uring, saying so where
/// the other notes are; `--engine` beside it wins over any `ioengine`, even one nines does
/// not have.
#[test]
fn a_libaio_job_file_runs_on_io_uring_and_engine_wins_over_any_ioengine() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let d = tmp.path();
    let job = format!(
        "[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=8\n\n[randread]\nfilename={}\nrw=randread\nsize=4m\ntime_based\nruntime=200ms\n",
        d.join("target.dat").display()
    );
    let run = |text: &str, extra: &[&str]| {
        std::fs::write(d.join("aio.fio"), text).expect("written");
        let out = Command::new(nines_tests::nines_bin())
            .current_dir(d)
            .args(["run", "aio.fio", "--no-summary"])
            .args(extra)
            .output()
            .expect("nines runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let bytes = std::fs::read(d.join("randread.hlog")).expect("the archive is named after the job");
        std::fs::remove_file(d.join("randread.hlog")).expect("removed");
        (stderr, nines_core::archive::read("randread.hlog", &bytes).expect("readable"))
    };
    let (stderr, r) = run(&job, &[]);
    assert!(stderr.contains("ioengine=libaio (aio.fio:2) accepted: run with io_uring"), "{stderr}");
    assert_eq!(r.meta.engine.as_ref().and_then(|e| e.requested.as_deref()), Some("uring"));
    let w = r.meta.workload.clone().expect("a workload");
    assert_eq!((w.rw.as_deref(), w.qd, w.direct), (Some("randread"), Some(8), Some(true)));
    assert!(r.meta.summary.clone().expect("a summary").ios.get("read") > Some(0));
    // an engine nines does not have, with --engine beside the file
    let (stderr, r) = run(&job.replace("libaio", "posixaio"), &["--engine", "psync"]);
    assert!(stderr.contains("--engine overrides ioengine=posixaio (aio.fio:2)"), "{stderr}");
    assert_eq!(r.meta.engine.as_ref().and_then(|e| e.requested.as_deref()), Some("psync"));
}
