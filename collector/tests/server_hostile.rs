//! `nines view` and `nines run --live` while other local users attack the server: started
//! under a low descriptor limit, they face hundreds of idle connections, a client that
//! pipelines requests and never reads the answers, and a client that sends an endless header
//! line. The token holder's requests are still answered, the server's memory stays bounded,
//! the connection that never reads is dropped, and a live run ends with its summary.
//!
//! The time limits here only tell "answered" from "starved or hung" (the machine is shared
//! and noisy); the times taken are printed.

mod serving;

use std::io::{BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nines_tests::nines_bin;
use serde_json::Value;
use serving::{line_with, quiet, request, sigint, url_in, Killed, Resp};

/// A request answered later than this is starved (a generous bound, not a speed claim).
const SERVED_WITHIN: Duration = Duration::from_secs(10);
/// Idle connections held open against the server (more than its descriptor limit allows).
const IDLE: usize = 600;
/// The server's resident memory stays under this while attacked.
const RSS_BOUND_KB: u64 = 200 * 1024;
/// The header flood goes on until this many bytes went out, or for this long.
const FLOOD_BYTES: u64 = 256 << 20;
const FLOOD_FOR: Duration = Duration::from_secs(8);
/// A connection whose answers are never read is dropped within this (generous).
const DROPPED_WITHIN: Duration = Duration::from_secs(60);

/// `nines ARGS` under `ulimit -n NOFILE` (soft and hard), its output piped.
fn under_limit(nofile: u32, args: &[&str]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\"")).arg(nines_bin()).args(args);
    quiet(&mut c);
    c
}

/// A GET over a fresh connection with a deadline; the answer and how long it took.
fn timed_get(addr: SocketAddr, host: &str, path: &str) -> Result<(Resp, Duration), String> {
    let t0 = Instant::now();
    let s = TcpStream::connect_timeout(&addr, SERVED_WITHIN).map_err(|e| format!("GET {path}: could not connect: {e}"))?;
    s.set_read_timeout(Some(SERVED_WITHIN)).unwrap();
    s.set_write_timeout(Some(SERVED_WITHIN)).unwrap();
    let r = request(s, "GET", host, path, "").map_err(|e| format!("GET {path}: {e} after {:?}", t0.elapsed()))?;
    let took = t0.elapsed();
    if took > SERVED_WITHIN {
        return Err(format!("GET {path}: answered only after {took:?}"));
    }
    Ok((r, took))
}

/// Idle connections: `n` opened one after the other and held (never a byte sent) until
/// `stop`; how many connected.
fn hold_idle(addr: SocketAddr, n: usize, stop: Arc<AtomicBool>, tried: Arc<AtomicU64>) -> JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut held = Vec::with_capacity(n);
        for _ in 0..n {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
                held.push(s);
            }
            tried.fetch_add(1, Ordering::Relaxed);
        }
        let opened = held.len();
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
        }
        opened
    })
}

