//! Workloads people run: several jobs at the same time (a QD1 probe beside a QD32 load, fio's
//! job sections), several targets in one job (fio's `filename=a:b`, round robin), bandwidth
//! limits in bytes (`--rate`, fio's `rate`) and think time (`--thinktime`, fio's
//! `thinktime`). End to end with the real binary on real temporary files with io_uring; each
//! run about a second. Counts are checked exactly (every scoped tag adds up to its merged
//! direction in every window); nothing checks wall-clock speed.

use std::path::Path;
use std::process::Command;

use nines_core::archive;
use nines_core::hist::Hist;
use nines_core::run::Run;
use nines_tests::nines_bin;
use serde_json::Value;

fn read_run(p: &Path) -> Run {
    archive::read(&p.display().to_string(), &std::fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `nines ARGS` in `dir`; stdout, or a panic with stderr.
fn nines_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(nines_bin()).current_dir(dir).args(args).output().expect("nines runs");
    assert!(out.status.success(), "nines {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `nines ARGS` in `dir` expecting a refusal (exit 1, no panic); its stderr.
fn refused_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(nines_bin()).current_dir(dir).args(args).output().expect("nines runs");
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {e}");
    assert!(e.starts_with("nines: ") && !e.contains("panicked"), "{e}");
    e
}

/// Per window start: the count of `tag`.
fn per_window(run: &Run, tag: &str) -> Vec<(u64, u64)> {
    run.windows_of(Some(tag)).map(|w| ((w.start_s * 1000.0).round() as u64, w.hist.count())).collect()
}

/// In every window, `merged` holds exactly the sum of `parts` (and the histograms add up
/// bucket for bucket: the merged total equals the sum and so do the maxima's bounds).
fn adds_up(run: &Run, merged: &str, parts: &[&str]) -> u64 {
    let m = per_window(run, merged);
    assert!(!m.is_empty(), "no windows of {merged}");
    for p in parts {
        assert_eq!(per_window(run, p).len(), m.len(), "{p}: one line per window, as {merged}");
    }
    for (i, (start, count)) in m.iter().enumerate() {
        let sum: u64 = parts.iter().map(|p| per_window(run, p)[i].1).sum();
        assert_eq!(*count, sum, "window at {start} ms: {merged} {count} vs {parts:?} {sum}");
    }
    let a = Hist::merge_all(run.windows_of(Some(merged)).map(|w| &w.hist));
    let b = Hist::merge_all(parts.iter().flat_map(|p| run.windows_of(Some(p)).map(|w| &w.hist)));
    assert_eq!(a.count(), b.count());
    assert_eq!(a.max(), b.max(), "{merged}: the same largest value as its parts");
    m.iter().map(|w| w.1).sum()
}

fn summary(run: &Run) -> Value {
    let m = serde_json::to_value(&run.meta).unwrap();
    m["summary"].clone()
}

const QOS: &str = "; the classic QoS test: a QD1 random-read probe while a QD32 random-write load runs
[global]
filename=target.dat
size=16m
ioengine=io_uring
buffered=1
time_based
runtime=1
log_hist_msec=250
bs=4k

[probe]
rw=randread
iodepth=1

[load]
rw=randwrite
iodepth=32
";

#[test]
fn a_probe_and_a_load_run_together_each_under_its_own_tags() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("qos.fio"), QOS).unwrap();
    let table = nines_in(d, &["run", "qos.fio", "--quiet"]);
    for row in ["probe/read", "load/write", "read", "write", "all"] {
        assert!(table.lines().any(|l| l.starts_with(&format!("{row} "))), "{row} in\n{table}");
    }
    let run = read_run(&d.join("qos.hlog"));
    assert_eq!(run.name, "qos", "a file of several jobs names the archive after itself");
    let tags: Vec<String> = run.tags().into_iter().flatten().collect();
    assert_eq!(tags, ["read", "write", "probe/read", "load/write"]);
    let reads = adds_up(&run, "read", &["probe/read"]);
    let writes = adds_up(&run, "write", &["load/write"]);
    assert!(reads > 0 && writes > 0, "{reads} reads, {writes} writes");
    let s = summary(&run);
    assert_eq!(s["ios"]["probe/read"], reads);
    assert_eq!(s["ios"]["read"], reads);
    assert_eq!(s["ios"]["load/write"], writes);
    // each job's workload, with its scope
    let m = serde_json::to_value(&run.meta).unwrap();
    let jobs = m["jobs"].as_array().expect("jobs in the metadata");
    assert_eq!(jobs.len(), 2);
    assert_eq!((jobs[0]["scope"].as_str(), jobs[0]["qd"].as_u64(), jobs[0]["rw"].as_str()), (Some("probe"), Some(1), Some("randread")));
    assert_eq!((jobs[1]["scope"].as_str(), jobs[1]["qd"].as_u64(), jobs[1]["rw"].as_str()), (Some("load"), Some(32), Some("randwrite")));
    assert_eq!(jobs[1]["job_file"], "qos.fio [load]");

    // nines stats shows the probe's reads alone
    let js: Value = serde_json::from_str(&nines_in(d, &["stats", "--json", "--tag", "probe/read", "qos.hlog"])).unwrap();
    let t = js["runs"][0]["tags"].as_object().unwrap();
    assert_eq!(t.keys().collect::<Vec<_>>(), ["probe/read"], "only the probe's row");
    assert_eq!(t["probe/read"]["count"], reads);
    assert_eq!((t["probe/read"]["scope"].as_str(), t["probe/read"]["direction"].as_str()), (Some("probe"), Some("read")));
    // and `all` merges the run's directions only: nothing counted twice
    let js: Value = serde_json::from_str(&nines_in(d, &["stats", "--json", "qos.hlog"])).unwrap();
    assert_eq!(js["runs"][0]["tags"]["all"]["count"], reads + writes);

    // --section runs one of them, unscoped
    nines_in(d, &["run", "qos.fio", "--section", "probe", "--quiet", "--no-summary", "--runtime", "200ms"]);
    let one = read_run(&d.join("probe.hlog"));
    assert_eq!(one.tags().into_iter().flatten().collect::<Vec<_>>(), ["read"]);
}

