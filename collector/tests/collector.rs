//! `nines run` and `nines demo` end to end, on real files and a loop device: archives read by
//! `nines stats`, nines-core and Python hdrh; the data-safety refusals; SIGINT and SIGKILL;
//! raw-log accuracy; windows by I/O count; rate limiting; steady state; engines.
//!
//! Every run is short (about a second). Nothing here checks wall-clock time or throughput.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use nines_core::archive;
use nines_core::quantile::{value_at, Level};
use nines_core::run::Run;
use nines_tests::{java, nines, nines_bin, python};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read_run(p: &Path) -> Run {
    archive::read(s(p), &std::fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "nines failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Run `nines run` with these arguments (quiet), expecting success.
fn run_ok(args: &[&str]) -> String {
    let mut v = vec!["run", "--quiet"];
    v.extend_from_slice(args);
    ok(nines(&v))
}

/// Run `nines run`, expecting a refusal; returns stderr.
fn refused(args: &[&str]) -> String {
    let mut v = vec!["run", "--quiet"];
    v.extend_from_slice(args);
    let out = nines(&v);
    assert!(!out.status.success(), "expected a refusal for {args:?}, got success:\n{}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.starts_with("nines: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn count(run: &Run, tag: &str) -> u64 {
    run.windows_of(Some(tag)).map(|w| w.hist.count()).sum()
}

fn summary(run: &Run) -> Value {
    meta_json(&run.meta).get("summary").cloned().expect("end summary in the metadata")
}

#[test]
fn file_run_is_read_by_stats_and_python_hdrh() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    let table = run_ok(&[
        "--target",
        s(&t),
        "--size",
        "16MiB",
        "--rw",
        "randrw",
        "--mix",
        "70",
        "--qd",
        "4",
        "--runtime",
        "1500ms",
        "--window",
        "500ms",
        "-o",
        s(&o),
        "--name",
        "file run",
        "--notes",
        "e2e",
    ]);
    assert!(table.contains("read") && table.contains("write") && table.contains("all") && table.contains("p99"), "{table}");
    assert!(table.contains("stopped by runtime"), "{table}");
    let run = read_run(&o);
    assert_eq!(run.name, "file run");
    assert_eq!(meta_json(&run.meta)["notes"], "e2e");
    assert_eq!(meta_json(&run.meta)["workload"]["read_pct"], 70);
    assert_eq!(meta_json(&run.meta)["target"]["kind"], "file");
    assert_eq!(meta_json(&run.meta)["target"]["created_by_nines"], true);
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "uring");
    assert!(meta_json(&run.meta)["host"]["kernel"].is_string());
    assert_eq!(run.tags(), [Some("read".to_string()), Some("write".to_string())]);
    // 1.5 s of 500 ms windows: three per tag.
    assert_eq!(run.windows_of(Some("read")).count(), 3);
    let (r, w) = (count(&run, "read"), count(&run, "write"));
    assert!(r > 0 && w > 0);
    assert_eq!(summary(&run)["ios"]["read"], r);
    assert_eq!(summary(&run)["ios"]["write"], w);
    assert_eq!(summary(&run)["stopped_by"], "runtime");
    assert!(run.warnings.is_empty());

    // nines stats reads it.
    let v: Value = serde_json::from_str(&ok(nines(&["stats", "--json", s(&o)]))).unwrap();
    assert_eq!(v["runs"][0]["tags"]["read"]["count"], r);
    assert_eq!(v["runs"][0]["tags"]["all"]["count"], r + w);

    // Python hdrh reads every window, with the same counts and maxima within precision.
    let py: Value = serde_json::from_str(&python("py_read.py", &[s(&o), "50", "99"])).unwrap();
    assert_eq!(py["windows"], 6);
    assert_eq!(py["tags"]["read"]["count"], r);
    assert_eq!(py["tags"]["write"]["count"], w);
}

#[test]
fn raw_log_matches_the_archive_exactly() {
    let d = tempfile::tempdir().unwrap();
    let (t, o, raw) = (d.path().join("t.dat"), d.path().join("r.hlog"), d.path().join("raw.csv"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "8MiB",
        "--rw",
        "randrw",
        "--mix",
        "60",
        "--qd",
        "8",
        "--jobs",
        "2",
        "--ios",
        "30000",
        "--window",
        "200ms",
        "--raw-log",
        s(&raw),
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    let text = std::fs::read_to_string(&raw).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("window,tag,latency_ns"));
    let mut raw_by_tag: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    let mut raw_by_window: std::collections::BTreeMap<(u64, String), u64> = Default::default();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 3, "{l}");
        raw_by_tag.entry(f[1].into()).or_default().push(f[2].parse().unwrap());
        *raw_by_window.entry((f[0].parse().unwrap(), f[1].into())).or_default() += 1;
    }
    let total: usize = raw_by_tag.values().map(Vec::len).sum();
    assert_eq!(total, 30_000, "--ios counts recorded I/Os exactly");
    for (tag, vals) in &mut raw_by_tag {
        vals.sort_unstable();
        let h = nines_core::stats::merge_windows(run.windows_of(Some(tag))).unwrap();
        assert_eq!(h.count(), vals.len() as u64, "{tag}: counts equal exactly");
        let layout = h.layout();
        assert_eq!(h.max(), layout.highest_equivalent(*vals.last().unwrap()), "{tag} max");
        assert_eq!(h.min(), layout.lowest_equivalent(vals[0]), "{tag} min");
        let mut levels = vec![Level::from_quantile(0.5).unwrap(), Level::from_quantile(0.9).unwrap()];
        levels.extend((2..=4).map(Level::nines));
        for l in &levels {
            let rank = l.rank(h.count());
            let exact = vals[rank as usize - 1];
            assert_eq!(value_at(&h, l), Some(layout.highest_equivalent(exact)), "{tag} {}: nearest rank {exact}", l.label);
        }
    }
    // Per window too: the job threads' windows and the raw log agree on every I/O's window.
    let mut starts: Vec<f64> = run.windows.iter().map(|w| w.start_s).collect();
    starts.dedup();
    for (idx, st) in (0u64..).zip(starts) {
        for tag in ["read", "write"] {
            let n: u64 = run.windows.iter().filter(|w| w.start_s == st && w.tag.as_deref() == Some(tag)).map(|w| w.hist.count()).sum();
            assert_eq!(n, raw_by_window.get(&(idx, tag.to_string())).copied().unwrap_or(0), "window {idx} {tag}");
        }
    }
}

#[test]
fn windows_by_io_count() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "4MiB",
        "--rw",
        "randrw",
        "--qd",
        "4",
        "--jobs",
        "2",
        "--ios",
        "5000",
        "--window-ios",
        "1000",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["window"]["by"], "ios");
    let mut starts: Vec<f64> = run.windows.iter().map(|w| w.start_s).collect();
    starts.dedup();
    assert_eq!(starts.len(), 5);
    for st in starts {
        let n: u64 = run.windows.iter().filter(|w| w.start_s == st).map(|w| w.hist.count()).sum();
        assert_eq!(n, 1000, "window at {st} s");
    }
}

