//! Where nines' outputs go, with the real binary: a character device or FIFO named as an
//! output is written as a stream and stays what it was; a block device or socket is refused
//! and kept; `-o -` is stdout; files and directories are created 0666 / 0777 less the umask,
//! as every Unix tool creates them; and many `nines export` processes adding runs to one
//! Parquet dataset at once all succeed, with every run in it.

use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::time::Duration;

use nines_tests::{nines_bin, root};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `nines ARGS` in `dir`.
fn nines_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(nines_bin()).current_dir(dir).args(args).output().expect("nines runs")
}

fn said(o: &Output) -> String {
    format!("status {:?}\nstdout: {}\nstderr: {}", o.status, String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", said(&o));
    o
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A short run of the null engine (no I/O at all), named `name`, in `dir`.
fn null_run(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(format!("{name}.hlog"));
    ok(nines_in(
        dir,
        &[
            "run",
            "--engine",
            "null",
            "--target",
            "t",
            "--size",
            "1MiB",
            "--runtime",
            "300ms",
            "--window",
            "100ms",
            "--quiet",
            "--no-summary",
            "--name",
            name,
            "-o",
            s(&p),
        ],
    ));
    p
}

/// The fio json+ file of tests/data (an input of `nines import`).
fn fio_json() -> String {
    s(&root().join("tests/data/fio-randrw.json")).to_string()
}

/// Every command that writes one file, with its output `out`: (what, arguments).
fn single_file_writers(a: &Path, b: &Path, out: &str) -> Vec<(&'static str, Vec<String>)> {
    let (a, b) = (s(a).to_string(), s(b).to_string());
    let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ("report", v(&["report", &a, "-o", out])),
        ("import", v(&["import", &fio_json(), "-o", out])),
        ("export --csv", v(&["export", &a, "--csv", out])),
        ("merge", v(&["merge", &a, &b, "--label", "a", "--label", "b", "--regrid", "1s", "-o", out])),
    ]
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `mknod PATH TYPE MAJOR MINOR` (needs root: CAP_MKNOD).
fn mknod(path: &Path, kind: &str, major: u32, minor: u32) {
    let st = Command::new("mknod").arg(path).args([kind, &major.to_string(), &minor.to_string()]).status().unwrap();
    assert!(st.success(), "mknod {} {kind} {major} {minor}", path.display());
}

#[test]
fn a_character_device_is_written_as_a_stream_and_stays_a_device() {
    if !is_root() {
        eprintln!("skipped: making a device node needs root");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (null_run(d.path(), "a"), null_run(d.path(), "b"));
    // a node of /dev/null's device (1, 3) inside the temporary directory
    let dev = d.path().join("null");
    mknod(&dev, "c", 1, 3);
    let rdev = std::fs::symlink_metadata(&dev).unwrap().rdev();
    for (what, cmd) in single_file_writers(&a, &b, s(&dev)) {
        let o = ok(nines_in(d.path(), &args(&cmd)));
        let m = std::fs::symlink_metadata(&dev).unwrap();
        assert!(m.file_type().is_char_device() && m.rdev() == rdev, "{what}: the device node was replaced: {m:?}\n{}", said(&o));
        // and it is written without --force (nothing is replaced): export --csv and import
        // refuse an existing regular file without it
        assert!(!stderr(&o).contains("--force"), "{what}: {}", said(&o));
    }
    // a link to the device is never followed, nor replaced: a planted link could point a
    // root's write at any device
    let link = d.path().join("out.html");
    std::os::unix::fs::symlink(&dev, &link).unwrap();
    let o = nines_in(d.path(), &["report", s(&a), "-o", s(&link)]);
    assert!(!o.status.success() && stderr(&o).contains("symbolic link") && stderr(&o).contains("character device"), "{}", said(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::symlink_metadata(&dev).unwrap().file_type().is_char_device());
}

/// Read the FIFO at `path` whole in a thread; the bytes come back on the channel.
fn read_fifo(path: &Path) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let _ = tx.send(bytes);
    });
    rx
}

/// Let a reader still blocked in open(2) on the FIFO go (it then reads nothing): opening the
/// writing end without blocking succeeds only while a reader waits.
fn release_fifo(path: &Path) {
    let _ = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(path);
}

#[test]
fn a_fifo_is_written_as_a_stream_and_stays_a_fifo() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (null_run(d.path(), "a"), null_run(d.path(), "b"));
    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: c is a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (what, cmd) in single_file_writers(&a, &b, s(&fifo)) {
        let rx = read_fifo(&fifo);
        let o = nines_in(d.path(), &args(&cmd));
        let m = std::fs::symlink_metadata(&fifo).unwrap();
        assert!(m.file_type().is_fifo(), "{what}: the FIFO was replaced: {m:?}\n{}", said(&o));
        release_fifo(&fifo);
        let got = rx.recv_timeout(Duration::from_secs(120)).expect("the FIFO's reader never finished");
        assert!(o.status.success(), "{what}: {}", said(&o));
        let text = String::from_utf8_lossy(&got);
        let whole = match what {
            "report" => text.starts_with("<!doctype html>") && text.ends_with("</html>\n"),
            "import" | "merge" => text.starts_with("#[Histogram log format version 1.3]") && text.ends_with('\n'),
            _ => text.starts_with("run_id,window_index,") && text.ends_with('\n'),
        };
        assert!(whole, "{what}: the FIFO did not carry the whole output ({} bytes): {:?}", got.len(), &text[..text.len().min(200)]);
    }
}

