//! `nines view` and `nines run --live`: the runs served to the browser from a loopback HTTP
//! server, laid out as `nines site` writes a site (the viewer's files, `manifest.json`,
//! `runs/NAME` and each run's compact form `runs/NAME.compact`) but held in memory, so that
//! the page loads them as it loads any site's runs.
//!
//! Security: the server listens on 127.0.0.1 unless `--bind` says otherwise; every path is
//! under a random 128-bit token (`/TOKEN/index.html`, printed on start), and `/metrics` takes
//! the same token as `?token=` or `Authorization: Bearer`. A request without the token, or
//! with another one, gets 403 and an empty body, whatever its path. Only GET and HEAD of the
//! named runs and the viewer's files are answered: nothing is written, nothing else is read.
//!
//! Following (`--follow`, `--live`): a thread looks at each file's size and modification
//! time five times a second and reads it again when it changed (less often when a large file
//! takes long to read: it waits four times as long as the last read took); `live.json` says how many
//! windows and bytes each run has, and the page's `live.js` (collector/src/view/live.js) fetches a run's
//! compact form again when its count grows and hands it to the viewer (`replace_run`). A
//! file being written may end in a cut line: nines-core reads it as a warning, and the
//! windows before it are served.

mod http;
pub mod metrics;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue};
use nines_core::run::Run;
use rand::RngCore;
use serde_json::json;

use crate::cli::view::{ServeFlags, ViewArgs};
use crate::load;
use crate::report::{budget, bundle, file_name, site::safe_name};

/// The page's follower, a part of the viewer shell kept beside the others in static/.
const LIVE_JS: &str = include_str!("live.js");
/// How often a followed file is looked at.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);
/// How often `nines view` looks whether it was asked to stop.
const POLL: Duration = Duration::from_millis(100);

/// One run served.
struct Served {
    path: PathBuf,
    /// `runs/NAME`: the archive; `runs/NAME.compact` its compact form.
    rel: String,
    /// The run's own name, and the one the page shows (distinct from the others').
    given: String,
    name: String,
    archive: Arc<Vec<u8>>,
    compact: Option<Arc<Vec<u8>>>,
    /// Where the compact form's groups and its recorded windows begin: the page of a site
    /// fetches the bytes before the groups first (an HTTP range request), the groups when a
    /// range needs them, and the windows of the groups a range cuts.
    groups_at: Option<(usize, Option<usize>)>,
    run: Option<Arc<Run>>,
    windows: usize,
    /// What the file looked like when read (size, modification time).
    seen: Option<(u64, Option<SystemTime>)>,
    /// Why the last read failed (a followed file that is not there yet, or not readable).
    error: Option<String>,
    /// A file at the path before the run to follow began (device, inode): not followed.
    stale: Option<(u64, u64)>,
}

/// Everything served, shared by the request threads and the follower.
struct Site {
    runs: Vec<Served>,
    follow: bool,
    /// The run being followed is finished (`nines run --live`).
    done: bool,
}

impl Site {
    /// With `fresh`, a file already at a followed path is an earlier one that the writer
    /// replaces: it is not read.
    fn new(files: &[PathBuf], follow: bool, fresh: bool) -> Result<Site> {
        let mut runs: Vec<Served> = Vec::with_capacity(files.len());
        for f in files {
            let base = safe_name(&file_name(f));
            let (stem, ext) = match base.rfind('.') {
                Some(i) if i > 0 => (&base[..i], &base[i..]),
                _ => (base.as_str(), ""),
            };
            let mut rel = format!("runs/{base}");
            let mut n = 1;
            while runs.iter().any(|r| r.rel == rel) {
                n += 1;
                rel = format!("runs/{stem}-{n}{ext}");
            }
            let mut s = Served {
                path: f.clone(),
                rel,
                given: String::new(),
                name: String::new(),
                archive: Arc::new(Vec::new()),
                compact: None,
                groups_at: None,
                run: None,
                windows: 0,
                seen: None,
                error: None,
                stale: None,
            };
            if fresh {
                s.stale = crate::sys::id_of_link(f).ok();
            }
            if follow {
                // a file another process has yet to create or fill is waited for
                if let Err(e) = refresh(&mut s) {
                    s.error = Some(format!("{e:#}"));
                }
            } else {
                let (run, bytes) = load::load_with_bytes(f)?;
                set_run(&mut s, run, bytes)?;
            }
            runs.push(s);
        }
        let mut site = Site { runs, follow, done: false };
        site.name_runs();
        Ok(site)
    }

    fn name_runs(&mut self) {
        let files: Vec<String> = self.runs.iter().map(|r| file_name(&r.path)).collect();
        let pairs: Vec<(&str, &str)> = self.runs.iter().zip(&files).map(|(r, f)| (r.given.as_str(), f.as_str())).collect();
        let names = nines_core::run::distinct_names(&pairs);
        for (r, n) in self.runs.iter_mut().zip(names) {
            r.name = n;
        }
    }

