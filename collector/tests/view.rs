//! `nines view` and `nines run --live` end to end: the server on loopback serves the page,
//! the manifest and the runs behind its token and nothing without it, stops with status 0
//! on SIGINT, and a real Prometheus scrapes /metrics of a live run. What the page does in a
//! browser is tested in tests/browser/live.test.mjs.

mod serving;

use std::io::{BufReader, Read};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nines_tests::{nines_ok, root};
use serde_json::Value;
use serving::{get, header, line_with, nines_cmd, sigint, try_get, url_in, Killed};

/// A short real run: io_uring on a temporary file.
fn real_run(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(format!("{name}.hlog"));
    let target = dir.join("target.dat");
    nines_ok(&[
        "run",
        "--target",
        target.to_str().unwrap(),
        "--size",
        "16M",
        "--rw",
        "randrw",
        "--mix",
        "70",
        "--qd",
        "4",
        "--runtime",
        "1500ms",
        "--window",
        "250ms",
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--no-summary",
        "--name",
        name,
    ]);
    out
}

#[test]
fn view_serves_the_runs_behind_its_token_only_and_stops_on_sigint() {
    let d = tempfile::tempdir().unwrap();
    let a = real_run(d.path(), "uring run");
    let fio = root().join("tests/data/fio-randrw_clat.1.log");
    let mut child = nines_cmd(&["view", a.to_str().unwrap(), fio.to_str().unwrap()]).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let line = line_with(&mut out, "http://", &mut seen);
    assert!(line.starts_with("serving 2 runs at http://127.0.0.1:"), "{line}");
    let (host, token) = url_in(&line);
    assert_eq!(token.len(), 32, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    // no display and no $BROWSER: the URL is printed to open by hand
    line_with(&mut out, "open that URL in a browser", &mut seen);

    let t = |p: &str| format!("/{token}/{p}");
    let index = get(&host, &t(""), "");
    assert_eq!(index.status, 200);
    assert!(String::from_utf8_lossy(&index.body).contains("<title>nines viewer</title>"));
    assert_eq!(header(&index, "referrer-policy"), Some("no-referrer"));
    let wasm = get(&host, &t("nines_viewer_bg.wasm"), "");
    assert_eq!((wasm.status, header(&wasm, "content-type")), (200, Some("application/wasm")));
    assert_eq!(&wasm.body[..4], b"\0asm");
    for f in ["style.css", "worker.js", "nines_viewer.js", "index.html", "nines_worker.js"] {
        assert_eq!(get(&host, &t(f), "").status, 200, "{f}");
    }
    let worker = get(&host, &t("nines_worker_bg.wasm"), "");
    assert_eq!((worker.status, header(&worker, "content-type")), (200, Some("application/wasm")));
    assert_eq!(&worker.body[..4], b"\0asm");
    let manifest: Value = serde_json::from_slice(&get(&host, &t("manifest.json"), "").body).unwrap();
    let runs = manifest["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{manifest}");
    assert_eq!(runs[0]["file"], "runs/uring_run.hlog");
    assert_eq!(runs[0]["name"], "uring run");
    assert_eq!(runs[1]["file"], "runs/fio-randrw_clat.1.log");
    let mut paths = Vec::new();
    for (e, src) in runs.iter().zip([&a, &fio]) {
        let file = e["file"].as_str().unwrap();
        let r = get(&host, &t(file), "");
        assert_eq!(r.status, 200);
        assert_eq!(r.body, std::fs::read(src).unwrap(), "{file} is the file as it is");
        // the compact form, as `nines site` writes it, made natively
        let compact = e["compact"].as_str().unwrap();
        assert_eq!(compact, format!("{file}.compact"));
        let c = get(&host, &t(compact), "");
        assert!(nines_core::compact::sniff(&c.body), "{compact}");
        let form = nines_core::compact::Compact::read(compact, &c.body).unwrap();
        let run = nines_core::import::read_any("x", &std::fs::read(src).unwrap()).unwrap();
        let st = nines_core::stats::Options::default();
        let total = |r: &nines_core::run::Run| nines_core::stats::run_stats(r, &st).tags.get("all").map(|s| s.count);
        assert_eq!(total(&form.run), total(&run), "{compact} carries every I/O");
        // the page fetches the bytes before the groups first, and the groups when a range
        // needs them: two range requests that give the whole form
        let at = e["compact_groups_at"].as_u64().unwrap() as usize;
        assert_eq!(form.groups_at(), Some(at));
        let head = get(&host, &t(compact), &format!("Range: bytes=0-{}\r\n", at - 1));
        assert_eq!((head.status, &head.body[..]), (206, &c.body[..at]));
        assert_eq!(header(&head, "content-range"), Some(format!("bytes 0-{}/{}", at - 1, c.body.len()).as_str()));
        let groups = get(&host, &t(compact), &format!("Range: bytes={at}-\r\n"));
        assert_eq!((groups.status, &groups.body[..]), (206, &c.body[at..]));
        assert_eq!(header(&r, "accept-ranges"), Some("bytes"));
        paths.push(file.to_string());
        paths.push(compact.to_string());
    }
    assert_eq!(get(&host, &t("runs/elsewhere.hlog"), "").status, 404);
    assert_eq!(get(&host, &t("../../etc/passwd"), "").status, 404);

    // /metrics with the token, as a query parameter or a bearer token
    let m = get(&host, &format!("/metrics?token={token}"), "");
    assert_eq!(m.status, 200);
    assert_eq!(header(&m, "content-type"), Some("application/openmetrics-text; version=1.0.0; charset=utf-8"));
    let text = String::from_utf8(m.body).unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");
    let stats: Value = serde_json::from_str(&nines_ok(&["stats", "--json", a.to_str().unwrap()])).unwrap();
    for dir in ["read", "write"] {
        let n = stats["runs"][0]["tags"][dir]["count"].as_u64().unwrap();
        let line = format!("nines_ios_total{{run=\"uring run\",dir=\"{dir}\"}} {n}\n");
        assert!(text.contains(&line), "{line} in {text}");
        let bytes = format!("nines_bytes_total{{run=\"uring run\",dir=\"{dir}\"}} {}\n", n * 4096);
        assert!(text.contains(&bytes), "{bytes} in {text}");
    }
    assert_eq!(get(&host, "/metrics", &format!("Authorization: Bearer {token}\r\n")).status, 200);

    // without the token, or with another one: 403 and nothing else, on every path
    let mut wrong = token.clone().into_bytes();
    wrong[31] = if wrong[31] == b'0' { b'1' } else { b'0' };
    let wrong = String::from_utf8(wrong).unwrap();
    let mut tried = vec!["/".to_string(), "/index.html".into(), "/manifest.json".into(), "/metrics".into()];
    tried.extend(paths.iter().map(|p| format!("/{p}")));
    for p in ["", "index.html", "manifest.json", "live.json", "style.css", "nines_viewer_bg.wasm", "runs/elsewhere.hlog"]
        .into_iter()
        .map(str::to_string)
        .chain(paths.iter().cloned())
    {
        tried.push(format!("/{wrong}/{p}"));
        tried.push(format!("/{}/{p}", &token[..31]));
        tried.push(format!("/x{token}/{p}"));
    }
    tried.push(format!("/metrics?token={wrong}"));
    tried.push(format!("/metrics?token={}", &token[..16]));
    for p in &tried {
        let r = get(&host, p, "");
        assert_eq!((r.status, r.body.len()), (403, 0), "{p}");
    }
    // a browser's request for the icon, at the root: an empty answer, not a refusal it logs
    let icon = get(&host, "/favicon.ico", "");
    assert_eq!((icon.status, icon.body.len()), (204, 0));
    let r = get(&host, "/metrics", &format!("Authorization: Bearer {wrong}\r\n"));
    assert_eq!((r.status, r.body.len()), (403, 0));
    let r = get(&host, &format!("/{wrong}/index.html"), &format!("Authorization: Bearer {token}\r\n"));
    assert_eq!(r.status, 403, "a bearer token does not open the page's paths");

    sigint(&child);
    let status = child.wait().unwrap();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(status.success(), "{status}: {seen}{rest}{err}");
    assert!(rest.contains("stopped"), "{rest}");
    // the port is closed
    assert!(TcpStream::connect(&host).is_err());
}

#[test]
fn bind_says_it_exposes_the_runs() {
    let fio = root().join("tests/data/java-rw.hlog");
    let mut child = nines_cmd(&["view", fio.to_str().unwrap(), "--bind", "0.0.0.0", "--no-open"]).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let warn = line_with(&mut out, "--bind", &mut seen);
    assert!(warn.contains("--bind 0.0.0.0:0 exposes the runs to anyone who can reach"), "{warn}");
    let line = line_with(&mut out, "http://", &mut seen);
    let (host, token) = url_in(&line);
    assert_eq!(get(&host, &format!("/{token}/manifest.json"), "").status, 200);
    assert_eq!(get(&host, "/manifest.json", "").status, 403);
    sigint(&child);
    assert!(child.wait().unwrap().success());

    // loopback is not announced as exposed
    let mut child = nines_cmd(&["view", fio.to_str().unwrap(), "--bind", "127.0.0.1", "--no-open"]).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    line_with(&mut out, "http://", &mut seen);
    assert!(!seen.contains("exposes"), "{seen}");
    sigint(&child);
    assert!(child.wait().unwrap().success());

    // --bind serves a run: without --live it is refused
    let d = tempfile::tempdir().unwrap();
    let o = nines_cmd(&["run", "--target", "x", "--size", "1M", "-o", d.path().join("r.hlog").to_str().unwrap(), "--bind", "0.0.0.0"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("need --live"), "{}", String::from_utf8_lossy(&o.stderr));
    // a file that is not a run is refused before anything is served
    let o = nines_cmd(&["view", "/etc/hostname"]).output().unwrap();
    assert!(!o.status.success() && o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/etc/hostname: line 1: format not recognised"));
}

/// A free loopback port (bound, then let go, for Prometheus to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Prometheus' answer to an instant query: (labels, value) per series.
fn prom_query(prom: &str, q: &str) -> Vec<(Value, f64)> {
    let enc: String = q
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"_-.".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    // (Prometheus takes a moment to listen)
    let Ok(r) = try_get(prom, &format!("/api/v1/query?query={enc}"), "") else { return Vec::new() };
    if r.status != 200 {
        return Vec::new();
    }
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    v["data"]["result"]
        .as_array()
        .map(|a| a.iter().map(|s| (s["metric"].clone(), s["value"][1].as_str().unwrap().parse().unwrap())).collect())
        .unwrap_or_default()
}

#[test]
fn prometheus_scrapes_a_followed_run() {
    let prometheus = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].into_iter().find(|p| Path::new(p).exists());
    let prometheus = prometheus.expect("no prometheus: scripts/setup.sh installs the Debian package");
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("target.dat");
    let archive = d.path().join("live.hlog");
    // the server follows the archive before the run begins, so that Prometheus is up and
    // scraping when the first window lands
    let mut child = nines_cmd(&["view", "--follow", archive.to_str().unwrap(), "--no-open"]).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let line = line_with(&mut out, "http://", &mut seen);
    assert!(line.starts_with("following 1 run at "), "{line}");
    let (host, token) = url_in(&line);
    let mut view = Killed(child);

    // two jobs: the token as a parameter and as a bearer token (Prometheus' `params` and
    // `authorization`)
    let port = free_port();
    let cfg = d.path().join("prometheus.yml");
    std::fs::write(
        &cfg,
        format!(
            "global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n\
             - job_name: param\n  params:\n    token: ['{token}']\n  static_configs:\n  - targets: ['{host}']\n\
             - job_name: bearer\n  authorization:\n    credentials: '{token}'\n  static_configs:\n  - targets: ['{host}']\n"
        ),
    )
    .unwrap();
    let prom_host = format!("127.0.0.1:{port}");
    let prom = Command::new(prometheus)
        .args([
            &format!("--config.file={}", cfg.display()),
            &format!("--storage.tsdb.path={}", d.path().join("tsdb").display()),
            &format!("--web.listen-address={prom_host}"),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(d.path().join("prometheus.log")).unwrap()))
        .spawn()
        .unwrap();
    let _prom = Killed(prom);
    // both jobs scrape the server successfully (up == 1) before the run starts
    let mut up = Vec::new();
    for _ in 0..600 {
        up = prom_query(&prom_host, "up");
        if up.len() == 2 && up.iter().all(|(_, v)| *v == 1.0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(up.len() == 2 && up.iter().all(|(_, v)| *v == 1.0), "Prometheus does not scrape nines: {up:?}");

    // a real run of 8 s in 500 ms windows, written while Prometheus scrapes
    let mut run = nines_cmd(&[
        "run",
        "--target",
        target.to_str().unwrap(),
        "--size",
        "16M",
        "--rw",
        "randrw",
        "--mix",
        "70",
        "--qd",
        "4",
        "--runtime",
        "8s",
        "--window",
        "500ms",
        "-o",
        archive.to_str().unwrap(),
        "-q",
        "--no-summary",
        "--name",
        "live run",
    ])
    .spawn()
    .unwrap();
    let mut values: Vec<f64> = Vec::new();
    let status = loop {
        if let Some((_, v)) = prom_query(&prom_host, "sum(nines_ios_total{job=\"param\"})").first() {
            if values.last() != Some(v) {
                values.push(*v);
            }
        }
        if let Some(st) = run.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(status.success(), "nines run: {status}");
    // the counter grew at least twice while the run went
    assert!(values.len() >= 3 && values.windows(2).all(|w| w[1] > w[0]), "ios in Prometheus while the run went: {values:?}");

    // the final counters, the archive's
    let run = nines_core::archive::read("live", &std::fs::read(&archive).unwrap()).unwrap();
    let st = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    for job in ["param", "bearer"] {
        for dir in ["read", "write"] {
            let want = st.tags.get(dir).unwrap().count as f64;
            let q = format!("nines_ios_total{{job=\"{job}\",dir=\"{dir}\",run=\"live run\"}}");
            let mut got = None;
            for _ in 0..300 {
                got = prom_query(&prom_host, &q).first().map(|(_, v)| *v);
                if got == Some(want) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            assert_eq!(got, Some(want), "{q}");
            let b = prom_query(&prom_host, &format!("nines_bytes_total{{job=\"{job}\",dir=\"{dir}\"}}"));
            assert_eq!(b.first().map(|x| x.1), Some(want * 4096.0), "{job} {dir} bytes");
            let n = prom_query(&prom_host, &format!("nines_windows_total{{job=\"{job}\",dir=\"{dir}\"}}"));
            let windows = run.windows.iter().filter(|w| w.tag.as_deref() == Some(dir)).count() as f64;
            assert_eq!(n.first().map(|x| x.1), Some(windows), "{job} {dir} windows");
        }
    }
    // the last window's levels, as nines-core computes them on the archive's last window
    for dir in ["read", "write"] {
        let last = run.windows.iter().rev().find(|w| w.tag.as_deref() == Some(dir)).unwrap();
        let levels = nines_core::quantile::level_stats(&last.hist, &nines_core::quantile::standard_levels());
        let got = prom_query(&prom_host, &format!("nines_last_window_latency_seconds{{job=\"param\",dir=\"{dir}\"}}"));
        let with_support: Vec<_> = levels.iter().filter(|l| l.support != nines_core::quantile::Support::None).collect();
        assert!(with_support.len() >= 3, "{dir}: p50, p90 and p99 at least");
        assert_eq!(got.len(), with_support.len(), "{dir}: {got:?}");
        for l in with_support {
            let (_, v) = got.iter().find(|(m, _)| m["level"] == l.label.as_str()).unwrap_or_else(|| panic!("{dir} {}", l.label));
            let want = l.value_ns.unwrap() as f64 / 1e9;
            assert!((v - want).abs() <= 1e-12 * want, "{dir} {}: {v} vs {want}", l.label);
        }
        let max = prom_query(&prom_host, &format!("nines_last_window_max_latency_seconds{{job=\"param\",dir=\"{dir}\"}}"));
        assert!((max[0].1 - last.hist.max() as f64 / 1e9).abs() <= 1e-12 * max[0].1);
    }
    sigint(&view.0);
    let status = view.0.wait().unwrap();
    assert!(status.success(), "{status}: {seen}");
}

#[test]
fn run_live_serves_the_run_being_written_and_stops_with_it_on_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("target.dat");
    let archive = d.path().join("live.hlog");
    // an earlier archive at -o, replaced with --force: never served
    std::fs::copy(root().join("tests/data/java-rw.hlog"), &archive).unwrap();
    let args = |runtime: &str| {
        vec![
            "run".to_string(),
            "--target".into(),
            target.to_str().unwrap().into(),
            "--size".into(),
            "16M".into(),
            "--rw".into(),
            "randread".into(),
            "--runtime".into(),
            runtime.into(),
            "--window".into(),
            "250ms".into(),
            "-o".into(),
            archive.to_str().unwrap().into(),
            "--force".into(),
            "-q".into(),
            "--name".into(),
            "live run".into(),
            "--live".into(),
        ]
    };
    let a = args("2s");
    let mut child = nines_cmd(&a.iter().map(String::as_str).collect::<Vec<_>>()).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let line = line_with(&mut err, "http://", &mut seen);
    assert!(line.starts_with("live: serving the run as it is written at http://127.0.0.1:"), "{line}");
    let (host, token) = url_in(&line);
    let mut counts = Vec::new();
    for _ in 0..200 {
        let l: Value = serde_json::from_slice(&get(&host, &format!("/{token}/live.json"), "").body).unwrap();
        assert_ne!(l["runs"][0]["name"], "java-rw", "the earlier archive was served: {l}");
        counts.push(l["runs"][0]["windows"].as_u64().unwrap());
        if l["done"] == true {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    line_with(&mut err, "the run has ended; the page stays at", &mut seen);
    let l: Value = serde_json::from_slice(&get(&host, &format!("/{token}/live.json"), "").body).unwrap();
    assert_eq!(l["done"], true);
    let run = nines_core::archive::read("x", &std::fs::read(&archive).unwrap()).unwrap();
    assert_eq!(run.name, "live run");
    assert_eq!(l["runs"][0]["windows"].as_u64().unwrap(), 8, "{l}");
    assert!(counts.windows(2).all(|w| w[1] >= w[0]) && counts.iter().any(|&c| c > 0 && c < 8), "{counts:?}");
    // the served archive is the file as written, its compact form beside it
    let served = get(&host, &format!("/{token}/runs/live.hlog"), "");
    assert_eq!(header(&served, "x-nines-windows"), Some("8"));
    assert_eq!(served.body, std::fs::read(&archive).unwrap());
    sigint(&child);
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(status.success(), "{status}: {seen}");
    assert!(out.contains("engine ") && out.contains("stopped by runtime"), "the summary: {out}");

    // Ctrl-C during the run ends the run (its archive complete) and the server with it
    let a = args("1m");
    let mut child = nines_cmd(&a.iter().map(String::as_str).collect::<Vec<_>>()).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let (host, token) = url_in(&line_with(&mut err, "http://", &mut seen));
    for _ in 0..400 {
        let l: Value = serde_json::from_slice(&get(&host, &format!("/{token}/live.json"), "").body).unwrap();
        if l["runs"][0]["windows"].as_u64().unwrap() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    sigint(&child);
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(status.success(), "{status}: {seen}");
    assert!(out.contains("stopped by SIGINT"), "{out}");
    assert!(TcpStream::connect(&host).is_err(), "the server stopped with the run");
    assert!(nines_core::archive::read("x", &std::fs::read(&archive).unwrap()).unwrap().windows.len() >= 2);
}

/// `nines view` of a site's directory serves the runs its manifest lists; of the files under
/// its `runs/` (an archive and its compact form), each run once; a plain directory, or a
/// manifest naming a file outside its site, is an error that names it.
#[test]
fn view_of_a_site_serves_its_runs_and_a_compact_form_beside_its_archive_is_one_run() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (real_run(d.path(), "a"), real_run(d.path(), "b"));
    let site = d.path().join("site");
    nines_ok(&["site", a.to_str().unwrap(), b.to_str().unwrap(), "-o", site.to_str().unwrap()]);
    let served = |args: &[&str]| -> (Value, String) {
        let mut child = nines_cmd(&[&["view"], args].concat()).spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut seen = String::new();
        let line = line_with(&mut out, "http://", &mut seen);
        let (host, token) = url_in(&line);
        let manifest: Value = serde_json::from_slice(&get(&host, &format!("/{token}/manifest.json"), "").body).unwrap();
        sigint(&child);
        assert!(child.wait().unwrap().success());
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (manifest, err)
    };
    let names =
        |m: &Value| -> Vec<String> { m["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect() };
    let (m, _) = served(&[site.to_str().unwrap()]);
    assert_eq!(names(&m), ["a", "b"], "{m}");
    // every file of runs/: each archive with its compact form beside it
    let mut files: Vec<String> =
        std::fs::read_dir(site.join("runs")).unwrap().map(|e| e.unwrap().path().to_str().unwrap().to_string()).collect();
    files.sort();
    assert!(files.iter().any(|f| f.ends_with(".compact")), "{files:?}");
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let (m, err) = served(&args);
    assert_eq!(names(&m), ["a", "b"], "{m}");
    assert!(err.contains("is the compact form of"), "{err}");

    // not a site: the directory is named, and what to give instead
    let plain = d.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let out = nines_cmd(&["view", plain.to_str().unwrap()]).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("without a manifest.json") && e.contains(plain.to_str().unwrap()), "{e}");
    // a manifest naming a file outside the site
    std::fs::write(plain.join("manifest.json"), r#"{"runs":[{"file":"../a.hlog"}]}"#).unwrap();
    let out = nines_cmd(&["view", plain.to_str().unwrap()]).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("\"../a.hlog\" is not a path inside the site"), "{e}");
}