/// A client that pipelines `req` over one connection for as long as it can and never reads
/// an answer: how long until the server dropped the connection (None: not within
/// [`DROPPED_WITHIN`]), and the requests sent.
fn pipeline(addr: SocketAddr, req: String) -> JoinHandle<(Option<Duration>, u64)> {
    std::thread::spawn(move || {
        let t0 = Instant::now();
        let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else { return (None, 0) };
        s.set_write_timeout(Some(Duration::from_millis(200))).unwrap();
        let batch = req.repeat(64).into_bytes();
        let (mut at, mut sent) = (0, 0_u64);
        while t0.elapsed() < DROPPED_WITHIN {
            match s.write(&batch[at..]) {
                Ok(0) => return (Some(t0.elapsed()), sent / req.len() as u64),
                Ok(n) => {
                    sent += n as u64;
                    at = (at + n) % batch.len();
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
                // reset, broken pipe: the server closed it
                Err(_) => return (Some(t0.elapsed()), sent / req.len() as u64),
            }
        }
        (None, sent / req.len() as u64)
    })
}

/// A client that sends a request line and then one header line that never ends (no CRLF),
/// connecting again whenever the server closes; the bytes sent and the connections made.
fn flood_header(addr: SocketAddr, host: String, token: String) -> JoinHandle<(u64, u32)> {
    std::thread::spawn(move || {
        let t0 = Instant::now();
        let chunk = vec![b'a'; 64 * 1024];
        let (mut bytes, mut conns) = (0_u64, 0_u32);
        while bytes < FLOOD_BYTES && t0.elapsed() < FLOOD_FOR {
            let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            conns += 1;
            s.set_write_timeout(Some(Duration::from_millis(200))).unwrap();
            if s.write_all(format!("GET /{token}/ HTTP/1.1\r\nHost: {host}\r\nX-Flood: ").as_bytes()).is_err() {
                continue;
            }
            while bytes < FLOOD_BYTES && t0.elapsed() < FLOOD_FOR {
                match s.write(&chunk) {
                    Ok(0) => break,
                    Ok(n) => bytes += n as u64,
                    Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
                    Err(_) => break,
                }
            }
        }
        (bytes, conns)
    })
}

/// A process's resident memory (VmRSS, kB).
fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.trim().trim_end_matches("kB").trim().parse().ok()
}

/// The highest VmRSS of `pid` sampled every 20 ms until `stop`.
fn sample_rss(pid: u32, stop: Arc<AtomicBool>) -> JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut max = 0;
        while !stop.load(Ordering::Relaxed) {
            max = max.max(rss_kb(pid).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(20));
        }
        max
    })
}

/// What the attack did and what the server did meanwhile.
struct Attacked {
    /// The token holder's requests, each with the time it took.
    served: Vec<(String, Resp, Duration)>,
}

/// Attack the server at `host` (process `pid`) and make the token holder's requests `paths`
/// meanwhile, and once more after the flood; `pipelined` is the path the pipelining client
/// asks for again and again. Asserts every bound of this file.
fn attack(pid: u32, host: &str, token: &str, pipelined: &str, paths: &[String]) -> Attacked {
    let addr: SocketAddr = host.parse().unwrap();
    let before = rss_kb(pid).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let tried = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let idle = hold_idle(addr, IDLE, stop.clone(), tried.clone());
    // all tried, or long enough for a server that stopped accepting
    while tried.load(Ordering::Relaxed) < IDLE as u64 && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let rss_stop = Arc::new(AtomicBool::new(false));
    let rss = sample_rss(pid, rss_stop.clone());
    let pipe = pipeline(addr, format!("GET /{token}/{pipelined} HTTP/1.1\r\nHost: {host}\r\n\r\n"));
    let flood = flood_header(addr, host.to_string(), token.to_string());
    // the attack is under way
    std::thread::sleep(Duration::from_secs(1));
    let mut served = Vec::new();
    let mut ask = |when: &str| {
        for p in paths {
            let (r, took) = timed_get(addr, host, &format!("/{token}/{p}")).unwrap_or_else(|e| {
                panic!("{when}, the token holder was not served: {e} (idle connections tried: {})", tried.load(Ordering::Relaxed))
            });
            eprintln!("{when}: GET {p}: {} with {} bytes in {took:?}", r.status, r.body.len());
            assert_eq!(r.status, 200, "{when}: GET {p}: {}", r.headers);
            served.push((p.clone(), r, took));
        }
    };
    ask("under attack");
    let (flooded, conns) = flood.join().unwrap();
    let after = rss_kb(pid).unwrap();
    ask("after the header flood");
    rss_stop.store(true, Ordering::Relaxed);
    let max = rss.join().unwrap();
    let (dropped, requests) = pipe.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let opened = idle.join().unwrap();
    eprintln!(
        "idle connections opened {opened} of {IDLE}; header flood {} MB over {conns} connections; \
         the pipelining client sent {requests} requests, dropped after {dropped:?}; \
         server VmRSS {before} kB before, at most {max} kB during, {after} kB after the flood",
        flooded >> 20
    );
    assert!(max < RSS_BOUND_KB, "the server's memory grew to {max} kB (from {before} kB)");
    assert!(dropped.is_some(), "the connection that never reads its answers was not dropped within {DROPPED_WITHIN:?}");
    Attacked { served }
}