#[test]
fn existing_files_and_symlinks() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("foreign.dat");
    std::fs::write(&foreign, vec![7u8; 1 << 20]).unwrap();
    let o = d.path().join("r.hlog");
    // Reading somebody's file needs no flag.
    run_ok(&["--target", s(&foreign), "--ios", "200", "-o", s(&o)]);
    // Writing to it does.
    let e = refused(&["--target", s(&foreign), "--rw", "randwrite", "--ios", "200", "-o", s(&o), "--force"]);
    assert!(e.contains("did not create") && e.contains("--overwrite"), "{e}");
    assert_eq!(std::fs::read(&foreign).unwrap(), vec![7u8; 1 << 20], "refused runs write nothing");
    // Through a symlink: the real file is checked and named.
    let link = d.path().join("link.dat");
    std::os::unix::fs::symlink(&foreign, &link).unwrap();
    let e = refused(&["--target", s(&link), "--rw", "randrw", "--ios", "200", "-o", s(&o), "--force"]);
    assert!(e.contains("foreign.dat") && e.contains("resolved from") && e.contains("--overwrite"), "{e}");
    run_ok(&["--target", s(&link), "--rw", "randwrite", "--ios", "200", "--overwrite", "-o", s(&o), "--force"]);
    assert_ne!(std::fs::read(&foreign).unwrap(), vec![7u8; 1 << 20]);

    // A file nines created may be written again without --overwrite.
    let own = d.path().join("own.dat");
    run_ok(&["--target", s(&own), "--size", "1MiB", "--rw", "randwrite", "--ios", "100", "-o", s(&o), "--force"]);
    run_ok(&["--target", s(&own), "--rw", "randrw", "--ios", "100", "-o", s(&o), "--force"]);

    // A new file needs --size; the archive is never overwritten without --force, nor the target.
    assert!(refused(&["--target", s(&d.path().join("new.dat")), "-o", s(&d.path().join("n.hlog"))]).contains("--size"));
    assert!(refused(&["--target", s(&own), "-o", s(&o)]).contains("--force"));
    assert!(refused(&["--target", s(&own), "-o", s(&own), "--force"]).contains("target itself"));
    assert!(refused(&["--target", s(&own), "-o", s(d.path()), "--force"]).contains("directory"));
    let raw = d.path().join("raw.csv");
    std::fs::write(&raw, "keep me").unwrap();
    assert!(refused(&["--target", s(&own), "-o", s(&d.path().join("x.hlog")), "--raw-log", s(&raw)]).contains("--force"));
    assert_eq!(std::fs::read_to_string(&raw).unwrap(), "keep me");
    assert!(refused(&["--target", s(&own), "-o", s(&o), "--raw-log", s(&own), "--force"]).contains("target itself"));
    assert!(refused(&["--target", s(&own), "-o", s(&o), "--raw-log", s(&o), "--force"]).contains("same file"));
    assert!(refused(&["--target", s(&own), "--destroy-data", s(&own), "-o", s(&o), "--force"]).contains("--overwrite"));
    assert!(refused(&["--target", s(d.path()), "-o", s(&o), "--force"]).contains("directory"));
    // Bad numbers are errors, not panics.
    assert!(refused(&["--target", s(&own), "--bs", "4q", "-o", s(&o), "--force"]).contains("--bs"));
    assert!(refused(&["--target", s(&own), "--bssplit", "4k/50:8k/40", "-o", s(&o), "--force"]).contains("100%"));
}