    /// The site's manifest: the runs that have windows, each with its compact form and, when
    /// the runs are not followed, where its groups begin. (A followed run's form is written
    /// again as it grows: a page that read the bytes before the groups of one version must
    /// not be sent the groups of the next.)
    fn manifest(&self) -> serde_json::Value {
        let runs: Vec<_> = self
            .runs
            .iter()
            .filter(|r| r.windows > 0)
            .map(|r| {
                let mut e = json!({ "file": r.rel, "name": r.name });
                if r.compact.is_some() {
                    e["compact"] = json!(format!("{}.compact", r.rel));
                    if let Some((at, wat)) = r.groups_at.filter(|_| !self.follow) {
                        e["compact_groups_at"] = json!(at);
                        if let Some(w) = wat {
                            e["compact_windows_at"] = json!(w);
                        }
                    }
                }
                e
            })
            .collect();
        json!({ "runs": runs })
    }

    /// What `live.js` polls: per run its window count and the size read.
    fn live(&self) -> serde_json::Value {
        let runs: Vec<_> = self
            .runs
            .iter()
            .map(|r| {
                json!({
                    "file": r.rel,
                    "compact": r.compact.as_ref().map(|_| format!("{}.compact", r.rel)),
                    "name": r.name,
                    "windows": r.windows,
                    "bytes": r.archive.len(),
                    "error": r.error,
                })
            })
            .collect();
        json!({ "follow": self.follow, "done": self.done, "runs": runs })
    }
}

/// Take a run read from its file.
fn set_run(s: &mut Served, run: Run, bytes: Vec<u8>) -> Result<()> {
    s.windows = windows(&run);
    s.compact = if run.windows.is_empty() { None } else { Some(Arc::new(budget::default_compact(&run, None)?.0)) };
    s.groups_at = match &s.compact {
        Some(c) => {
            let form = nines_core::compact::Compact::read(&s.rel, c)?;
            form.groups_at().map(|at| (at, form.windows_at()))
        }
        None => None,
    };
    s.given.clone_from(&run.name);
    s.run = Some(Arc::new(run));
    s.archive = Arc::new(bytes);
    s.error = None;
    Ok(())
}

/// A run's windows: its distinct start times (a window has a line per direction).
fn windows(run: &Run) -> usize {
    let mut starts: Vec<u64> = run.windows.iter().map(|w| w.start_s.to_bits()).collect();
    starts.sort_unstable();
    starts.dedup();
    starts.len()
}

/// Read a followed file again if it changed since it was last read; whether it did.
fn refresh(s: &mut Served) -> Result<bool> {
    let m = std::fs::metadata(&s.path).with_context(|| format!("waiting for '{}'", s.path.display()))?;
    if s.stale.is_some() {
        if s.stale == crate::sys::id_of_path(&s.path).ok() {
            anyhow::bail!("waiting for '{}' to be written", s.path.display());
        }
        s.stale = None;
    }
    let now = (m.len(), m.modified().ok());
    if s.seen == Some(now) {
        return Ok(false);
    }
    s.seen = Some(now);
    if m.len() == 0 {
        return Ok(false);
    }
    // read within load.rs' bounds; the warnings (a cut last line) are expected while the
    // file is written, so they are not printed
    let (name, format, bytes) = load::read_input(&s.path)?;
    let run = match load::parse(&name, format, &bytes, &nines_core::import::Options::default()) {
        Ok(run) => run,
        // a run's archive holds its header before its first window closes: being written,
        // not bad, so it is waited for as quietly as a file not there yet
        Err(e) if no_window_yet(&e) => anyhow::bail!("waiting for the first window of '{}'", s.path.display()),
        Err(e) => return Err(e),
    };
    set_run(s, run, bytes)?;
    Ok(true)
}

/// Is this the error of an interval log that has no window (yet)?
fn no_window_yet(e: &anyhow::Error) -> bool {
    use nines_core::archive::{ArchiveError, ArchiveErrorKind};
    use nines_core::import::LoadError;
    let empty = |a: &ArchiveError| a.kind == ArchiveErrorKind::Empty;
    e.chain().any(|c| {
        c.downcast_ref::<ArchiveError>().is_some_and(empty)
            || matches!(c.downcast_ref::<LoadError>(), Some(LoadError::Archive(a)) if empty(a))
    })
}

