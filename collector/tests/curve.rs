//! `nines curve` end to end on a real file with io_uring: a queue-depth ladder and vdbench's
//! rate steps, each point a real run of one second; the archives labelled with their point,
//! `nines sweep --param` and `nines sweep --curve` reading them back, and `--limit` finding a
//! load with its interval. Nothing here checks wall-clock time or throughput: the limits
//! searched for are chosen so that the outcome does not depend on how fast the disk is.

use std::path::Path;

use nines_core::archive;
use nines_core::curve::Mark;
use nines_core::run::Run;
use nines_tests::{nines, nines_ok};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn refused(args: &[&str]) -> String {
    let out = nines(args);
    assert!(!out.status.success(), "expected a refusal for {args:?}:\n{}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.starts_with("nines: ") && !e.contains("panicked"), "{e}");
    e
}

fn read_run(p: &Path) -> Run {
    archive::read(s(p), &std::fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_qd_ladder_walks_every_point_and_finds_the_highest_load_under_a_loose_limit() {
    let d = tempfile::tempdir().unwrap();
    let (t, out) = (d.path().join("t.dat"), d.path().join("curve"));
    // 4 points of 1 s each; 10 s at p50 is far above what any of them measures on a file
    let json = nines_ok(&[
        "curve",
        "--quiet",
        "--target",
        s(&t),
        "--size",
        "16MiB",
        "--runtime",
        "1s",
        "--qd-ladder",
        "1,2,4,8",
        "--limit",
        "read p50 <= 10s",
        "--json",
        "-o",
        s(&out),
    ]);
    assert_eq!(files(&out), ["qd-1.hlog", "qd-2.hlog", "qd-4.hlog", "qd-8.hlog"]);
    for (f, qd) in [("qd-1.hlog", 1), ("qd-8.hlog", 8)] {
        let run = read_run(&out.join(f));
        let m = Mark::of(&run).expect("the point in the metadata");
        assert_eq!((m.qd, m.jobs, m.load()), (qd, 1, Some(f64::from(qd))));
        assert_eq!(run.meta.param.get("qd").and_then(Value::as_u64), Some(u64::from(qd)));
        assert_eq!(run.meta.workload.as_ref().and_then(|w| w.qd), Some(qd), "the run itself ran at that queue depth");
        assert_eq!(run.meta.engine.as_ref().and_then(|e| e.name.clone()).as_deref(), Some("uring"));
    }
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["load"], "qd");
    let set = &v["sets"][0];
    let pts = set["points"].as_array().unwrap();
    assert_eq!(pts.iter().map(|p| p["load"].as_f64().unwrap()).collect::<Vec<_>>(), [1.0, 2.0, 4.0, 8.0]);
    for p in pts {
        assert!(p["iops"]["value"].as_f64().unwrap() > 0.0, "{p}");
        assert!(p["count"].as_u64().unwrap() > 100, "{p}");
        let p50 = &p["levels"][0];
        assert_eq!((p50["label"].as_str(), p["levels"][3]["label"].as_str()), (Some("p50"), Some("p99.99")));
        let (lo, val, hi) = (p50["lower"].as_f64().unwrap(), p50["value"].as_f64().unwrap(), p50["upper"].as_f64().unwrap());
        assert!(lo <= val && val <= hi, "{p50}");
    }
    // every point meets 10 s: the answer is the highest, qd 8, with its interval
    let dec = &set["decision"];
    assert_eq!((dec["best"].as_u64(), dec["first_fail"].as_u64(), dec["verdict"].as_str()), (Some(3), None, Some("meets")), "{dec}");
    let target = &pts[3]["target"];
    assert_eq!(target["verdict"], "meets");
    assert!(target["interval"][1].as_f64().unwrap() <= 10e9);

    // the same table from the archives, by nines sweep
    let again = nines_ok(&[
        "sweep",
        s(&out.join("qd-1.hlog")),
        s(&out.join("qd-2.hlog")),
        s(&out.join("qd-4.hlog")),
        s(&out.join("qd-8.hlog")),
        "--curve",
        "--limit",
        "read p50 <= 10s",
        "--json",
    ]);
    let w: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(w["sets"][0]["points"], v["sets"][0]["points"]);
    assert_eq!(w["sets"][0]["decision"], v["sets"][0]["decision"]);
    // and the plain sweep table by the parameter the points carry
    let table = nines_ok(&["sweep", s(&out.join("qd-1.hlog")), s(&out.join("qd-8.hlog")), "--param", "qd"]);
    assert!(table.contains("qd (all)") && table.lines().any(|l| l.trim_start().starts_with("8 ")), "{table}");
    let text = nines_ok(&["sweep", s(&out.join("qd-1.hlog")), s(&out.join("qd-8.hlog")), "--curve", "--limit", "read p50 <= 10s"]);
    assert!(text.contains("highest load meeting 'read p50 <= 10.0s': qd 8 (") && text.contains("p99.99 [95%]"), "{text}");

    // the directory now holds files: refused without --into-existing, and never replaced
    let e = refused(&["curve", "--quiet", "--target", s(&t), "--runtime", "1s", "--qd-ladder", "1,2", "-o", s(&out)]);
    assert!(e.contains("is not empty") && e.contains("--into-existing"), "{e}");
    let e = refused(&["curve", "--quiet", "--target", s(&t), "--runtime", "1s", "--qd-ladder", "1,2", "--into-existing", "-o", s(&out)]);
    assert!(e.contains("qd-1.hlog' already exists") && e.contains("never replaces"), "{e}");
    assert_eq!(files(&out).len(), 4);
}

#[test]
fn a_tight_limit_stops_the_ladder_at_the_first_clear_failure() {
    let d = tempfile::tempdir().unwrap();
    let (t, out) = (d.path().join("t.dat"), d.path().join("c"));
    // no storage completes half the reads in 1 ns: the first point clearly fails, and the
    // curve stops there; the verdict is the exit status, 1 as for nines check
    let run = nines(&[
        "curve",
        "--quiet",
        "--target",
        s(&t),
        "--size",
        "16MiB",
        "--runtime",
        "1s",
        "--qd-ladder",
        "1,2,4,8",
        "--limit",
        "read p50 <= 1ns",
        "-o",
        s(&out),
    ]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let text = String::from_utf8(run.stdout).unwrap();
    assert_eq!(files(&out), ["qd-1.hlog"]);
    assert!(text.contains("no load tried meets 'read p50 <= 1ns'"), "{text}");
    assert!(text.contains("fails at qd 1: read p50 = "), "{text}");
    assert!(text.contains("stopped early: qd 1 clearly fails") && text.contains("not run: qd 2, qd 4, qd 8"), "{text}");
    assert!(text.contains("verdict: fails"), "{text}");
    // the same verdict from the archive, by nines sweep --curve; an error of a judging
    // command line is 3, never read as a verdict
    let again = nines(&["sweep", s(&out.join("qd-1.hlog")), "--curve", "--limit", "read p50 <= 1ns"]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    let e = nines(&["sweep", s(&out.join("missing.hlog")), "--curve", "--limit", "read p50 <= 1ns"]);
    assert_eq!(e.status.code(), Some(3), "{e:?}");
    let e = nines(&["sweep", s(&out.join("qd-1.hlog")), "--curve", "--limit", "read p50 <= 1"]);
    assert_eq!(e.status.code(), Some(3), "{e:?}");
    // without --limit there is no verdict: 0, and an error is 1 as for any command
    let e = nines(&["sweep", s(&out.join("missing.hlog")), "--curve"]);
    assert_eq!(e.status.code(), Some(1), "{e:?}");
}

#[test]
fn rate_steps_run_the_maximum_then_poisson_points_at_its_percentages() {
    let d = tempfile::tempdir().unwrap();
    let (t, out) = (d.path().join("t.dat"), d.path().join("steps"));
    let json = nines_ok(&[
        "curve",
        "--quiet",
        "--target",
        s(&t),
        "--size",
        "16MiB",
        "--qd",
        "4",
        "--runtime",
        "1s",
        "--curve-steps",
        "25,50",
        "--json",
        "-o",
        s(&out),
    ]);
    assert_eq!(files(&out), ["load-025pct.hlog", "load-050pct.hlog", "max.hlog"]);
    let max = read_run(&out.join("max.hlog"));
    let m0 = Mark::of(&max).unwrap();
    assert!(m0.max_run && m0.load().is_none() && max.meta.param.is_empty());
    let max_iops = nines_core::stats::run_stats(&max, &Default::default()).tags["all"].iops;
    for (f, pct) in [("load-025pct.hlog", 25.0), ("load-050pct.hlog", 50.0)] {
        let run = read_run(&out.join(f));
        let m = Mark::of(&run).unwrap();
        let offered = m.load().unwrap();
        assert_eq!(m.offered_pct, Some(pct));
        assert!((offered - max_iops * pct / 100.0).abs() < 1e-6 * max_iops, "{offered} vs {max_iops}");
        let w = run.meta.workload.as_ref().unwrap();
        // the rate went to the run (per job; one job) with Poisson arrivals
        assert_eq!((w.rate_iops_per_job, w.arrival.as_deref(), w.qd), (Some(offered), Some("poisson"), Some(4)));
        assert_eq!(run.meta.param.get("offered_iops").and_then(Value::as_f64), Some(offered));
    }
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["load"], "offered_iops");
    let pts = v["sets"][0]["points"].as_array().unwrap();
    // the two steps by load, then the maximum (no load)
    assert_eq!(pts.len(), 3);
    assert!(pts[0]["load"].as_f64().unwrap() < pts[1]["load"].as_f64().unwrap() && pts[2]["load"].is_null());
    // the plain sweep of the steps by their offered load
    let table =
        nines_ok(&["sweep", s(&out.join("load-025pct.hlog")), s(&out.join("load-050pct.hlog")), "--param", "offered_iops", "--csv"]);
    assert_eq!(table.lines().count(), 3, "{table}");
}

#[test]
fn curve_flags_that_do_not_fit_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.dat");
    let o = d.path().join("o");
    for (extra, says) in [
        (&["--qd-ladder", "1,2", "--qd", "4"][..], "--qd-ladder gives the queue depths"),
        (&["--curve-steps", "4", "--rate-iops", "100"][..], "--curve-steps sets each point's rate"),
        (&["--qd-ladder", "1,2", "--force"][..], "never replaces a file"),
        (&["--qd-ladder", "1,2", "--live"][..], "--live is not taken"),
        (&["--qd-ladder", "1,2", "--max-runtime", "1s"][..], "--max-runtime is not taken"),
        (
            &["--qd-ladder", "1,2", "--limit", "write p99 <= 1ms"][..],
            "--limit names the direction 'write', which this workload (--rw randread)",
        ),
    ] {
        let mut args = vec!["curve", "--quiet", "--target", s(&t), "--size", "1MiB", "-o", s(&o)];
        args.extend_from_slice(extra);
        let e = refused(&args);
        assert!(e.contains(says), "{extra:?}: {e}");
    }
    assert!(!o.exists(), "nothing created for a refused command line");
    // a point that is refused (writes to a file nines did not create) leaves no directory
    std::fs::write(&t, b"not nines' own").unwrap();
    let e = refused(&["curve", "--quiet", "--target", s(&t), "--rw", "randwrite", "--qd-ladder", "1,2", "-o", s(&o)]);
    assert!(e.contains("the curve point qd 1: ") && e.contains("--overwrite"), "{e}");
    assert!(!o.exists(), "the directory made for the curve is removed again");
    std::fs::write(d.path().join("file"), b"x").unwrap();
    let e = refused(&["curve", "--quiet", "--target", s(&t), "--size", "1MiB", "--qd-ladder", "1,2", "-o", s(&d.path().join("file"))]);
    assert!(e.contains("is not a directory"), "{e}");
}