#[test]
fn new_files_are_laid_out_before_reads() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&["--target", s(&t), "--size", "2MiB", "--ios", "100", "-o", s(&o)]);
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(&t).unwrap();
    assert_eq!(md.len(), 2 << 20);
    assert!(md.blocks() * 512 >= 2 << 20, "no holes: {} blocks", md.blocks());
    let data = std::fs::read(&t).unwrap();
    assert!(data.chunks(4096).all(|c| c.iter().any(|&b| b != 0)), "every block holds written data");
}

/// A loop device over a temporary file, detached on drop.
struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
    backing: PathBuf,
}

impl Loop {
    fn new(mb: usize) -> Loop {
        let dir = tempfile::tempdir().unwrap();
        let backing = dir.path().join("loop.img");
        std::fs::write(&backing, vec![0u8; mb << 20]).unwrap();
        let out = Command::new("losetup").args(["--find", "--show", s(&backing)]).output().expect("losetup runs (tests run as root)");
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        let dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        Loop { dev, _dir: dir, backing }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dev).stderr(Stdio::null()).status();
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

#[test]
fn loop_device_rules_and_runs() {
    let lp = Loop::new(32);
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("r.hlog");
    let dev = lp.dev.as_str();

    // Reads need no flag; the metadata describes the device.
    run_ok(&["--target", dev, "--qd", "8", "--ios", "2000", "--window", "100ms", "-o", s(&o)]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["target"]["kind"], "block");
    assert_eq!(meta_json(&run.meta)["target"]["size_bytes"], 32u64 << 20);
    assert!(meta_json(&run.meta)["target"]["backing_file"].as_str().unwrap().ends_with("loop.img"));
    assert_eq!(count(&run, "read"), 2000);
    let py: Value = serde_json::from_str(&python("py_read.py", &[s(&o), "99"])).unwrap();
    assert_eq!(py["tags"]["read"]["count"], 2000);

    // Writes need --destroy-data naming the same device.
    let e = refused(&["--target", dev, "--rw", "randwrite", "--ios", "100", "-o", s(&o), "--force"]);
    assert!(e.contains("block device") && e.contains(&format!("--destroy-data {dev}")), "{e}");
    let e = refused(&["--target", dev, "--rw", "randwrite", "--ios", "100", "--destroy-data", "/dev/null", "-o", s(&o), "--force"]);
    assert!(e.contains("same device"), "{e}");
    run_ok(&["--target", dev, "--rw", "randrw", "--ios", "1000", "--destroy-data", dev, "-o", s(&o), "--force"]);
    let run = read_run(&o);
    assert_eq!(count(&run, "read") + count(&run, "write"), 1000);

    // A filesystem signature is refused, even with --destroy-data, unless --ignore-signatures.
    assert!(Command::new("mkfs.ext4").args(["-q", "-F", dev]).status().unwrap().success());
    let e = refused(&["--target", dev, "--rw", "randwrite", "--ios", "100", "--destroy-data", dev, "-o", s(&o), "--force"]);
    assert!(e.contains("ext2/ext3/ext4") && e.contains("--ignore-signatures"), "{e}");

    // A mounted device is refused whatever the flags.
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount").args([dev, s(mnt.path())]).status().unwrap().success());
    let e = refused(&[
        "--target",
        dev,
        "--rw",
        "randwrite",
        "--ios",
        "100",
        "--destroy-data",
        dev,
        "--ignore-signatures",
        "-o",
        s(&o),
        "--force",
    ]);
    assert!(e.contains("mounted") && e.contains("no flag"), "{e}");
    assert!(Command::new("umount").arg(s(mnt.path())).status().unwrap().success());

    run_ok(&["--target", dev, "--rw", "randwrite", "--ios", "100", "--destroy-data", dev, "--ignore-signatures", "-o", s(&o), "--force"]);
    let run = read_run(&o);
    assert!(meta_json(&run.meta)["target"]["overwritten_signature"].as_str().unwrap().contains("ext"));
    let _ = &lp.backing;
}

/// Wait until the archive has at least `n` window lines (a safety net of 60 s, so a broken
/// build fails instead of hanging; no timing is asserted).
fn wait_for_windows(p: &Path, n: usize) {
    for _ in 0..600 {
        if let Ok(t) = std::fs::read_to_string(p) {
            if t.lines().filter(|l| l.starts_with("Tag=")).count() >= n {
                return;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{} never got {n} windows", p.display());
}

fn spawn_run(args: &[&str]) -> std::process::Child {
    Command::new(nines_bin()).arg("run").arg("--quiet").args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

#[test]
fn sigint_and_sigterm_finish_cleanly_with_a_summary() {
    for sig in ["INT", "TERM"] {
        let d = tempfile::tempdir().unwrap();
        let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
        let child =
            spawn_run(&["--target", s(&t), "--size", "4MiB", "--rw", "randrw", "--runtime", "60s", "--window", "200ms", "-o", s(&o)]);
        wait_for_windows(&o, 4);
        assert!(Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().unwrap().success());
        let out = child.wait_with_output().unwrap();
        let table = ok(out);
        assert!(table.contains(&format!("stopped by SIG{sig}")) && table.contains("read"), "{table}");
        let run = read_run(&o);
        assert!(run.warnings.is_empty(), "{:?}", run.warnings);
        assert_eq!(summary(&run)["stopped_by"], format!("SIG{sig}"));
        assert_eq!(summary(&run)["ios"]["read"], count(&run, "read"));
        assert!(run.windows_of(Some("read")).count() >= 2);
        let dur = summary(&run)["duration_s"].as_f64().unwrap();
        assert!(dur < 60.0, "the run stopped early");
    }
}

#[test]
fn sigkill_keeps_every_finished_window() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    let mut child =
        spawn_run(&["--target", s(&t), "--size", "4MiB", "--rw", "randrw", "--runtime", "60s", "--window", "100ms", "-o", s(&o)]);
    wait_for_windows(&o, 6);
    child.kill().unwrap();
    child.wait().unwrap();
    let bytes = std::fs::read(&o).unwrap();
    let run = archive::read("r.hlog", &bytes).unwrap();
    assert!(run.windows.len() >= 6);
    assert!(run.meta.summary.is_none(), "no summary after SIGKILL");
    ok(nines(&["stats", s(&o)]));
    // A line cut in the middle (the kill landing during a write) is dropped with a warning.
    let cut = d.path().join("cut.hlog");
    let end = bytes.len() - 1;
    let last_line_start = bytes[..end].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(&cut, &bytes[..last_line_start + (end - last_line_start) / 2]).unwrap();
    let out = nines(&["stats", s(&cut)]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ends in the middle"));
}

#[test]
fn rate_limited_latency_counts_from_the_due_time() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "4MiB",
        "--rate-iops",
        "200",
        "--arrival",
        "uniform",
        "--runtime",
        "1s",
        "--window",
        "250ms",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    assert_eq!(run.tags(), [Some("read".to_string()), Some("read.svc".to_string())]);
    let n = count(&run, "read");
    assert_eq!(n, count(&run, "read.svc"));
    // At 200/s for 1 s the schedule holds at most 201 due times.
    assert!(n > 0 && n <= 201, "{n}");
    let lat = nines_core::stats::merge_windows(run.windows_of(Some("read"))).unwrap();
    let svc = nines_core::stats::merge_windows(run.windows_of(Some("read.svc"))).unwrap();
    // Latency from the due time is never below the service time from submission.
    assert!(lat.max() >= svc.max());
    assert!(value_at(&lat, &Level::nines(1)) >= value_at(&svc, &Level::nines(1)));
    // `.svc` is not merged into all.
    let v: Value = serde_json::from_str(&ok(nines(&["stats", "--json", s(&o)]))).unwrap();
    assert_eq!(v["runs"][0]["tags"]["all"]["count"], n);
}

#[test]
fn empty_windows_are_written() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    // One I/O a second, windows of 100 ms: most windows see no I/O and must still be there.
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "1MiB",
        "--rate-iops",
        "1",
        "--arrival",
        "uniform",
        "--runtime",
        "1s",
        "--window",
        "100ms",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    let reads: Vec<u64> = run.windows_of(Some("read")).map(|w| w.hist.count()).collect();
    assert_eq!(reads.len(), 10, "{reads:?}");
    assert!(reads.iter().filter(|&&c| c == 0).count() >= 8, "{reads:?}");
    assert_eq!(reads.iter().sum::<u64>(), 1);
    let py: Value = serde_json::from_str(&python("py_read.py", &[s(&o), "50"])).unwrap();
    assert_eq!(py["windows"], 20);
}

#[test]
fn fsync_every_and_sync_writes() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "2MiB",
        "--rw",
        "randwrite",
        "--bs",
        "8k",
        "--sync",
        "--qd",
        "4",
        "--fsync-every",
        "8",
        "--ios",
        "400",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    assert_eq!(count(&run, "write"), 400);
    assert_eq!(count(&run, "sync"), 50);
    assert_eq!(meta_json(&run.meta)["workload"]["sync"], true);
}

#[test]
fn steady_state_stops_the_run() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("r.hlog");
    // The null engine at a fixed rate is as steady as it gets.
    let table = run_ok(&[
        "--engine",
        "null",
        "--target",
        "none",
        "--size",
        "1MiB",
        "--rate-iops",
        "2000",
        "--arrival",
        "uniform",
        "--window",
        "200ms",
        "--steady",
        "iops:20%",
        "--steady-window",
        "600ms",
        "--runtime",
        "60s",
        "-o",
        s(&o),
    ]);
    assert!(table.contains("steady state (iops:20%) reached"), "{table}");
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["steady"]["reached"], true);
    assert_eq!(summary(&run)["stopped_by"], "steady");
    assert!(meta_json(&run.meta)["steady"]["at_s"].as_f64().unwrap() < 60.0);
}

