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
fn site_adds_runs_and_keeps_the_ones_there() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    let s = site.to_str().unwrap();
    nines_ok(&["site", &data("java-rw.hlog"), "-o", s]);
    for f in ["index.html", "style.css", "nines_viewer.js", "nines_viewer_bg.wasm", "manifest.json", "runs/java-rw.hlog"] {
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
    // a manifest that cannot be read is not replaced
    std::fs::write(site.join("manifest.json"), "{not json").unwrap();
    let r = nines(&["site", &data("java-rw.hlog"), "-o", s]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("is not valid JSON"));
    assert_eq!(std::fs::read_to_string(site.join("manifest.json")).unwrap(), "{not json");
}
