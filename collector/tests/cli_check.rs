//! `nines check` end to end on real runs: a run recorded by the collector, a real collector
//! archive kept as test data, and fio's own json+ output; spec files with sections; the exit
//! status a CI job gates on.

use std::path::Path;

use nines_tests::{nines, nines_ok, root};
use serde_json::Value;

fn data(name: &str) -> String {
    root().join("tests/data").join(name).to_str().unwrap().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `nines check ARGS --json`: the exit status and the JSON.
fn check(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = nines(&all);
    let text = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

#[test]
fn a_clear_pass_a_clear_failure_and_three_ios_beyond_give_exit_status_0_1_and_2() {
    // a real randrw run of the collector (10k reads and 10k writes a second): its write
    // p99.99 has 3 I/Os beyond it
    let run = data("v1-randrw.hlog");
    let (code, v) = check(&[&run, "--limit", "read p99 <= 10ms"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("meets")), "{v}");
    let (code, v) = check(&[&run, "--limit", "read p99 <= 10ms", "--limit", "read p99<=1us"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("fails")), "{v}");
    assert_eq!(v["runs"][0]["checks"][1]["verdict"], "fails");
    let (code, v) = check(&[&run, "--limit", "read p99 <= 10ms", "--limit", "write p99.99 <= 1s"]);
    assert_eq!((code, v["verdict"].as_str()), (2, Some("cannot_tell")), "{v}");
    let c = &v["runs"][0]["checks"][1];
    assert_eq!((c["beyond"].as_u64(), c["verdict"].as_str()), (Some(3), Some("cannot_tell")), "{c}");
    assert!(c["reason"].as_str().unwrap().contains("3 I/Os beyond p99.99: too few for the 95% interval's upper bound"), "{c}");
    // a failure outweighs a doubt
    let (code, _) = check(&[&run, "--limit", "write p99.99 <= 1s", "--limit", "all max <= 1us"]);
    assert_eq!(code, 1);
}

#[test]
fn values_and_intervals_are_those_of_nines_stats() {
    let runs = [data("v1-randrw.hlog"), data("fio-randrw.json")];
    let stats: Value = serde_json::from_str(&nines_ok(&["stats", &runs[0], &runs[1], "--json"])).unwrap();
    let (_, v) = check(&[&runs[0], &runs[1], "--limit", "read p99 <= 1s", "--limit", "all p50 <= 1s", "--limit", "write max <= 1s"]);
    for (i, r) in v["runs"].as_array().unwrap().iter().enumerate() {
        let tags = &stats["runs"][i]["tags"];
        let level = |tag: &str, label: &str| tags[tag]["levels"].as_array().unwrap().iter().find(|l| l["label"] == label).unwrap().clone();
        for (c, tag, label) in [(&r["checks"][0], "read", "p99"), (&r["checks"][1], "all", "p50")] {
            let l = level(tag, label);
            assert_eq!(c["value"].as_f64(), l["value_ns"].as_f64(), "{c} {l}");
            assert_eq!(c["interval"][0].as_f64(), l["ci95_ns"][0].as_f64(), "{c} {l}");
            assert_eq!(c["interval"][1].as_f64(), l["ci95_ns"][1].as_f64(), "{c} {l}");
            assert_eq!(c["count"], tags[tag]["count"]);
        }
        assert_eq!(r["checks"][2]["value"].as_f64(), tags["write"]["max_ns"].as_f64(), "{r}");
    }
}

#[test]
fn a_spec_file_selects_runs_by_name_and_metadata() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("data");
    let recorded = d.path().join("qd1-read.hlog");
    nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "4MiB",
        "--rw",
        "randread",
        "--qd",
        "1",
        "--window",
        "200ms",
        "--runtime",
        "1s",
        "--quiet",
        "-o",
        s(&recorded),
    ]);
    let spec = d.path().join("qos.spec");
    std::fs::write(
        &spec,
        "# vendor-style QoS: 4k random reads at QD1\n\
         all max <= 60s\n\
         [workload.rw=randread workload.qd=1]\n\
         read iops >= 1        # anything that ran\n\
         read p50 <= 60s\n\
         [name=fio-*]\n\
         write p99 <= 1ns\n",
    )
    .unwrap();
    let (code, v) = check(&[s(&recorded), &data("fio-randrw.json"), "--spec", s(&spec)]);
    let runs = v["runs"].as_array().unwrap();
    let limits = |r: &Value| r["checks"].as_array().unwrap().iter().map(|c| c["limit"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(limits(&runs[0]), ["all max <= 60.0s", "read iops >= 1", "read p50 <= 60.0s"], "{v}");
    assert_eq!(runs[0]["verdict"], "meets", "{v}");
    assert_eq!(runs[0]["checks"][1]["at"], format!("{}:4", s(&spec)));
    // fio's 300 writes: 3 beyond p99, too few for an upper bound, but its lower bound is far
    // beyond 1 ns
    assert_eq!(limits(&runs[1]), ["all max <= 60.0s", "write p99 <= 1ns"], "{v}");
    assert!(runs[1]["checks"][1]["interval"][1].is_null(), "{v}");
    assert_eq!((code, runs[1]["verdict"].as_str()), (1, Some("fails")), "{v}");
    // text output: one block per run, each limit with where it was written
    let out = nines(&["check", s(&recorded), "--spec", s(&spec)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("qd1-read ("), "{text}");
    assert!(text.contains("overall: meets (3 meet, 0 fail, 0 cannot tell)"), "{text}");
}

#[test]
fn bad_specs_and_runs_exit_3_naming_file_line_and_column() {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("bad.spec");
    std::fs::write(&spec, "read p99 <= 1ms\n\n  write p99.9 <= 2 ms\n").unwrap();
    let run = data("v1-randrw.hlog");
    let out = nines(&["check", &run, "--spec", s(&spec)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("{}:3:18: expected one value", s(&spec))), "{err}");
    let out = nines(&["check", &run, "--limit", "read p99 <= 1"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--limit:1:13: expected a latency with its unit"));
    let out = nines(&["check", "missing.hlog", "--limit", "read p99 <= 1ms"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.hlog"));
    // a command line clap refuses is an error too, not "cannot tell"
    assert_eq!(nines(&["check", &run]).status.code(), Some(3));
    assert_eq!(nines(&["check", &run, "--spec", s(&d.path().join("none.spec"))]).status.code(), Some(3));
    std::fs::write(&spec, "# only comments\n").unwrap();
    let out = nines(&["check", &run, "--spec", s(&spec)]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no limit"));
}

#[test]
fn the_readme_spec_parses_and_applies_by_metadata() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = &readme[readme.find("## Judging against a QoS spec").expect("the README's spec section")..];
    let block = section.split("```text\n").nth(1).and_then(|b| b.split("```").next()).expect("a text block");
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("vendor.spec");
    std::fs::write(&spec, block).unwrap();
    // the test archive is a randrw run: only the limit for every run applies
    let (code, v) = check(&[&data("v1-randrw.hlog"), "--spec", s(&spec)]);
    assert_eq!(code, 0, "{v}");
    let checks = v["runs"][0]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{v}");
    assert_eq!(checks[0]["limit"], "all max <= 50.0ms");
}

#[test]
fn a_misspelt_direction_is_a_spec_error_and_a_direction_the_run_lacks_is_not_applicable() {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("qos.spec");
    // a read-only run recorded by the collector
    let (target, run) = (d.path().join("data"), d.path().join("r.hlog"));
    nines_ok(&["run", "--target", s(&target), "--size", "4MiB", "--rw", "randread", "--ios", "2000", "--quiet", "-o", s(&run)]);
    std::fs::write(&spec, "# vendor X\nread p99 <= 10s\n[*]\nred p99 < 1ms\n").unwrap();
    let out = nines(&["check", s(&run), "--spec", s(&spec)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("{}:4:1: expected a direction (read, write, trim, sync, all", spec.display())), "{err}");
    assert!(err.contains("found \"red\": did you mean \"read\"?") && !err.contains("cannot tell"), "{err}");
    // a name far from any direction, and no tag of the run: an error naming the line, too
    std::fs::write(&spec, "read p99 <= 10s\nlookups p99 < 1ms\n").unwrap();
    let out = nines(&["check", s(&run), "--spec", s(&spec)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!(
            "{}:2: the direction \"lookups\" is none of read, write, trim, sync, all nor a tag of the runs (they have: read)",
            spec.display()
        )),
        "{err}"
    );
    // a write limit for every run on a read-only run: not applicable, left out of its verdict
    std::fs::write(&spec, "read p90 <= 10s\n[*]\nwrite p99 < 1ms\n").unwrap();
    let (code, v) = check(&[s(&run), "--spec", s(&spec)]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("meets")), "{v}");
    assert_eq!(v["runs"][0]["checks"][1]["verdict"], "not_applicable", "{v}");
    assert!(v["runs"][0]["checks"][1]["reason"].as_str().unwrap().contains("issues no write I/Os (it has: all, read)"), "{v}");
    let text = nines(&["check", s(&run), "--spec", s(&spec)]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("not applicable: the run issues no write I/Os") && text.contains("(1 meet, 0 fail, 0 cannot tell, 1 not applicable)"),
        "{text}"
    );
    // only limits that cannot apply: nothing was judged, exit status 2
    let (code, v) = check(&[s(&run), "--limit", "write p99 < 1ms"]);
    assert_eq!((code, v["runs"][0]["verdict"].as_str()), (2, Some("not_applicable")), "{v}");
}
