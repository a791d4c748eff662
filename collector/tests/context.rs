//! The device and host context `nines run` records beside every window (`#[context ...]`
//! lines): written once per window and read back, still read by Java's and Python's
//! HdrHistogram readers, its device numbers equal to sysstat's iostat -x over the same I/Os,
//! another process's I/Os seen as I/Os nines did not issue, CPU load seen in the CPU shares
//! and pressure, and tmpfs said to have no device.
//!
//! Real runs on this machine (root: loop devices); a test that needs something missing
//! prints why and returns.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use nines_tests::{java, nines, nines_ok, python, run_ok};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A directory on the disk that holds the build (not /tmp, which may be tmpfs).
fn disk_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// The window start times of an archive's histogram lines, and every line.
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

fn stats_context(path: &Path) -> Value {
    let v: Value = serde_json::from_str(&nines_ok(&["stats", "--context", "--json", s(path)])).unwrap();
    v["runs"][0]["context"].clone()
}

fn num(c: &Value, name: &str) -> f64 {
    c["numbers"][name]["mean"].as_f64().unwrap_or_else(|| panic!("no {name} in {c}"))
}

/// A loop device over a file on the build's disk, detached when dropped.
struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new(mb: usize) -> Option<Loop> {
        let dir = disk_dir();
        let backing = dir.path().join("loop.img");
        std::fs::write(&backing, vec![0u8; mb << 20]).unwrap();
        let out = match Command::new("losetup").args(["--find", "--show", s(&backing)]).output() {
            Ok(o) if o.status.success() => o,
            other => {
                println!("no loop device ({other:?}): skipped");
                return None;
            }
        };
        let dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        // udev probes a new device; let it finish so the device is idle before the run
        let _ = Command::new("udevadm").arg("settle").status();
        Some(Loop { dev, _dir: dir })
    }

    fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// (a) One context line per window, right after the window's histogram lines; nines reads
/// them back; Java's and Python's HdrHistogram readers read the archive as before.
#[test]
fn a_run_writes_one_context_line_per_window_that_readers_skip() {
    let dir = disk_dir();
    let target = dir.path().join("t.dat");
    let log = dir.path().join("a.hlog");
    nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "16m",
        "--runtime",
        "2s",
        "--window",
        "500ms",
        "--rw",
        "randrw",
        "-q",
        "--no-summary",
        "-o",
        s(&log),
    ]);
    let ls = lines(&log);
    let mut windows = Vec::new();
    let mut context_after = Vec::new();
    for (i, l) in ls.iter().enumerate() {
        if let Some(rest) = l.strip_prefix("Tag=") {
            let start = rest.split(',').nth(1).unwrap().to_string();
            if windows.last() != Some(&start) {
                windows.push(start);
            }
            // the last line of a window's group is followed by its context line
            if ls.get(i + 1).is_none_or(|n| !n.starts_with("Tag=")) {
                context_after.push(ls.get(i + 1).is_some_and(|n| n.starts_with("#[context ")));
            }
        }
    }
    let contexts: Vec<&String> = ls.iter().filter(|l| l.starts_with("#[context ")).collect();
    assert!(windows.len() >= 4, "{windows:?}");
    assert_eq!(contexts.len(), windows.len(), "{ls:#?}");
    assert!(context_after.iter().all(|&x| x), "a window without its context line right after it: {ls:#?}");
    for c in &contexts {
        assert!(c.contains(" user=") && c.contains(" nines_cpu="), "{c}");
    }
    let run = nines_core::archive::read("a.hlog", &std::fs::read(&log).unwrap()).unwrap();
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert_eq!(run.context.len(), windows.len());
    // each record's start is its window's start (to the archive's millisecond)
    for (c, w) in run.context.iter().zip(&windows) {
        assert!((c.start_ns as f64 / 1e9 - w.parse::<f64>().unwrap()).abs() < 1e-3, "{c:?} vs {w}");
    }
    let on_disk = nines_core::context::WindowContext::collect(&ls.join("\n"));
    match run.meta.context_devices.first() {
        Some(d) => assert!(on_disk.iter().all(|c| c.devices.contains(d) && c.disk.is_some()), "{on_disk:?}"),
        None => println!("the build's disk has no block device ({:?}): host part only", run.meta.context_missing),
    }
    // the peers read every histogram line and skip the context lines
    let ours: Value = serde_json::from_str(&nines_ok(&["stats", "--json", s(&log)])).unwrap();
    let tag_lines = ls.iter().filter(|l| l.starts_with("Tag=")).count() as u64;
    let java_out: Value = serde_json::from_str(&java("JavaRead.java", &[s(&log), "50", "99"])).unwrap();
    let py_out: Value = serde_json::from_str(&python("py_read.py", &[s(&log), "50", "99"])).unwrap();
    for (who, peer) in [("java", &java_out), ("python", &py_out)] {
        assert_eq!(peer["windows"], tag_lines, "{who}");
        for tag in ["read", "write"] {
            assert_eq!(peer["tags"][tag]["count"], ours["runs"][0]["tags"][tag]["count"], "{who} {tag}");
        }
    }
}