#[test]
fn psync_engine_and_fallback() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&["--target", s(&t), "--size", "2MiB", "--engine", "psync", "--jobs", "2", "--ios", "1000", "-o", s(&o)]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "psync");
    assert_eq!(count(&run, "read"), 1000);
    // When io_uring is unavailable the run falls back to psync and says so.
    let out = Command::new(nines_bin())
        .env("NINES_TEST_NO_URING", "1")
        .args(["run", "--quiet", "--target", s(&t), "--qd", "4", "--ios", "500", "-o", s(&o), "--force"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    ok(out);
    assert!(err.contains("falling back to the psync engine"), "{err}");
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "psync");
    assert!(meta_json(&run.meta)["engine"]["fallback_reason"].as_str().unwrap().contains("io_uring"));
    assert_eq!(meta_json(&run.meta)["engine"]["qd_requested"], 4);
}

/// The psync engine (std's positioned reads and writes, the engine nines runs on macOS and
/// Windows) on a real file: a sequential write pass puts its buffer at every block of the
/// region, the archive counts every I/O, and a random read pass reads the file back.
#[test]
fn psync_engine_writes_every_block_and_counts_every_io() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("w.hlog"));
    // 256 blocks of 4 KiB: nines creates and lays out the file with random data first
    run_ok(&["--target", s(&t), "--size", "1MiB", "--engine", "psync", "--rw", "read", "--bs", "4k", "--ios", "10", "-o", s(&o)]);
    let before = std::fs::read(&t).unwrap();
    assert_eq!(before.len(), 1 << 20);
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "1MiB",
        "--engine",
        "psync",
        "--rw",
        "write",
        "--bs",
        "4k",
        "--ios",
        "256",
        "--seed",
        "7",
        "-o",
        s(&o),
        "--force",
    ]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "psync");
    assert_eq!(count(&run, "write"), 256);
    assert_eq!(count(&run, "read"), 0);
    assert_eq!(summary(&run)["ios"]["write"], 256);
    assert_eq!(summary(&run)["bytes"]["write"], 1 << 20);
    assert_eq!(summary(&run)["stopped_by"], "ios");
    // A job at queue depth 1 writes its one buffer (random bytes) every time: each of the 256
    // blocks now holds those same 4096 bytes, none of them what the layout had put there.
    let after = std::fs::read(&t).unwrap();
    assert_eq!(after.len(), 1 << 20, "the file keeps its size");
    let first = &after[..4096];
    assert!(first.iter().any(|&b| b != 0), "written data, not zeros");
    for (i, (a, b)) in after.chunks(4096).zip(before.chunks(4096)).enumerate() {
        assert_eq!(a, first, "block {i} holds the job's buffer");
        assert_ne!(a, b, "block {i} was written");
    }
    // two jobs reading at random: every read counted, by each job and in all
    run_ok(&[
        "--target",
        s(&t),
        "--engine",
        "psync",
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--jobs",
        "2",
        "--ios",
        "600",
        "-o",
        s(&o),
        "--force",
    ]);
    let run = read_run(&o);
    assert_eq!(count(&run, "read"), 600);
    assert_eq!(summary(&run)["ios"]["read"], 600);
    assert_eq!(summary(&run)["bytes"]["read"], 600 * 4096);
    assert_eq!(std::fs::read(&t).unwrap(), after, "reads change nothing");
}

