//! Helpers of the tests that drive `nines view` and `nines run --live` over HTTP (view.rs,
//! server_hostile.rs): the child process, the URL it prints, plain HTTP/1.1 requests.
// (each test file uses a part of them)
#![allow(dead_code)]

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use nines_tests::nines_bin;

/// A `nines` command with no browser to open.
pub fn nines_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(nines_bin());
    c.args(args);
    quiet(&mut c);
    c
}

/// No browser to open, and every output piped.
pub fn quiet(c: &mut Command) {
    c.env_remove("BROWSER").env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
}

/// Lines of a child's output until one containing `what` (that line is returned).
pub fn line_with(r: &mut impl BufRead, what: &str, seen: &mut String) -> String {
    loop {
        let mut l = String::new();
        let n = r.read_line(&mut l).unwrap();
        assert!(n > 0, "the output ended without {what:?}: {seen}");
        seen.push_str(&l);
        if l.contains(what) {
            return l;
        }
    }
}

/// The page URL `http://HOST:PORT/TOKEN/` in an announcement line.
pub fn url_in(line: &str) -> (String, String) {
    let u = line.split_whitespace().find(|w| w.starts_with("http://")).expect("a URL").to_string();
    let rest = u.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    (host.to_string(), path.trim_end_matches('/').to_string())
}

pub struct Resp {
    pub status: u16,
    pub headers: String,
    pub body: Vec<u8>,
}

/// One HTTP/1.1 request over a fresh connection (Connection: close).
pub fn get(host: &str, path: &str, extra: &str) -> Resp {
    try_get(host, path, extra).unwrap_or_else(|e| panic!("GET {path} from {host}: {e}"))
}

/// [`get`], or the connection's error (a server not listening yet).
pub fn try_get(host: &str, path: &str, extra: &str) -> std::io::Result<Resp> {
    request(TcpStream::connect(host)?, "GET", host, path, extra)
}

/// A request over a connection, read until the server closes it.
pub fn request(mut s: TcpStream, method: &str, host: &str, path: &str, extra: &str) -> std::io::Result<Resp> {
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\r\n")?;
    let mut all = Vec::new();
    s.read_to_end(&mut all)?;
    let Some(split) = all.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Err(std::io::Error::other(format!("no header end in {} bytes: {:?}", all.len(), String::from_utf8_lossy(&all))));
    };
    let headers = String::from_utf8_lossy(&all[..split + 4]).to_string();
    let status = headers.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut body = all[split + 4..].to_vec();
    if headers.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = unchunk(&body);
    }
    Ok(Resp { status, headers, body })
}

pub fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let nl = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..nl]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + n]);
        b = &b[nl + 2 + n + 2..];
    }
}

pub fn header<'a>(r: &'a Resp, name: &str) -> Option<&'a str> {
    r.headers.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

pub fn sigint(child: &Child) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
}

/// A child killed (and reaped) when the test ends, however it ends.
pub struct Killed(pub Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