/// iostat's one report of `secs` seconds for `dev` (-y: not the since-boot one).
fn iostat(dev: &str, secs: u32) -> Option<Child> {
    match Command::new("iostat").args(["-d", "-x", "-y", "-o", "JSON", dev, &secs.to_string(), "1"]).stdout(Stdio::piped()).spawn() {
        Ok(c) => Some(c),
        Err(e) => {
            println!("no iostat ({e}; scripts/setup.sh installs sysstat): skipped");
            None
        }
    }
}

fn iostat_disk(child: Child) -> Value {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sysstat"]["hosts"][0]["statistics"][0]["disk"][0].clone()
}

/// (b) The device numbers are iostat -x's. The loop device is this test's alone and idle
/// outside the run, so iostat's one interval, which begins before the run and ends after it,
/// and nines' windows, which tile the run, cover the same I/Os. iostat divides by its own
/// interval (read from /proc/uptime, which is not nines'), so what is compared is what does
/// not depend on the interval's length: the time per read (r_await = ms reading / reads),
/// the size of a read (rareq-sz = kB read / reads), reads per busy second (r/s / %util =
/// reads / io_ticks), and the queue per busy second (aqu-sz / %util = time_in_queue /
/// io_ticks). nines' run values are its windows' means weighted as iostat's sums weigh them
/// (`stats --context`: awaits by reads, the rest by time).
#[test]
fn device_numbers_equal_iostats() {
    let Some(lo) = Loop::new(64) else { return };
    let dir = disk_dir();
    let log = dir.path().join("b.hlog");
    let Some(mut io) = iostat(lo.name(), 6) else { return };
    std::thread::sleep(std::time::Duration::from_secs(1));
    let args = "run --rw randread --bs 64k --rate-iops 3000 --arrival uniform --runtime 2s --window 500ms -q --no-summary";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.extend(["--target", &lo.dev, "-o", s(&log)]);
    nines_ok(&args);
    if io.try_wait().unwrap().is_some() {
        println!("iostat's interval ended before the run did (a slow machine): not comparable, skipped");
        return;
    }
    let i = iostat_disk(io);
    let c = stats_context(&log);
    println!("iostat {i}\nnines {c}");
    assert_eq!(c["devices"], serde_json::json!([lo.name()]));
    let f = |k: &str| i[k].as_f64().unwrap_or_else(|| panic!("iostat has no {k}: {i}"));
    let reads_ours = num(&c, "r_s");
    assert!(reads_ours > 100.0 && f("r/s") > 0.0, "{c} {i}");
    // Tolerances: iostat prints 2 decimals (a rounding of up to 0.005), nines' context lines
    // 3 (0.0005 in each window's number, which a weighted mean keeps); ratios of two rounded
    // numbers get the relative roundings of both.
    let close = |what: &str, a: f64, b: f64, tol: f64| assert!((a - b).abs() <= tol, "{what}: nines {a} vs iostat {b} (tolerance {tol})");
    close("r_await", num(&c, "r_await"), f("r_await"), 0.0055);
    // kB per read: 64 KiB reads, 64.00 on both sides
    close("rareq-sz", num(&c, "rkB_s") / reads_ours, f("rareq-sz"), 0.0055 + 64.0 * 0.0005 / reads_ours);
    let (util_ours, util_io) = (num(&c, "util"), f("util"));
    // below 0.2% busy iostat's 2 decimals of %util (0.005) are more than 2.5% of it
    if util_io < 0.2 {
        println!("the device was busy {util_io}% of iostat's interval: the busy-time ratios are not compared");
    } else {
        let rel = 0.005 / util_io + 0.0005 / util_ours + 0.005 / f("r/s") + 0.0005 / reads_ours;
        let (a, b) = (reads_ours / util_ours, f("r/s") / util_io);
        close("reads per busy second", a, b, b * rel);
        let (a, b) = (num(&c, "aqu_sz") / util_ours, f("aqu-sz") / util_io);
        close("queue per busy second", a, b, b * (0.005 / util_io + 0.0005 / util_ours) + 0.005 / util_io + 0.0005 / util_ours);
    }
    // nines issued every read the device did (the device is ours alone): none were others'
    // but for the few in flight at a window's edge, which the device counts in one window and
    // nines in the next (QD1: at most one an edge, and their sum over the run is at most one)
    let other = c["other_iops"]["mean"].as_f64().unwrap();
    let duration = nines_core::archive::read("b", &std::fs::read(&log).unwrap())
        .unwrap()
        .context
        .iter()
        .map(|x| (x.end_ns - x.start_ns) as f64 / 1e9)
        .sum::<f64>();
    assert!(other.abs() <= 1.0 / duration + 0.01, "other I/Os {other} over {duration} s");
}