#[test]
fn demo_prints_the_table() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("demo.hlog");
    let out = ok(Command::new(nines_bin())
        .args(["demo", "--quiet", "--runtime", "1s", "--size", "8MiB", "--dir", s(d.path()), "-o", s(&o)])
        .output()
        .unwrap());
    assert!(out.contains("read") && out.contains("write") && out.contains("archive:"), "{out}");
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["workload"]["read_pct"], 70);
    // The temporary data file is gone.
    assert!(std::fs::read_dir(d.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with("nines-demo-")));
}

#[test]
fn demo_echoes_a_command_line_a_shell_reads_back() {
    // a directory whose name a shell would split, and the demo's --notes of several words
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("my runs $HOME");
    std::fs::create_dir(&dir).unwrap();
    let o = dir.join("demo.hlog");
    let out =
        Command::new(nines_bin()).args(["demo", "--runtime", "1s", "--size", "8MiB", "--dir", s(&dir), "-o", s(&o)]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    let line = err.lines().find_map(|l| l.strip_prefix("nines demo: ")).unwrap_or_else(|| panic!("{err}"));
    // what sh makes of the line, word by word
    let words = Command::new("sh").args(["-c", &format!("printf '%s\\0' {line}")]).output().unwrap();
    assert!(words.status.success(), "{words:?}");
    let words: Vec<String> = String::from_utf8(words.stdout).unwrap().split_terminator('\0').map(str::to_string).collect();
    assert_eq!(words[0], "run", "{line}");
    let after =
        |flag: &str| words.iter().position(|w| w == flag).map(|i| words[i + 1].clone()).unwrap_or_else(|| panic!("{flag}: {words:?}"));
    let run = read_run(&o);
    assert_eq!(Some(after("--notes")), run.meta.notes, "{line}");
    assert!(after("--notes").contains(' '), "{line}");
    assert!(after("--target").starts_with(s(&dir)), "{line}");
    assert_eq!(after("-o"), s(&o), "{line}");
}

#[test]
fn ramp_is_not_recorded() {
    let d = tempfile::tempdir().unwrap();
    let (t, o, raw) = (d.path().join("t.dat"), d.path().join("r.hlog"), d.path().join("raw.csv"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "2MiB",
        "--qd",
        "2",
        "--ramp",
        "300ms",
        "--ios",
        "700",
        "--window",
        "100ms",
        "--raw-log",
        s(&raw),
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    assert_eq!(count(&run, "read"), 700, "--ios counts only recorded I/Os");
    assert_eq!(std::fs::read_to_string(&raw).unwrap().lines().count(), 701);
    assert_eq!(run.windows[0].start_s, 0.0, "windows start when recording starts");
    assert_eq!(meta_json(&run.meta)["workload"]["ramp_s"], 0.3);
}

#[test]
fn an_io_error_ends_the_run_with_a_clear_error_and_a_complete_archive() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    let child = spawn_run(&["--target", s(&t), "--size", "4MiB", "--rw", "randread", "--runtime", "60s", "--window", "100ms", "-o", s(&o)]);
    wait_for_windows(&o, 3);
    // Somebody truncates the file under the run: reads come back short.
    std::fs::OpenOptions::new().write(true).open(&t).unwrap().set_len(0).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("short read") && err.contains("keeps every window"), "{err}");
    assert!(!err.contains("panicked"));
    let run = read_run(&o);
    assert_eq!(summary(&run)["stopped_by"], "error");
    assert!(summary(&run)["errors"][0].as_str().unwrap().contains("short read"));
    assert!(run.windows.len() >= 3);
}

#[test]
fn java_hdrhistogram_reads_collector_archives() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    // Rate-limited randrw with 100 ms windows: four tags, many empty windows.
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "2MiB",
        "--rw",
        "randrw",
        "--rate-iops",
        "40",
        "--runtime",
        "1s",
        "--window",
        "100ms",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    let peer: Value = serde_json::from_str(&java("JavaRead.java", &[s(&o), "50", "99"])).unwrap();
    assert_eq!(peer["windows"], run.windows.len());
    assert_eq!(peer["windows"], 40);
    for tag in ["read", "write", "read.svc", "write.svc"] {
        assert_eq!(peer["tags"][tag]["count"], count(&run, tag), "{tag}");
    }
}

