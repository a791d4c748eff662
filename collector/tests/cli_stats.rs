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

/// `--levels` replaces the default levels in the table and the JSON: each computed as the
/// default ones are (never interpolated, with its support), in increasing order.
#[test]
fn chosen_levels_replace_the_default_ones() {
    let file = data("java-rw.hlog");
    let v: Value = serde_json::from_str(&nines_ok(&["stats", "--json", "--levels", "p99.99,95", "--levels", "P99.5", &file])).unwrap();
    let d: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &file])).unwrap();
    for tag in ["read", "write", "all"] {
        let levels = v["runs"][0]["tags"][tag]["levels"].as_array().unwrap();
        let labels: Vec<&str> = levels.iter().map(|l| l["label"].as_str().unwrap()).collect();
        assert_eq!(labels, ["p95", "p99.5", "p99.99"]);
        assert_eq!(levels[0]["quantile"], 0.95);
        for l in levels {
            assert!(l["support"].is_string() && l["beyond"].is_u64(), "{l}");
        }
        // p99.99 is the very level the default set prints, support and all
        let default = d["runs"][0]["tags"][tag]["levels"].as_array().unwrap().iter().find(|l| l["label"] == "p99.99").unwrap();
        assert_eq!(&levels[2], default);
    }
    let text = nines_ok(&["stats", "--levels", "p95,p99.5,p99.99", &file]);
    let header = text.lines().nth(1).unwrap();
    let cols: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(cols, ["dir", "count", "IOPS", "min", "mean", "stdev", "p95", "p99.5", "p99.99", "max"], "{text}");
}