#[test]
fn a_block_device_socket_or_link_to_a_fifo_is_refused_and_kept() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (null_run(d.path(), "a"), null_run(d.path(), "b"));
    let mut nodes: Vec<(PathBuf, &str)> = Vec::new();
    if is_root() {
        // a loop device's number (7, 250): only the node is made, no device is attached
        let blk = d.path().join("loop");
        mknod(&blk, "b", 7, 250);
        nodes.push((blk, "block device"));
    } else {
        eprintln!("the block device part is skipped: making a device node needs root");
    }
    let sock = d.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    nodes.push((sock, "socket"));
    // a link to a FIFO (as /dev/stdout is a link to the descriptor): never written through
    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: c is a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let link = d.path().join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    nodes.push((link, "symbolic link"));
    for (node, kind) in &nodes {
        let before = std::fs::symlink_metadata(node).unwrap();
        for force in [false, true] {
            for (what, mut cmd) in single_file_writers(&a, &b, s(node)) {
                if force {
                    cmd.push("--force".into());
                }
                if what == "report" && force {
                    continue; // report has no --force: it always replaces a regular file
                }
                let o = nines_in(d.path(), &args(&cmd));
                let err = stderr(&o);
                assert!(!o.status.success() && err.contains(kind) && err.contains(s(node)), "{what} -o {kind}: {}", said(&o));
                let m = std::fs::symlink_metadata(node).unwrap();
                assert_eq!(
                    (m.file_type(), m.ino(), m.rdev()),
                    (before.file_type(), before.ino(), before.rdev()),
                    "{what}: {kind} replaced"
                );
            }
        }
    }
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn dash_is_stdout_where_one_file_is_written_and_refused_elsewhere() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (null_run(d.path(), "a"), null_run(d.path(), "b"));
    // a link to the process's own stdout, as /dev/stdout is (made here, not in /dev: on a
    // nines that replaced links, a test naming /dev/stdout would replace the system's)
    let so = d.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &so).unwrap();
    let outs = single_file_writers(&a, &b, "-").into_iter().chain(single_file_writers(&a, &b, s(&so)));
    for (what, cmd) in outs {
        let o = ok(nines_in(d.path(), &args(&cmd)));
        let text = String::from_utf8_lossy(&o.stdout);
        let whole = match what {
            "report" => text.starts_with("<!doctype html>") && text.ends_with("</html>\n"),
            "import" | "merge" => text.starts_with("#[Histogram log format version 1.3]") && text.ends_with('\n'),
            _ => text.starts_with("run_id,window_index,") && text.ends_with('\n'),
        };
        assert!(whole, "{cmd:?}: stdout is not the whole output: {}", &text[..text.len().min(300)]);
        // what the command says goes to stderr, so stdout is the output alone
        assert!(stderr(&o).contains("stdout"), "{what}: {}", said(&o));
        assert!(!d.path().join("-").exists(), "{what}: wrote a file named '-'");
        assert!(std::fs::symlink_metadata(&so).unwrap().file_type().is_symlink(), "{cmd:?}: replaced the link to stdout");
        // the archive written to stdout reads back
        if what == "import" || what == "merge" {
            let p = d.path().join(format!("{}.hlog", what));
            std::fs::write(&p, &o.stdout).unwrap();
            ok(nines_in(d.path(), &["stats", s(&p)]));
            std::fs::remove_file(&p).unwrap();
        }
    }
    // where stdout cannot hold the output (a directory of files, a file read back), '-' is
    // refused, and no file or directory named '-' appears
    let fio = fio_json();
    let refused: Vec<Vec<&str>> = vec![
        vec!["site", s(&a), "-o", "-"],
        vec!["export", s(&a), "--parquet", "-"],
        vec!["import", &fio, "--sweep", "-o", "-"],
        vec!["run", "--engine", "null", "--target", "t", "--size", "1MiB", "--runtime", "100ms", "--quiet", "-o", "-"],
        vec![
            "run",
            "--engine",
            "null",
            "--target",
            "t",
            "--size",
            "1MiB",
            "--runtime",
            "100ms",
            "--quiet",
            "-o",
            "x.hlog",
            "--raw-log",
            "-",
        ],
        vec!["curve", "--engine", "null", "--target", "t", "--size", "1MiB", "--runtime", "100ms", "--qd-ladder", "1,2", "-o", "-"],
    ];
    for cmd in refused {
        let o = nines_in(d.path(), &cmd);
        assert!(!o.status.success() && stderr(&o).contains("stdout"), "{cmd:?}: {}", said(&o));
        assert!(!d.path().join("-").exists(), "{cmd:?}: made '-'");
        assert!(!d.path().join("x.hlog").exists(), "{cmd:?}: left x.hlog");
    }
    // a link to another open file (stdin, read from a regular file) is neither written
    // through nor replaced
    let si = d.path().join("stdin");
    std::os::unix::fs::symlink("/proc/self/fd/0", &si).unwrap();
    let o = Command::new(nines_bin())
        .current_dir(d.path())
        .args(["report", s(&a), "-o", s(&si)])
        .stdin(std::fs::File::open(&b).unwrap())
        .output()
        .unwrap();
    assert!(!o.status.success() && stderr(&o).contains("/proc"), "{}", said(&o));
    assert!(std::fs::symlink_metadata(&si).unwrap().file_type().is_symlink());
}