/// Unfreezes a filesystem on drop, so a failing assertion does not leave it frozen.
struct Frozen<'a>(&'a Path);

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        let _ = Command::new("fsfreeze").arg("-u").arg(self.0).stderr(Stdio::null()).status();
    }
}

#[test]
fn a_real_stall_is_written_as_empty_windows_while_it_lasts() {
    // A filesystem frozen with fsfreeze blocks every write to it: a real stall under
    // io_uring. The windows it spans must reach the archive while it lasts, empty.
    let lp = Loop::new(64);
    assert!(Command::new("mkfs.ext4").args(["-q", "-F", &lp.dev]).status().unwrap().success());
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount").args([&lp.dev, s(mnt.path())]).status().unwrap().success());
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (mnt.path().join("t.dat"), d.path().join("r.hlog"));
    let child = spawn_run(&[
        "--target",
        s(&t),
        "--size",
        "8MiB",
        "--rw",
        "randwrite",
        "--qd",
        "4",
        "--runtime",
        "60s",
        "--window",
        "100ms",
        "-o",
        s(&o),
    ]);
    wait_for_windows(&o, 3);
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().filter(|l| l.starts_with("Tag=")).count();
    assert!(Command::new("fsfreeze").arg("-f").arg(mnt.path()).status().unwrap().success());
    let frozen = Frozen(mnt.path());
    let at_freeze = lines(&o);
    // While frozen, windows keep being closed and written.
    wait_for_windows(&o, at_freeze + 5);
    drop(frozen);
    wait_for_windows(&o, lines(&o) + 3);
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    ok(child.wait_with_output().unwrap());
    let run = read_run(&o);
    let writes: Vec<u64> = run.windows_of(Some("write")).map(|w| w.hist.count()).collect();
    // At least three consecutive empty windows, with writes before and after them.
    let longest_gap = writes.split(|&c| c > 0).map(<[u64]>::len).max().unwrap();
    assert!(longest_gap >= 3, "{writes:?}");
    assert!(writes[0] > 0 && *writes.last().unwrap() > 0, "{writes:?}");
    // The I/Os caught by the freeze completed after it, with latencies as long as the stall.
    let h = nines_core::stats::merge_windows(run.windows_of(Some("write"))).unwrap();
    assert!(h.max() >= 300_000_000, "max {} ns", h.max());
    let _ = Command::new("umount").arg(s(mnt.path())).status();
}

fn blocks(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().blocks()
}

/// Every window of `tag` has a histogram whose smallest latency is above 0 ns.
fn latencies_positive(run: &Run, tag: &str) {
    for w in run.windows_of(Some(tag)) {
        if w.hist.count() > 0 {
            assert!(w.hist.min() > 0, "a {tag} latency of 0 ns");
        }
    }
}

