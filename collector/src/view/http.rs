//! The HTTP/1.1 server under `nines view` and `nines run --live`: hyper's connection handling
//! on a single-threaded tokio runtime that runs on a thread of its own, so that the rest of
//! nines stays synchronous. What it answers is the caller's (`super::respond`); this module
//! keeps the server itself alive when other local users are hostile:
//!
//! - a request's head has at most [`MAX_HEAD`] bytes in at most [`MAX_HEADERS`] fields (a
//!   larger one gets 431 and the connection is closed, hyper's `max_header_size` and
//!   `max_headers`), and must arrive within [`HEAD_TIMEOUT`] of the connection waiting for it,
//!   which is also how long a kept-alive connection may sit idle (hyper's
//!   `header_read_timeout`, which runs from the moment a connection waits for a request);
//! - a connection that moves no byte either way for [`STALL`] is closed: a client that never
//!   reads its answers, or stops halfway, is dropped and what its answers held is freed (as
//!   nginx's `send_timeout`: a limit between two successive writes, not on the whole answer,
//!   so a big file over a slow link is not cut);
//! - at most [`conn_cap`] connections are open at once: a new one at the cap closes the
//!   connection that has waited longest without moving a byte, one with no answer blocked in
//!   the socket first, so a browser is still served while hundreds of idle sockets are held;
//! - the accept loop never ends by itself: out of descriptors (EMFILE, ENFILE) it says so
//!   once, closes idle connections, waits [`BACKOFF`] and accepts again; any other accept
//!   error is waited out the same way.
//!
//! Answers are in memory and hyper writes them without copying (`Bytes` that share the
//! served runs' buffers), so a connection holds no more than its buffers of [`MAX_BUF`].

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Notify};

/// How long a connection may wait for a request's head (the whole head, from the moment
/// the connection is ready for it: also the idle keep-alive timeout).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a connection may move no byte at all (an answer nobody reads).
pub const STALL: Duration = Duration::from_secs(20);
/// The largest request head: the request line and every header field. Browsers send 1 to 2
/// KiB; cookies of other services on the same host name (cookies ignore the port) may add
/// some.
pub const MAX_HEAD: usize = 32 * 1024;
/// The most header fields in a request.
pub const MAX_HEADERS: usize = 64;
/// hyper's read buffer, and what it buffers of answers beside the shared bytes it queues.
pub const MAX_BUF: usize = 64 * 1024;
/// How long the accept loop waits after an error (out of descriptors) before it tries again.
pub const BACKOFF: Duration = Duration::from_millis(100);

/// What answers a request: its answer, made at once from what the server holds in memory.
pub type Handler = Arc<dyn Fn(&Request<Incoming>) -> Response<Full<Bytes>> + Send + Sync>;

/// The most connections open at once: half the process' descriptor limit (the other half is
/// the rest of nines': a run's files, the follower's reads), at least 8 and at most 1024.
#[cfg(unix)]
pub fn conn_cap() -> usize {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit(2) writes the limit into the struct we pass, nothing else.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 { lim.rlim_cur } else { 1024 };
    usize::try_from(soft / 2).unwrap_or(usize::MAX).clamp(8, 1024)
}

/// The most connections open at once where there is no descriptor limit to read (Windows'
/// handles are limited by memory, not by a per-process soft limit): the cap of [`conn_cap`]
/// on Unix.
#[cfg(not(unix))]
pub fn conn_cap() -> usize {
    1024
}

/// One open connection, as the accept loop sees it.
struct Conn {
    id: u64,
    /// When it last moved a byte (ms since the server started).
    last_ms: AtomicU64,
    /// Its last write found the socket full (the client is not reading).
    blocked: AtomicBool,
    /// Told to close (shed at the cap, or out of descriptors).
    shed: Notify,
    started: Instant,
}

impl Conn {
    fn touch(&self) {
        self.last_ms.store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
    fn last(&self) -> Instant {
        self.started + Duration::from_millis(self.last_ms.load(Ordering::Relaxed))
    }
}

/// The open connections.
struct Conns {
    started: Instant,
    next: AtomicU64,
    open: Mutex<Vec<Arc<Conn>>>,
}

impl Conns {
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self) -> Arc<Conn> {
        let c = Arc::new(Conn {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            last_ms: AtomicU64::new(0),
            blocked: AtomicBool::new(false),
            shed: Notify::new(),
            started: self.started,
        });
        c.touch();
        self.list().push(c.clone());
        c
    }

    fn remove(&self, id: u64) {
        self.list().retain(|c| c.id != id);
    }