/// `nines ARGS` under `umask U` (through sh, as a user's shell runs it).
fn nines_umask(dir: &Path, umask: &str, args: &[&str]) -> Output {
    let o = Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(nines_bin())
        .args(args)
        .output()
        .expect("sh runs");
    ok(o)
}

/// Every file and directory under `p` (and `p`): (path, mode bits).
fn modes(p: &Path) -> Vec<(PathBuf, u32)> {
    let m = std::fs::symlink_metadata(p).unwrap();
    let mut v = vec![(p.to_path_buf(), m.permissions().mode() & 0o7777)];
    if m.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            v.extend(modes(&e.unwrap().path()));
        }
    }
    v
}

#[test]
fn files_are_created_0666_and_directories_0777_less_the_umask() {
    for (umask, file, dir) in [("022", 0o644, 0o755), ("077", 0o600, 0o700)] {
        let d = tempfile::tempdir().unwrap();
        let w = d.path();
        let (a, b) = (null_run(w, "a"), null_run(w, "b"));
        let out = |n: &str| s(&w.join(n)).to_string();
        let cmds: Vec<(&str, Vec<String>, String)> = vec![
            ("report", vec!["report".into(), s(&a).into(), "-o".into(), out("r.html")], out("r.html")),
            ("site", vec!["site".into(), s(&a).into(), s(&b).into(), "-o".into(), out("site")], out("site")),
            ("import", vec!["import".into(), fio_json(), "-o".into(), out("i.hlog")], out("i.hlog")),
            ("import --sweep", vec!["import".into(), fio_json(), "--sweep".into(), "-o".into(), out("sweep")], out("sweep")),
            ("export --csv", vec!["export".into(), s(&a).into(), "--csv".into(), out("w.csv")], out("w.csv")),
            ("export --parquet", vec!["export".into(), s(&a).into(), s(&b).into(), "--parquet".into(), out("ds")], out("ds")),
            (
                "merge",
                vec![
                    "merge".into(),
                    s(&a).into(),
                    s(&b).into(),
                    "--label".into(),
                    "a".into(),
                    "--label".into(),
                    "b".into(),
                    "--regrid".into(),
                    "1s".into(),
                    "-o".into(),
                    out("m.hlog"),
                ],
                out("m.hlog"),
            ),
        ];
        let run = |o: &str, force: bool| {
            let mut v: Vec<String> =
                ["run", "--engine", "null", "--target", "t", "--size", "1MiB", "--runtime", "200ms", "--window", "100ms"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            v.extend(["--quiet".into(), "--no-summary".into(), "-o".into(), o.to_string()]);
            if force {
                v.push("--force".into());
            }
            v
        };
        let mut all = cmds;
        all.push(("run -o", run(&out("run.hlog"), false), out("run.hlog")));
        // run --force over an existing file (made under the umask of the test itself)
        std::fs::write(w.join("again.hlog"), b"old").unwrap();
        all.push(("run -o --force", run(&out("again.hlog"), true), out("again.hlog")));
        for (what, cmd, made) in all {
            nines_umask(w, umask, &args(&cmd));
            let got = modes(Path::new(&made));
            assert!(got.len() > 1 || what != "site" && what != "export --parquet" && what != "import --sweep", "{what}: {got:?}");
            for (p, mode) in got {
                let want = if p.is_dir() { dir } else { file };
                assert_eq!(mode, want, "{what} under umask {umask}: {} is {mode:o}, expected {want:o}", p.display());
            }
        }
    }
}

/// `FILE: exported as run ID: ...` (or `already exported as run ID`) lines of `nines export`.
fn exported_ids(said: &str) -> Vec<(String, String)> {
    said.lines()
        .filter_map(|l| {
            let (file, rest) = l.split_once(": exported as run ").or_else(|| l.split_once(": already exported as run "))?;
            Some((file.to_string(), rest.split([':', ' ']).next()?.to_string()))
        })
        .collect()
}

/// The distinct run ids of each table of the dataset holding them, read back by DuckDB, and
/// the layouts table's files.
fn dataset_runs(ds: &Path) -> [usize; 5] {
    let script = "import duckdb, sys\n\
        ds = sys.argv[1]\n\
        print(' '.join(str(duckdb.sql(f\"SELECT count(DISTINCT run_id) FROM read_parquet('{ds}/{t}/*.parquet')\").fetchall()[0][0]) for t in ['runs', 'windows', 'buckets', 'hours']))\n";
    let o = Command::new("python3").arg("-c").arg(script).arg(ds).output().expect("python3 runs");
    assert!(o.status.success(), "DuckDB: {}", said(&o));
    let v: Vec<usize> = String::from_utf8(o.stdout).unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
    [v[0], v[1], v[2], v[3], std::fs::read_dir(ds.join("layouts")).unwrap().count()]
}

/// No temporary file is left in the dataset.
fn no_temporary_files(ds: &Path) {
    for (p, _) in modes(ds) {
        assert!(!p.file_name().unwrap().to_string_lossy().ends_with(".tmp"), "left behind: {}", p.display());
    }
}

/// Start `nines export RUNS --parquet DS` for each list of runs at once; their outputs.
fn exports_at_once(dir: &Path, ds: &Path, lists: &[Vec<&Path>]) -> Vec<Output> {
    let children: Vec<_> = lists
        .iter()
        .map(|runs| {
            Command::new(nines_bin())
                .current_dir(dir)
                .arg("export")
                .args(runs.iter().map(|p| s(p)))
                .args(["--parquet", s(ds)])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children.into_iter().map(|c| c.wait_with_output().unwrap()).collect()
}

#[test]
fn concurrent_exports_into_one_dataset_keep_every_run() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let runs: Vec<PathBuf> = (0..21).map(|i| null_run(w, &format!("host{i:02}"))).collect();
    // 20 hosts export at once, each its own run and a shared one (the README's fleet recipe:
    // every host exports /shared/qos-*.hlog into one directory)
    let ds = w.join("ds");
    let lists: Vec<Vec<&Path>> = (1..21).map(|i| vec![runs[0].as_path(), runs[i].as_path()]).collect();
    let outs = exports_at_once(w, &ds, &lists);
    for o in &outs {
        assert!(o.status.success(), "{}", said(o));
        assert_eq!(exported_ids(&String::from_utf8_lossy(&o.stdout)).len(), 2, "{}", said(o));
    }
    assert_eq!(dataset_runs(&ds), [21; 5]);
    no_temporary_files(&ds);
    // 21 exports of one run each, at once, into a new dataset
    let ds = w.join("ds2");
    let lists: Vec<Vec<&Path>> = runs.iter().map(|r| vec![r.as_path()]).collect();
    for o in exports_at_once(w, &ds, &lists) {
        assert!(o.status.success(), "{}", said(&o));
    }
    assert_eq!(dataset_runs(&ds), [21; 5]);
    no_temporary_files(&ds);
    // the same run exported twice at once: both succeed, one file per table
    for (k, run) in runs.iter().take(5).enumerate() {
        let ds = w.join(format!("same{k}"));
        let outs = exports_at_once(w, &ds, &[vec![run.as_path()], vec![run.as_path()]]);
        for o in &outs {
            assert!(o.status.success(), "{}", said(o));
        }
        for t in ["runs", "windows", "buckets", "hours", "layouts"] {
            assert_eq!(std::fs::read_dir(ds.join(t)).unwrap().count(), 1, "{t}");
        }
    }
}

#[test]
fn a_link_planted_at_a_table_file_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let (a, b) = (null_run(w, "a"), null_run(w, "b"));
    // b's id, from an export elsewhere
    let o = ok(nines_in(w, &["export", s(&b), "--parquet", s(&w.join("scratch"))]));
    let id = exported_ids(&String::from_utf8_lossy(&o.stdout))[0].1.clone();
    let elsewhere = w.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    // a link at one table file, then at all three
    for tables in [&["buckets"][..], &["runs", "windows", "buckets"]] {
        let ds = w.join(format!("ds{}", tables.len()));
        ok(nines_in(w, &["export", s(&a), "--parquet", s(&ds)]));
        for t in tables {
            std::os::unix::fs::symlink(elsewhere.join(format!("{t}.parquet")), ds.join(t).join(format!("{id}.parquet"))).unwrap();
        }
        let o = nines_in(w, &["export", s(&b), "--parquet", s(&ds)]);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains("symbolic link") && err.contains(&format!("{id}.parquet")), "{tables:?}: {}", said(&o));
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "written through the link");
        for t in tables {
            assert!(std::fs::symlink_metadata(ds.join(t).join(format!("{id}.parquet"))).unwrap().file_type().is_symlink());
        }
    }
}

#[test]
fn a_table_file_of_the_same_id_with_other_rows_is_an_error_unless_forced() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let a = null_run(w, "a");
    let ds = w.join("ds");
    let o = ok(nines_in(w, &["export", s(&a), "--parquet", s(&ds)]));
    let id = exported_ids(&String::from_utf8_lossy(&o.stdout))[0].1.clone();
    let file = ds.join("windows").join(format!("{id}.parquet"));
    let good = std::fs::read(&file).unwrap();
    // exporting again: the same rows, nothing written
    let o = ok(nines_in(w, &["export", s(&a), "--parquet", s(&ds)]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("already exported"), "{}", said(&o));
    // another file under the run's id: an error naming it and --force, the file kept
    std::fs::write(&file, b"not the run's windows").unwrap();
    let o = nines_in(w, &["export", s(&a), "--parquet", s(&ds)]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains(s(&file)) && err.contains("--force"), "{}", said(&o));
    assert_eq!(std::fs::read(&file).unwrap(), b"not the run's windows");
    // --force writes the run's files again
    ok(nines_in(w, &["export", s(&a), "--parquet", s(&ds), "--force"]));
    assert_eq!(std::fs::read(&file).unwrap(), good);
}
