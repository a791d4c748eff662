//! `nines pts` end to end, scaled down (short rounds, small capacities): on the null engine,
//! on a regular file and on a loop device. Each archive is read back: every cell a scope of
//! its own, one window per cell and round, the tracked results per round in the metadata equal
//! to what the windows hold, the verdict equal to nines-core's over those rounds and the exit
//! status saying it; `nines stats`, `nines steady` and `nines compare` read the archive cell
//! by cell. Whether a run this short reaches steady state depends on the machine, so the
//! tests check that the verdict and the exit status follow the measured rounds, not which
//! verdict it is.

use std::path::Path;
use std::process::{Command, Output};

use nines_core::archive;
use nines_core::pts::Rounds;
use nines_core::run::Run;
use nines_tests::{nines, nines_ok};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read_run(p: &Path) -> Run {
    archive::read(s(p), &std::fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn pts_meta(run: &Run) -> &serde_json::Map<String, Value> {
    &run.meta.pts
}

fn refused(args: &[&str]) -> String {
    let out = nines(args);
    assert!(!out.status.success(), "expected a refusal for {args:?}:\n{}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("nines: ") && !e.contains("panicked"), "{e}");
    e
}

/// The exit status follows the verdict, which follows the rounds the metadata records.
fn check_verdict(out: &Output, run: &Run, window: usize) {
    let m = pts_meta(run);
    let rounds = m["rounds"].as_array().unwrap();
    let mut book = Rounds::new(m["tracked"].as_array().unwrap().len(), window);
    for r in rounds {
        let v: Vec<f64> = r["tracked"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect();
        book.push(&v).unwrap();
    }
    let steady = book.steady_at().is_some();
    assert_eq!(m["steady"].as_bool(), Some(steady));
    assert_eq!(out.status.success(), steady, "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.contains("steady state not reached"), !steady, "{err}");
    assert_eq!(run.meta.summary.as_ref().unwrap().stopped_by, if steady { "steady" } else { "max-rounds" });
    if steady {
        assert_eq!(book.steady_at(), Some(rounds.len()), "the test stops at the first steady round");
    } else {
        assert!(m["deviations"].as_array().unwrap().iter().any(|d| d.as_str().unwrap().contains("steady state not reached")));
    }
}

/// The scope's windows of round `r` (0-based) and their tracked measure.
fn round_windows<'a>(run: &'a Run, scope: &str, r: usize, round_s: f64) -> Vec<&'a nines_core::run::Window> {
    let t0 = r as f64 * round_s;
    run.windows
        .iter()
        .filter(|w| w.tag.as_deref().is_some_and(|t| t.starts_with(&format!("{scope}/"))) && (w.start_s - t0).abs() < 1e-9)
        .collect()
}

#[test]
fn lat_on_the_null_engine_reads_back_cell_by_cell() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("lat.hlog");
    let args =
        ["pts", "lat", "--engine", "null", "--target", "/dev/null", "--capacity", "64MiB", "--round-time", "30ms", "--max-rounds", "4"];
    let out = nines(&[&args[..], &["--window-rounds", "2", "-o", s(&o)]].concat());
    let run = read_run(&o);
    check_verdict(&out, &run, 2);
    let m = pts_meta(&run);
    let rounds = m["rounds"].as_array().unwrap().len();
    assert_eq!(m["test"], "lat");
    assert_eq!((m["params"]["threads"].as_u64(), m["params"]["qd"].as_u64()), (Some(1), Some(1)));
    assert!(m["deviations"].as_array().unwrap().iter().any(|d| d.as_str().unwrap().contains("null engine")));
    // 9 cells, 12 directions, each a scope of its own; no unscoped direction
    let mut tags: Vec<String> = run.tags().into_iter().flatten().collect();
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 12, "{tags:?}");
    assert!(tags.iter().all(|t| !nines_core::tag::is_direction(Some(t))));
    assert_eq!(run.windows.len(), 12 * rounds);
    assert_eq!(run.meta.jobs.len(), 9);
    assert_eq!(run.meta.jobs[0].scope.as_deref(), Some("rnd_100-0_8k"));
    // the tracked result per round is the mean of that round's window of the cell
    for r in 0..rounds {
        let w = round_windows(&run, "rnd_0-100_4k", r, 0.03);
        assert_eq!(w.len(), 1);
        let tracked = m["rounds"][r]["tracked"][0].as_f64().unwrap();
        assert!((w[0].hist.mean() - tracked).abs() <= 1e-9 * tracked, "round {r}: {} vs {tracked}", w[0].hist.mean());
    }
    // `nines steady` over the cell's rounds gives the same window
    // (its exit status is the verdict: 0 holds, 1 does not)
    let steady = nines(&["steady", s(&o), "--tag", "rnd_0-100_4k/write", "--track", "mean", "--rounds", "2", "--json"]);
    let j: Value = serde_json::from_slice(&steady.stdout).unwrap();
    assert_eq!(steady.status.code(), Some(if j["last"]["holds"] == true { 0 } else { 1 }), "{j}");
    let ours = &m["window_tracked"][0]["eval"];
    let theirs = &j["last"];
    for k in ["average", "range", "excursion"] {
        let (a, b) = (ours[k].as_f64().unwrap(), theirs[k].as_f64().unwrap());
        assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{k}: {a} vs {b}");
    }
    assert_eq!(ours["holds"], theirs["holds"]);
    // the per-cell rows printed are `nines stats` of the measurement window
    let stdout = String::from_utf8(out.stdout).unwrap();
    let cmd = stdout.lines().find_map(|l| l.split_once("(nines stats ")).map(|(_, c)| c.trim_end_matches("):").to_string()).unwrap();
    let cmd: Vec<&str> = cmd.split(' ').collect();
    let stats = nines_ok(&[&["stats"], &cmd[..]].concat());
    let rows = |t: &str| t.lines().filter(|l| l.starts_with("rnd_")).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(rows(&stdout).len(), 12, "{stdout}");
    assert_eq!(rows(&stdout), rows(&stats));
    // and each equals `nines stats --tag CELL/DIR` over the same rounds
    let all: Value = serde_json::from_str(&nines_ok(&[&["stats", "--json"], &cmd[..]].concat())).unwrap();
    let one: Value = serde_json::from_str(&nines_ok(&[&["stats", "--json", "--tag", "rnd_65-35_4k/write"], &cmd[..]].concat())).unwrap();
    let pick = |v: &Value| v["runs"][0]["tags"]["rnd_65-35_4k/write"].clone();
    assert!(pick(&all)["count"].as_u64().is_some_and(|n| n > 0), "{all}");
    assert_eq!(pick(&all)["count"], pick(&one)["count"]);
    assert_eq!(pick(&all)["iops"], pick(&one)["iops"]);
    assert_eq!(pick(&all)["levels"], pick(&one)["levels"]);

    // the report's PTS section: conditions, every deviation, the charts, and the results
    // over the window as nines stats counts them
    let html = d.path().join("lat.html");
    nines_ok(&["report", s(&o), "-o", s(&html)]);
    let page = std::fs::read_to_string(&html).unwrap();
    let section = &page[page.find("data-testid=\"report-pts\"").expect("a PTS section")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("data-testid=\"pts-conditions\"") && section.contains("1 thread x QD1"), "{section}");
    for d in m["deviations"].as_array().unwrap() {
        assert!(section.contains(&format!("<li>{}</li>", d.as_str().unwrap())), "{d}");
    }
    assert!(section.matches("data-testid=\"pts-chart\"").count() >= 1);
    let window = m["window"]["first_round"].as_u64().is_some();
    assert_eq!(section.matches("data-testid=\"pts-row\"").count(), if window { 12 } else { 0 });
    if window {
        let row_start = section.find("data-dir=\"rnd_65-35_4k/write\"").unwrap();
        let row = &section[row_start..row_start + section[row_start..].find("</tr>").unwrap()];
        let count = pick(&all)["count"].as_u64().unwrap();
        let grouped = count.to_string().as_bytes().rchunks(3).rev().map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(",");
        assert!(row.contains(&format!(">{grouped}<")), "{row} against {count}");
    }

    // two tests compare cell by cell
    let o2 = d.path().join("lat2.hlog");
    let _ = nines(&[&args[..], &["--window-rounds", "2", "-q", "-o", s(&o2)]].concat());
    let cmp: Value = serde_json::from_str(&nines_ok(&["compare", s(&o), "--with", s(&o2), "--json"])).unwrap();
    let cells: Vec<&str> = cmp["tags"].as_array().unwrap().iter().map(|t| t["tag"].as_str().unwrap()).collect();
    assert_eq!(cells.len(), 12, "{cells:?}");
    assert!(cells.contains(&"rnd_65-35_512b/read"));
    // a spec on a cell
    let spec = d.path().join("spec.txt");
    std::fs::write(&spec, "rnd_0-100_4k/write p50 <= 10s\n").unwrap();
    let out = nines(&["check", s(&o), "--spec", s(&spec)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn iops_on_a_regular_file_purges_preconditions_and_keeps_56_cells() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("iops.hlog"));
    let out = nines(&[
        "pts",
        "iops",
        "--target",
        s(&t),
        "--capacity",
        "8MiB",
        "--threads",
        "1",
        "--qd",
        "4",
        "--round-time",
        "20ms",
        "--max-rounds",
        "2",
        "--window-rounds",
        "2",
        "--precondition",
        "0.5",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    check_verdict(&out, &run, 2);
    let m = pts_meta(&run);
    assert_eq!(m["cells"].as_array().unwrap().len(), 56);
    assert_eq!(m["cells"][0]["cell"], "RND 1024KiB 100/0");
    assert_eq!(
        m["tracked"].as_array().unwrap().iter().map(|t| t["scope"].as_str().unwrap()).collect::<Vec<_>>(),
        ["rnd_0-100_4k", "rnd_65-35_64k", "rnd_100-0_1024k"]
    );
    assert_eq!(m["purge"]["done"], "fallocate(PUNCH_HOLE) of bytes 0..8388608 (8MiB)");
    // preconditioning: half the capacity, counted from the bytes the run wrote
    assert_eq!(m["precondition"]["bytes_written"].as_u64(), Some(4 << 20));
    assert_eq!(m["device"]["capacity_bytes"].as_u64(), Some(8 << 20));
    let dev: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(dev.iter().any(|d| d.contains("regular file")), "{dev:?}");
    assert!(dev.iter().any(|d| d.contains("preconditioning of 0.5 x")), "{dev:?}");
    assert!(dev.iter().any(|d| d.contains("0.02 s")), "{dev:?}");
    // each round of each cell is a window of its directions, at the round's offset
    for r in 0..2 {
        assert_eq!(round_windows(&run, "rnd_65-35_64k", r, 0.02).len(), 2);
        assert_eq!(round_windows(&run, "rnd_0-100_512b", r, 0.02).len(), 1);
    }
    let iops = m["rounds"][0]["tracked"][0].as_f64().unwrap();
    let w = round_windows(&run, "rnd_0-100_4k", 0, 0.02);
    assert!((w[0].hist.count() as f64 / w[0].length_s - iops).abs() <= 1e-9 * iops);
    // the test's own archive is never left over the target, nor temporary files beside it
    let mut left: Vec<String> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["iops.hlog", "t.dat"]);
}

#[test]
fn refusals_name_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("mine.dat"), d.path().join("o.hlog"));
    std::fs::write(&t, vec![7u8; 1 << 20]).unwrap();
    let base = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> =
            ["pts", "lat", "--target", s(&t), "-o", s(&o), "--round-time", "10ms", "--max-rounds", "2", "--window-rounds", "2"]
                .iter()
                .map(|x| x.to_string())
                .collect();
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let run = |v: Vec<String>| refused(&v.iter().map(String::as_str).collect::<Vec<_>>());
    // a file nines did not create is not purged without --overwrite, and is left as it was
    let e = run(base(&[]));
    assert!(e.contains("--overwrite"), "{e}");
    assert_eq!(std::fs::read(&t).unwrap(), vec![7u8; 1 << 20]);
    assert!(!o.exists());
    let e = run(base(&["--purge", "nvme-format"]));
    assert!(e.contains("not supported here") && e.contains("nvme format"), "{e}");
    let e = run(base(&["--bs", "128k"]));
    assert!(e.contains("--bs is a flag of the tp and dirth tests"), "{e}");
    let e = refused(&["pts", "lat", "--target", s(&t), "-o", s(&o), "--max-rounds", "1", "--window-rounds", "2"]);
    assert!(e.contains("--max-rounds 1 is fewer than the 2 rounds"), "{e}");
    let e = refused(&["pts", "lat", "--engine", "null", "--target", "/dev/null", "-o", s(&o)]);
    assert!(e.contains("--capacity"), "{e}");
    let new = d.path().join("new.dat");
    let e = refused(&["pts", "lat", "--target", s(&new), "-o", s(&o)]);
    assert!(e.contains("give --capacity"), "{e}");
    std::fs::write(&o, b"keep").unwrap();
    let e = run(base(&["--overwrite"]));
    assert!(e.contains("already exists") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read(&o).unwrap(), b"keep");
}

struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new(mb: usize) -> Loop {
        let dir = tempfile::tempdir().unwrap();
        let backing = dir.path().join("loop.img");
        std::fs::write(&backing, vec![0u8; mb << 20]).unwrap();
        let out = Command::new("losetup").args(["--find", "--show", s(&backing)]).output().expect("losetup runs (tests run as root)");
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        Loop { dev: String::from_utf8(out.stdout).unwrap().trim().to_string(), _dir: dir }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

#[test]
fn lat_on_a_loop_device_needs_destroy_data_and_discards_it_whole() {
    let lp = Loop::new(16);
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("lat.hlog");
    let dev = lp.dev.as_str();
    let args =
        ["pts", "lat", "--target", dev, "--round-time", "50ms", "--max-rounds", "2", "--window-rounds", "2", "--precondition", "0.25"];
    let e = refused(&[&args[..], &["-o", s(&o)]].concat());
    assert!(e.contains(&format!("--destroy-data {dev}")), "{e}");
    assert!(!o.exists());
    let out = nines(&[&args[..], &["--destroy-data", dev, "-o", s(&o)]].concat());
    let run = read_run(&o);
    check_verdict(&out, &run, 2);
    let m = pts_meta(&run);
    assert_eq!(m["purge"]["done"], "BLKDISCARD of bytes 0..16777216 (16MiB)");
    assert_eq!(m["precondition"]["bytes_written"].as_u64(), Some(4 << 20));
    let device = &m["device"];
    assert_eq!(device["capacity_bytes"].as_u64(), Some(16 << 20));
    assert_eq!(device["logical_block_size"], "512");
    assert!(device["physical_block_size"].is_string());
    let dev_list: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(!dev_list.iter().any(|d| d.contains("regular file")), "{dev_list:?}");
}

/// A wsat archive read back: one write window per round under `rnd_0-100_4k/`, its IOPS and
/// running bytes written in the metadata equal to the windows', and the regions equal to
/// nines-core's over that series.
fn check_wsat(run: &Run, window: usize) -> (u64, u64) {
    let m = pts_meta(run);
    let w = &m["wsat"];
    let points = w["points"].as_array().unwrap();
    let mut ws: Vec<&nines_core::run::Window> = run.windows.iter().collect();
    ws.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    assert!(ws.iter().all(|w| w.tag.as_deref() == Some("rnd_0-100_4k/write")), "one cell, writes only");
    assert_eq!(points.len(), ws.len());
    let mut written = 0u64;
    let mut iops = Vec::new();
    for (p, win) in points.iter().zip(&ws) {
        written += win.hist.count() * 4096;
        assert_eq!(p["written_bytes"].as_u64(), Some(written));
        let v = win.hist.count() as f64 / win.length_s;
        assert!((p["iops"].as_f64().unwrap() - v).abs() <= 1e-9 * v, "{p} against {v}");
        iops.push(v);
    }
    assert_eq!(w["written_bytes"].as_u64(), Some(written));
    let regions = serde_json::to_value(nines_core::pts::wsat_regions(&iops, window)).unwrap();
    assert_eq!(w["regions"], regions);
    // the regions follow one another from the first round
    assert_eq!(regions["fresh"][0], 0);
    let deviations: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(!deviations.iter().any(|d| d.contains("steady state not reached")), "not a deviation for wsat: {deviations:?}");
    (written, w["goal_bytes"].as_u64().unwrap())
}

#[test]
fn wsat_on_a_loop_device_writes_four_capacities_from_the_discarded_state() {
    let lp = Loop::new(16);
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("wsat.hlog");
    let dev = lp.dev.as_str();
    let args = ["pts", "wsat", "--target", dev, "--round-time", "50ms", "--max-rounds", "2000", "--window-rounds", "3"];
    let e = refused(&[&args[..], &["-o", s(&o)]].concat());
    assert!(e.contains(&format!("--destroy-data {dev}")), "{e}");
    let out = nines(&[&args[..], &["--destroy-data", dev, "-o", s(&o)]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let run = read_run(&o);
    let (written, goal) = check_wsat(&run, 3);
    assert_eq!(goal, 4 * (16 << 20));
    assert!(written >= goal, "{written} of {goal}");
    assert!(stdout.contains("ended by 4 x the capacity written"), "{stdout}");
    let m = pts_meta(&run);
    assert_eq!(m["purge"]["done"], "BLKDISCARD of bytes 0..16777216 (16MiB)");
    assert!(m["precondition"].is_null(), "wsat starts from the purged state");
    assert_eq!(run.meta.summary.as_ref().unwrap().stopped_by, "4 x the capacity written");
    // every command reads it: the cell's writes over the whole test
    let stats = nines_ok(&["stats", s(&o), "--tag", "rnd_0-100_4k/write", "--json"]);
    let v: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(v["runs"][0]["tags"]["rnd_0-100_4k/write"]["count"].as_u64(), Some(written / 4096), "{stats}");
}

#[test]
fn wsat_ends_by_its_rounds_on_the_null_engine_and_states_its_deviations() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("wsat.hlog");
    let out = nines(&[
        "pts",
        "wsat",
        "--engine",
        "null",
        "--target",
        "/dev/null",
        "--capacity",
        "1t",
        "--round-time",
        "40ms",
        "--max-rounds",
        "4",
        "--window-rounds",
        "2",
        "--capacities",
        "2",
        "-o",
        s(&o),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("ended by the round limit (--max-rounds 4)"), "{stdout}");
    let run = read_run(&o);
    let (written, goal) = check_wsat(&run, 2);
    assert_eq!(goal, 2 << 40);
    assert!(written < goal);
    let m = pts_meta(&run);
    let deviations: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    for want in ["ending at 2 x the capacity written instead of 4 x", "at most 4 rounds instead of 1440", "the null engine"] {
        assert!(deviations.iter().any(|d| d.contains(want)), "{want}: {deviations:?}");
    }
    let e = refused(&["pts", "lat", "--engine", "null", "--target", "/dev/null", "--capacity", "1g", "--capacities", "2", "-o", s(&o)]);
    assert!(e.contains("--capacities is wsat's"), "{e}");
}

/// qos: the rounds of 4 KiB random writes, then the recording under the scope `qos` after the
/// last round, which `nines stats --tag qos/write` reads as the response-time histogram.
fn check_qos(out: &Output, run: &Run, window: usize, seconds: f64) {
    check_verdict(out, run, window);
    let m = pts_meta(run);
    let q = &m["qos"];
    let rounds = m["rounds"].as_array().unwrap().len();
    assert_eq!(q["after_round"].as_u64(), Some(rounds as u64));
    assert_eq!(q["seconds"].as_f64(), Some(seconds));
    let from = q["from_s"].as_f64().unwrap();
    let measured: Vec<_> = run.windows.iter().filter(|w| w.tag.as_deref() == Some("qos/write")).collect();
    assert!(!measured.is_empty());
    assert!(measured.iter().all(|w| w.start_s >= from - 1e-9), "the recording follows the rounds");
    let rounds_end = run.windows.iter().filter(|w| w.tag.as_deref() != Some("qos/write")).map(|w| w.end_s()).fold(0.0, f64::max);
    assert!(rounds_end <= from + 1e-9, "{rounds_end} > {from}");
    let ios: u64 = measured.iter().map(|w| w.hist.count()).sum();
    assert_eq!(q["ios"].as_u64(), Some(ios));
    assert!(run.windows.iter().all(|w| w.tag.as_deref().is_some_and(|t| t == "qos/write" || t == "rnd_0-100_4k/write")));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("the response-time histogram") && stdout.contains("qos/write"), "{stdout}");
}

#[test]
fn qos_records_its_histogram_after_the_rounds_on_the_null_engine_and_a_loop_device() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("qos.hlog");
    let args = [
        "pts",
        "qos",
        "--round-time",
        "50ms",
        "--max-rounds",
        "4",
        "--window-rounds",
        "2",
        "--qos-time",
        "400ms",
        "--precondition",
        "0.25",
    ];
    let out = nines(&[&args[..], &["--engine", "null", "--target", "/dev/null", "--capacity", "1g", "-o", s(&o)]].concat());
    let run = read_run(&o);
    check_qos(&out, &run, 2, 0.4);
    let deviations: Vec<&str> = pts_meta(&run)["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(deviations.iter().any(|d| d.contains("a response-time histogram of 0.4 s instead of 1200 s")), "{deviations:?}");
    // nines stats reads the same histogram as the terminal showed
    let stats: Value = serde_json::from_str(&nines_ok(&["stats", s(&o), "--tag", "qos/write", "--json"])).unwrap();
    assert_eq!(stats["runs"][0]["tags"]["qos/write"]["count"], pts_meta(&run)["qos"]["ios"]);
    // on a loop device, through io_uring
    let lp = Loop::new(16);
    let dev = lp.dev.as_str();
    let o2 = d.path().join("qos-loop.hlog");
    let out = nines(&[&args[..], &["--target", dev, "--destroy-data", dev, "-o", s(&o2)]].concat());
    check_qos(&out, &read_run(&o2), 2, 0.4);
    let e = refused(&["pts", "lat", "--engine", "null", "--target", "/dev/null", "--capacity", "1g", "--qos-time", "1s", "-o", s(&o)]);
    assert!(e.contains("--qos-time is qos's"), "{e}");
}

#[test]
fn a_test_killed_between_rounds_resumes_from_its_last_whole_round() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("lat.hlog");
    let args = [
        "pts",
        "lat",
        "--engine",
        "null",
        "--target",
        "/dev/null",
        "--capacity",
        "1g",
        "--round-time",
        "100ms",
        "--max-rounds",
        "7",
        "--window-rounds",
        "5",
        "--seed",
        "7",
        "--precondition",
        "0.01",
        "--quiet",
        "-o",
        s(&o),
    ];
    let mut child = Command::new(nines_tests::nines_bin()).args(args).stdout(std::process::Stdio::null()).spawn().unwrap();
    // SIGKILL once two whole rounds are in the archive (it is replaced whole after each)
    let killed = loop {
        if let Ok(bytes) = std::fs::read(&o) {
            let run = archive::read(s(&o), &bytes).unwrap();
            if pts_meta(&run)["rounds"].as_array().unwrap().len() >= 2 {
                child.kill().unwrap();
                child.wait().unwrap();
                break run;
            }
        }
        assert!(child.try_wait().unwrap().is_none(), "the test ended before it could be killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // the archive as it is after the kill (a round may have been written since it was read)
    let killed = {
        let r = read_run(&o);
        if pts_meta(&r)["rounds"] == pts_meta(&killed)["rounds"] {
            killed
        } else {
            r
        }
    };
    let done = pts_meta(&killed)["rounds"].as_array().unwrap().len();
    // other flags than the test was started with, and no archive: refused, nothing written
    let before = std::fs::read(&o).unwrap();
    let mut other = args.to_vec();
    other[9] = "50ms";
    let e = refused(&[&other[..], &["--resume"]].concat());
    assert!(e.contains("round_time_s 0.05 (the archive: 0.1)"), "{e}");
    assert_eq!(std::fs::read(&o).unwrap(), before);
    let mut missing = args.to_vec();
    let gone = d.path().join("none.hlog");
    *missing.last_mut().unwrap() = s(&gone);
    assert!(refused(&[&missing[..], &["--resume"]].concat()).contains("does not exist"));
    // resumed: the rounds before the kill stay as they were, the next ones follow
    let out = nines(&[&args[..], &["--resume"]].concat());
    let run = read_run(&o);
    check_verdict(&out, &run, 5);
    let (m, k) = (pts_meta(&run), pts_meta(&killed));
    let rounds = m["rounds"].as_array().unwrap();
    assert!(rounds.len() > done, "{} rounds after resuming, {done} before", rounds.len());
    assert_eq!(rounds[..done], k["rounds"].as_array().unwrap()[..], "the recorded rounds are kept");
    for r in 0..done {
        for c in m["cells"].as_array().unwrap() {
            let scope = c["scope"].as_str().unwrap();
            let (a, b) = (round_windows(&run, scope, r, 0.1), round_windows(&killed, scope, r, 0.1));
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!((&x.tag, x.start_s, x.length_s, &x.hist), (&y.tag, y.start_s, y.length_s, &y.hist));
            }
        }
    }
    // each later round has its windows at its own offset
    for r in done..rounds.len() {
        assert!(!round_windows(&run, "rnd_0-100_4k", r, 0.1).is_empty(), "round {}", r + 1);
    }
    assert_eq!(m["purge"], k["purge"]);
    assert_eq!(m["precondition"], k["precondition"]);
    let deviations: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(deviations.contains(&format!("resumed after round {done}").as_str()), "{deviations:?}");
    // a test that has ended is not resumed
    let e = refused(&[&args[..], &["--resume"]].concat());
    assert!(e.contains("has ended"), "{e}");
}

/// The counts `nines stats --json --tag TAG` gives, or 0 where the tag has no I/O.
fn stats_count(o: &Path, tag: &str) -> u64 {
    let v: Value = serde_json::from_str(&nines_ok(&["stats", s(o), "--tag", tag, "--json"])).unwrap();
    v["runs"][0]["tags"][tag]["count"].as_u64().unwrap_or(0)
}

/// The PTS section of a report of `o`.
fn report_section(o: &Path) -> String {
    let html = o.with_extension("html");
    nines_ok(&["report", s(o), "-o", s(&html)]);
    let page = std::fs::read_to_string(&html).unwrap();
    let section = &page[page.find("data-testid=\"report-pts\"").expect("a PTS section")..];
    section[..section.find("</section>").unwrap()].to_string()
}

#[test]
fn dirth_runs_its_matrix_from_high_to_low_then_four_histograms() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("dirth.hlog");
    let args = [
        "pts",
        "dirth",
        "--engine",
        "null",
        "--target",
        "/dev/null",
        "--capacity",
        "1g",
        "--round-time",
        "30ms",
        "--max-rounds",
        "4",
        "--window-rounds",
        "2",
        "--precondition",
        "0.01",
        "--threads",
        "4",
        "--qd",
        "3",
        "--hist-time",
        "100ms",
        "--seed",
        "7",
    ];
    let out = nines(&[&args[..], &["-o", s(&o)]].concat());
    let run = read_run(&o);
    let m = pts_meta(&run);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // the rounds ran at the matrix's top, T4Q3, as the tracked result
    assert_eq!(m["tracked"][0]["scope"], "rnd_65-35_8k_t4q3");
    check_verdict(&out, &run, 2);
    // the matrix: thread counts 4, 2, 1 by queue depths 3, 2, 1, from high to low
    let points = m["di"]["points"].as_array().unwrap();
    let order: Vec<(u64, u64)> = points.iter().map(|p| (p["tc"].as_u64().unwrap(), p["qd"].as_u64().unwrap())).collect();
    assert_eq!(order, [(4, 3), (4, 2), (4, 1), (2, 3), (2, 2), (2, 1), (1, 3), (1, 2), (1, 1)]);
    let mut last_from = 0.0;
    for p in points {
        // each cell's I/Os are the archive's under its scope, and no earlier than the one before
        let scope = p["scope"].as_str().unwrap();
        assert_eq!(scope, format!("di_rnd_65-35_8k_t{}q{}", p["tc"], p["qd"]));
        assert_eq!(p["ios"].as_u64().unwrap(), stats_count(&o, &format!("{scope}/read")) + stats_count(&o, &format!("{scope}/write")));
        assert!(p["ios"].as_u64().unwrap() > 0 && p["iops"].as_f64().unwrap() > 0.0);
        let from = p["from_s"].as_f64().unwrap();
        assert!(from >= last_from);
        last_from = from;
        assert!(stdout.contains(&nines_core::units::format_rate(p["iops"].as_f64().unwrap())), "{stdout}");
    }
    // the histograms: the maximum IOPS point, the middle ones, and one thread at QD1
    let hists = m["di"]["histograms"].as_array().unwrap();
    let names: Vec<&str> = hists.iter().map(|h| h["point"].as_str().unwrap()).collect();
    assert_eq!(names, ["max", "mid1", "mid2", "min"]);
    let iops: Vec<f64> = points.iter().map(|p| p["iops"].as_f64().unwrap()).collect();
    let picks = nines_core::pts::di_points(&iops).unwrap();
    assert_eq!((hists[0]["tc"].clone(), hists[0]["qd"].clone()), (points[picks.max]["tc"].clone(), points[picks.max]["qd"].clone()));
    assert_eq!((hists[3]["tc"].as_u64(), hists[3]["qd"].as_u64()), (Some(1), Some(1)));
    for h in hists {
        let scope = h["scope"].as_str().unwrap();
        let n = stats_count(&o, &format!("{scope}/read")) + stats_count(&o, &format!("{scope}/write"));
        assert_eq!(h["ios"].as_u64(), Some(n), "{scope}");
        assert!(h["from_s"].as_f64().unwrap() >= last_from);
    }
    // the report: the matrix's table, demand variation and intensity, the histograms' levels
    let section = report_section(&o);
    assert_eq!(section.matches("data-testid=\"pts-di-row\"").count(), 9);
    assert!(
        section.contains("Demand variation")
            && section.contains("Demand intensity")
            && section.contains("p99.99 response time against IOPS")
    );
    for name in ["hist_max/read", "hist_min/write"] {
        assert!(section.contains(&format!("data-dir=\"{name}\"")), "{name}");
    }
    // two drives' tests compare cell by cell, the matrix included
    let o2 = d.path().join("dirth2.hlog");
    let _ = nines(&[&args[..], &["-q", "-o", s(&o2)]].concat());
    let cmp: Value = serde_json::from_str(&nines_ok(&["compare", s(&o), "--with", s(&o2), "--json"])).unwrap();
    let cells: Vec<&str> = cmp["tags"].as_array().unwrap().iter().map(|t| t["tag"].as_str().unwrap()).collect();
    assert!(cells.contains(&"di_rnd_65-35_8k_t2q2/read") && cells.contains(&"hist_max/write"), "{cells:?}");
}

#[test]
fn cbw_issues_its_composite_workload_through_io_uring_on_a_loop_device() {
    let lp = Loop::new(16);
    let dev = lp.dev.as_str();
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("cbw.hlog");
    let out = nines(&[
        "pts",
        "cbw",
        "--target",
        dev,
        "--destroy-data",
        dev,
        "--round-time",
        "40ms",
        "--max-rounds",
        "3",
        "--window-rounds",
        "2",
        "--precondition",
        "0.25",
        "--threads",
        "2",
        "--qd",
        "2",
        "--hist-time",
        "60ms",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    check_verdict(&out, &run, 2);
    let m = pts_meta(&run);
    assert_eq!(m["tracked"][0]["scope"], "rnd_40-60_cbw_t2q2");
    // the workload recorded: twelve block sizes and the skewed access range
    let job = run.meta.jobs.iter().find(|j| j.scope.as_deref() == Some("rnd_40-60_cbw_t2q2")).expect("the rounds' workload");
    assert_eq!(job.bs_bytes.len(), 12, "{:?}", job.bs_bytes);
    assert_eq!(job.bs_bytes.iter().find(|b| b.0 == 4096).map(|b| b.1), Some(67));
    assert_eq!(m["di"]["points"].as_array().unwrap().len(), 4);
    assert!(stats_count(&o, "di_rnd_40-60_cbw_t1q1/write") > 0);
    assert!(stats_count(&o, "hist_max/read") > 0);
}

#[test]
fn hir_bursts_between_idle_waits_and_returns_to_baseline() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("hir.hlog");
    let out = nines(&[
        "pts",
        "hir",
        "--engine",
        "null",
        "--target",
        "/dev/null",
        "--capacity",
        "1g",
        "--round-time",
        "30ms",
        "--max-rounds",
        "4",
        "--window-rounds",
        "2",
        "--precondition",
        "0.01",
        "--burst",
        "40ms",
        "--waits",
        "0s,150ms",
        "--bursts",
        "3",
        "--baseline-time",
        "90ms",
        "--seed",
        "3",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    check_verdict(&out, &run, 2);
    let m = pts_meta(&run);
    let bursts = m["hir"]["bursts"].as_array().unwrap();
    assert_eq!(bursts.len(), 6);
    // within a segment the bursts lie a burst and a wait apart, on the archive's clock
    let from: Vec<f64> = bursts.iter().map(|b| b["from_s"].as_f64().unwrap()).collect();
    assert!(from[4] - from[3] >= 0.04 + 0.15 - 1e-9 && from[1] - from[0] >= 0.04 - 1e-9, "{from:?}");
    let segments = m["hir"]["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 2);
    for (seg, scope) in segments.iter().zip(["hir_wait0s", "hir_wait150ms"]) {
        assert_eq!(seg["scope"], scope);
        let n = stats_count(&o, &format!("{scope}/write"));
        assert!(n > 0, "{scope}");
        // each burst is one window of the scope
        assert_eq!(run.windows.iter().filter(|w| w.tag.as_deref() == Some(&format!("{scope}/write"))).count(), 3);
        assert!(stats_count(&o, &format!("{}/write", seg["baseline_scope"].as_str().unwrap())) > 0);
        let mean: f64 = bursts.iter().filter(|b| b["segment"] == seg["segment"]).map(|b| b["iops"].as_f64().unwrap()).sum::<f64>() / 3.0;
        assert!((seg["burst_iops"].as_f64().unwrap() - mean).abs() <= 1e-6 * mean);
    }
    let section = report_section(&o);
    assert!(section.contains("data-testid=\"pts-hir\"") && section.contains("burst IOPS after idle waits"), "{section}");
    let e = refused(&["pts", "iops", "--engine", "null", "--target", "/dev/null", "--capacity", "1g", "--waits", "1s", "-o", s(&o)]);
    assert!(e.contains("--waits is a flag of the hir test"), "{e}");
}

#[test]
fn xsr_writes_its_three_segments_on_a_loop_device_and_finds_the_recovery() {
    let lp = Loop::new(16);
    let dev = lp.dev.as_str();
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("xsr.hlog");
    let out = nines(&[
        "pts",
        "xsr",
        "--target",
        dev,
        "--destroy-data",
        dev,
        "--round-time",
        "50ms",
        "--window-rounds",
        "2",
        "--threads",
        "1",
        "--qd",
        "4",
        "--segments",
        "300ms,200ms,300ms",
        "-o",
        s(&o),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = read_run(&o);
    let m = pts_meta(&run);
    assert_eq!(m["purge"]["done"], "BLKDISCARD of bytes 0..16777216 (16MiB)");
    assert!(m["precondition"].is_null(), "xsr starts from the purged state");
    let segments = m["xsr"]["segments"].as_array().unwrap();
    let scopes: Vec<&str> = segments.iter().map(|s| s["scope"].as_str().unwrap()).collect();
    assert_eq!(scopes, ["xsr1_seq_0-100_1024k", "xsr2_rnd_0-100_8k", "xsr3_seq_0-100_1024k"]);
    let points = m["xsr"]["points"].as_array().unwrap();
    for (k, scope) in scopes.iter().enumerate() {
        // every window's MB/s from its I/Os (1024 KiB or 8 KiB each)
        let bs = if k == 1 { 8192.0 } else { 1048576.0 };
        let ws: Vec<_> = run.windows.iter().filter(|w| w.tag.as_deref() == Some(&format!("{scope}/write"))).collect();
        let mine: Vec<&Value> = points.iter().filter(|p| p["segment"] == k + 1).collect();
        assert_eq!(ws.len(), mine.len(), "{scope}");
        for (w, p) in ws.iter().zip(&mine) {
            let mbps = w.hist.count() as f64 * bs / w.length_s / 1e6;
            assert!((p["mbps"].as_f64().unwrap() - mbps).abs() <= 1e-9 * mbps.max(1.0), "{scope}");
        }
    }
    // the recovery is nines-core's over the first segment's last window and the third's
    let seg = |k: u64| -> Vec<f64> { points.iter().filter(|p| p["segment"] == k).map(|p| p["mbps"].as_f64().unwrap()).collect() };
    let first = seg(1);
    let tail = &first[first.len() - 2..];
    let reference = tail.iter().sum::<f64>() / 2.0;
    let rec = nines_core::pts::recovered_at(&seg(3), reference, 0.9, 2);
    assert_eq!(m["xsr"]["recovered_window"].as_u64(), rec.map(|r| r as u64 + 1));
    let section = report_section(&o);
    assert!(section.contains("data-testid=\"pts-xsr\"") && section.contains("data-testid=\"pts-recovery\""), "{section}");
}

#[test]
fn fill_purges_and_tests_each_active_range_on_a_loop_device() {
    let lp = Loop::new(16);
    let dev = lp.dev.as_str();
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("fill.hlog");
    let out = nines(&[
        "pts",
        "fill",
        "--target",
        dev,
        "--destroy-data",
        dev,
        "--round-time",
        "40ms",
        "--max-rounds",
        "3",
        "--window-rounds",
        "2",
        "--threads",
        "1",
        "--qd",
        "4",
        "--fills",
        "50,100",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    let m = pts_meta(&run);
    let levels = m["fill"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    let mut all_steady = true;
    for (l, (pct, bytes)) in levels.iter().zip([(50.0, 8u64 << 20), (100.0, 16 << 20)]) {
        assert_eq!(l["active_range_pct"].as_f64(), Some(pct));
        assert_eq!(l["region_bytes"].as_u64(), Some(bytes));
        // each range purged whole and preconditioned twice over itself
        assert_eq!(l["purge"]["done"], "BLKDISCARD of bytes 0..16777216 (16MiB)");
        assert_eq!(l["precondition"]["bytes_written"].as_u64(), Some(2 * bytes));
        // its verdict is nines-core's over its own rounds
        let mut book = Rounds::new(1, 2);
        for v in l["iops"].as_array().unwrap() {
            book.push(&[v.as_f64().unwrap()]).unwrap();
        }
        assert_eq!(l["steady"].as_bool(), Some(book.steady_at().is_some()));
        all_steady &= book.steady_at().is_some();
        let scope = l["scope"].as_str().unwrap();
        assert_eq!(scope, format!("fill{pct}_rnd_0-100_4k"));
        assert_eq!(run.windows.iter().filter(|w| w.tag.as_deref() == Some(&format!("{scope}/write"))).count(), book.len());
    }
    assert_eq!(out.status.success(), all_steady, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(m["steady"].as_bool(), Some(all_steady));
    let section = report_section(&o);
    assert!(section.contains("data-testid=\"pts-fill\"") && section.contains("50%, 100%, one after another"), "{section}");
    let e = refused(&["pts", "fill", "--engine", "null", "--target", "/dev/null", "--capacity", "1g", "--active-range", "50", "-o", s(&o)]);
    assert!(e.contains("--fills"), "{e}");
}

/// Start `nines ARGS` and SIGKILL it once its archive `o` satisfies `ready`; the archive as it
/// is after the kill.
fn kill_when(args: &[&str], o: &Path, ready: impl Fn(&serde_json::Map<String, Value>) -> bool) -> Run {
    let mut child = Command::new(nines_tests::nines_bin()).args(args).stdout(std::process::Stdio::null()).spawn().unwrap();
    loop {
        if let Ok(bytes) = std::fs::read(o) {
            if archive::read(s(o), &bytes).is_ok_and(|run| ready(pts_meta(&run))) {
                child.kill().unwrap();
                child.wait().unwrap();
                break;
            }
        }
        assert!(child.try_wait().unwrap().is_none(), "the test ended before it could be killed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    read_run(o)
}

/// The windows of scopes starting with `prefix`, as (tag, start, length, count).
fn windows_of(run: &Run, prefix: &str) -> Vec<(String, u64, u64, u64)> {
    let mut v: Vec<_> = run
        .windows
        .iter()
        .filter(|w| w.tag.as_deref().is_some_and(|t| t.starts_with(prefix)))
        .map(|w| (w.tag.clone().unwrap(), w.start_s.to_bits(), w.length_s.to_bits(), w.hist.count()))
        .collect();
    v.sort();
    v
}

#[test]
fn dirth_hir_xsr_and_fill_killed_part_way_resume_and_keep_what_they_finished() {
    let d = tempfile::tempdir().unwrap();
    let common = ["--engine", "null", "--target", "/dev/null", "--capacity", "1g", "--seed", "5", "--quiet"];
    // dirth, killed in its matrix after three cells: those three stay, the rest follow
    let o = d.path().join("dirth.hlog");
    let args = [
        &["pts", "dirth", "--round-time", "60ms", "--max-rounds", "3", "--window-rounds", "2", "--precondition", "0.01"][..],
        &["--threads", "2", "--qd", "2", "--hist-time", "120ms", "-o", s(&o)],
        &common,
    ]
    .concat();
    let killed = kill_when(&args, &o, |m| m.get("di").and_then(|d| d["points"].as_array()).is_some_and(|p| (1..4).contains(&p.len())));
    let k = pts_meta(&killed);
    let had = k["di"]["points"].as_array().unwrap().clone();
    let _ = nines(&[&args[..], &["--resume"]].concat());
    let run = read_run(&o);
    let m = pts_meta(&run);
    let points = m["di"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    assert_eq!(points[..had.len()], had[..], "the finished cells are kept as they were");
    for p in &had {
        let scope = p["scope"].as_str().unwrap();
        assert_eq!(windows_of(&run, scope), windows_of(&killed, scope), "{scope}");
    }
    assert_eq!(m["di"]["histograms"].as_array().unwrap().len(), 4);
    assert_eq!(m["di"]["done"], true);
    assert_eq!(m["rounds"], k["rounds"], "the rounds are not run again");
    let deviations: Vec<&str> = m["deviations"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(deviations.contains(&format!("resumed in its demand-intensity matrix after cell {}", had.len()).as_str()), "{deviations:?}");
    assert!(refused(&[&args[..], &["--resume"]].concat()).contains("has ended"));

    // hir, killed in its second wait segment: the first stays, the second runs again whole
    let o = d.path().join("hir.hlog");
    let args = [
        &["pts", "hir", "--round-time", "40ms", "--max-rounds", "3", "--window-rounds", "2", "--precondition", "0.01"][..],
        &["--burst", "30ms", "--waits", "10ms,20ms", "--bursts", "4", "--baseline-time", "40ms", "-o", s(&o)],
        &common,
    ]
    .concat();
    let killed = kill_when(&args, &o, |m| m.get("hir").and_then(|h| h["segments"].as_array()).is_some_and(|s| s.len() == 1));
    let _ = nines(&[&args[..], &["--resume"]].concat());
    let run = read_run(&o);
    let m = pts_meta(&run);
    assert_eq!(m["hir"]["segments"].as_array().unwrap().len(), 2);
    assert_eq!(m["hir"]["segments"][0], pts_meta(&killed)["hir"]["segments"][0]);
    assert_eq!(windows_of(&run, "hir_wait10ms/"), windows_of(&killed, "hir_wait10ms/"));
    assert_eq!(windows_of(&run, "hir_wait20ms/").len(), 4, "the segment under way runs again whole");
    assert_eq!(m["hir"]["bursts"].as_array().unwrap().len(), 8);

    // xsr, killed in its second segment: the first stays
    let o = d.path().join("xsr.hlog");
    let args = [
        &["pts", "xsr", "--round-time", "50ms", "--window-rounds", "2", "--threads", "1", "--qd", "2"][..],
        &["--segments", "300ms,400ms,300ms", "-o", s(&o)],
        &common,
    ]
    .concat();
    let killed = kill_when(&args, &o, |m| m.get("xsr").and_then(|x| x["segments"].as_array()).is_some_and(|s| s.len() == 1));
    let out = nines(&[&args[..], &["--resume"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = read_run(&o);
    let m = pts_meta(&run);
    assert_eq!(m["xsr"]["segments"].as_array().unwrap().len(), 3);
    assert_eq!(windows_of(&run, "xsr1_"), windows_of(&killed, "xsr1_"));
    assert!(!windows_of(&run, "xsr3_").is_empty());
    assert!(refused(&[&args[..], &["--resume"]].concat()).contains("has ended"));

    // fill, killed in its second range's rounds: the first range stays, the second goes on
    let o = d.path().join("fill.hlog");
    let args = [
        &["pts", "fill", "--round-time", "40ms", "--max-rounds", "6", "--window-rounds", "3", "--precondition", "0.01"][..],
        &["--fills", "50,100", "-o", s(&o)],
        &common,
    ]
    .concat();
    let killed = kill_when(&args, &o, |m| {
        m.get("fill").and_then(Value::as_array).is_some_and(|l| l.len() == 2 && l[1]["iops"].as_array().is_some_and(|r| r.len() == 1))
    });
    let out = nines(&[&args[..], &["--resume"]].concat());
    let run = read_run(&o);
    let m = pts_meta(&run);
    let (levels, before) = (m["fill"].as_array().unwrap(), pts_meta(&killed)["fill"].as_array().unwrap());
    assert_eq!(levels.len(), 2);
    assert_eq!(levels[0], before[0]);
    assert_eq!(windows_of(&run, "fill50_"), windows_of(&killed, "fill50_"));
    // the second range's rounds before the kill are kept, and it was not purged again
    let r = before[1]["iops"].as_array().unwrap().len();
    assert_eq!(levels[1]["iops"].as_array().unwrap()[..r], before[1]["iops"].as_array().unwrap()[..]);
    assert_eq!(levels[1]["purge"], before[1]["purge"]);
    assert_eq!(out.status.success(), levels.iter().all(|l| l["steady"] == true));
}
