//! Inputs as a careless or hostile user gives them, through the binary: fio job files whose
//! numbers would wrap, that include a FIFO or a secret file, or expand `${VAR}`; one run
//! given twice (the same file, or fio's json+ with its own logs); a stderr whose reader has
//! gone; a live run's archive before its first window; SIGHUP. No test has a time limit but
//! for a generous one that only tells "hung" from "answered".

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use nines_core::run::Run;
use nines_tests::{nines, nines_bin, nines_ok, root};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn data(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Refused cleanly: exit status 1 (not a panic's 101, not a signal) and a message.
fn refused(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "expected a clean refusal (exit 1), got {:?}:\n{e}", o.status);
    assert!(e.starts_with("nines: ") && !e.contains("panicked"), "{e}");
    e
}

/// Wait for a child, at most `secs` (generous: only a hang passes it), then its output.
fn wait(mut child: Child, secs: u64) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {secs} s (hung):\n{}", stderr(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn read_run(p: &Path) -> Run {
    nines_core::archive::read(s(p), &std::fs::read(p).unwrap()).unwrap()
}

/// `nines run JOB` in `dir`, on the null engine (nothing is touched).
fn run_job(dir: &Path, job: &str, text: &str, envs: &[(&str, &str)]) -> Output {
    std::fs::write(dir.join(job), text).unwrap();
    let mut c = Command::new(nines_bin());
    c.current_dir(dir).env_remove("NINES_T_OPT").args(["run", job, "--quiet", "--no-summary"]);
    for (k, v) in envs {
        c.env(k, v);
    }
    wait(c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap(), 120)
}

const JOB: &str = "[a]\nfilename=t.dat\nsize=1m\nioengine=null\ntime_based\nruntime=300ms\n";

#[test]
fn job_file_numbers_are_range_checked_with_the_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    for (opt, want) in [
        // ran at QD 1
        ("iodepth=4294967297", "j.fio:7: iodepth=4294967297: expected 1 to 4096 (as --qd takes)"),
        // ran 2 jobs
        ("numjobs=4294967298", "j.fio:7: numjobs=4294967298: expected 1 to 1024 (as --jobs takes)"),
        // recorded a 7,766,279,631 s window (a panic in a debug build)
        ("log_hist_msec=99999999999999", "j.fio:7: log_hist_msec=99999999999999: expected 1 to 1000000000000"),
    ] {
        let o = run_job(d.path(), "j.fio", &format!("{JOB}{opt}\n"), &[]);
        let e = refused(&o);
        assert!(e.contains(want), "{opt}: {e}");
        assert!(!d.path().join("a.hlog").exists(), "{opt}: nothing recorded");
    }
    // in range, the file's numbers are the run's
    let o = run_job(d.path(), "j.fio", &format!("{JOB}iodepth=4096\nnumjobs=3\nlog_hist_msec=100\n"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = read_run(&d.path().join("a.hlog")).meta.workload.unwrap();
    assert_eq!((w.qd, w.jobs), (Some(4096), Some(3)));
}

#[test]
fn an_include_must_name_a_regular_file() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // no writer ever comes: the open of the FIFO used to wait for one for ever
    let o = run_job(d.path(), "j.fio", &format!("{JOB}include {}\n", s(&fifo)), &[]);
    let e = refused(&o);
    assert!(e.contains("j.fio:7: include") && e.contains("not a regular file"), "{e}");
    let o = run_job(d.path(), "j.fio", &format!("{JOB}include /dev/zero\n"), &[]);
    assert!(refused(&o).contains("not a regular file"));
}