/// A fresh token: 128 bits from the operating system's generator, in hex.
fn token() -> String {
    let mut b = [0_u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Equal, in a time that does not depend on where they differ (the length is public: every
/// token has 32 characters).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An answer to a request.
struct Reply {
    status: u16,
    ctype: &'static str,
    body: Body,
    /// Extra headers (name, value).
    headers: Vec<(&'static str, String)>,
}

enum Body {
    Static(&'static [u8]),
    Owned(Vec<u8>),
    Shared(Arc<Vec<u8>>),
    /// A range of shared bytes (a 206 answer).
    Part(Arc<Vec<u8>>, std::ops::Range<usize>),
}

/// Shared bytes as the owner of a [`Bytes`] (which then shares them instead of copying).
struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Body {
    #[cfg(test)]
    fn bytes(&self) -> &[u8] {
        match self {
            Body::Static(b) => b,
            Body::Owned(b) => b,
            Body::Shared(b) => b,
            Body::Part(b, r) => &b[r.clone()],
        }
    }

    /// The body for hyper, the served runs' bytes shared rather than copied.
    fn into_bytes(self) -> Bytes {
        match self {
            Body::Static(b) => Bytes::from_static(b),
            Body::Owned(b) => Bytes::from(b),
            Body::Shared(b) => Bytes::from_owner(SharedBytes(b)),
            Body::Part(b, r) => Bytes::from_owner(SharedBytes(b)).slice(r),
        }
    }
}

/// `reply` narrowed to the byte range a request's `Range` header asks for (RFC 9110 section
/// 14), where the reply is a run's bytes: one satisfiable range gets 206 and its bytes, a range
/// past the end 416; a header that does not parse, or asks for several ranges, is ignored (the
/// whole body, 200), as the RFC allows a server.
fn ranged(reply: Reply, range: Option<&str>) -> Reply {
    let (Some(range), Body::Shared(bytes)) = (range, &reply.body) else { return reply };
    if reply.status != 200 {
        return reply;
    }
    let len = bytes.len();
    let Ok(parsed) = http_range_header::parse_range_header(range) else { return reply };
    match parsed.validate(len as u64).as_deref() {
        Ok([r]) => {
            let (a, z) = (*r.start() as usize, *r.end() as usize);
            let mut out = Reply::new(206, reply.ctype, Body::Part(bytes.clone(), a..z + 1));
            out.headers = reply.headers;
            out.headers.push(("Content-Range", format!("bytes {a}-{z}/{len}")));
            out
        }
        Ok(_) => reply,
        Err(_) => {
            let mut out = Reply::new(416, reply.ctype, Body::Static(b""));
            out.headers = reply.headers;
            out.headers.push(("Content-Range", format!("bytes */{len}")));
            out
        }
    }
}

impl Reply {
    fn new(status: u16, ctype: &'static str, body: Body) -> Reply {
        Reply { status, ctype, body, headers: Vec::new() }
    }
    fn forbidden() -> Reply {
        Reply::new(403, "text/plain; charset=utf-8", Body::Static(b""))
    }
    fn text(status: u16, t: &'static str) -> Reply {
        Reply::new(status, "text/plain; charset=utf-8", Body::Static(t.as_bytes()))
    }
}

/// The token a `/metrics` request carries: `?token=` or `Authorization: Bearer`.
fn metrics_token<'a>(query: &'a str, auth: Option<&'a str>) -> Option<&'a str> {
    let q = query.split('&').find_map(|p| p.strip_prefix("token="));
    q.or_else(|| {
        let a = auth?.trim();
        let (scheme, rest) = a.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    })
}

/// What the server holds for answering.
struct Ctx {
    token: String,
    site: Arc<RwLock<Site>>,
    viewer: bundle::Viewer,
    /// The viewer's index page, with the follower's script when following.
    index: String,
    /// The index page's Content-Security-Policy ([`page_csp`]).
    csp: String,
}

/// What a worker of the page may do (a worker's policy comes with its script): load the
/// workers' module and its wasm from the server, and compile the wasm.
const WORKER_CSP: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";

/// The page's Content-Security-Policy, sent with it as a header (as a report's page has one in
/// a meta tag, collector/src/report/): scripts are the server's files and the page's own
/// inline module (by its hash), with the instantiation of WebAssembly; styles the server's
/// style sheet and style attributes (the viewer sizes its canvases with them; one runs no
/// script and, under this policy, loads nothing); connections and workers to the server only;
/// no frame may embed it. (CSP 3: <https://www.w3.org/TR/CSP3/>.)
fn page_csp(index: &str) -> String {
    let hashes: Vec<String> = inline_scripts(index).into_iter().map(crate::report::csp_hash).collect();
    format!(
        "default-src 'none'; script-src 'self' {} 'wasm-unsafe-eval'; style-src 'self'; style-src-attr 'unsafe-inline'; \
         img-src 'self' data:; connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        hashes.join(" ")
    )
}

/// The text of a page's inline scripts that run (not those with `src`, nor JSON data blocks).
/// The page is the viewer's own index.html, not input: a search for the tags suffices.
fn inline_scripts(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<script") {
        let after = &rest[i..];
        let Some(gt) = after.find('>') else { break };
        let (tag, body) = (&after[..gt], &after[gt + 1..]);
        let Some(end) = body.find("</script>") else { break };
        let runs = !tag.contains(" src=") && (!tag.contains("type=") || tag.contains("type=\"module\"") || tag.contains("javascript"));
        if runs {
            out.push(&body[..end]);
        }
        rest = &body[end..];
    }
    out
}

/// Answer a request: `url` is the request target (path and query), `auth` its Authorization.
fn route(ctx: &Ctx, method: &str, url: &str, auth: Option<&str>) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if path == "/metrics" {
        if !metrics_token(query, auth).is_some_and(|t| same(t, &ctx.token)) {
            return Reply::forbidden();
        }
        if !matches!(method, "GET" | "HEAD") {
            return Reply::text(405, "only GET and HEAD\n");
        }
        let site = ctx.site.read().unwrap_or_else(|e| e.into_inner());
        let runs: Vec<(&str, &Run)> = site.runs.iter().filter_map(|r| Some((r.name.as_str(), r.run.as_deref()?))).collect();
        return Reply::new(200, metrics::CONTENT_TYPE, Body::Owned(metrics::render(&runs).into_bytes()));
    }
    if path == "/favicon.ico" {
        // a browser asks for it at the root, where the token is not: an empty answer, so
        // that every load of the page does not log a refused request
        if !matches!(method, "GET" | "HEAD") {
            return Reply::text(405, "only GET and HEAD\n");
        }
        return Reply::new(204, "image/x-icon", Body::Static(b""));
    }
    let Some(rest) = path.strip_prefix('/') else { return Reply::forbidden() };
    let (tok, file) = match rest.split_once('/') {
        Some((t, f)) => (t, Some(f)),
        None => (rest, None),
    };
    if !same(tok, &ctx.token) {
        return Reply::forbidden();
    }
    if !matches!(method, "GET" | "HEAD") {
        return Reply::text(405, "only GET and HEAD\n");
    }
    let Some(file) = file else {
        // relative links need the slash
        let mut r = Reply::text(308, "");
        r.headers.push(("Location", format!("/{tok}/")));
        return r;
    };
    let v = &ctx.viewer;
    match file {
        "" | "index.html" => {
            let mut r = Reply::new(200, "text/html; charset=utf-8", Body::Owned(ctx.index.clone().into_bytes()));
            r.headers.push(("Content-Security-Policy", ctx.csp.clone()));
            r
        }
        "style.css" => Reply::new(200, "text/css; charset=utf-8", Body::Static(v.style_css.as_bytes())),
        "worker.js" => {
            // a worker's policy is the one its script's answer carries (CSP 3, section 4.2.2)
            let mut r = Reply::new(200, "text/javascript; charset=utf-8", Body::Static(v.worker_js.as_bytes()));
            r.headers.push(("Content-Security-Policy", WORKER_CSP.into()));
            r
        }
        "nines_viewer.js" => Reply::new(200, "text/javascript; charset=utf-8", Body::Static(v.glue_js.as_bytes())),
        "nines_viewer_bg.wasm" => Reply::new(200, "application/wasm", Body::Static(v.wasm)),
        "nines_worker.js" => Reply::new(200, "text/javascript; charset=utf-8", Body::Static(v.worker_glue_js.as_bytes())),
        "nines_worker_bg.wasm" => Reply::new(200, "application/wasm", Body::Static(v.worker_wasm)),
        "live.js" => Reply::new(200, "text/javascript; charset=utf-8", Body::Static(LIVE_JS.as_bytes())),
        "manifest.json" | "live.json" => {
            let site = ctx.site.read().unwrap_or_else(|e| e.into_inner());
            let v = if file == "live.json" { site.live() } else { site.manifest() };
            Reply::new(200, "application/json", Body::Owned(serde_json::to_vec(&v).expect("JSON serialises")))
        }
        f if f.starts_with("runs/") => {
            let site = ctx.site.read().unwrap_or_else(|e| e.into_inner());
            let found = site.runs.iter().find_map(|r| {
                if f == r.rel {
                    Some((r.archive.clone(), r.windows))
                } else if f.strip_suffix(".compact") == Some(r.rel.as_str()) {
                    Some((r.compact.clone()?, r.windows))
                } else {
                    None
                }
            });
            match found {
                Some((bytes, windows)) => {
                    let mut r = Reply::new(200, "application/octet-stream", Body::Shared(bytes));
                    r.headers.push(("X-Nines-Windows", windows.to_string()));
                    r.headers.push(("Accept-Ranges", "bytes".into()));
                    r
                }
                None => Reply::text(404, "no such run\n"),
            }
        }
        _ => Reply::text(404, "not found\n"),
    }
}

/// The answer to a request, as hyper sends it (without the body for HEAD).
fn respond(ctx: &Ctx, req: &hyper::Request<hyper::body::Incoming>) -> hyper::Response<Full<Bytes>> {
    let header = |name: hyper::header::HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok());
    let url = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let reply = ranged(route(ctx, req.method().as_str(), url, header(hyper::header::AUTHORIZATION)), header(hyper::header::RANGE));
    let mut headers: Vec<(&str, String)> = vec![
        ("Content-Type", reply.ctype.to_string()),
        ("Cache-Control", "no-store".into()),
        ("X-Content-Type-Options", "nosniff".into()),
        // the token is in the page's URL: never sent on to another site
        ("Referrer-Policy", "no-referrer".into()),
    ];
    headers.extend(reply.headers);
    let mut resp = hyper::Response::new(Full::new(reply.body.into_bytes()));
    *resp.status_mut() = hyper::StatusCode::from_u16(reply.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    for (n, v) in headers {
        // (every name and value here is ours, and valid)
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(n.as_bytes()), HeaderValue::from_str(&v)) {
            resp.headers_mut().append(n, v);
        }
    }
    resp
}

/// A running server; stops (and joins its threads) on [`Server::stop`] or when dropped.
pub struct Server {
    /// `http://HOST:PORT/TOKEN/`.
    pub url: String,
    pub token: String,
    pub addr: SocketAddr,
    site: Arc<RwLock<Site>>,
    http: Option<http::Http>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Server {
    /// Serve `files`; with `follow`, read them again as they grow.
    pub fn start(files: &[PathBuf], follow: bool, flags: &ServeFlags) -> Result<Server> {
        Server::start_with(Site::new(files, follow, false)?, flags)
    }

    /// Follow the archive a run is about to write at `path` (a file there now is the one the
    /// run replaces, and is not served).
    pub fn start_live(path: &std::path::Path, flags: &ServeFlags) -> Result<Server> {
        Server::start_with(Site::new(&[path.to_path_buf()], true, true)?, flags)
    }

    fn start_with(site: Site, flags: &ServeFlags) -> Result<Server> {
        let follow = site.follow;
        let site = Arc::new(RwLock::new(site));
        let bind = flags.bind.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let token = token();
        let viewer = bundle::viewer();
        let index = if follow {
            let tag = "<script type=\"module\" src=\"live.js\"></script>\n";
            match viewer.index_html.rfind("</body>") {
                Some(i) => format!("{}{tag}{}", &viewer.index_html[..i], &viewer.index_html[i..]),
                None => format!("{}{tag}", viewer.index_html),
            }
        } else {
            viewer.index_html.to_string()
        };
        let csp = page_csp(&index);
        let ctx = Arc::new(Ctx { token: token.clone(), site: site.clone(), viewer, index, csp });
        let http = http::Http::start(bind, Arc::new(move |req| respond(&ctx, req)))?;
        let addr = http.addr;
        let host = match addr.ip() {
            ip if ip.is_unspecified() && ip.is_ipv4() => format!("127.0.0.1:{}", addr.port()),
            ip if ip.is_unspecified() => format!("[::1]:{}", addr.port()),
            _ => addr.to_string(),
        };
        let url = format!("http://{host}/{token}/");
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        if follow {
            let (site, stop) = (site.clone(), stop.clone());
            threads.push(std::thread::Builder::new().name("nines-follow".into()).spawn(move || {
                let mut said: Vec<Option<String>> = Vec::new();
                let mut pause = FOLLOW_EVERY;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(pause);
                    let t0 = std::time::Instant::now();
                    follow_once(&site, &mut said);
                    // a long run's file takes longer to read again: the follower waits four
                    // times as long as its last read took, so that it keeps to about a fifth
                    // of one core beside the run it follows
                    pause = FOLLOW_EVERY.max(t0.elapsed() * 4);
                }
            })?);
        }
        Ok(Server { url, token, addr, site, http: Some(http), stop, threads })
    }

    /// Read the followed files once more (the writer has finished) and mark them done.
    pub fn finish(&self) {
        follow_once(&self.site, &mut Vec::new());
        self.site.write().unwrap_or_else(|e| e.into_inner()).done = true;
    }

    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        if let Some(h) = self.http.take() {
            h.stop();
        }
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.halt();
    }
}

/// One look at every followed file; a read error is printed once (until it changes).
fn follow_once(site: &RwLock<Site>, said: &mut Vec<Option<String>>) {
    // the reads happen on copies, outside the lock, so the page is answered meanwhile
    let work: Vec<Served> = {
        let s = site.read().unwrap_or_else(|e| e.into_inner());
        s.runs
            .iter()
            .map(|r| Served {
                path: r.path.clone(),
                rel: r.rel.clone(),
                given: r.given.clone(),
                name: r.name.clone(),
                archive: r.archive.clone(),
                compact: r.compact.clone(),
                groups_at: r.groups_at,
                run: r.run.clone(),
                windows: r.windows,
                seen: r.seen,
                error: r.error.clone(),
                stale: r.stale,
            })
            .collect()
    };
    said.resize(work.len(), None);
    let mut changed = Vec::new();
    for (i, mut r) in work.into_iter().enumerate() {
        match refresh(&mut r) {
            Ok(true) => changed.push((i, r)),
            Ok(false) => {}
            Err(e) => {
                let msg = format!("{e:#}");
                // a file not there yet is waited for quietly
                if said[i].as_ref() != Some(&msg) && !msg.starts_with("waiting for") {
                    crate::diag!("nines: warning: {msg} (the page keeps the last windows read)");
                }
                said[i] = Some(msg.clone());
                r.error = Some(msg);
                changed.push((i, r));
            }
        }
    }
    if changed.is_empty() {
        return;
    }
    let mut s = site.write().unwrap_or_else(|e| e.into_inner());
    for (i, r) in changed {
        if let Some(slot) = s.runs.get_mut(i) {
            if r.error.is_some() {
                // keep the last windows read
                slot.error = r.error;
                slot.seen = r.seen;
                slot.stale = r.stale;
            } else {
                *slot = r;
            }
        }
    }
    s.name_runs();
}

/// Open the URL in the default browser ($BROWSER, else xdg-open when there is a display);
/// whether one was started.
pub fn open_browser(url: &str) -> bool {
    let browser = std::env::var("BROWSER").ok().and_then(|b| b.split(':').map(str::trim).find(|s| !s.is_empty()).map(str::to_string));
    let display =
        std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty());
    let cmd = match browser {
        Some(b) => b,
        None if display => "xdg-open".to_string(),
        None => return false,
    };
    let mut c = std::process::Command::new(&cmd);
    c.arg(url).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    match c.spawn() {
        Ok(mut child) => {
            // reaped when it exits (a browser's launcher returns at once)
            std::thread::spawn(move || child.wait());
            true
        }
        Err(e) => {
            crate::diag!("nines: could not start the browser '{cmd}' ({e})");
            false
        }
    }
}