/// (c) Another process's writes to the device show as device I/Os nines did not issue.
#[test]
fn another_writer_shows_as_ios_nines_did_not_issue() {
    let Some(lo) = Loop::new(64) else { return };
    let dir = disk_dir();
    let log = dir.path().join("c.hlog");
    let run = Command::new(nines_tests::nines_bin())
        .args([
            "run",
            "--target",
            &lo.dev,
            "--rw",
            "randread",
            "--size",
            "16m",
            "--rate-iops",
            "200",
            "--runtime",
            "3s",
            "--window",
            "500ms",
            "-q",
            "--no-summary",
            "-o",
            s(&log),
        ])
        .spawn()
        .unwrap();
    // wait for the recording to begin (its first window line), then write past its region
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("\nTag=") {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run_ok(Command::new("dd").args([
        "if=/dev/zero",
        &format!("of={}", lo.dev),
        "bs=4k",
        "count=300",
        "seek=8192",
        "oflag=direct",
        "status=none",
    ]));
    // did dd end while the run still recorded? (then all its writes are inside its windows)
    let mut run = run;
    let dd_inside = run.try_wait().unwrap().is_none();
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success());
    let c = stats_context(&log);
    println!("{c}");
    let archive = nines_core::archive::read("c", &std::fs::read(&log).unwrap()).unwrap();
    let duration: f64 = archive.context.iter().map(|x| (x.end_ns - x.start_ns) as f64 / 1e9).sum();
    // nines only read, so the device's writes are dd's: 300 direct 4 KiB writes, each one
    // request; all of them I/Os nines did not issue (the reads add at most the run's one
    // in-flight read at an edge, counted by the device in one window and by nines in the next).
    // Totals are rates times window lengths, rounded to 3 decimals a window: within 0.5.
    let others = c["other_iops"]["mean"].as_f64().unwrap() * duration;
    let writes = num(&c, "w_s") * duration;
    if dd_inside {
        assert!((writes - 300.0).abs() <= 0.5, "device writes {writes}, dd wrote 300: {c}");
    } else {
        println!("the run ended before dd did: {writes} of its 300 writes fell in the run");
        assert!(writes >= 1.0, "{c}");
    }
    assert!(others >= writes - 1.5, "device writes {writes}, I/Os not nines' {others}: {c}");
}

/// (d) Busy processes, one per core, show in the CPU user share and, where the kernel has
/// PSI, in CPU pressure.
#[test]
fn cpu_load_shows_in_cpu_shares_and_pressure() {
    let dir = disk_dir();
    let log = dir.path().join("d.hlog");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut busy: Vec<Child> = (0..cores).map(|_| Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap()).collect();
    let r = nines(&[
        "run",
        "--engine",
        "null",
        "--target",
        "x",
        "--size",
        "1m",
        "--rate-iops",
        "100",
        "--runtime",
        "1s",
        "--window",
        "500ms",
        "-q",
        "-o",
        s(&log),
    ]);
    for b in &mut busy {
        let _ = b.kill();
        let _ = b.wait();
    }
    assert!(r.status.success(), "{r:?}");
    let c = stats_context(&log);
    println!("{c}");
    // the busy loops alone would take every core's time: at least half of it is user time,
    // whatever else this machine runs
    assert!(num(&c, "user") >= 50.0, "{c}");
    if Path::new("/proc/pressure/cpu").exists() && c["numbers"]["cpu_some"].is_object() {
        // more runnable tasks than cores: some task waits for a CPU
        assert!(num(&c, "cpu_some") > 0.0, "{c}");
    } else {
        println!("no /proc/pressure/cpu: cpu pressure not checked");
    }
    assert!(c["missing"].as_str().unwrap().contains("null engine"), "{c}");
}

/// (e) A run on tmpfs records the host part and says why the device part is missing.
#[test]
fn tmpfs_records_the_host_and_says_why_no_device() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        println!("no /dev/shm: skipped");
        return;
    }
    let d = tempfile::tempdir_in(shm).unwrap();
    let target: PathBuf = d.path().join("t.dat");
    let log = disk_dir();
    let log = log.path().join("e.hlog");
    let out = nines_ok(&[
        "run",
        "--target",
        s(&target),
        "--buffered",
        "--size",
        "8m",
        "--runtime",
        "1s",
        "--window",
        "500ms",
        "-q",
        "-o",
        s(&log),
    ]);
    assert!(out.contains("context: no device rates: '") && out.contains("tmpfs"), "{out}");
    assert_eq!(out.matches("context:").count(), 1, "said once: {out}");
    let run = nines_core::archive::read("e", &std::fs::read(&log).unwrap()).unwrap();
    assert!(run.meta.context_missing.as_deref().unwrap().contains("the file system is tmpfs"), "{:?}", run.meta.context_missing);
    assert!(run.meta.context_devices.is_empty());
    assert!(!run.context.is_empty() && run.context.iter().all(|c| c.disk.is_none() && c.cpu.is_some() && c.nines_cpu.is_some()));
    let text = nines_ok(&["stats", "--context", s(&log)]);
    assert!(text.contains("tmpfs") && text.contains("cpu user %") && !text.contains("util %"), "{text}");
}