/// A fio latency log of 800,000 I/Os (about 20 MB): a run whose file is big to serve.
fn big_run(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("big_lat.1.log");
    let mut text = String::with_capacity(25 << 20);
    for i in 0..800_000_u64 {
        text.push_str(&format!("{}, {}, {}, 4096, 0\n", i / 100, 50_000 + (i * 7919) % 850_000, i % 2));
    }
    std::fs::write(&p, text).unwrap();
    p
}

fn stop_child(child: &mut Child) -> (std::process::ExitStatus, String) {
    sigint(child);
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    (status, out)
}

#[test]
fn view_under_a_low_descriptor_limit_serves_the_token_holder_while_attacked() {
    let d = tempfile::tempdir().unwrap();
    let big = big_run(d.path());
    let mut child = under_limit(256, &["view", "--no-open", big.to_str().unwrap()]).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let err = child.stderr.take().unwrap();
    let mut child = Killed(child);
    let mut seen = String::new();
    let (host, token) = url_in(&line_with(&mut out, "http://", &mut seen));
    let a = attack(child.0.id(), &host, &token, "runs/big_lat.1.log", &["manifest.json".into(), "runs/big_lat.1.log".into()]);
    let file = std::fs::read(&big).unwrap();
    for (p, r, _) in &a.served {
        if p == "manifest.json" {
            let m: Value = serde_json::from_slice(&r.body).unwrap();
            assert_eq!(m["runs"][0]["file"], "runs/big_lat.1.log", "{m}");
        } else {
            assert!(r.body == file, "{p}: {} bytes, not the file's {}", r.body.len(), file.len());
        }
    }
    child.0.stdout = Some(out.into_inner());
    let (status, rest) = stop_child(&mut child.0);
    let mut e = String::new();
    BufReader::new(err).read_to_string(&mut e).unwrap();
    eprintln!("nines view's stderr: {e}");
    assert!(status.success(), "{status}: {seen}{rest}{e}");
    assert!(rest.contains("stopped"), "{rest}");
}

#[test]
fn run_live_under_a_low_descriptor_limit_ends_with_its_summary_while_attacked() {
    let d = tempfile::tempdir().unwrap();
    let archive = d.path().join("live.hlog");
    let args = [
        "run",
        "--engine",
        "null",
        "--target",
        "unused",
        "--size",
        "1G",
        "--runtime",
        "15s",
        "--window",
        "250ms",
        "-o",
        archive.to_str().unwrap(),
        "-q",
        "--name",
        "live run",
        "--live",
        "--no-open",
    ];
    let mut child = under_limit(128, &args).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut child = Killed(child);
    let mut seen = String::new();
    let (host, token) = url_in(&line_with(&mut err, "http://", &mut seen));
    let a = attack(child.0.id(), &host, &token, "nines_viewer_bg.wasm", &["live.json".into(), "".into(), "nines_viewer_bg.wasm".into()]);
    for (p, r, _) in &a.served {
        if p == "live.json" {
            let l: Value = serde_json::from_slice(&r.body).unwrap();
            assert_eq!(l["runs"][0]["file"], "runs/live.hlog", "{l}");
        }
    }
    line_with(&mut err, "the run has ended; the page stays at", &mut seen);
    let (status, out) = stop_child(&mut child.0);
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(status.success(), "{status}: {seen}{rest}");
    assert!(out.contains("engine null, stopped by runtime"), "the summary: {out}{seen}{rest}");
    let run = nines_core::archive::read("live", &std::fs::read(&archive).unwrap()).unwrap();
    assert_eq!(run.windows.iter().filter(|w| w.tag.as_deref() == Some("read")).count(), 60, "every window of 15 s is in the archive");
}