#[test]
fn a_file_that_is_no_job_file_is_not_echoed() {
    let d = tempfile::tempdir().unwrap();
    let secret = "s3cr3t-that-must-never-be-printed";
    let shadow: String = (0..26).map(|i| format!("user{i}:$y$j9T${secret}{i}:20228:0:99999:7:::\n")).collect();
    std::fs::write(d.path().join("shadow"), &shadow).unwrap();
    let env: String = (0..26).map(|i| format!("api_token_{i}={secret}{i}\n")).collect();
    std::fs::write(d.path().join("secrets.env"), &env).unwrap();
    for (job, text) in [
        // used to print every line of the file
        ("inc.fio", format!("{JOB}include shadow\n")),
        ("inc-env.fio", format!("{JOB}include secrets.env\n")),
    ] {
        let e = refused(&run_job(d.path(), job, &text, &[]));
        assert!(!e.contains(secret), "{e}");
        assert_eq!(e.lines().count(), 2, "one problem, the first line's: {e}");
        assert!(e.lines().all(|l| l.chars().count() < 200), "{e}");
    }
    // the job file itself is read the same way
    let o = wait(
        Command::new(nines_bin())
            .current_dir(d.path())
            .args(["run", "shadow"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        120,
    );
    let e = refused(&o);
    assert!(e.contains("shadow:1: \"user0\" then ':': not a job-file line") && !e.contains(secret), "{e}");
    // an unsupported option's value is cut to 40 characters
    let e = refused(&run_job(d.path(), "long.fio", &format!("{JOB}verify={}\n", "v".repeat(500)), &[]));
    let line = e.lines().find(|l| l.contains("verify=")).unwrap();
    assert!(line.contains(&format!("verify={}…: not supported by nines", "v".repeat(32))), "{line}");
}

#[test]
fn a_bare_variable_is_expanded_as_fio_expands_it() {
    let d = tempfile::tempdir().unwrap();
    let text = format!("{JOB}${{NINES_T_OPT}}\n");
    let o = run_job(d.path(), "j.fio", &text, &[("NINES_T_OPT", "iodepth=8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_run(&d.path().join("a.hlog")).meta.workload.unwrap().qd, Some(8));
    std::fs::remove_file(d.path().join("a.hlog")).unwrap();
    // unset: fio refuses the line ("Bad option"), and so does nines
    let e = refused(&run_job(d.path(), "j.fio", &text, &[]));
    assert!(e.contains("j.fio:7: ${NINES_T_OPT} expands to nothing"), "{e}");
}

/// `nines import FILES -o OUT` in `dir`.
fn import(dir: &Path, files: &[&Path], out: &str) -> Output {
    let mut args: Vec<&str> = vec!["import"];
    args.extend(files.iter().map(|f| s(f)));
    let o = dir.join(out);
    args.extend(["-o", s(&o)]);
    nines(&args)
}

fn count(p: &Path, tag: &str) -> u64 {
    read_run(p).windows.iter().filter(|w| w.tag.as_deref() == Some(tag)).map(|w| w.hist.count()).sum()
}

#[test]
fn one_run_in_two_forms_is_not_counted_twice() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let (json, hist, lat) = (data("fio-randrw.json"), data("fio-randrw_clat_hist.1.log"), data("fio-randrw_clat.1.log"));
    // used to sum both: 1,264 reads of a 700-read run
    let e = refused(&import(dir, &[&json, &hist], "both.hlog"));
    assert!(
        e.contains("fio-randrw.json' and '")
            && e.contains("fio-randrw_clat_hist.1.log' hold the same run")
            && e.contains("completion latency log of fio job fio-randrw")
            && e.contains("nines merge"),
        "{e}"
    );
    assert!(!dir.join("both.hlog").exists());
    let e = refused(&import(dir, &[&hist, &lat], "logs.hlog"));
    assert!(e.contains("both are completion latency logs of fio job fio-randrw, copy 1"), "{e}");
    // an archive made from the json+ is the same run as the json+, whatever its name
    assert!(import(dir, &[&json], "one.hlog").status.success());
    assert_eq!(count(&dir.join("one.hlog"), "read"), 700);
    let e = refused(&import(dir, &[&dir.join("one.hlog"), &json], "again.hlog"));
    assert!(e.contains("fio's json+ results of job fio-randrw reported at timestamp_ms 1796029465586"), "{e}");
    // an archive made from a log keeps the log's name
    assert!(import(dir, &[&hist], "hist.hlog").status.success());
    let e = refused(&import(dir, &[&json, &dir.join("hist.hlog")], "again.hlog"));
    assert!(e.contains("completion latency log of fio job fio-randrw"), "{e}");
    // a copy of an archive holds the same windows
    let list = dir.join("lat.csv");
    std::fs::write(
        &list,
        "time,latency_us
0.1,120
0.7,340
1.2,95
",
    )
    .unwrap();
    assert!(import(dir, &[&list], "list.hlog").status.success());
    std::fs::copy(dir.join("list.hlog"), dir.join("copy.hlog")).unwrap();
    let e = refused(&import(dir, &[&dir.join("list.hlog"), &dir.join("copy.hlog")], "again.hlog"));
    assert!(e.contains("they hold the same 2 windows (every tag, start, length and bucket alike)"), "{e}");
    // the same file twice (by another path too) is read once, with a note
    let other = dir.join("link.json");
    std::os::unix::fs::symlink(&json, &other).unwrap();
    let o = import(dir, &[&json, &json, &other], "once.hlog");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("link.json' is the same file as '"), "{}", stderr(&o));
    assert_eq!(count(&dir.join("once.hlog"), "read"), 700);
}

#[test]
fn a_real_fio_run_s_jobs_add_up_but_its_json_and_logs_do_not() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let out = Command::new("fio")
        .current_dir(dir)
        .args([
            "--name=two",
            "--filename=data",
            "--size=4M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--numjobs=2",
            "--number_ios=300",
            "--output-format=json+",
            "--output=two.json",
            "--write_hist_log=two",
            "--log_hist_msec=10",
        ])
        .output()
        .expect("fio is installed (scripts/setup.sh installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (h1, h2, json) = (dir.join("two_clat_hist.1.log"), dir.join("two_clat_hist.2.log"), dir.join("two.json"));
    let o = import(dir, &[&h1, &h2], "jobs.hlog");
    assert!(o.status.success(), "the logs of the job's two copies are parts of one run: {}", stderr(&o));
    let e = refused(&import(dir, &[&json, &h1, &h2], "all.hlog"));
    assert!(e.contains("two_clat_hist.1.log' is the completion latency log of fio job two"), "{e}");
}

#[test]
fn the_same_file_twice_is_one_run_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.hlog");
    let b = d.path().join("b.hlog");
    nines_ok(&["import", s(&data("fio-randrw.json")), "-o", s(&a)]);
    nines_ok(&["import", s(&data("fio-randrw_clat_hist.1.log")), "-o", s(&b)]);
    // used to print the run twice, the second named "#2"
    let o = nines(&["stats", s(&a), s(&a)]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).matches("fio-randrw (").count(), 1, "{}", stdout(&o));
    assert!(!stdout(&o).contains("#2"), "{}", stdout(&o));
    assert!(stderr(&o).contains("a.hlog' is the same file as '"), "{}", stderr(&o));
    // compare: a set's runs are repeats; one run twice in a set would narrow their band
    std::fs::copy(&a, d.path().join("copy.hlog")).unwrap();
    let e = refused(&nines(&["compare", s(&a), s(&d.path().join("copy.hlog")), "--with", s(&b)]));
    assert!(e.contains("hold the same run") && e.contains("repeats"), "{e}");
    let e = refused(&nines(&["compare", s(&a), "--with", s(&a)]));
    assert!(e.contains("is both a baseline and a candidate"), "{e}");
    // one run in two forms side by side is fine where nothing is added up
    let o = nines(&["stats", s(&a), s(&b)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // a report takes each file once
    let r = d.path().join("r.html");
    let o = nines(&["report", s(&a), s(&a), s(&b), "-o", s(&r)]);
    assert!(o.status.success() && stdout(&o).contains("(2 runs"), "{}{}", stdout(&o), stderr(&o));
}

/// Run `nines ARGS` with stderr a pipe whose reader is already closed (every write to it
/// fails with EPIPE).
fn with_stderr_gone(args: &[&str]) -> Output {
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills two descriptors we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: closing the read end we own; the write end goes to the child.
    unsafe { libc::close(fds[0]) };
    let w = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[1]) };
    let child = Command::new(nines_bin()).args(args).stdout(Stdio::piped()).stderr(Stdio::from(w)).spawn().unwrap();
    wait(child, 120)
}

#[test]
fn a_closed_stderr_is_no_panic() {
    // an error: exit 1 as ever, only without its message (it used to be 101, "failed
    // printing to stderr")
    let o = with_stderr_gone(&["stats", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
    // a warning: the command still succeeds and prints its table
    let d = tempfile::tempdir().unwrap();
    let cut = d.path().join("cut.hlog");
    let text = std::fs::read_to_string(data("v1-randrw.hlog")).unwrap();
    std::fs::write(&cut, &text[..text.len() - 20]).unwrap();
    let o = with_stderr_gone(&["stats", s(&cut)]);
    assert_eq!(o.status.code(), Some(0), "{:?}", o.status);
    assert!(stdout(&o).contains("read"), "{}", stdout(&o));
    // stderr closed outright (EBADF)
    let o = Command::new("sh").arg("-c").arg("exec 2>&-; exec \"$0\" stats /dev/zero").arg(nines_bin()).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
}

/// A `nines run` on the null engine in the background, its output piped.
fn spawn_run(dir: &Path, extra: &[&str]) -> Child {
    Command::new(nines_bin())
        .current_dir(dir)
        .args(["run", "--engine", "null", "--target", "t.dat", "--size", "1m", "-o", "r.hlog"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for_windows(p: &Path, n: usize) {
    let start = Instant::now();
    while std::fs::read_to_string(p).map_or(0, |t| t.lines().filter(|l| l.starts_with("Tag=")).count()) < n {
        assert!(start.elapsed() < Duration::from_secs(120), "{} never got {n} windows", p.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

#[test]
fn sighup_ends_a_run_as_sigterm_does() {
    let mut codes = Vec::new();
    for (sig, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        let d = tempfile::tempdir().unwrap();
        let child = spawn_run(d.path(), &["--quiet", "--runtime", "30s", "--window", "200ms"]);
        wait_for_windows(&d.path().join("r.hlog"), 2);
        signal(&child, sig);
        // SIGHUP used to end the process by its default action: no summary, no end metadata
        let o = wait(child, 120);
        assert!(stdout(&o).contains(&format!("stopped by {name}")), "{name}: {:?}\n{}{}", o.status, stdout(&o), stderr(&o));
        let run = read_run(&d.path().join("r.hlog"));
        let summary = run.meta.summary.expect("the archive is complete: its end summary");
        assert_eq!(summary.stopped_by, name);
        assert!(run.warnings.is_empty(), "{:?}", run.warnings);
        codes.push(o.status.code());
    }
    assert_eq!(codes[0], codes[1], "SIGHUP gives SIGTERM's exit status");
    assert_eq!(codes[0], Some(0));
    // started with SIGHUP ignored (nohup), a run keeps it so
    let d = tempfile::tempdir().unwrap();
    let child = Command::new("sh")
        .current_dir(d.path())
        .arg("-c")
        .arg("trap '' HUP; exec \"$0\" run --engine null --target t.dat --size 1m -o r.hlog --quiet --runtime 2s --window 200ms")
        .arg(nines_bin())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_windows(&d.path().join("r.hlog"), 2);
    signal(&child, libc::SIGHUP);
    let o = wait(child, 120);
    assert!(o.status.success() && stdout(&o).contains("stopped by runtime"), "{:?}\n{}{}", o.status, stdout(&o), stderr(&o));
}

#[test]
fn a_live_run_does_not_warn_of_its_archive_before_the_first_window() {
    let d = tempfile::tempdir().unwrap();
    let mut child = spawn_run(d.path(), &["--live", "--no-open", "--quiet", "--runtime", "2s"]);
    // read stderr until the run has ended (the page then stays until SIGINT)
    let err = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    let start = Instant::now();
    while !lines.iter().any(|l: &String| l.contains("the run has ended")) {
        assert!(start.elapsed() < Duration::from_secs(120), "the run never ended: {lines:?}");
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            lines.push(l);
        }
    }
    signal(&child, libc::SIGINT);
    let o = wait(child, 120);
    lines.extend(rx.try_iter());
    assert!(o.status.success(), "{:?}", o.status);
    // it used to say "warning: r.hlog: line 6: no histogram lines found" at every start
    assert!(!lines.iter().any(|l| l.contains("warning")), "{lines:#?}");
}

#[test]
fn a_qos_limit_beyond_what_it_keeps_names_its_line() {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("q.spec");
    std::fs::write(&spec, "read p99 <= 1s\nread iops >= 99999999999999999999999999\n").unwrap();
    // used to be judged as 18,446,744,073,709,551,615 I/Os per second
    let o = nines(&["check", s(&data("v1-randrw.hlog")), "--spec", s(&spec)]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("q.spec:2:14: \"99999999999999999999999999\" is above 9,007,199,254,740,992 I/Os per second"),
        "{}",
        stderr(&o)
    );
}
