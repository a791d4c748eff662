//! `nines compare`, `nines sweep` and `nines steady` end to end, on real runs: the collector
//! on files, fio sweeps imported, and seeded archives where the truth is known.

use std::path::Path;
use std::process::Command;

use nines_core::archive::{ArchiveWriter, Header};
use nines_core::hist::{Hist, Layout};
use nines_tests::{nines, nines_ok, root};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// An archive of `windows` one-second read windows drawn from one distribution (seeded).
fn synthetic(path: &Path, seed: u64, windows: usize, per: usize) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut w = ArchiveWriter::new(std::fs::File::create(path).unwrap(), &Header { start_time: 1.7e9, meta: Default::default() }).unwrap();
    for i in 0..windows {
        let vals: Vec<u64> = (0..per)
            .map(|_| {
                let u: f64 = rng.gen_range(1e-9..1.0);
                (50_000.0 - 20_000.0 * u.ln()) as u64
            })
            .collect();
        w.write_hist(i as f64, 1.0, Some("read"), &Hist::from_values(Layout::default_ns(), vals)).unwrap();
    }
}

#[test]
fn same_distribution_is_within_noise() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a.hlog"), d.path().join("b.hlog"));
    synthetic(&a, 1, 10, 20_000);
    synthetic(&b, 2, 10, 20_000);
    let v: Value = serde_json::from_str(&nines_ok(&["compare", s(&a), "--with", s(&b), "--json", "--tag", "read"])).unwrap();
    let levels = v["tags"][0]["levels"].as_array().unwrap();
    let mut judged = 0;
    for l in levels {
        let verdict = l["verdict"].as_str().unwrap();
        assert!(verdict == "same" || verdict == "unknown", "{} judged {verdict}: {l}", l["label"]);
        judged += (verdict == "same") as usize;
    }
    assert!(judged >= 5, "{levels:?}");
    // a level with too few I/Os beyond it is not called a change, whatever the values do
    let top = levels.iter().find(|l| l["label"] == "p99.999").unwrap();
    assert_eq!(top["verdict"], "unknown");
    // within noise and too few to tell are no regression
    assert_eq!(nines(&["compare", s(&a), "--with", s(&b), "--tag", "read", "--fail-on", "worse"]).status.code(), Some(0));
}

#[test]
fn page_cache_reads_beat_direct_reads() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("data");
    let (base, cand) = (d.path().join("direct.hlog"), d.path().join("buffered.hlog"));
    // O_DIRECT reads go to the disk; buffered reads of a 4 MiB file stay in the page cache
    nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "4MiB",
        "--rw",
        "randread",
        "--window",
        "200ms",
        "--runtime",
        "1s",
        "--quiet",
        "-o",
        s(&base),
    ]);
    nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "4MiB",
        "--rw",
        "randread",
        "--buffered",
        "--ramp",
        "200ms",
        "--window",
        "200ms",
        "--runtime",
        "1s",
        "--quiet",
        "-o",
        s(&cand),
    ]);
    let v: Value = serde_json::from_str(&nines_ok(&["compare", s(&base), "--with", s(&cand), "--json"])).unwrap();
    let read = v["tags"].as_array().unwrap().iter().find(|t| t["tag"] == "read").unwrap();
    assert_eq!(read["levels"][0]["label"], "p50");
    assert_eq!(read["levels"][0]["verdict"], "better", "{}", read["levels"][0]);
    assert!(read["levels"][0]["change_pct"].as_f64().unwrap() < -30.0);
    assert_eq!(read["iops"]["verdict"], "better", "{}", read["iops"]);
    let text = nines_ok(&["compare", s(&base), "--with", s(&cand)]);
    assert!(text.contains("baseline: direct (1 run)") && text.contains("better"), "{text}");
    // the nightly gate: faster is no regression, the other way round is
    let gate = |a: &Path, b: &Path, on: &str| nines(&["compare", s(a), "--with", s(b), "--fail-on", on]);
    assert_eq!(gate(&base, &cand, "worse").status.code(), Some(0));
    let out = gate(&cand, &base, "worse");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("nines: compare: ") && err.contains("read p50 +") && err.contains("(worse)"), "{err}");
    assert!(!out.stdout.is_empty(), "the comparison is printed before the verdict");
    // any change beyond noise, for a candidate that should match its baseline
    assert_eq!(gate(&base, &cand, "change").status.code(), Some(1));
    // an error is not a regression
    assert_eq!(gate(&base, &d.path().join("missing.hlog"), "worse").status.code(), Some(3));
}