    /// Close up to `n` connections: those with no answer blocked in the socket first, each
    /// group the longest without a byte moved first. How many were closed.
    fn shed(&self, n: usize) -> usize {
        let mut open = self.list();
        let mut done = 0;
        while done < n {
            let Some(i) =
                (0..open.len()).min_by_key(|&i| (open[i].blocked.load(Ordering::Relaxed), open[i].last_ms.load(Ordering::Relaxed)))
            else {
                break;
            };
            let c = open.swap_remove(i);
            // (a permit is kept if the task is not waiting yet)
            c.shed.notify_one();
            done += 1;
        }
        done
    }
}

/// A connection's socket, noting when bytes move and when a write finds the socket full.
struct Watched {
    tcp: TcpStream,
    conn: Arc<Conn>,
}

impl Watched {
    fn wrote(&self, r: &Poll<io::Result<usize>>) {
        match r {
            Poll::Ready(Ok(n)) if *n > 0 => {
                self.conn.blocked.store(false, Ordering::Relaxed);
                self.conn.touch();
            }
            Poll::Pending => self.conn.blocked.store(true, Ordering::Relaxed),
            _ => {}
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.tcp).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.conn.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.tcp).poll_write(cx, buf);
        this.wrote(&r);
        r
    }
    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.tcp).poll_write_vectored(cx, bufs);
        this.wrote(&r);
        r
    }
    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

/// The server running on its thread; stopped (and joined) by [`Http::stop`] or when dropped.
pub struct Http {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Http {
    /// Listen on `bind` (the error says so when it cannot) and answer with `handler`.
    pub fn start(bind: SocketAddr, handler: Handler) -> Result<Http> {
        Http::start_capped(bind, handler, conn_cap())
    }

    /// [`Http::start`] with at most `cap` connections open at once.
    fn start_capped(bind: SocketAddr, handler: Handler, cap: usize) -> Result<Http> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("could not start the server's runtime")?;
        let listener = rt.block_on(TcpListener::bind(bind)).with_context(|| format!("could not listen on {bind}"))?;
        let addr = listener.local_addr().with_context(|| format!("could not listen on {bind}"))?;
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("nines-http".into())
            .spawn(move || {
                rt.block_on(accept_loop(listener, handler, cap, stopped));
                // dropping the runtime drops every connection's task, and so its socket
                drop(rt);
            })
            .context("could not start the server's thread")?;
        Ok(Http { addr, stop: Some(stop), thread: Some(thread) })
    }

    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Whether an accept error means the process (or the system) is out of descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM))
}

async fn accept_loop(listener: TcpListener, handler: Handler, cap: usize, mut stopped: oneshot::Receiver<()>) {
    let conns = Arc::new(Conns { started: Instant::now(), next: AtomicU64::new(0), open: Mutex::new(Vec::new()) });
    let mut said_out = false;
    let mut said_other = false;
    loop {
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((tcp, _)) => {
                let open = conns.list().len();
                if open >= cap {
                    conns.shed(open + 1 - cap);
                }
                let conn = conns.add();
                tokio::spawn(serve(tcp, conn, conns.clone(), handler.clone()));
                if open >= cap {
                    // the shed connections' tasks close their sockets before the next accept
                    tokio::task::yield_now().await;
                }
            }
            Err(e) => {
                // (a connection reset before it was taken: nothing to wait for)
                if matches!(e.kind(), io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted) {
                    continue;
                }
                if out_of_descriptors(&e) {
                    if !said_out {
                        crate::diag!(
                            "nines: warning: the server is out of file descriptors ({e}; {} connections open); \
                             it closes idle connections and keeps accepting (this is said once)",
                            conns.list().len()
                        );
                        said_out = true;
                    }
                    let open = conns.list().len();
                    conns.shed((open / 4).max(1));
                } else if !said_other {
                    crate::diag!("nines: warning: the server could not accept a connection ({e}); it keeps trying (this is said once)");
                    said_other = true;
                }
                tokio::select! {
                    _ = &mut stopped => return,
                    _ = tokio::time::sleep(BACKOFF) => {}
                }
            }
        }
    }
}