#[test]
fn trims_punch_holes_in_a_file() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    // nines creates the file full of data (a short write run).
    run_ok(&["--target", s(&t), "--size", "16MiB", "--rw", "write", "--ios", "16", "-o", s(&o)]);
    let full = blocks(&t);
    assert!(full * 512 >= 16 << 20, "laid out: {full} blocks");

    // 200 random 64 KiB trims through io_uring.
    let table = run_ok(&[
        "--target",
        s(&t),
        "--rw",
        "randtrim",
        "--bs",
        "64k",
        "--qd",
        "4",
        "--ios",
        "200",
        "--window",
        "100ms",
        "-o",
        s(&o),
        "--force",
    ]);
    assert!(table.contains("trim") && table.contains("stopped by ios"), "{table}");
    let run = read_run(&o);
    assert_eq!(run.tags(), [Some("trim".to_string())]);
    assert!(run.windows_of(Some("trim")).count() >= 1);
    assert_eq!(count(&run, "trim"), 200);
    latencies_positive(&run, "trim");
    assert_eq!(summary(&run)["ios"]["trim"], 200);
    assert_eq!(summary(&run)["bytes"]["trim"], 200 * 65536);
    assert_eq!(meta_json(&run.meta)["workload"]["rw"], "randtrim");
    assert!(meta_json(&run.meta)["engine"]["trim"].as_str().unwrap().contains("IORING_OP_FALLOCATE"), "{}", meta_json(&run.meta)["engine"]);
    assert!(meta_json(&run.meta)["tags"].as_str().unwrap().contains("trim"));
    let after = blocks(&t);
    assert!(after < full, "holes were punched: {full} -> {after} blocks");
    assert_eq!(std::fs::metadata(&t).unwrap().len(), 16 << 20, "the size is kept");

    // nines stats shows the trim row; `all` is the trims.
    let text = ok(nines(&["stats", s(&o)]));
    assert!(text.lines().any(|l| l.trim_start().starts_with("trim")), "{text}");
    let v: Value = serde_json::from_str(&ok(nines(&["stats", "--json", s(&o)]))).unwrap();
    assert_eq!(v["runs"][0]["tags"]["trim"]["count"], 200);
    assert_eq!(v["runs"][0]["tags"]["all"]["count"], 200);

    // Sequential trims through psync. The file (nines' own, now with holes) is filled again
    // first, so these trims free real blocks too.
    run_ok(&["--target", s(&t), "--rw", "trim", "--bs", "1m", "--engine", "psync", "--ios", "8", "-o", s(&o), "--force"]);
    let run = read_run(&o);
    assert_eq!(count(&run, "trim"), 8);
    latencies_positive(&run, "trim");
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "psync");
    assert!(meta_json(&run.meta)["engine"]["trim"].as_str().unwrap().contains("fallocate"), "{}", meta_json(&run.meta)["engine"]);
    // 8 sequential 1 MiB trims from offset 0: the first 8 MiB are holes.
    let b = blocks(&t);
    assert!(b * 512 <= 9 << 20, "{b} blocks after trimming half the file");

    // The null engine completes trims at once.
    run_ok(&["--target", s(&t), "--rw", "randtrim", "--engine", "null", "--size", "1MiB", "--ios", "100", "-o", s(&o), "--force"]);
    assert_eq!(count(&read_run(&o), "trim"), 100);
}

#[test]
fn rate_limited_trims_have_a_service_time_tag() {
    let d = tempfile::tempdir().unwrap();
    let (t, o) = (d.path().join("t.dat"), d.path().join("r.hlog"));
    run_ok(&[
        "--target",
        s(&t),
        "--size",
        "8MiB",
        "--rw",
        "randtrim",
        "--rate-iops",
        "1000",
        "--arrival",
        "uniform",
        "--ios",
        "300",
        "--window",
        "100ms",
        "-o",
        s(&o),
    ]);
    let run = read_run(&o);
    assert_eq!(run.tags(), [Some("trim".to_string()), Some("trim.svc".to_string())]);
    assert_eq!(count(&run, "trim"), 300);
    assert_eq!(count(&run, "trim.svc"), 300);
    latencies_positive(&run, "trim.svc");
    let lat = nines_core::stats::merge_windows(run.windows_of(Some("trim"))).unwrap();
    let svc = nines_core::stats::merge_windows(run.windows_of(Some("trim.svc"))).unwrap();
    assert!(lat.max() >= svc.max());
    // `.svc` is not merged into all.
    let v: Value = serde_json::from_str(&ok(nines(&["stats", "--json", s(&o)]))).unwrap();
    assert_eq!(v["runs"][0]["tags"]["all"]["count"], 300);
}

