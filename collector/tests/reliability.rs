//! Nothing lost, nothing crashes: the release binary driven as an unlucky or hostile user
//! would, one test per way it used to lose data or crash. No test has a time limit; memory
//! is bounded with `ulimit -d` (RLIMIT_DATA: heap and anonymous mappings) where it matters.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use nines_core::hist::{Accumulator, Hist, Layout};
use nines_core::run::{Run, Window};
use nines_tests::{nines, nines_bin, nines_ok, root};
use serde_json::Value;

fn data(name: &str) -> String {
    root().join("tests/data").join(name).to_str().unwrap().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command failed cleanly: exit status 1 (not a panic's 101, not a signal) and a message.
fn refused(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "expected a clean refusal (exit 1), got {:?}:\n{e}", o.status);
    assert!(e.starts_with("nines: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

/// `nines ARGS` under a memory limit (`ulimit -d`, in KiB).
fn nines_limited(kib: u64, args: &[&str]) -> Output {
    let mut script = format!("ulimit -d {kib}; exec \"$0\"");
    for i in 0..args.len() {
        script.push_str(&format!(" \"${{{}}}\"", i + 1));
    }
    Command::new("sh").arg("-c").arg(script).arg(nines_bin()).args(args).output().unwrap()
}

fn window(start: f64, tag: &str, hist: Hist) -> Window {
    Window { start_s: start, length_s: 1.0, tag: Some(tag.into()), hist }
}

fn write_run(path: &Path, windows: Vec<Window>) {
    let run = Run { name: "r".into(), windows, ..Run::default() };
    std::fs::write(path, nines_core::archive::write(Vec::new(), &run).unwrap()).unwrap();
}

/// A histogram with `count` I/Os at each of `values`.
fn huge(values: &[u64], count: u64) -> Hist {
    let mut a = Accumulator::new(Layout::default_ns());
    for &v in values {
        a.record_n(v, count);
    }
    a.finish()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

// ---- 1. panics -----------------------------------------------------------------------------

#[test]
fn a_tag_of_65536_characters_is_a_table_row_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("long.hlog");
    let tag = "r".repeat(65_536);
    write_run(&p, vec![window(0.0, &tag, Hist::from_values(Layout::default_ns(), [1000, 2000]))]);
    let out = nines_ok(&["stats", s(&p)]);
    assert!(out.contains(&tag));
    let list = d.path().join("list.csv");
    std::fs::write(&list, format!("time,latency,direction\n0,100,{tag}\n0.5,200,{tag}\n")).unwrap();
    nines_ok(&["stats", s(&list)]);
}

#[test]
fn counts_beyond_what_a_log_holds_are_refused_with_the_file_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    // a percentile spectrum claiming 2^63 I/Os
    let hgrm = d.path().join("big.hgrm");
    std::fs::write(
        &hgrm,
        "       Value     Percentile TotalCount 1/(1-Percentile)\n\n       1.000 0.000000000000 9223372036854775808           1.00\n#[Mean    =        1.000, StdDeviation   =        0.000]\n#[Max     =        1.000, Total count    = 9223372036854775808]\n",
    )
    .unwrap();
    let out = d.path().join("out.hlog");
    let e = refused(&nines(&["import", s(&hgrm), "-o", s(&out), "--unit", "ms"]));
    assert!(e.contains("big.hgrm"), "{e}");
    assert!(!out.exists(), "a failed import leaves nothing behind");
    // one window of 2^63 - 1 I/Os reads; that run merged with a copy of itself would hold
    // 2^64 - 2 (merge adds up what it is given; a path given twice is read once)
    let max = d.path().join("max.hlog");
    write_run(&max, vec![window(0.0, "read", huge(&[1000], i64::MAX as u64))]);
    nines_ok(&["stats", s(&max)]);
    let copy = d.path().join("copy.hlog");
    std::fs::copy(&max, &copy).unwrap();
    let e = refused(&nines(&["merge", s(&max), s(&copy), "-o", s(&out)]));
    assert!(e.contains("max.hlog") || e.contains("copy.hlog") || e.contains("2^63"), "{e}");
    assert!(!out.exists());
    // a window whose buckets add up beyond 2^63 - 1: every command refuses it
    // (written with the hdrhistogram crate: nines' own writer refuses to make it)
    let over = d.path().join("over.hlog");
    let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
    h.record_n(1000, i64::MAX as u64).unwrap();
    h.record_n(5000, i64::MAX as u64).unwrap();
    let mut buf = Vec::new();
    hdrhistogram::serialization::Serializer::serialize(&mut hdrhistogram::serialization::V2DeflateSerializer::new(), &h, &mut buf).unwrap();
    use base64::Engine as _;
    let line = format!("Tag=read,0.000,1.000,0.005,{}\n", base64::engine::general_purpose::STANDARD.encode(&buf));
    std::fs::write(&over, format!("#[StartTime: 1764489600.000 (seconds since epoch)]\n{line}")).unwrap();
    for args in [vec!["stats", s(&over)], vec!["report", s(&over), "--tag", "read", "-o", s(&d.path().join("r.html"))]] {
        let e = refused(&nines(&args));
        assert!(e.contains("over.hlog"), "{e}");
    }
    assert!(!d.path().join("r.html").exists());
}

// ---- 2. allocation ---------------------------------------------------------------------------

#[test]
fn io_buffers_larger_than_memory_are_refused_with_the_numbers() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("a.hlog");
    let o = nines(&[
        "run",
        "--target",
        s(&d.path().join("t.dat")),
        "--engine",
        "null",
        "--size",
        "64GiB",
        "--qd",
        "4096",
        "--bs",
        "64MiB",
        "--runtime",
        "1s",
        "-o",
        s(&out),
        "--quiet",
    ]);
    let e = refused(&o);
    assert!(e.contains("I/O buffers need 256GiB") && e.contains("--qd 4096"), "{e}");
    assert!(!out.exists(), "a refused run leaves no archive");
    // 4 jobs x 2048 x 1 MiB = 8 GiB under a 6 GiB limit
    let o = nines_limited(
        6 << 20,
        &[
            "run",
            "--target",
            s(&d.path().join("t.dat")),
            "--engine",
            "null",
            "--size",
            "1GiB",
            "--jobs",
            "4",
            "--qd",
            "2048",
            "--bs",
            "1MiB",
            "--runtime",
            "1s",
            "-o",
            s(&out),
            "--quiet",
        ],
    );
    let e = refused(&o);
    assert!(e.contains("I/O buffers need 8GiB"), "{e}");
    assert!(!out.exists());
}

// ---- 3. concurrent sites ------------------------------------------------------------------------

#[test]
fn twenty_concurrent_site_pairs_lose_no_run() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.hlog");
    let b = d.path().join("b.hlog");
    std::fs::copy(data("java-rw.hlog"), &a).unwrap();
    std::fs::copy(data("python-rw.hlog"), &b).unwrap();
    for i in 0..20 {
        let site = d.path().join(format!("site{i}"));
        let spawn = |f: &Path| {
            Command::new(nines_bin()).args(["site", s(f), "-o", s(&site)]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
        };
        let (x, y) = (spawn(&a), spawn(&b));
        for c in [x, y] {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", stderr(&o));
        }
        let m: Value = serde_json::from_slice(&std::fs::read(site.join("manifest.json")).unwrap()).unwrap();
        let mut files: Vec<&str> = m["runs"].as_array().unwrap().iter().map(|e| e["file"].as_str().unwrap()).collect();
        files.sort();
        assert_eq!(files, ["runs/a.hlog", "runs/b.hlog"], "try {i}");
    }
}

// ---- 4. concurrent runs on one archive --------------------------------------------------------

#[test]
fn twenty_concurrent_run_pairs_leave_one_valid_archive_and_one_refusal() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..20 {
        let out = d.path().join(format!("same{i}.hlog"));
        let spawn = || {
            Command::new(nines_bin())
                .args([
                    "run",
                    "--target",
                    "x",
                    "--engine",
                    "null",
                    "--size",
                    "1GiB",
                    "--runtime",
                    "300ms",
                    "--window",
                    "100ms",
                    "--quiet",
                    "--no-summary",
                    "-o",
                    s(&out),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (x, y) = (spawn(), spawn());
        let outs = [x.wait_with_output().unwrap(), y.wait_with_output().unwrap()];
        let ok = outs.iter().filter(|o| o.status.success()).count();
        assert_eq!(ok, 1, "try {i}: {} / {}", stderr(&outs[0]), stderr(&outs[1]));
        let e = refused(outs.iter().find(|o| !o.status.success()).unwrap());
        assert!(e.contains("already exists") || e.contains("another process"), "{e}");
        nines_ok(&["stats", s(&out)]);
    }
}

// ---- 5. never over an input -----------------------------------------------------------------

#[test]
fn no_command_writes_over_its_input() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run.hlog");
    std::fs::copy(data("java-rw.hlog"), &run).unwrap();
    let before = std::fs::read(&run).unwrap();
    let link = d.path().join("link.hlog");
    std::os::unix::fs::symlink(&run, &link).unwrap();
    let notes = d.path().join("notes.md");
    std::fs::write(&notes, "# notes\n").unwrap();
    for args in [
        vec!["report", s(&run), "-o", s(&run)],
        vec!["report", s(&run), "--tag", "read", "-o", s(&run)],
        vec!["report", s(&run), "-o", s(&link)],
        vec!["report", s(&run), "--notes", s(&notes), "-o", s(&notes)],
        vec!["import", s(&run), "-o", s(&run), "--force"],
    ] {
        let e = refused(&nines(&args));
        assert!(e.contains("one of this command's inputs"), "{args:?}: {e}");
    }
    assert_eq!(std::fs::read(&run).unwrap(), before);
    assert_eq!(std::fs::read(&notes).unwrap(), b"# notes\n");
}

// ---- 6. unbounded inputs ------------------------------------------------------------------------

#[test]
fn endless_inputs_are_refused_within_100_mb() {
    let d = tempfile::tempdir().unwrap();
    for dev in ["/dev/zero", "/dev/urandom"] {
        let e = refused(&nines_limited(100 << 10, &["stats", dev]));
        assert!(e.contains(dev) && e.contains("not recognised"), "{e}");
    }
    // a name that says fio latency log does not make /dev/zero endless either
    let lat = d.path().join("job_clat.1.log");
    std::os::unix::fs::symlink("/dev/zero", &lat).unwrap();
    let e = refused(&nines_limited(100 << 10, &["stats", s(&lat)]));
    assert!(e.contains("job_clat.1.log"), "{e}");
    // an archive head followed by zeros: the longest line is bounded
    let cut = d.path().join("tail.hlog");
    std::fs::write(&cut, std::fs::read(data("java-rw.hlog")).unwrap()).unwrap();
    let zeros = d.path().join("zeros.hlog");
    let mut text = std::fs::read(&cut).unwrap();
    text.extend(std::iter::repeat_n(b'0', 40 << 20));
    std::fs::write(&zeros, text).unwrap();
    let e = refused(&nines_limited(200 << 10, &["stats", s(&zeros)]));
    assert!(e.contains("longer than 16MiB"), "{e}");
    let o = d.path().join("r.html");
    let e = refused(&nines_limited(100 << 10, &["report", &data("java-rw.hlog"), "--notes", "/dev/zero", "-o", s(&o)]));
    assert!(e.contains("/dev/zero") && e.contains("larger than 1MiB"), "{e}");
    assert!(!o.exists());
}

// ---- 7. inputs read once ----------------------------------------------------------------------

/// A named pipe that yields `file`'s bytes once, fed by a thread.
fn fifo_of(dir: &Path, name: &str, file: &str) -> (PathBuf, std::thread::JoinHandle<()>) {
    let p = dir.join(name);
    let st = Command::new("mkfifo").arg(&p).status().unwrap();
    assert!(st.success());
    let bytes = std::fs::read(file).unwrap();
    let q = p.clone();
    let t = std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(&q).unwrap();
        let _ = f.write_all(&bytes);
    });
    (p, t)
}

fn embedded_runs(page: &str) -> Vec<Vec<u8>> {
    nines_tests::report_payloads(page).into_iter().map(|(_, b)| b).collect()
}

#[test]
fn pipes_are_read_once_by_report_and_site() {
    let d = tempfile::tempdir().unwrap();
    let (fifo, t) = fifo_of(d.path(), "piped.hlog", &data("java-rw.hlog"));
    let page = d.path().join("r.html");
    nines_ok(&["report", s(&fifo), "-o", s(&page), "--full"]);
    t.join().unwrap();
    let runs = embedded_runs(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(runs, [std::fs::read(data("java-rw.hlog")).unwrap()]);
    // by default its compact form, of the whole run
    let (fifo, t) = fifo_of(d.path(), "piped-compact.hlog", &data("java-rw.hlog"));
    nines_ok(&["report", s(&fifo), "-o", s(&page)]);
    t.join().unwrap();
    let runs = embedded_runs(&std::fs::read_to_string(&page).unwrap());
    let c = nines_core::compact::Compact::read("piped", &runs[0]).unwrap();
    let full = nines_core::archive::read("java-rw.hlog", &std::fs::read(data("java-rw.hlog")).unwrap()).unwrap();
    assert_eq!(c.windows, full.windows.len());
    let (fifo2, t) = fifo_of(d.path(), "piped2.hlog", &data("java-rw.hlog"));
    let site = d.path().join("site");
    nines_ok(&["site", s(&fifo2), "-o", s(&site)]);
    t.join().unwrap();
    assert_eq!(std::fs::read(site.join("runs/piped2.hlog")).unwrap(), std::fs::read(data("java-rw.hlog")).unwrap());
}

// ---- 8. sparse list windows -------------------------------------------------------------------

#[test]
fn a_list_with_one_io_per_window_for_50000_windows_fits_in_little_memory() {
    let d = tempfile::tempdir().unwrap();
    let list = d.path().join("sparse.csv");
    let mut text = String::from("time,latency\n");
    for i in 0..50_000u64 {
        text.push_str(&format!("{i}.5,{}\n", 100 + i % 900));
    }
    std::fs::write(&list, text).unwrap();
    // 26 KB a window would be 1.3 GB; sparse windows take a few MB
    let out = d.path().join("sparse.hlog");
    let o = nines_limited(300 << 10, &["import", s(&list), "--unit", "us", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = nines_limited(300 << 10, &["stats", s(&out), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["tags"]["all"]["count"], 50_000);
}

// ---- 9. free space ---------------------------------------------------------------------------

/// A small tmpfs mounted for the test (root only; the test command runs as root).
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn new(size: &str) -> Tmpfs {
        let d = tempfile::tempdir().unwrap();
        let st = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs", s(d.path())]).status().unwrap();
        assert!(st.success(), "mount -t tmpfs (the tests run as root)");
        Tmpfs(d)
    }
    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_size_beyond_the_free_space_is_refused_before_writing() {
    let fs = Tmpfs::new("16m");
    let t = fs.path().join("t.dat");
    let out = tempfile::tempdir().unwrap();
    let a = out.path().join("a.hlog");
    let common = ["--buffered", "--rw", "randread", "--runtime", "200ms", "--quiet", "--no-summary"];
    let mut args = vec!["run", "--target", s(&t), "--size", "1GiB", "-o", s(&a)];
    args.extend(common);
    let e = refused(&nines(&args));
    assert!(e.contains("has") && e.contains("free"), "{e}");
    assert!(!t.exists(), "nothing of the refused layout is left");
    assert!(!a.exists());
    // an existing nines file is not grown past the free space either
    let mut args = vec!["run", "--target", s(&t), "--size", "4MiB", "-o", s(&a)];
    args.extend(common);
    nines_ok(&args);
    let b = out.path().join("b.hlog");
    let mut args = vec!["run", "--target", s(&t), "--size", "1TiB", "-o", s(&b)];
    args.extend(common);
    let e = refused(&nines(&args));
    assert!(e.contains("free"), "{e}");
    assert_eq!(std::fs::metadata(&t).unwrap().len(), 4 << 20);
}

/// `nines ARGS` with a file-size limit (`ulimit -f`, in 512-byte blocks) and SIGXFSZ ignored,
/// so a write past the limit fails with EFBIG as a write to a full disk fails.
fn nines_fsize_limited(blocks: u64, args: &[&str]) -> Output {
    let mut script = format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\"");
    for i in 0..args.len() {
        script.push_str(&format!(" \"${{{}}}\"", i + 1));
    }
    Command::new("sh").arg("-c").arg(script).arg(nines_bin()).args(args).output().unwrap()
}

#[test]
fn a_layout_that_fails_midway_removes_or_cuts_back_what_it_wrote() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.dat");
    let common = ["--buffered", "--rw", "randread", "--runtime", "200ms", "--quiet", "--no-summary"];
    // a new target: removed again
    let a = d.path().join("a.hlog");
    let mut args = vec!["run", "--target", s(&t), "--size", "64MiB", "-o", s(&a)];
    args.extend(common);
    let e = refused(&nines_fsize_limited(8192, &args));
    assert!(e.contains("could not lay out") && e.contains("removed again"), "{e}");
    assert!(!t.exists(), "the half-laid-out target is gone");
    assert!(!a.exists(), "no archive of a run that never ran");
    // an existing nines target grown: cut back to its old size
    let mut args = vec!["run", "--target", s(&t), "--size", "1MiB", "-o", s(&a)];
    args.extend(common);
    nines_ok(&args);
    let b = d.path().join("b.hlog");
    let mut args = vec!["run", "--target", s(&t), "--size", "64MiB", "-o", s(&b)];
    args.extend(common);
    let e = refused(&nines_fsize_limited(8192, &args));
    assert!(e.contains("cut back"), "{e}");
    assert_eq!(std::fs::metadata(&t).unwrap().len(), 1 << 20);
}

#[test]
fn a_full_disk_during_a_run_names_the_archive_and_keeps_its_windows() {
    let fs = Tmpfs::new("256k");
    let a = fs.path().join("a.hlog");
    let o = nines(&[
        "run",
        "--target",
        "x",
        "--engine",
        "null",
        "--size",
        "1GiB",
        "--window-ios",
        "100",
        "--ios",
        "100M",
        "--quiet",
        "--no-summary",
        "-o",
        s(&a),
    ]);
    let e = refused(&o);
    assert!(e.contains("a.hlog") && e.contains("disk is full"), "{e}");
    // the windows that fit are readable; the cut last line is a warning
    let st = nines(&["stats", s(&a)]);
    assert!(st.status.success(), "{}", stderr(&st));
}

// ---- 10. links --------------------------------------------------------------------------------

#[test]
fn writes_never_follow_planted_links() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(site.join("runs")).unwrap();
    let outside = d.path().join("outside.hlog");
    std::os::unix::fs::symlink(&outside, site.join("runs/java-rw.hlog")).unwrap();
    nines_ok(&["site", &data("java-rw.hlog"), "-o", s(&site)]);
    assert!(!outside.exists(), "the run landed outside the site");
    let m: Value = serde_json::from_slice(&std::fs::read(site.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["runs"][0]["file"], "runs/java-rw-2.hlog");
    // a runs/ that is a link is refused
    let site2 = d.path().join("site2");
    std::fs::create_dir_all(&site2).unwrap();
    std::os::unix::fs::symlink(d.path(), site2.join("runs")).unwrap();
    let e = refused(&nines(&["site", &data("java-rw.hlog"), "-o", s(&site2)]));
    assert!(e.contains("runs"), "{e}");
    // the archive -o as a dangling link is refused, the link's target never created
    let link = d.path().join("a.hlog");
    std::os::unix::fs::symlink(d.path().join("elsewhere.hlog"), &link).unwrap();
    refused(&nines(&["run", "--target", "x", "--engine", "null", "--size", "1GiB", "--runtime", "100ms", "--quiet", "-o", s(&link)]));
    assert!(!d.path().join("elsewhere.hlog").exists());
    // a report over a link replaces the link, not its target
    let rl = d.path().join("r.html");
    let target = d.path().join("target.html");
    std::os::unix::fs::symlink(&target, &rl).unwrap();
    nines_ok(&["report", &data("java-rw.hlog"), "-o", s(&rl)]);
    assert!(!target.exists());
    assert!(std::fs::symlink_metadata(&rl).unwrap().is_file());
    // no temporary file is left beside any of them
    for dir in [d.path(), site.as_path(), &site.join("runs")] {
        assert!(names_in(dir).iter().all(|n| !n.ends_with(".tmp") && !n.contains(".tmp")), "{:?}", names_in(dir));
    }
}

/// A racer that, as soon as `target` appears as a regular file, renames it away and leaves a
/// symbolic link to `victim` in its place (what another local user who can write the
/// target's directory can do while nines lays the target out).
fn swap_for_link(target: PathBuf, victim: PathBuf) -> std::thread::JoinHandle<bool> {
    std::thread::spawn(move || {
        let moved = target.with_extension("moved");
        // bounded: about 60 s of polling at most, then the racer gives up
        for _ in 0..60_000_000u64 {
            if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) {
                std::fs::rename(&target, &moved).unwrap();
                std::os::unix::fs::symlink(&victim, &target).unwrap();
                return true;
            }
            std::hint::spin_loop();
        }
        false
    })
}

#[test]
fn a_target_swapped_for_a_link_during_its_layout_gets_none_of_the_runs_writes() {
    // on the disk (O_DIRECT), not a tmpfs /tmp
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let victim = d.path().join("victim.dat");
    let pattern: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&victim, &pattern).unwrap();
    let target = d.path().join("t.dat");
    let racer = swap_for_link(target.clone(), victim.clone());
    let o = nines(&[
        "run",
        "--target",
        s(&target),
        "--size",
        "64MiB",
        "--rw",
        "randwrite",
        "--qd",
        "8",
        "--runtime",
        "1s",
        "--quiet",
        "-o",
        s(&d.path().join("r.hlog")),
    ]);
    assert!(racer.join().unwrap(), "the racer never saw the target");
    assert!(std::fs::read(&victim).unwrap() == pattern, "the run wrote through the planted link into another file");
    let e = refused(&o);
    assert!(e.contains("replaced by a symbolic link"), "{e}");
    // nothing recorded, no archive left
    assert!(!d.path().join("r.hlog").exists());
}

// ---- 11. smaller ones -------------------------------------------------------------------------

#[test]
fn a_byte_order_mark_is_skipped() {
    let d = tempfile::tempdir().unwrap();
    for (name, src) in
        [("bom.hlog", data("java-rw.hlog")), ("bom_clat.1.log", data("fio-randrw_clat.1.log")), ("bom.json", data("fio-randrw.json"))]
    {
        let p = d.path().join(name);
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(std::fs::read(&src).unwrap());
        std::fs::write(&p, bytes).unwrap();
        let with: Value = serde_json::from_str(&nines_ok(&["stats", "--json", s(&p)])).unwrap();
        let without: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &src])).unwrap();
        assert_eq!(with["runs"][0]["tags"], without["runs"][0]["tags"], "{name}");
    }
}