/// Say where the runs are served, and open them unless told not to.
pub fn announce(server: &Server, flags: &ServeFlags, what: &str, out: &mut dyn Write) -> Result<()> {
    if let Some(b) = flags.bind {
        if !b.ip().is_loopback() {
            writeln!(out, "nines: --bind {b} exposes the runs to anyone who can reach {} and has the URL (its token)", server.addr)?;
        }
    }
    writeln!(out, "{what} at {}", server.url)?;
    writeln!(
        out,
        "metrics: {}metrics?token={} (OpenMetrics; or Authorization: Bearer TOKEN)",
        server.url.trim_end_matches(&format!("{}/", server.token)),
        server.token
    )?;
    let opened = !flags.no_open && open_browser(&server.url);
    if !opened {
        writeln!(out, "open that URL in a browser; Ctrl-C stops the server")?;
    } else {
        writeln!(out, "opened in the browser; Ctrl-C stops the server")?;
    }
    out.flush()?;
    Ok(())
}

/// The runs `nines view` serves of the paths given: a site's directory (`nines site`'s
/// output, with its `manifest.json`) gives the archives it lists; a compact form given beside
/// its own archive (`nines view site/runs/*`: `a.hlog` and `a.hlog.compact`) is the same run
/// and is left out.
fn view_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        match crate::report::site::site_runs(p)? {
            Some(runs) if runs.is_empty() => bail!("'{}' is a site whose manifest lists no runs", p.display()),
            Some(runs) => out.extend(runs),
            None => {
                bail!("'{}' is a directory without a manifest.json; give a run's file, or a site's directory (nines site)", p.display())
            }
        }
    }
    let given: Vec<PathBuf> = out.clone();
    out.retain(|p| {
        let twin = p.to_str().and_then(|s| s.strip_suffix(".compact")).map(PathBuf::from);
        match twin.filter(|t| given.contains(t)) {
            Some(t) => {
                crate::diag!("nines: note: '{}' is the compact form of '{}': the run is shown once", p.display(), t.display());
                false
            }
            None => true,
        }
    });
    Ok(out)
}

