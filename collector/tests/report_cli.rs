//! `nines report` and `nines site` end to end: the files they write, the static
//! summary's numbers against `nines stats --json`, adding runs to a site, and the errors.
//! What the pages do in a browser is tested in tests/browser/report.test.mjs.

use nines_tests::{nines, nines_ok, root};
use serde_json::Value;

fn data(name: &str) -> String {
    root().join("tests/data").join(name).to_str().unwrap().to_string()
}

/// The text of the summary cell `col` in the row of direction `dir` of run `run`.
fn summary_cell(page: &str, run: usize, dir: &str, col: &str) -> String {
    let sec = page.find(&format!("data-testid=\"summary-stats\" data-run=\"{run}\"")).expect("run section");
    let row = sec + page[sec..].find(&format!("data-testid=\"summary-row\" data-dir=\"{dir}\"")).expect("row");
    let end = row + page[row..].find("</tr>").unwrap();
    let open = format!("data-col=\"{col}\">");
    let c = row + page[row..end].find(&open).unwrap_or_else(|| panic!("no {col} in {}", &page[row..end])) + open.len();
    page[c..c + page[c..].find("</td>").unwrap()].to_string()
}

#[test]
fn report_summary_has_the_numbers_of_nines_stats() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.html");
    let files = [data("java-rw.hlog"), data("fio-randrw_clat.1.log")];
    let said = nines_ok(&["report", &files[0], &files[1], "-o", out.to_str().unwrap(), "--title", "Two runs"]);
    assert!(said.starts_with(&format!("report: {} (2 runs, ", out.display())), "{said}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"));
    assert!(page.contains("<title>Two runs</title>"));
    let stats: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &files[0], &files[1]])).unwrap();
    for (i, run) in stats["runs"].as_array().unwrap().iter().enumerate() {
        for (dir, s) in run["tags"].as_object().unwrap() {
            let count = nines_core::units::group(s["count"].as_u64().unwrap());
            assert_eq!(summary_cell(&page, i, dir, "count"), count, "run {i} {dir}");
            let max = nines_core::units::format_ns(s["max_ns"].as_u64().unwrap());
            assert_eq!(summary_cell(&page, i, dir, "max"), max, "run {i} {dir}");
            let p99 = &s["levels"].as_array().unwrap()[2];
            assert_eq!(p99["label"], "p99");
            if p99["support"] == "reliable" {
                assert_eq!(summary_cell(&page, i, dir, "p99"), nines_core::units::format_ns(p99["value_ns"].as_u64().unwrap()));
            }
        }
    }
}

#[test]
fn report_tag_keeps_one_direction_and_names_the_others_when_missing() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.html");
    nines_ok(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--tag", "read"]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("data-dir=\"read\""));
    assert!(!page.contains("data-dir=\"write\"") && !page.contains("data-dir=\"all\""));
    let bad = nines(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--tag", "trim"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("no windows with tag 'trim'") && err.contains("read") && err.contains("write"), "{err}");
}

/// The payloads a report embeds: (file name, bytes).
fn embedded(page: &str) -> Vec<(String, Vec<u8>)> {
    nines_tests::report_payloads(page)
}

/// A run of many short windows (a real collection), for reports that must group them.
fn many_windows(dir: &std::path::Path) -> String {
    let out = dir.join("many.hlog");
    nines_ok(&[
        "run",
        "--target",
        dir.join("t.dat").to_str().unwrap(),
        "--size",
        "16M",
        "--rw",
        "randrw",
        "--mix",
        "70",
        "--runtime",
        "3s",
        "--window",
        "20ms",
        "--qd",
        "4",
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--no-summary",
    ]);
    out.to_str().unwrap().to_string()
}

#[test]
fn report_carries_compact_forms_whose_points_are_the_archives_exact_merges() {
    use nines_core::compact::Compact;
    use nines_core::pyramid::{series_points, Pyramid};
    use nines_core::quantile::Level;
    let d = tempfile::tempdir().unwrap();
    let run = many_windows(d.path());
    let full = nines_core::archive::read(&run, &std::fs::read(&run).unwrap()).unwrap();
    let out = d.path().join("r.html");
    nines_ok(&["report", &run, "-o", out.to_str().unwrap(), "--group", "500ms"]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("compact form: every chart point exact; histograms of 500ms (groups of 25 windows)"), "the summary states it");
    let (name, bytes) = embedded(&page).remove(0);
    assert_eq!(name, "many.hlog");
    let c = Compact::read(&name, &bytes).unwrap();
    assert_eq!(c.group, 25);
    // every point of every level, in every direction, is the exact merge of the recorded windows
    let nines: Vec<u32> = (1..=9).collect();
    let levels: Vec<Level> = nines.iter().map(|&k| Level::nines(k)).collect();
    let mut points = 0;
    for t in &c.traces {
        let p = Pyramid::new(&full, &t.dir);
        for k in 0..t.level_count() as u32 {
            for i in 0..p.slots().len().div_ceil(1 << k) {
                let want = series_points(std::iter::once(&p.span(&full, k, i).unwrap()), &levels).pop().unwrap();
                assert_eq!(t.point(k, i, &nines).unwrap().unwrap().0, want, "{:?} level {k} point {i}", t.dir);
                points += 1;
            }
        }
    }
    assert!(points > 3 * 2 * 140, "{points} points");
    // the whole run's and a range's stats on group edges are nines stats' of the archive
    // (nines stats reads the compact form itself)
    let carried = d.path().join("many.compact");
    std::fs::write(&carried, &bytes).unwrap();
    for range in [&[][..], &["--from", "1", "--to", "2.5"][..]] {
        let stats = |f: &str| -> Value {
            let mut v: Value = serde_json::from_str(&nines_ok(&[&["stats", "--json", f][..], range].concat())).unwrap();
            v["runs"][0]["tags"].as_object_mut().unwrap().values_mut().for_each(|t| {
                t.as_object_mut().unwrap().remove("iops");
            });
            v["runs"][0]["tags"].take()
        };
        assert_eq!(stats(&run), stats(carried.to_str().unwrap()), "{range:?}");
    }
    // --full carries the archive itself
    nines_ok(&["report", &run, "-o", out.to_str().unwrap(), "--full"]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("data-testid=\"summary-carries\">the full archive<"));
    assert_eq!(embedded(&page)[0].1, std::fs::read(&run).unwrap());
}