#[test]
fn groups_after_a_stonewall_are_refused_with_where_they_start() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("seq.fio"), format!("{QOS}\n[after]\nstonewall\nrw=randread\n")).unwrap();
    let e = refused_in(d, &["run", "seq.fio"]);
    assert!(e.contains("seq.fio: stonewall") && e.contains("[after] (seq.fio:20)") && e.contains("--section"), "{e}");
    assert!(!d.join("target.dat").exists(), "nothing ran");
    // sections that differ in the window cannot share one archive's windows
    std::fs::write(d.join("win.fio"), QOS.replace("iodepth=32\n", "iodepth=32\nlog_hist_msec=100\n")).unwrap();
    let e = refused_in(d, &["run", "win.fio"]);
    assert!(e.contains("win.fio [probe] and win.fio [load] run together but differ in the window"), "{e}");
}

#[test]
fn two_targets_share_a_job_round_robin_each_under_its_own_tags() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // 2000 I/Os of one job, one to each file in turn: exactly 1000 each
    nines_in(
        d,
        &[
            "run",
            "--target",
            "a.dat",
            "--target",
            "b.dat",
            "--size",
            "8m",
            "--rw",
            "randrw",
            "--qd",
            "4",
            "--ios",
            "2000",
            "--buffered",
            "--window",
            "100ms",
            "-o",
            "two.hlog",
            "--quiet",
            "--no-summary",
        ],
    );
    for f in ["a.dat", "b.dat"] {
        assert_eq!(std::fs::metadata(d.join(f)).unwrap().len(), 4 << 20, "{f}: --size divided between the targets, as fio divides size");
    }
    let run = read_run(&d.join("two.hlog"));
    let reads = adds_up(&run, "read", &["a.dat/read", "b.dat/read"]);
    let writes = adds_up(&run, "write", &["a.dat/write", "b.dat/write"]);
    assert_eq!(reads + writes, 2000);
    let s = summary(&run);
    for f in ["a.dat", "b.dat"] {
        assert_eq!(s["ios"][format!("{f}/read")].as_u64().unwrap() + s["ios"][format!("{f}/write")].as_u64().unwrap(), 1000, "{f}");
    }
    let m = serde_json::to_value(&run.meta).unwrap();
    assert_eq!(m["targets"].as_array().map(Vec::len), Some(2));
    assert_eq!(m["targets"][1]["scope"], "b.dat");

    // the same from a job file's filename=a:b, with the safety rules for every target: c.dat
    // exists and nines did not create it, so writes to it are refused
    std::fs::write(d.join("c.dat"), vec![1u8; 1 << 20]).unwrap();
    std::fs::write(d.join("ab.fio"), "[ab]\nfilename=a.dat:c.dat\nsize=2m\nrw=randwrite\nnumber_ios=100\n").unwrap();
    let e = refused_in(d, &["run", "ab.fio"]);
    assert!(e.contains("c.dat") && e.contains("--overwrite"), "{e}");
    std::fs::write(d.join("ab.fio"), "[ab]\nfilename=a.dat:b.dat\nsize=2m\nrw=randwrite\nnumber_ios=100\nfile_service_type=roundrobin\n")
        .unwrap();
    nines_in(d, &["run", "ab.fio", "--quiet", "--no-summary"]);
    let run = read_run(&d.join("ab.hlog"));
    // fio ends the job after size bytes: 2 MiB of 4 KiB blocks, but number_ios=100 first
    assert_eq!(adds_up(&run, "write", &["a.dat/write", "b.dat/write"]), 100);
    assert_eq!(summary(&run)["ios"]["a.dat/write"], 50);
}