#[test]
fn bad_levels_are_errors_naming_the_item() {
    let file = data("java-rw.hlog");
    for (bad, says) in [
        ("p101", "\"p101\" is not a level: a level is above p0 and below p100"),
        ("foo", "\"foo\" is not a level: expected a percent such as p99.9, 99.9 or p95"),
        ("p99,,p95", "\"\" is not a level"),
        ("", "\"\" is not a level"),
    ] {
        let out = nines(&["stats", "--levels", bad, &file]);
        assert!(!out.status.success(), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--levels") && stderr.contains(says), "{bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// `--windows` against each window's level computed on its own: `nines stats --from S --to
/// S+1` of each 1 s window of java-rw.hlog (60 read windows of 5,000 I/Os).
#[test]
fn window_levels_match_each_window_alone() {
    let file = data("java-rw.hlog");
    let mut p99s: Vec<u64> = (0..60)
        .map(|s| {
            let (from, to) = (s.to_string(), (s + 1).to_string());
            let v: Value = serde_json::from_str(&nines_ok(&[
                "stats", "--json", "--tag", "read", "--levels", "p99", "--from", &from, "--to", &to, &file,
            ]))
            .unwrap();
            assert_eq!(v["runs"][0]["tags"]["read"]["count"], 5000);
            v["runs"][0]["tags"]["read"]["levels"][0]["value_ns"].as_u64().unwrap()
        })
        .collect();
    p99s.sort_unstable();
    let limit_ns = p99s[29]; // the median per-window p99: windows above it break the limit
    let limit = format!("p99={limit_ns}ns");
    let v: Value =
        serde_json::from_str(&nines_ok(&["stats", "--json", "--windows", "--levels", "p99,p99.99", "--limit", &limit, &file])).unwrap();
    let w = &v["runs"][0]["tags"]["read"]["windows"];
    assert_eq!(w["windows"], 60);
    let p99 = &w["levels"][0];
    assert_eq!(p99["label"], "p99");
    // 5,000 I/Os: rank 4,950, so 50 I/Os beyond each window's p99: thin, used
    assert_eq!((p99["supported"].as_u64(), p99["thin"].as_u64(), p99["too_few"].as_u64()), (Some(60), Some(60), Some(0)));
    // nearest rank over the 60 values: p50 at rank 30, p90 at 54, p99 at 60
    let got: Vec<u64> = ["min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"].iter().map(|k| p99[k].as_u64().unwrap()).collect();
    assert_eq!(got, [p99s[0], p99s[29], p99s[53], p99s[59], p99s[59]]);
    let lim = &p99["limits"][0];
    let above = p99s.iter().filter(|&&x| x > limit_ns).count();
    assert_eq!((lim["limit_ns"].as_u64(), lim["windows_beyond"].as_u64()), (Some(limit_ns), Some(above as u64)));
    assert_eq!(lim["windows_beyond_share"].as_f64(), Some(above as f64 / 60.0));
    assert_eq!(lim["ios"], 300_000);
    let ios_beyond = lim["ios_beyond"].as_u64().unwrap();
    // each window breaking the limit has more than 50 I/Os beyond it, the others at most 50
    assert!(ios_beyond > 50 * above as u64 && ios_beyond <= 50 * 60 + 5000 * above as u64, "{ios_beyond}");
    // p99.99 of 5,000 I/Os: rank 5,000, no I/O beyond: every window too few, none used
    let deep = &w["levels"][1];
    assert_eq!((deep["supported"].as_u64(), deep["too_few"].as_u64()), (Some(0), Some(60)));
    assert!(deep["min_ns"].is_null() && deep["max_ns"].is_null() && deep.get("limits").is_none());
    // `all` merges read and write windows of one start: 10,000 I/Os, 1 beyond p99.99
    let all = &v["runs"][0]["tags"]["all"]["windows"];
    assert_eq!(
        (all["windows"].as_u64(), all["levels"][1]["supported"].as_u64(), all["levels"][1]["thin"].as_u64()),
        (Some(60), Some(60), Some(60))
    );
    // without --windows the JSON is as it was
    let plain: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &file])).unwrap();
    assert!(plain["runs"][0]["tags"]["read"].get("windows").is_none());
}

#[test]
fn window_levels_table_and_selection() {
    let file = data("java-rw.hlog");
    let text =
        nines_ok(&["stats", "--windows", "--tag", "read", "--from", "10", "--to", "20", "--limit", "p99=1ms,read p99.9 < 2ms", &file]);
    assert!(text.contains("each window's levels, spread over the windows"), "{text}");
    let header = text.lines().find(|l| l.starts_with("dir") && l.contains("too few")).unwrap();
    for col in ["level", "windows", "min", "p50", "p90", "p99", "max", "limit", "windows beyond", "I/Os beyond"] {
        assert!(header.contains(col), "{header}");
    }
    let row = text.lines().find(|l| l.starts_with("read") && l.contains("<= 1.00ms")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[..4], ["read", "p99", "10", "0"], "{row}");
    assert!(cells[4].ends_with('*'), "thin values are marked: {row}");
    assert!(text.lines().any(|l| l.starts_with("read") && l.contains("p99.9 ") && l.contains("< 2.00ms")), "{text}");
    let notes = text.replace("\n  ", " "); // notes wrap at 80 columns
    assert!(notes.contains("* thin: windows with 1 to 99 I/Os beyond the level"), "{text}");
    assert!(notes.contains("read p99 (10 of 10)"), "{text}");
    assert!(notes.contains("p99.99, p99.999") && notes.contains("no window has an I/O beyond them"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("all") || l.starts_with("write")), "{text}");
    let v: Value =
        serde_json::from_str(&nines_ok(&["stats", "--json", "--windows", "--tag", "read", "--from", "10", "--to", "20", &file])).unwrap();
    assert_eq!(v["runs"][0]["tags"]["read"]["windows"]["windows"], 10);
}

#[test]
fn bad_window_limits_are_errors() {
    let file = data("java-rw.hlog");
    for (args, says) in [
        (vec!["--windows", "--limit", "p99"], "expected LEVEL=LATENCY such as p99.99=2ms"),
        (vec!["--windows", "--limit", "p99=2"], "expected a latency with its unit"),
        (vec!["--windows", "--limit", "p101=2ms"], "\"p101\" is not a level"),
        (
            vec!["--windows", "--levels", "p99", "--limit", "p99.9=1ms"],
            "p99.9 is not among the levels computed (p99); add it with --levels",
        ),
        (vec!["--windows", "--limit", "trim p99 <= 1ms"], "no run has a direction 'trim'"),
        (vec!["--limit", "p99=1ms"], "--windows"),
    ] {
        let mut all = vec!["stats"];
        all.extend(args.iter().copied());
        all.push(&file);
        let out = nines(&all);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says) && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