#[test]
fn report_size_limits_pick_groups_or_say_why_not() {
    let d = tempfile::tempdir().unwrap();
    let run = many_windows(d.path());
    let out = d.path().join("r.html");
    // by default this short run goes whole (every window)
    nines_ok(&["report", &run, "-o", out.to_str().unwrap()]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("histograms of every window (20ms)"), "default");
    let default_size = page.len();
    // --group takes coarser groups, and the windows beside them while the file fits (a range
    // stays exact at any window edge)
    nines_ok(&["report", &run, "-o", out.to_str().unwrap(), "--group", "1s"]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("histograms of 1s (groups of 50 windows), and every window (a range is exact at any window edge)"), "--group");
    // a limit below the finest form takes coarser groups without the windows, and keeps to it
    let lim = default_size - 1;
    nines_ok(&["report", &run, "-o", out.to_str().unwrap(), "--max-size", &lim.to_string()]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.len() <= lim, "{} > {lim}", page.len());
    assert!(!page.contains("histograms of every window") && !page.contains("and every window"));
    // too small: an error that says why, and nothing written
    let small = d.path().join("small.html");
    let r = nines(&["report", &run, "-o", small.to_str().unwrap(), "--max-size", "100k"]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("--max-size: the report would weigh") && err.contains("above 0.1 MB"), "{err}");
    assert!(!small.exists());
    let r = nines(&["report", &run, "-o", small.to_str().unwrap(), "--max-size", "lots"]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("\"lots\" is not a size"), "{}", String::from_utf8_lossy(&r.stderr));
    let r = nines(&["report", &run, "-o", small.to_str().unwrap(), "--full", "--group", "1s"]);
    assert!(!r.status.success());
}

#[test]
fn report_errors_name_the_file() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.html");
    let r = nines(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--notes", "/nonexistent/notes.md"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("could not read the notes '/nonexistent/notes.md'"));
    let r = nines(&["report", "/nonexistent/run.hlog", "-o", out.to_str().unwrap()]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("/nonexistent/run.hlog"));
    assert!(!out.exists(), "no report written on error");
}

#[test]
fn a_report_refuses_a_spec_direction_no_run_has() {
    // as nines check: a misspelt direction names its word and line; a name no run has and
    // nines does not know is an error, not a limit that is silently not applicable
    let d = tempfile::tempdir().unwrap();
    let (out, spec) = (d.path().join("r.html"), d.path().join("qos.spec"));
    std::fs::write(&spec, "read p99 <= 1s\nred p99 <= 1ms\n").unwrap();
    let r = nines(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--spec", spec.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(err.contains("qos.spec:2:1: expected a direction") && err.contains("found \"red\""), "{err}");
    let r = nines(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--limit", "rd p99 <= 1ms"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("--limit: the direction \"rd\" is none of read, write, trim, sync, all nor a tag of the runs (they have: "),
        "{err}"
    );
    assert!(!out.exists(), "no report written on error");
    // a direction nines knows that the run never issued is still a report (not applicable)
    nines_ok(&["report", &data("java-rw.hlog"), "-o", out.to_str().unwrap(), "--limit", "trim p99 <= 1ms"]);
}