#[test]
fn think_time_stalls_each_group_of_ios() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // 40 I/Os in groups of 4, 20 ms of thinking between groups: at least 9 x 20 ms
    nines_in(
        d,
        &[
            "run",
            "--target",
            "t.dat",
            "--size",
            "4m",
            "--qd",
            "16",
            "--ios",
            "40",
            "--thinktime",
            "20ms",
            "--thinktime-blocks",
            "4",
            "--thinktime-spin",
            "1ms",
            "--buffered",
            "-o",
            "think.hlog",
            "--quiet",
            "--no-summary",
        ],
    );
    let run = read_run(&d.join("think.hlog"));
    let s = summary(&run);
    assert_eq!(s["ios"]["read"], 40);
    let dur = s["duration_s"].as_f64().unwrap();
    assert!(dur >= 0.18, "9 think times of 20 ms cannot take {dur} s");
    let w = &serde_json::to_value(&run.meta).unwrap()["workload"];
    assert_eq!(
        (w["thinktime_s"].as_f64(), w["thinktime_blocks"].as_u64(), w["thinktime_spin_s"].as_f64()),
        (Some(0.02), Some(4), Some(0.001))
    );
    // by time: in 1 s with 10 ms after every 2 I/Os, at most 2 x (100 + 1) I/Os, however fast
    // the target
    nines_in(
        d,
        &[
            "run",
            "--target",
            "t.dat",
            "--qd",
            "8",
            "--runtime",
            "1s",
            "--thinktime",
            "10ms",
            "--thinktime-blocks",
            "2",
            "--buffered",
            "-o",
            "t2.hlog",
            "--quiet",
            "--no-summary",
        ],
    );
    let n = summary(&read_run(&d.join("t2.hlog")))["ios"]["read"].as_u64().unwrap();
    assert!(n > 0 && n <= 202, "{n} I/Os");
    // a job file's bare thinktime is microseconds, as in fio
    std::fs::write(d.join("tt.fio"), "[tt]\nfilename=t.dat\nsize=4m\nnumber_ios=10\nthinktime=5000\n").unwrap();
    nines_in(d, &["run", "tt.fio", "--quiet", "--no-summary"]);
    let w = serde_json::to_value(&read_run(&d.join("tt.hlog")).meta).unwrap()["workload"].clone();
    assert_eq!(w["thinktime_s"].as_f64(), Some(0.005));
}

#[test]
fn a_rate_in_bytes_limits_each_ios_share_by_its_length() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // 4 MiB/s of 4k and 12k reads for 1 s: every I/O is due len/rate after the one before, so
    // the I/Os due within the second hold at most 4 MiB plus one I/O
    nines_in(
        d,
        &[
            "run",
            "--target",
            "t.dat",
            "--size",
            "8m",
            "--rate",
            "4m",
            "--arrival",
            "uniform",
            "--bssplit",
            "4k/50:12k/50",
            "--qd",
            "16",
            "--runtime",
            "1s",
            "--buffered",
            "-o",
            "rate.hlog",
            "--quiet",
            "--no-summary",
        ],
    );
    let run = read_run(&d.join("rate.hlog"));
    let s = summary(&run);
    let bytes = s["bytes"]["read"].as_u64().unwrap();
    assert!(bytes <= (4 << 20) + 12288, "{bytes} bytes in 1 s at 4 MiB/s");
    assert!(bytes >= 1 << 20, "{bytes} bytes: the I/Os due were issued");
    // rate-limited: latency from the due time, the service time beside it
    assert_eq!(s["ios"]["read.svc"], s["ios"]["read"]);
    let w = &serde_json::to_value(&run.meta).unwrap()["workload"];
    assert_eq!(w["rate_bytes_per_job"], 4 << 20);
    assert!(w["latency_from"].as_str().unwrap().starts_with("due time"));
    // fio's rate=r,w: a write job takes the write value
    std::fs::write(
        d.join("r.fio"),
        "[r]\nfilename=t.dat\nsize=8m\nrw=randwrite\nbs=8k\nrate=1m,2m\ntime_based\nruntime=1\nrate_process=linear\n",
    )
    .unwrap();
    nines_in(d, &["run", "r.fio", "--quiet", "--no-summary"]);
    let s = summary(&read_run(&d.join("r.hlog")));
    let bytes = s["bytes"]["write"].as_u64().unwrap();
    assert!(bytes <= (2 << 20) + 8192 && bytes > 1 << 20, "{bytes} bytes at 2 MiB/s");
}