/// `nines view`.
pub fn run(args: &ViewArgs, out: &mut impl Write) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // the first asks the server to stop; a second (if stopping hangs) ends the process
        signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone())
            .and_then(|_| signal_hook::flag::register(sig, stop.clone()))
            .with_context(|| format!("could not handle signal {sig}"))?;
    }
    let files = load::each_file_once(&view_files(&args.files)?);
    let server = Server::start(&files, args.follow, &args.serve)?;
    let n = files.len();
    let what = format!("{} {n} run{}", if args.follow { "following" } else { "serving" }, if n == 1 { "" } else { "s" });
    announce(&server, &args.serve, &what, out)?;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
    }
    server.stop();
    writeln!(out, "stopped")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ctx(files: &[PathBuf], follow: bool) -> Ctx {
        Ctx {
            token: "0123456789abcdef0123456789abcdef".into(),
            site: Arc::new(RwLock::new(Site::new(files, follow, false).unwrap())),
            viewer: bundle::viewer(),
            index: "<html></html>".into(),
            csp: page_csp("<html></html>"),
        }
    }

    fn data(f: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data").join(f)
    }

    #[test]
    fn token_guards_every_path() {
        let c = ctx(&[data("java-rw.hlog")], false);
        let t = c.token.clone();
        for p in ["/", "/index.html", "/manifest.json", "/runs/java-rw.hlog", "/metrics", "//", "/x/index.html", "/favicon.ico/"] {
            assert_eq!(route(&c, "GET", p, None).status, 403, "{p}");
        }
        // the one path answered without the token: an empty icon (a browser asks for it)
        let icon = route(&c, "GET", "/favicon.ico", None);
        assert_eq!((icon.status, icon.body.bytes().len()), (204, 0));
        assert_eq!(route(&c, "POST", "/favicon.ico", None).status, 405);
        let wrong = "0123456789abcdef0123456789abcdee";
        for p in ["/", "/index.html", "/manifest.json", "/runs/java-rw.hlog", "/nope"] {
            let r = route(&c, "GET", &format!("/{wrong}{p}"), None);
            assert_eq!((r.status, r.body.bytes().len()), (403, 0), "{p}");
        }
        assert_eq!(route(&c, "GET", &format!("/metrics?token={wrong}"), None).status, 403);
        assert_eq!(route(&c, "GET", "/metrics", Some(&format!("Bearer {wrong}"))).status, 403);
        assert_eq!(route(&c, "GET", &format!("/{t}/manifest.json"), None).status, 200);
        assert_eq!(route(&c, "GET", &format!("/{t}/"), None).status, 200);
        assert_eq!(route(&c, "GET", &format!("/{t}"), None).status, 308);
        assert_eq!(route(&c, "POST", &format!("/{t}/manifest.json"), None).status, 405);
        assert_eq!(route(&c, "GET", &format!("/{t}/runs/other.hlog"), None).status, 404);
        assert_eq!(route(&c, "GET", &format!("/{t}/../etc/passwd"), None).status, 404);
        let m = route(&c, "GET", &format!("/metrics?token={t}"), None);
        assert_eq!((m.status, m.ctype), (200, metrics::CONTENT_TYPE));
        assert_eq!(route(&c, "GET", "/metrics", Some(&format!("Bearer {t}"))).status, 200);
    }

    #[test]
    fn the_page_and_its_workers_carry_a_content_security_policy() {
        let index = bundle::viewer().index_html;
        let scripts = inline_scripts(index);
        assert_eq!(scripts.len(), 1, "the index's module script (its JSON data block does not run)");
        assert!(scripts[0].contains("import init"), "{}", scripts[0]);
        let mut c = ctx(&[data("java-rw.hlog")], false);
        c.csp = page_csp(index);
        let t = c.token.clone();
        let csp = |r: &Reply| r.headers.iter().find(|(k, _)| *k == "Content-Security-Policy").map(|(_, v)| v.clone());
        for p in ["", "index.html"] {
            let page = csp(&route(&c, "GET", &format!("/{t}/{p}"), None)).expect("the page has a policy");
            assert!(page.starts_with("default-src 'none'; "), "{page}");
            let hash = crate::report::csp_hash(scripts[0]);
            assert!(page.contains(&format!("script-src 'self' {hash} 'wasm-unsafe-eval';")), "{page}");
            assert!(page.contains("connect-src 'self'") && page.contains("worker-src 'self'") && page.contains("frame-ancestors 'none'"));
        }
        assert_eq!(csp(&route(&c, "GET", &format!("/{t}/worker.js"), None)).as_deref(), Some(WORKER_CSP));
        assert_eq!(csp(&route(&c, "GET", &format!("/{t}/runs/java-rw.hlog"), None)), None);
        // the live page's follower is a file of the server's: no hash for it
        let live = format!("{index}<script type=\"module\" src=\"live.js\"></script>");
        assert_eq!(inline_scripts(&live), scripts);
    }

    #[test]
    fn manifest_lists_runs_with_compact_forms() {
        let c = ctx(&[data("java-rw.hlog"), data("java-rw.hlog")], false);
        let t = c.token.clone();
        let m: serde_json::Value = serde_json::from_slice(route(&c, "GET", &format!("/{t}/manifest.json"), None).body.bytes()).unwrap();
        let runs = m["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0]["file"], "runs/java-rw.hlog");
        assert_eq!(runs[1]["file"], "runs/java-rw-2.hlog");
        assert_ne!(runs[0]["name"], runs[1]["name"]);
        let a = route(&c, "GET", &format!("/{t}/runs/java-rw.hlog"), None);
        assert_eq!(a.body.bytes(), std::fs::read(data("java-rw.hlog")).unwrap());
        let k = route(&c, "GET", &format!("/{t}/runs/java-rw-2.hlog.compact"), None);
        assert!(nines_core::compact::sniff(k.body.bytes()));
    }

    #[test]
    fn run_files_answer_one_byte_range_and_the_manifest_says_where_groups_begin() {
        let c = ctx(&[data("java-rw.hlog")], false);
        let t = c.token.clone();
        let m: serde_json::Value = serde_json::from_slice(route(&c, "GET", &format!("/{t}/manifest.json"), None).body.bytes()).unwrap();
        let at = m["runs"][0]["compact_groups_at"].as_u64().expect("groups_at in the manifest") as usize;
        let url = format!("/{t}/runs/java-rw.hlog.compact");
        let whole = route(&c, "GET", &url, None).body.bytes().to_vec();
        let form = nines_core::compact::Compact::read("x", &whole).unwrap();
        assert_eq!(form.groups_at(), Some(at));
        assert!(0 < at && at < whole.len());
        // and where the recorded windows begin, for a range that cuts groups
        assert_eq!(m["runs"][0]["compact_windows_at"].as_u64().map(|w| w as usize), form.windows_at());
        // (a run short enough to carry every window as a group carries no windows beside)
        assert_eq!(form.carries_windows(), form.group > 1);
        assert!(form.windows_at().is_none_or(|w| w > at));
        let get = |range: &str| ranged(route(&c, "GET", &url, None), Some(range));
        let header = |r: &Reply, n: &str| r.headers.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone());
        // the head, then the groups: together the whole form
        let head = get(&format!("bytes=0-{}", at - 1));
        assert_eq!(head.status, 206);
        assert_eq!(head.body.bytes(), &whole[..at]);
        assert_eq!(header(&head, "Content-Range"), Some(format!("bytes 0-{}/{}", at - 1, whole.len())));
        let rest = get(&format!("bytes={at}-"));
        assert_eq!((rest.status, rest.body.bytes()), (206, &whole[at..]));
        let tail = get("bytes=-10");
        assert_eq!((tail.status, tail.body.bytes()), (206, &whole[whole.len() - 10..]));
        // past the end: 416 and the length
        let past = get(&format!("bytes={}-", whole.len()));
        assert_eq!((past.status, past.body.bytes().len()), (416, 0));
        assert_eq!(header(&past, "Content-Range"), Some(format!("bytes */{}", whole.len())));
        // not a range, or several: the whole form
        for r in ["bytes=a-b", "lines=0-1", "bytes=0-1,5-9", ""] {
            let x = get(r);
            assert_eq!((x.status, x.body.bytes().len()), (200, whole.len()), "{r:?}");
        }
        // other files, and refused requests, are not narrowed
        assert_eq!(ranged(route(&c, "GET", &format!("/{t}/index.html"), None), Some("bytes=0-1")).status, 200);
        assert_eq!(ranged(route(&c, "GET", "/runs/java-rw.hlog.compact", None), Some("bytes=0-1")).status, 403);
        // a followed run's form is written again as it grows: no groups_at for it
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.hlog");
        std::fs::copy(data("java-rw.hlog"), &p).unwrap();
        let f = ctx(std::slice::from_ref(&p), true);
        follow_once(&f.site, &mut Vec::new());
        let m: serde_json::Value =
            serde_json::from_slice(route(&f, "GET", &format!("/{}/manifest.json", f.token), None).body.bytes()).unwrap();
        assert!(m["runs"][0]["compact"].is_string() && m["runs"][0].get("compact_groups_at").is_none(), "{m}");
    }

    #[test]
    fn follows_a_growing_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("growing.hlog");
        let c = ctx(std::slice::from_ref(&p), true);
        let t = c.token.clone();
        let live = |c: &Ctx| -> serde_json::Value {
            serde_json::from_slice(route(c, "GET", &format!("/{t}/live.json"), None).body.bytes()).unwrap()
        };
        assert_eq!(live(&c)["runs"][0]["windows"], 0);
        assert!(live(&c)["runs"][0]["error"].as_str().unwrap().starts_with("waiting for"));
        let full = std::fs::read(data("java-rw.hlog")).unwrap();
        let text = String::from_utf8(full.clone()).unwrap();
        // the header and some windows, the last line cut
        let cut = text.match_indices('\n').nth(12).unwrap().0 + 20;
        std::fs::write(&p, &full[..cut]).unwrap();
        follow_once(&c.site, &mut Vec::new());
        let first = live(&c)["runs"][0]["windows"].as_u64().unwrap();
        assert!(first > 0, "{}", live(&c));
        std::fs::write(&p, &full).unwrap();
        follow_once(&c.site, &mut Vec::new());
        let all = windows(&nines_core::archive::read("x", &full).unwrap()) as u64;
        assert_eq!(live(&c)["runs"][0]["windows"].as_u64().unwrap(), all);
        assert!(all > first);
        // a file that turns bad keeps the windows read before
        std::fs::write(&p, b"not a run at all\n").unwrap();
        follow_once(&c.site, &mut Vec::new());
        let l = live(&c);
        assert_eq!(l["runs"][0]["windows"].as_u64().unwrap(), all);
        assert!(l["runs"][0]["error"].is_string(), "{l}");
    }
}