#[test]
fn site_adds_runs_and_keeps_the_ones_there() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    let s = site.to_str().unwrap();
    nines_ok(&["site", &data("java-rw.hlog"), "-o", s]);
    for f in [
        "index.html",
        "style.css",
        "worker.js",
        "nines_viewer.js",
        "nines_viewer_bg.wasm",
        "nines_worker.js",
        "nines_worker_bg.wasm",
        "manifest.json",
        "runs/java-rw.hlog",
    ] {
        assert!(site.join(f).is_file(), "{f}");
    }
    // the same name with other bytes gets a numbered file; the same file again is kept once
    let other = d.path().join("java-rw.hlog");
    std::fs::copy(data("python-rw.hlog"), &other).unwrap();
    let said = nines_ok(&["site", &data("fio-randrw_clat.1.log"), other.to_str().unwrap(), &data("java-rw.hlog"), "-o", s]);
    assert!(said.contains("3 runs listed, 2 added, 1 kept"), "{said}");
    let m: Value = serde_json::from_str(&std::fs::read_to_string(site.join("manifest.json")).unwrap()).unwrap();
    let files: Vec<&str> = m["runs"].as_array().unwrap().iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["runs/java-rw.hlog", "runs/fio-randrw_clat.1.log", "runs/java-rw-2.hlog"]);
    assert_eq!(std::fs::read(site.join("runs/java-rw-2.hlog")).unwrap(), std::fs::read(data("python-rw.hlog")).unwrap());
    // each run has its compact form beside it, listed in the manifest, drawing what the archive does
    for r in m["runs"].as_array().unwrap() {
        let (file, compact) = (r["file"].as_str().unwrap(), r["compact"].as_str().unwrap());
        assert_eq!(compact, format!("{file}.compact"));
        let c = nines_core::compact::Compact::read(compact, &std::fs::read(site.join(compact)).unwrap()).unwrap();
        let full = nines_core::archive::read(file, &std::fs::read(site.join(file)).unwrap())
            .or_else(|_| nines_core::import::read_any(file, &std::fs::read(site.join(file)).unwrap()))
            .unwrap();
        assert_eq!(c.run.windows.iter().map(|w| w.hist.count()).sum::<u64>(), full.windows.iter().map(|w| w.hist.count()).sum::<u64>());
    }
    // a site written before compact forms (none listed, none there) is upgraded by the next nines site
    let mut old = m.clone();
    for r in old["runs"].as_array_mut().unwrap() {
        let c = r.as_object_mut().unwrap().remove("compact").unwrap();
        std::fs::remove_file(site.join(c.as_str().unwrap())).unwrap();
    }
    std::fs::write(site.join("manifest.json"), serde_json::to_string(&old).unwrap()).unwrap();
    let said = nines_ok(&["site", &data("java-rw.hlog"), "-o", s]);
    assert!(said.contains("3 runs listed, 0 added, 3 kept, 3 given a compact form"), "{said}");
    let again: Value = serde_json::from_str(&std::fs::read_to_string(site.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(again, m);
    // a manifest that cannot be read is not replaced
    std::fs::write(site.join("manifest.json"), "{not json").unwrap();
    let r = nines(&["site", &data("java-rw.hlog"), "-o", s]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("is not valid JSON"));
    assert_eq!(std::fs::read_to_string(site.join("manifest.json")).unwrap(), "{not json");
}

#[test]
fn a_sites_manifest_keeps_each_runs_workload() {
    let d = tempfile::tempdir().unwrap();
    let (site, target) = (d.path().join("site"), d.path().join("data"));
    let mut files = Vec::new();
    for (name, rw, qd, sync) in
        [("qd1.hlog", "randrw", "1", false), ("qd16.hlog", "randrw", "16", false), ("sync.hlog", "randwrite", "1", true)]
    {
        let out = d.path().join(name);
        let t = target.to_str().unwrap();
        let mut args = vec!["run", "--target", t, "--size", "4MiB", "--rw", rw, "--qd", qd, "--ios", "500", "--buffered", "--quiet"];
        args.extend(["-o", out.to_str().unwrap()]);
        if sync {
            args.push("--sync");
        }
        nines_ok(&args);
        files.push(out.to_str().unwrap().to_string());
    }
    let mut args: Vec<&str> = vec!["site"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", site.to_str().unwrap()]);
    nines_ok(&args);
    let read = || -> Value { serde_json::from_str(&std::fs::read_to_string(site.join("manifest.json")).unwrap()).unwrap() };
    let m = read();
    let key = |i: usize, k: &str| m["runs"][i]["trend"]["workload"][k].as_str().map(str::to_string);
    assert_eq!((key(0, "rw"), key(0, "qd"), key(0, "sync")), (Some("randrw".into()), Some("1".into()), Some("false".into())));
    assert_eq!((key(1, "rw"), key(1, "qd")), (Some("randrw".into()), Some("16".into())));
    assert_eq!((key(2, "rw"), key(2, "sync"), key(2, "mix")), (Some("randwrite".into()), Some("true".into()), None));
    // a manifest of an older nines (no workload in the trend summaries) is read and completed
    let mut old = m.clone();
    for r in old["runs"].as_array_mut().unwrap() {
        r["trend"].as_object_mut().unwrap().remove("workload");
    }
    std::fs::write(site.join("manifest.json"), serde_json::to_string(&old).unwrap()).unwrap();
    let said = nines_ok(&["site", &files[0], "-o", site.to_str().unwrap()]);
    assert!(said.contains("3 runs listed, 0 added, 3 kept"), "{said}");
    assert_eq!(read(), m);
}