fn fio(dir: &Path, args: &[&str]) {
    let out = Command::new("fio").current_dir(dir).args(args).output().expect("fio is installed (scripts/setup.sh)");
    assert!(out.status.success(), "fio {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The shape of a notebook that sweeps fio threads with Poisson rate-limited O_SYNC writes,
/// baseline vs patched: rate-limited writes at 200 IOPS per job, numjobs 1, 2, 4; the
/// baseline writes with O_SYNC, the candidate without. IOPS follow the rate; the candidate is
/// faster.
#[test]
fn sweep_of_imported_fio_runs() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    for (side, sync) in [("base", "--sync=1"), ("cand", "--sync=0")] {
        let mut files = Vec::new();
        for nj in [1, 2, 4] {
            let sub = dir.join(format!("{side}/fio-{nj}-jobs"));
            std::fs::create_dir_all(&sub).unwrap();
            fio(
                &sub,
                &[
                    "--name=sw",
                    "--size=1M",
                    "--rw=write",
                    "--bs=8k",
                    "--ioengine=psync",
                    sync,
                    "--rate_iops=200",
                    "--rate_process=poisson",
                    "--runtime=1s",
                    "--time_based",
                    "--group_reporting",
                    &format!("--numjobs={nj}"),
                    "--output-format=json+",
                    "--output=fio.json",
                ],
            );
            files.push(sub.join("fio.json"));
        }
        let mut args = vec!["import".to_string(), "--sweep".into()];
        args.extend(files.iter().map(|f| s(f).to_string()));
        args.extend(["-o".into(), s(&dir.join(format!("{side}-runs"))).into()]);
        nines_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }
    let runs = |side: &str| -> Vec<String> {
        [1, 2, 4].iter().map(|nj| s(&dir.join(format!("{side}-runs/numjobs={nj}.hlog"))).to_string()).collect()
    };
    let mut args = vec!["sweep".to_string()];
    args.extend(runs("base"));
    args.push("--with".into());
    args.extend(runs("cand"));
    args.extend(["--param".into(), "numjobs".into(), "--json".into()]);
    let v: Value = serde_json::from_str(&nines_ok(&args.iter().map(String::as_str).collect::<Vec<_>>())).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (row, nj) in rows.iter().zip([1.0, 2.0, 4.0]) {
        assert_eq!(row["param"], nj);
        let iops = row["base"]["iops"].as_f64().unwrap();
        // fio's sync writes fall behind a 1 s schedule on a busy machine (199.6 of 400 seen):
        // the bounds only tell the three runs apart and catch a rate not applied
        assert!(iops > 200.0 * nj * 0.25 && iops < 200.0 * nj * 1.5, "numjobs {nj}: {iops} IOPS at a 200 IOPS/job rate");
        assert!(row["cand"].is_object(), "candidate paired: {row}");
        assert!(row["change"]["mean_pct"].as_f64().is_some());
    }
    // the same as CSV: a header and three rows
    let csv_args: Vec<String> = args.iter().map(|a| if a == "--json" { "--csv".into() } else { a.clone() }).collect();
    let csv = nines_ok(&csv_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("config,numjobs,base_run,iops"), "{csv}");
}

#[test]
fn steady_on_logs_and_real_runs() {
    // Java-written log: every window holds 5,000 reads and 5,000 writes; steady at once.
    let log = root().join("tests/data/java-rw.hlog");
    let v: Value = serde_json::from_str(&nines_ok(&["steady", s(&log), "--json"])).unwrap();
    assert_eq!(v["rounds"].as_array().unwrap().len(), 60);
    assert_eq!(v["last"]["holds"], true);
    assert_eq!(v["first_steady_after"], 5);
    assert_eq!(v["criteria"][0]["criterion"], "iops:10%");
    let v: Value =
        serde_json::from_str(&nines_ok(&["steady", s(&log), "--json", "--round", "10", "--track", "p99", "--tag", "read"])).unwrap();
    assert_eq!(v["rounds"].as_array().unwrap().len(), 6);
    assert_eq!(v["track"], "p99");

    // A real run with 200 ms windows: ten rounds, a report either way, numbers that add up.
    let d = tempfile::tempdir().unwrap();
    let (target, out) = (d.path().join("data"), d.path().join("r.hlog"));
    nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "8MiB",
        "--rw",
        "randread",
        "--qd",
        "4",
        "--window",
        "200ms",
        "--runtime",
        "2s",
        "--quiet",
        "-o",
        s(&out),
    ]);
    // the verdict is the exit status: 0 holds, 1 does not hold
    let o = nines(&["steady", s(&out), "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(if v["last"]["holds"] == true { 0 } else { 1 }), "{v}");
    let rounds = v["rounds"].as_array().unwrap();
    assert!(rounds.len() >= 9, "{}", rounds.len());
    let p = &v["last"];
    let range_pct = p["range"].as_f64().unwrap() / p["average"].as_f64().unwrap() * 100.0;
    assert_eq!(p["range_ok"], range_pct < 20.0);

    // errors (exit status 3, as for nines check): too few rounds, bad track, unknown tag
    let e = nines(&["steady", s(&log), "--round", "30"]);
    assert_eq!(e.status.code(), Some(3));
    assert_eq!(nines(&["steady", s(&log), "--rounds", "x"]).status.code(), Some(3));
    assert!(String::from_utf8_lossy(&e.stderr).contains("2 rounds, fewer than the 5"), "{}", String::from_utf8_lossy(&e.stderr));
    let e = nines(&["steady", s(&log), "--track", "p100"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("cannot track"));
    let e = nines(&["steady", s(&log), "--tag", "trim"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("no direction 'trim' (tags: read, write)"));
}

#[test]
fn steady_exits_1_when_steady_state_does_not_hold() {
    // IOPS rising 100, 200, ... 600 a second: the PTS rule's range is far beyond 20%
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("rising.hlog");
    let mut w = ArchiveWriter::new(std::fs::File::create(&path).unwrap(), &Header { start_time: 1.7e9, meta: Default::default() }).unwrap();
    for i in 0..6_u64 {
        let vals: Vec<u64> = (0..100 * (i + 1)).map(|k| 50_000 + k).collect();
        w.write_hist(i as f64, 1.0, Some("read"), &Hist::from_values(Layout::default_ns(), vals)).unwrap();
    }
    drop(w);
    let o = nines(&["steady", s(&path), "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["last"]["holds"], false, "{v}");
    // the report is printed and the exit status is the verdict, as nines check's: 1 fails
    assert_eq!(o.status.code(), Some(1), "{v}");
    assert_eq!(nines(&["steady", s(&path)]).status.code(), Some(1));
}

#[test]
fn steady_leaves_out_a_lists_partial_last_window() {
    // 200 I/Os a second for 5 s, then 102 in [5.0 s, 5.5 s): the partial last window is no
    // round (its 102 I/Os over the 0.495 s to the last one read as 206 IOPS), so steady state
    // holds over the five whole rounds
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("l.csv");
    let mut text = String::from("time,latency_us\n");
    for w in 0..5 {
        for i in 0..200 {
            text.push_str(&format!("{:.4},{}\n", w as f64 + i as f64 / 200.0, 100 + i % 7));
        }
    }
    for i in 0..102 {
        text.push_str(&format!("{:.4},{}\n", 5.0 + i as f64 / 204.0, 100 + i % 7));
    }
    std::fs::write(&path, text).unwrap();
    let o = nines(&["steady", s(&path), "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rounds = v["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5, "{v}");
    assert!(rounds.iter().all(|r| r["value"].as_f64() == Some(200.0)), "{v}");
    assert_eq!((v["last"]["holds"].as_bool(), o.status.code()), (Some(true), Some(0)), "{v}");
    // the same through an archive: the partial window is told by the run's recorded window
    let archive = d.path().join("l.hlog");
    nines_ok(&["import", s(&path), "-o", s(&archive)]);
    let v: Value = serde_json::from_str(&nines_ok(&["steady", s(&archive), "--json"])).unwrap();
    assert_eq!(v["rounds"].as_array().unwrap().len(), 5, "{v}");
}

/// QD1 randrw, QD16 randrw and a QD1 O_SYNC randwrite run, recorded by `nines run` on one
/// file (a short run each: what is judged here is their metadata, not their numbers).
fn three_workloads(dir: &Path) -> [std::path::PathBuf; 3] {
    let target = dir.join("data");
    let runs = [("qd1.hlog", "randrw", "1", false), ("qd16.hlog", "randrw", "16", false), ("sync.hlog", "randwrite", "1", true)];
    runs.map(|(name, rw, qd, sync)| {
        let out = dir.join(name);
        let mut args = vec!["run", "--target", s(&target), "--size", "4MiB", "--rw", rw, "--qd", qd, "--ios", "2000", "--window", "100ms"];
        args.extend(["--buffered", "--quiet", "-o", s(&out)]);
        if sync {
            args.push("--sync");
        }
        nines_ok(&args);
        out
    })
}

#[test]
fn runs_of_different_workloads_are_not_repeats() {
    let d = tempfile::tempdir().unwrap();
    let [qd1, qd16, sync] = three_workloads(d.path());
    // QD1 against QD16: warned on stderr, named in --json
    let out = nines(&["compare", s(&qd1), "--with", s(&qd16), "--json"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: the runs differ in workload: qd (baseline 1, candidate 16)"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["workload"], serde_json::json!([{"key": "qd", "baseline": ["1"], "candidate": ["16"]}]));
    // a side of two workloads is no set of repeats; each setting that differs is named
    let out = nines(&["compare", s(&qd1), s(&qd16), "--with", s(&sync), "--tag", "write"]);
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "differ in workload: rw (baseline randrw, candidate randwrite)",
        "differ in workload: qd (baseline 1, 16, candidate 1); the baseline runs are not repeats",
        "differ in workload: sync (baseline false, candidate true)",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(!err.contains("mix"), "{err}");
    // runs of one workload: no warning, no key in the JSON
    let again = d.path().join("qd1-again.hlog");
    let target = d.path().join("data");
    nines_ok(
        &["run", "--target", s(&target), "--size", "4MiB", "--rw", "randrw", "--qd", "1", "--ios", "2000", "--window", "100ms"]
            .into_iter()
            .chain(["--buffered", "--quiet", "-o", s(&again)])
            .collect::<Vec<_>>(),
    );
    let out = nines(&["compare", s(&qd1), "--with", s(&again), "--json"]);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("workload"), "{out:?}");
    assert!(serde_json::from_slice::<Value>(&out.stdout).unwrap().get("workload").is_none());
}

#[test]
fn a_sweep_draws_a_line_per_workload() {
    let d = tempfile::tempdir().unwrap();
    let [qd1, qd16, sync] = three_workloads(d.path());
    let out = nines(&["sweep", s(&qd1), s(&qd16), s(&sync), "--param", "qd", "--tag", "write", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the runs differ in more than 'qd' (rw, sync): a line for each of their workloads"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["other_settings"], serde_json::json!(["rw", "sync"]));
    let rows: Vec<(f64, &str)> =
        v["rows"].as_array().unwrap().iter().map(|r| (r["param"].as_f64().unwrap(), r["config"].as_str().unwrap())).collect();
    assert_eq!(rows, [(1.0, "rw=randrw sync=false"), (16.0, "rw=randrw sync=false"), (1.0, "rw=randwrite sync=true")]);
    // the latency curve: the sync run is a line of its own
    let out = nines(&["sweep", s(&qd1), s(&qd16), s(&sync), "--curve", "--param", "qd", "--tag", "write", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sets: Vec<(&str, usize)> =
        v["sets"].as_array().unwrap().iter().map(|s| (s["label"].as_str().unwrap(), s["points"].as_array().unwrap().len())).collect();
    assert_eq!(sets, [("runs (rw=randrw sync=false)", 2), ("runs (rw=randwrite sync=true)", 1)]);
    // the two randrw runs alone: one line, no note
    let out = nines(&["sweep", s(&qd1), s(&qd16), "--param", "qd", "--tag", "write"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}
