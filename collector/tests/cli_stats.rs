//! `nines stats` end to end: golden output for logs written by other implementations, and
//! the error and warning paths for bad, cut and unknown files.
//!
//! The golden outputs are `insta` snapshots in `collector/tests/snapshots/`: after an intended
//! change, `INSTA_UPDATE=always cargo test -p nines-tests --test cli_stats` (or `cargo insta
//! review`) rewrites them; review the diff.

use nines_tests::{nines, nines_ok, root};
use serde_json::Value;

fn data(name: &str) -> String {
    root().join("tests/data").join(name).to_str().unwrap().to_string()
}

/// Run from the workspace root so file names in the output are relative and stable.
fn stats_in_root(args: &[&str]) -> String {
    let out = std::process::Command::new(nines_tests::nines_bin()).current_dir(root()).arg("stats").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn golden_text_and_json() {
    insta::assert_snapshot!("stats-java-python.txt", stats_in_root(&["tests/data/java-rw.hlog", "tests/data/python-rw.hlog"]));
    insta::assert_snapshot!("stats-java.json", stats_in_root(&["--json", "tests/data/java-rw.hlog"]));
    insta::assert_snapshot!(
        "stats-java-read-10-20.txt",
        stats_in_root(&["--tag", "read", "--from", "10", "--to", "20", "tests/data/java-rw.hlog"])
    );
}

#[test]
fn range_and_tag_select_windows() {
    let v: serde_json::Value =
        serde_json::from_str(&nines_ok(&["stats", "--json", "--tag", "write", "--from", "10", "--to", "20", &data("java-rw.hlog")]))
            .unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["duration_s"], 10.0);
    assert_eq!(run["tags"]["write"]["count"], 50_000);
    assert!(run["tags"].get("all").is_none());
    assert!(run["tags"].get("read").is_none());
}

#[test]
fn cut_file_keeps_complete_windows_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(data("java-rw.hlog")).unwrap();
    let cut = dir.path().join("cut.hlog");
    std::fs::write(&cut, &bytes[..bytes.len() - 1000]).unwrap();
    let out = nines(&["stats", "--json", cut.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut.hlog") && stderr.contains("line 124") && stderr.contains("ends in the middle"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // 120 lines of windows, the last one cut: 119 complete windows, 60 read + 59 write
    assert_eq!(v["runs"][0]["tags"]["read"]["count"], 300_000);
    assert_eq!(v["runs"][0]["tags"]["write"]["count"], 295_000);
    assert!(v["runs"][0]["warnings"][0]["message"].as_str().unwrap().contains("119 complete windows"));
}

#[test]
fn bad_line_is_an_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data("java-rw.hlog")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[9] = lines[9].replacen(",1.000,", ",one,", 1);
    let bad = dir.path().join("bad.hlog");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = nines(&["stats", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("nines: "), "{stderr}");
    assert!(stderr.contains("bad.hlog: line 10: interval length is \"one\", expected a non-negative decimal number"), "{stderr}");

    // damaged histogram payload
    lines[9] = text.lines().nth(9).unwrap().replacen("HISTF", "HISTA", 1);
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let stderr = String::from_utf8_lossy(&nines(&["stats", bad.to_str().unwrap()]).stderr).to_string();
    assert!(stderr.contains("bad.hlog: line 10: histogram"), "{stderr}");
}

#[test]
fn unknown_missing_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, [0u8, 159, 146, 150, 1, 2, 3]).unwrap();
    let out = nines(&["stats", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("junk.bin") && stderr.contains("format not recognised; tried: HdrHistogram interval log"), "{stderr}");
    assert!(stderr.contains("fio json+"), "the error lists every format tried: {stderr}");

    let out = nines(&["stats", dir.path().join("nope.hlog").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(stderr.contains("could not open") && stderr.contains("nope.hlog"), "{stderr}");

    let empty = dir.path().join("empty.hlog");
    std::fs::write(&empty, "#[Histogram log format version 1.3]\n").unwrap();
    let stderr = String::from_utf8_lossy(&nines(&["stats", empty.to_str().unwrap()]).stderr).to_string();
    assert!(stderr.contains("empty.hlog: line 2: no histogram lines found"), "{stderr}");

    let out = nines(&["stats", "--tag", "trim", &data("java-rw.hlog")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no windows with tag 'trim' in the selected range (tags: read, write)"));

    let out = nines(&["stats", "--from", "5", "--to", "2", &data("java-rw.hlog")]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn broken_pipe_is_not_an_error() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(nines_tests::nines_bin())
        .args(["stats", &data("java-rw.hlog"), &data("java-rw.hlog"), &data("java-rw.hlog")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // reader goes away before nines writes
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// One fio run read three ways (its json+ output, its histogram log, its latency log) is three
/// runs of one name: every command that shows them together tells them apart by file name.
#[test]
fn runs_of_one_name_get_distinct_names() {
    let files = [data("fio-randrw.json"), data("fio-randrw_clat_hist.1.log"), data("fio-randrw_lat.1.log")];
    let want = ["fio-randrw (fio-randrw.json)", "fio-randrw (fio-randrw_clat_hist.1.log)", "fio-randrw (fio-randrw_lat.1.log)"];
    // each alone keeps its own name
    let one: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &files[1]])).unwrap();
    assert_eq!(one["runs"][0]["name"], "fio-randrw");
    let v: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &files[0], &files[1], &files[2]])).unwrap();
    let names: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, want);
    // across a comparison's baseline and candidates
    let c = nines_ok(&["compare", &files[0], "--with", &files[2]]);
    assert!(c.contains(&format!("baseline: {} (1 run)", want[0])) && c.contains(&format!("candidate: {} (1 run)", want[2])), "{c}");
    // the same file twice: one run (read once, with a note)
    let v: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &files[0], &files[0]])).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 1);
    assert_eq!(v["runs"][0]["name"], "fio-randrw");
    // a report's summary (and the compact forms its page reads)
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.html");
    nines_ok(&["report", &files[0], &files[1], &files[2], "-o", out.to_str().unwrap()]);
    let page = std::fs::read_to_string(&out).unwrap();
    for w in want {
        assert!(page.contains(&format!("<h3>{w} <span")), "no run named {w} in the report's summary");
    }
}