#[test]
fn a_tag_named_all_gives_one_all_row_and_hostile_tags_stay_inert_on_a_terminal() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("all.hlog");
    let l = Layout::default_ns();
    write_run(&p, vec![window(0.0, "all", Hist::from_values(l, [1000, 2000])), window(0.0, "read", Hist::from_values(l, [3000]))]);
    let text = nines_ok(&["stats", s(&p)]);
    assert_eq!(text.lines().filter(|l| l.starts_with("all ")).count(), 1, "{text}");
    let json = nines_ok(&["stats", "--json", s(&p)]);
    assert_eq!(json.matches("\"all\":").count(), 1, "{json}");
    // escape sequences and NUL in a tag
    let list = d.path().join("esc.csv");
    std::fs::write(&list, "time,latency,direction\n0,100,\u{1b}[2Jx\u{7}\n").unwrap();
    // a list's direction must be a tag: refused, and the message shows it escaped
    let e = refused(&nines(&["stats", s(&list)]));
    assert!(e.contains("not a tag") && !e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
    // an archive written by another tool with such a tag: read, and shown escaped
    let raw = d.path().join("esc.hlog");
    let text = std::fs::read_to_string(&p).unwrap().replace("Tag=read,", "Tag=\u{1b}[2Jx\u{7},");
    std::fs::write(&raw, text).unwrap();
    let out = nines_ok(&["stats", s(&raw)]);
    assert!(out.contains("\\u{1b}[2Jx\\u{7}") && !out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
}

#[test]
fn a_cut_last_line_of_a_fio_latency_log_is_a_warning() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("cut_clat.1.log");
    let bytes = std::fs::read(data("fio-randrw_clat.1.log")).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let cut_at = text.trim_end().rfind(", ").unwrap();
    std::fs::write(&p, &text[..cut_at + 1]).unwrap();
    let o = nines(&["stats", s(&p)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning") && stderr(&o).contains("line"), "{}", stderr(&o));
}

#[test]
fn sigint_during_the_ramp_leaves_no_archive_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("ramp.hlog");
    let child = Command::new(nines_bin())
        .args(["run", "--target", "x", "--engine", "null", "--size", "1GiB", "--ramp", "1h", "--runtime", "1s", "--quiet", "-o", s(&a)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wait for the archive to exist (the run has started), then interrupt it
    while !a.exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let st = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let e = refused(&o);
    assert!(e.contains("nothing was recorded") && e.contains("SIGINT"), "{e}");
    assert!(!a.exists(), "no header-only archive blocks a rerun");
}

#[test]
fn a_site_does_not_replace_another_sites_files_without_force() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("www");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<h1>my homepage</h1>").unwrap();
    let e = refused(&nines(&["site", &data("java-rw.hlog"), "-o", s(&site)]));
    assert!(e.contains("index.html") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(site.join("index.html")).unwrap(), "<h1>my homepage</h1>");
    nines_ok(&["site", &data("java-rw.hlog"), "-o", s(&site), "--force"]);
    // a nines site is updated without --force
    nines_ok(&["site", &data("python-rw.hlog"), "-o", s(&site)]);
}

#[test]
fn report_notes_keep_only_web_and_in_page_links() {
    let d = tempfile::tempdir().unwrap();
    let notes = d.path().join("n.md");
    std::fs::write(&notes, "[web](https://example.com/x) [rel](../secret.txt) [top](#top) [file](file:///etc/passwd)\n").unwrap();
    let r = d.path().join("r.html");
    nines_ok(&["report", &data("java-rw.hlog"), "--notes", s(&notes), "-o", s(&r)]);
    let page = std::fs::read_to_string(&r).unwrap();
    assert!(page.contains("href=\"https://example.com/x\"") && page.contains("href=\"#top\""));
    assert!(!page.contains("secret.txt\"") && !page.contains("file:///"), "relative and file links are text");
}