#[test]
fn trims_are_guarded_like_writes_on_files() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("foreign.dat");
    std::fs::write(&foreign, vec![7u8; 1 << 20]).unwrap();
    let full = blocks(&foreign);
    let o = d.path().join("r.hlog");
    for rw in ["trim", "randtrim"] {
        let e = refused(&["--target", s(&foreign), "--rw", rw, "--ios", "10", "-o", s(&o)]);
        assert!(e.contains("did not create") && e.contains("--overwrite") && e.contains("foreign.dat"), "{e}");
    }
    assert_eq!(std::fs::read(&foreign).unwrap(), vec![7u8; 1 << 20], "refused runs trim nothing");
    assert_eq!(blocks(&foreign), full);
    // --destroy-data is for devices, not files.
    let e = refused(&["--target", s(&foreign), "--rw", "randtrim", "--destroy-data", s(&foreign), "--ios", "10", "-o", s(&o)]);
    assert!(e.contains("--overwrite"), "{e}");
    // Bad combinations are clear errors.
    let e = refused(&["--target", s(&foreign), "--rw", "randtrim", "--mix", "50", "--overwrite", "-o", s(&o)]);
    assert!(e.contains("--mix"), "{e}");
    let e = refused(&["--target", s(&foreign), "--rw", "trim", "--fsync-every", "4", "--overwrite", "-o", s(&o)]);
    assert!(e.contains("--fsync-every"), "{e}");
    assert_eq!(std::fs::read(&foreign).unwrap(), vec![7u8; 1 << 20]);
    // With --overwrite the trims run and punch holes.
    run_ok(&["--target", s(&foreign), "--rw", "trim", "--bs", "64k", "--ios", "8", "--overwrite", "-o", s(&o)]);
    assert_eq!(count(&read_run(&o), "trim"), 8);
    assert!(blocks(&foreign) < full);
}

#[test]
fn loop_device_trims() {
    let lp = Loop::new(32);
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("r.hlog");
    let dev = lp.dev.as_str();
    let full = blocks(&lp.backing);

    // Trims need --destroy-data naming the device, as writes do.
    for rw in ["trim", "randtrim"] {
        let e = refused(&["--target", dev, "--rw", rw, "--ios", "100", "-o", s(&o), "--force"]);
        assert!(e.contains("block device") && e.contains(&format!("--destroy-data {dev}")), "{e}");
    }
    let e = refused(&["--target", dev, "--rw", "randtrim", "--ios", "100", "--destroy-data", "/dev/null", "-o", s(&o), "--force"]);
    assert!(e.contains("same device"), "{e}");
    assert_eq!(blocks(&lp.backing), full, "refused runs discard nothing");

    // io_uring: the block layer's asynchronous discard command. The loop device turns each
    // discard into a hole in its backing file.
    run_ok(&[
        "--target",
        dev,
        "--rw",
        "randtrim",
        "--bs",
        "64k",
        "--qd",
        "8",
        "--ios",
        "300",
        "--destroy-data",
        dev,
        "-o",
        s(&o),
        "--force",
    ]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["target"]["kind"], "block");
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "uring");
    assert!(
        meta_json(&run.meta)["engine"]["trim"].as_str().unwrap().contains("BLOCK_URING_CMD_DISCARD"),
        "{}",
        meta_json(&run.meta)["engine"]
    );
    assert_eq!(count(&run, "trim"), 300);
    latencies_positive(&run, "trim");
    let after_uring = blocks(&lp.backing);
    assert!(after_uring < full, "discards reached the backing file: {full} -> {after_uring} blocks");

    // psync: BLKDISCARD, sequential.
    std::fs::write(&lp.backing, vec![1u8; 32 << 20]).unwrap();
    let refilled = blocks(&lp.backing);
    run_ok(&[
        "--target",
        dev,
        "--rw",
        "trim",
        "--bs",
        "1m",
        "--engine",
        "psync",
        "--ios",
        "16",
        "--destroy-data",
        dev,
        "-o",
        s(&o),
        "--force",
    ]);
    let run = read_run(&o);
    assert_eq!(meta_json(&run.meta)["engine"]["name"], "psync");
    assert!(meta_json(&run.meta)["engine"]["trim"].as_str().unwrap().contains("BLKDISCARD"), "{}", meta_json(&run.meta)["engine"]);
    assert_eq!(count(&run, "trim"), 16);
    latencies_positive(&run, "trim");
    assert!(blocks(&lp.backing) < refilled, "BLKDISCARD punched holes in the backing file");

    // A filesystem signature stops trims too, unless --ignore-signatures.
    assert!(Command::new("mkfs.ext4").args(["-q", "-F", dev]).status().unwrap().success());
    let e = refused(&["--target", dev, "--rw", "randtrim", "--ios", "10", "--destroy-data", dev, "-o", s(&o), "--force"]);
    assert!(e.contains("ext2/ext3/ext4") && e.contains("--ignore-signatures"), "{e}");
    // A mounted device is refused whatever the flags.
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount").args([dev, s(mnt.path())]).status().unwrap().success());
    let e = refused(&[
        "--target",
        dev,
        "--rw",
        "randtrim",
        "--ios",
        "10",
        "--destroy-data",
        dev,
        "--ignore-signatures",
        "-o",
        s(&o),
        "--force",
    ]);
    assert!(e.contains("mounted") && e.contains("no flag"), "{e}");
    assert!(Command::new("umount").arg(s(mnt.path())).status().unwrap().success());
}

/// A run's metadata as the archive's JSON holds it.
fn meta_json(m: &nines_core::meta::RunMeta) -> serde_json::Value {
    serde_json::Value::Object(m.to_map())
}