/// Serve one connection until it closes, stalls for [`STALL`], or is shed.
async fn serve(tcp: TcpStream, conn: Arc<Conn>, conns: Arc<Conns>, handler: Handler) {
    let _ = tcp.set_nodelay(true);
    let io = TokioIo::new(Watched { tcp, conn: conn.clone() });
    let svc = service_fn(move |req: Request<Incoming>| {
        let resp = handler(&req);
        async move { Ok::<_, Infallible>(resp) }
    });
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_BUF)
        .serve_connection(io, svc);
    tokio::pin!(served);
    loop {
        let quiet_until = tokio::time::Instant::from_std(conn.last() + STALL);
        tokio::select! {
            // (an error is the client's: a head too large or too slow, a reset)
            _ = served.as_mut() => break,
            _ = conn.shed.notified() => break,
            _ = tokio::time::sleep_until(quiet_until) => {
                if conn.last().elapsed() >= STALL {
                    break;
                }
            }
        }
    }
    conns.remove(conn.id);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn hello() -> Handler {
        Arc::new(|req: &Request<Incoming>| {
            let mut r = Response::new(Full::new(Bytes::from_static(b"hello")));
            r.headers_mut().insert("x-path", req.uri().path().parse().unwrap());
            r
        })
    }

    fn server(cap: usize) -> Http {
        Http::start_capped(SocketAddr::from(([127, 0, 0, 1], 0)), hello(), cap).unwrap()
    }

    /// What the server sends on `s` until it closes the connection (or 10 s pass: a server
    /// that hangs).
    fn read_all(s: &mut std::net::TcpStream) -> String {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn ask(addr: SocketAddr, req: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(req.as_bytes()).unwrap();
        read_all(&mut s)
    }

    #[test]
    fn answers_get_and_head_and_stops() {
        let h = server(8);
        let addr = h.addr;
        let get = ask(addr, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(get.starts_with("HTTP/1.1 200 OK\r\n") && get.contains("x-path: /a\r\n") && get.ends_with("\r\n\r\nhello"), "{get}");
        // HEAD: the length of the body, and no body
        let head = ask(addr, "HEAD /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(head.contains("content-length: 5\r\n") && head.ends_with("\r\n\r\n"), "{head}");
        h.stop();
        assert!(std::net::TcpStream::connect(addr).is_err(), "the port is closed");
    }

    #[test]
    fn a_head_too_large_gets_431_and_the_connection_closes() {
        let h = server(8);
        let mut s = std::net::TcpStream::connect(h.addr).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: ").unwrap();
        // one header line without its end, past the limit (the server may close while we write)
        let _ = s.write_all(&vec![b'a'; MAX_HEAD + 1]);
        let got = read_all(&mut s);
        assert!(got.starts_with("HTTP/1.1 431 "), "{got}");
        // too many fields
        let mut req = String::from("GET / HTTP/1.1\r\nHost: x\r\n");
        for i in 0..MAX_HEADERS {
            req.push_str(&format!("X-{i}: 1\r\n"));
        }
        req.push_str("\r\n");
        let got = ask(h.addr, &req);
        assert!(got.starts_with("HTTP/1.1 431 "), "{got}");
    }

    #[test]
    fn a_new_connection_at_the_cap_closes_the_oldest_idle_one() {
        let h = server(4);
        let mut idle: Vec<std::net::TcpStream> = Vec::new();
        for _ in 0..4 {
            idle.push(std::net::TcpStream::connect(h.addr).unwrap());
            // (accepted in this order)
            std::thread::sleep(Duration::from_millis(50));
        }
        // a kept-alive connection that was answered a moment ago: not the oldest idle one
        let mut kept = idle.remove(3);
        kept.write_all(b"GET /k HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buf = [0_u8; 256];
        kept.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        assert!(kept.read(&mut buf).unwrap() > 0);
        let got = ask(h.addr, "GET /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "the fifth connection is served: {got}");
        // the first connection (quiet the longest) was closed; the kept-alive one still works
        assert_eq!(read_all(&mut idle[0]), "", "closed without a byte");
        kept.write_all(b"GET /again HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        assert!(read_all(&mut kept).contains("x-path: /again"));
    }

    #[test]
    fn shedding_takes_connections_with_no_answer_blocked_first_then_the_quietest() {
        let conns = Conns { started: Instant::now(), next: AtomicU64::new(0), open: Mutex::new(Vec::new()) };
        let c: Vec<Arc<Conn>> = (0..4).map(|_| conns.add()).collect();
        // when each last moved a byte (ms), and whether an answer is blocked in its socket
        for (i, last, blocked) in [(0, 10, true), (1, 20, false), (2, 40, false), (3, 90, true)] {
            c[i].last_ms.store(last, Ordering::Relaxed);
            c[i].blocked.store(blocked, Ordering::Relaxed);
        }
        let left = |conns: &Conns| conns.list().iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(conns.shed(1), 1);
        assert!(!left(&conns).contains(&1), "{:?}", left(&conns));
        assert_eq!(conns.shed(1), 1);
        assert!(!left(&conns).contains(&2), "{:?}", left(&conns));
        assert_eq!(conns.shed(1), 1);
        assert_eq!(left(&conns), vec![3], "then the blocked one quiet the longest");
        assert_eq!(conns.shed(5), 1);
    }
}
