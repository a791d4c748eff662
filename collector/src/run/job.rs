//! One job thread: generates I/Os, keeps `qd` in flight through an engine, times every I/O and
//! records it into the current window's per-direction histograms.
//!
//! Window rotation happens in the job thread between two waits: the full histograms are
//! swapped for empty ones from a shared pool and sent to the writer, so I/O never waits for
//! the archive. A wait never outlasts the next window boundary, so a window with no
//! completions is still closed on time (it reaches the archive as an empty window).

use std::io::Write;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Result};
use hdrhistogram::Histogram;

use super::engine::{Completion, Engine, Op, OpKind};
use super::workload::{OpGen, Think, WindowRule, Workload, NT, READ, READ_SVC, SYNC, TAGS, TRIM, WRITE};

/// Monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, the clock io_uring timeouts use).
#[cfg(unix)]
#[inline]
pub fn clock() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Monotonic clock in nanoseconds: std's `Instant` (QueryPerformanceCounter on Windows), from
/// the first call in this process.
#[cfg(not(unix))]
#[inline]
pub fn clock() -> u64 {
    static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    // from 1 s, so that no instant reads as 0
    1_000_000_000 + BASE.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}

/// Why the run stopped early, shared by every thread (0: it did not).
pub static STOP: AtomicI32 = AtomicI32::new(0);
/// Unit tests that set `STOP` or run a job loop (which reads it) take this lock: `STOP` is
/// process-wide and the test harness runs tests on parallel threads.
#[cfg(test)]
pub(crate) static STOP_TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `STOP` value when steady state was reached.
pub const STOP_STEADY: i32 = -1;
/// `STOP` value when a job failed.
pub const STOP_ERROR: i32 = -2;

/// Longest single wait, so a stop request is noticed promptly even by a job that has
/// nothing in flight.
const MAX_WAIT_NS: u64 = 50_000_000;

/// A new histogram for a window: 1 ns to 1 s at 3 significant digits, growing as needed.
pub fn new_hist() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 1_000_000_000, 3).expect("valid histogram bounds");
    h.auto(true);
    h
}

/// Histograms handed back by the writer for reuse.
pub type Pool = Arc<Mutex<Vec<Histogram<u64>>>>;

/// One tag's part of a window.
pub struct TagWindow {
    pub hist: Histogram<u64>,
    /// Exact maximum in ns.
    pub max: u64,
    pub count: u64,
    pub bytes: u64,
    /// Sum of latencies in ns (for the exact mean the `lat` steady criterion uses).
    pub sum: u64,
}

/// A window closed by one job.
pub struct JobWindow {
    pub job: u32,
    pub index: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Per target and tag: `tags[target * NT + tag]`.
    pub tags: Vec<Option<TagWindow>>,
}

/// What a job sends to the writer.
pub enum Msg {
    Window(Box<JobWindow>),
    /// The job ended; `last_index` is its last window (None if it sent none).
    Done {
        job: u32,
        last_index: Option<u64>,
        error: Option<String>,
    },
}

/// Everything a job needs.
pub struct JobCtx {
    /// The job's number in the run (over every concurrent workload).
    pub job: u32,
    /// The targets as error messages name them.
    pub targets: Vec<String>,
    pub w: Arc<Workload>,
    pub qd: usize,
    /// Each target's region.
    pub regions: Vec<u64>,
    /// When I/O starts (due times of rate-limited I/O count from here).
    pub t0_ns: u64,
    /// When recording starts (t0 + ramp); windows count from here.
    pub rec_start_ns: u64,
    /// Stop issuing at this time.
    pub end_ns: Option<u64>,
    /// Recorded I/Os this job issues.
    pub ios_quota: Option<u64>,
    /// With windows by I/O count: this job's share of a window.
    pub window_quota: u64,
    pub tx: Sender<Msg>,
    pub pool: Pool,
    pub raw: Option<Arc<RawLog>>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    tag: u8,
    file: u32,
    recorded: bool,
    len: u32,
    offset: u64,
    submit: u64,
    due: u64,
}

struct Acc {
    hist: Histogram<u64>,
    max: u64,
    count: u64,
    bytes: u64,
    sum: u64,
}

/// The per-job recorder: one accumulator per target and tag (`target * NT + tag`) for the
/// current window.
struct Recorder {
    acc: Vec<Acc>,
    tags: Vec<usize>,
    pool: Pool,
}

impl Recorder {
    fn new(tags: &[usize], files: usize, pool: Pool) -> Recorder {
        let acc = (0..NT * files).map(|_| Acc { hist: new_hist(), max: 0, count: 0, bytes: 0, sum: 0 }).collect();
        let tags = (0..files).flat_map(|f| tags.iter().map(move |t| f * NT + t)).collect();
        Recorder { acc, tags, pool }
    }

    #[inline(always)]
    fn record(&mut self, tag: usize, ns: u64, bytes: u64) {
        let a = &mut self.acc[tag];
        // Auto-resize makes recording infallible short of u64 overflow.
        let _ = a.hist.record(ns);
        if ns > a.max {
            a.max = ns;
        }
        a.count += 1;
        a.bytes += bytes;
        a.sum += ns;
    }

    fn take(&mut self) -> Vec<Option<TagWindow>> {
        let mut out: Vec<Option<TagWindow>> = (0..self.acc.len()).map(|_| None).collect();
        for &t in &self.tags {
            let a = &mut self.acc[t];
            if a.count == 0 {
                continue;
            }
            let fresh = self.pool.lock().ok().and_then(|mut p| p.pop()).unwrap_or_else(new_hist);
            let hist = std::mem::replace(&mut a.hist, fresh);
            out[t] = Some(TagWindow { hist, max: a.max, count: a.count, bytes: a.bytes, sum: a.sum });
            a.max = 0;
            a.count = 0;
            a.bytes = 0;
            a.sum = 0;
        }
        out
    }
}

/// Aligned, zeroed memory for a job's I/O buffers.
/// The raw log (`--raw-log`): every I/O's latency as CSV, shared by the jobs.
pub struct RawLog {
    pub path: std::path::PathBuf,
    pub w: Mutex<std::io::BufWriter<std::fs::File>>,
}

impl RawLog {
    /// A write error of the raw log, naming it.
    pub fn error(&self, e: &std::io::Error) -> anyhow::Error {
        crate::output::write_error(e, &self.path, "the lines before this error are in it; the archive is complete up to the run's end")
    }

    fn append(&self, bytes: &[u8]) -> anyhow::Result<()> {
        let mut f = self.w.lock().map_err(|_| anyhow::anyhow!("raw log lock poisoned"))?;
        f.write_all(bytes).map_err(|e| self.error(&e))
    }
}

pub struct AlignedBuf {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    /// A zeroed, page-aligned buffer; an error (not an abort) when memory is short.
    pub fn new(len: usize) -> anyhow::Result<AlignedBuf> {
        let layout = std::alloc::Layout::from_size_align(len.max(4096), 4096)
            .map_err(|_| anyhow::anyhow!("an I/O buffer of {len} bytes is larger than this machine can address"))?;
        // SAFETY: non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            anyhow::bail!(
                "could not allocate the I/O buffers ({}); lower --qd or --bs",
                nines_core::units::format_size(layout.size() as u64)
            );
        }
        Ok(AlignedBuf { ptr, layout })
    }
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.layout.size()
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: owned allocation of this size.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Run one job to the end. Sends its windows and a final `Done` to the writer.
pub fn run_job<E: Engine>(eng: &mut E, ctx: &JobCtx, buf: &AlignedBuf) -> Result<()> {
    let r = job_loop(eng, ctx, buf);
    let (last_index, error) = match &r {
        Ok(li) => (*li, None),
        Err(e) => {
            STOP.compare_exchange(0, STOP_ERROR, Ordering::Relaxed, Ordering::Relaxed).ok();
            (None, Some(format!("job {}: {e:#}", ctx.job)))
        }
    };
    let _ = ctx.tx.send(Msg::Done { job: ctx.job, last_index, error });
    r.map(|_| ())
}

fn job_loop<E: Engine>(eng: &mut E, ctx: &JobCtx, buf: &AlignedBuf) -> Result<Option<u64>> {
    let mut job = JobLoop::new(eng, ctx, buf);
    loop {
        job.check_stop();
        if job.issuing {
            job.prep()?;
        }
        if !job.issuing && job.inflight == 0 {
            break;
        }
        let t_c = job.getevents()?;
        job.rotate_windows(t_c);
        job.events(t_c)?;
        job.now = t_c;
    }
    job.finish()
}

/// Where the job's current window starts and ends: by time (a boundary every `window_ns`)
/// or, with `--window-ios`, after this job's share of a window's I/Os.
struct WindowClock {
    /// Index of the current window.
    index: u64,
    start_ns: u64,
    /// I/Os in the current window (windows by I/O count).
    count: u64,
    /// The last window sent, if any.
    last_sent: Option<u64>,
    /// `u64::MAX` for windows by I/O count.
    window_ns: u64,
    /// When the current window closes (`u64::MAX` for windows by I/O count).
    boundary: u64,
}

/// One job's loop, in the parts of fio's io_uring engine (`engines/io_uring.c`): prepare and
/// submit I/Os into the free slots ([`JobLoop::prep`]), wait for completions
/// ([`JobLoop::getevents`]), handle each one ([`JobLoop::event`]), with the window clock
/// turned between the wait and the completions ([`JobLoop::rotate_windows`]).
struct JobLoop<'a, E: Engine> {
    eng: &'a mut E,
    ctx: &'a JobCtx,
    buf: &'a AlignedBuf,
    w: &'a Workload,
    qd: usize,
    rate: bool,
    max_bs: usize,
    /// I/Os handed to the kernel per submission while refilling the queue.
    batch: usize,
    /// Completions handled per reap at most (`--complete-batch`).
    complete_max: usize,
    gen: OpGen,
    /// What each slot in flight is; slot `s` owns bytes `[s * max_bs, (s + 1) * max_bs)` of
    /// the buffer area.
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slots pushed but not yet handed to the kernel (their submission time is not set).
    pushed: Vec<u32>,
    comps: Vec<Completion>,
    rec: Recorder,
    raw_buf: Vec<u8>,
    inflight: usize,
    /// Recorded I/Os issued (after the ramp).
    issued_rec: u64,
    writes_since_sync: u64,
    /// An fdatasync is due once the writes in flight have completed.
    sync_wanted: bool,
    /// Still issuing new I/Os (not stopped, not at the end, quota not reached).
    issuing: bool,
    win: WindowClock,
    /// The time of the last completion wait (or of the start).
    now: u64,
    /// fio's thinktime: I/Os issued since the last think time, and when the current one ends.
    think: Option<Think>,
    think_count: u32,
    think_until: u64,
}

impl<'a, E: Engine> JobLoop<'a, E> {
    fn new(eng: &'a mut E, ctx: &'a JobCtx, buf: &'a AlignedBuf) -> Self {
        let w = &*ctx.w;
        let qd = ctx.qd;
        let window_ns = match w.window {
            WindowRule::Time(ns) => ns,
            WindowRule::Ios(_) => u64::MAX,
        };
        JobLoop {
            eng,
            ctx,
            buf,
            w,
            qd,
            rate: w.rated(),
            max_bs: w.max_bs as usize,
            batch: (w.submit_batch as usize).clamp(1, qd),
            complete_max: (w.complete_batch as usize).max(1),
            gen: OpGen::over(w, ctx.job, &ctx.regions, ctx.t0_ns),
            slots: vec![Slot::default(); qd],
            free: (0..qd as u32).rev().collect(),
            pushed: Vec::with_capacity(qd),
            comps: Vec::with_capacity(qd * 2),
            rec: Recorder::new(&w.tags(), ctx.regions.len(), ctx.pool.clone()),
            raw_buf: Vec::new(),
            inflight: 0,
            issued_rec: 0,
            writes_since_sync: 0,
            sync_wanted: false,
            issuing: true,
            win: WindowClock {
                index: 0,
                start_ns: ctx.rec_start_ns,
                count: 0,
                last_sent: None,
                window_ns,
                boundary: if window_ns == u64::MAX { u64::MAX } else { ctx.rec_start_ns + window_ns },
            },
            now: clock(),
            think: w.think,
            think_count: 0,
            think_until: 0,
        }
    }

    /// fio's thinktime before the next I/O: once `blocks` I/Os have been issued, wait for
    /// them to complete (fio's default thinktime_blocks_type=complete), then spin for the
    /// spin part and sleep the rest (the sleep is a wait of the loop, which keeps the window
    /// clock turning). May the next I/O be issued now?
    fn think_done(&mut self) -> bool {
        let Some(th) = self.think else { return true };
        if self.now < self.think_until {
            return false;
        }
        if self.think_count < th.blocks {
            return true;
        }
        if self.inflight > 0 {
            return false;
        }
        let start = clock();
        let mut t = start;
        while t < start + th.spin_ns {
            std::hint::spin_loop();
            t = clock();
        }
        self.think_until = start + th.ns;
        self.think_count = 0;
        // a rate-limited schedule goes on from the end of the think time: the pause is the
        // application's, not the target's latency
        self.gen.thought_until(self.think_until);
        self.now = t;
        self.now >= self.think_until
    }

    /// Has this job's I/O quota (`--ios`) been issued?
    fn quota_reached(&self) -> bool {
        self.ctx.ios_quota.is_some_and(|q| self.issued_rec >= q)
    }

    /// Stop issuing on a stop request, at the run's end, or once the quota is issued (after
    /// a pending fdatasync).
    fn check_stop(&mut self) {
        if self.issuing
            && (STOP.load(Ordering::Relaxed) != 0
                || self.ctx.end_ns.is_some_and(|e| self.now >= e)
                || (self.quota_reached() && !self.sync_wanted))
        {
            self.issuing = false;
        }
    }

    /// Fill the free slots (fio's `prep` and `queue`): an fdatasync when one is due and the
    /// writes before it have completed, else the next I/Os as they fall due, handed to the
    /// kernel in groups of `batch`.
    fn prep(&mut self) -> Result<()> {
        while self.inflight < self.qd {
            if self.sync_wanted {
                if self.inflight > 0 {
                    break;
                }
                let s = self.free.pop().expect("a free slot");
                self.slots[s as usize] =
                    Slot { tag: SYNC as u8, file: 0, recorded: self.now >= self.ctx.rec_start_ns, len: 0, offset: 0, submit: 0, due: 0 };
                // SAFETY: an fdatasync touches no buffer.
                unsafe { self.eng.push(Op { slot: s, file: 0, kind: OpKind::Fsync, offset: 0, len: 0, buf: self.buf.ptr() }) }?;
                self.pushed.push(s);
                self.inflight += 1;
                self.sync_wanted = false;
                self.writes_since_sync = 0;
                continue;
            }
            if self.quota_reached() || !self.think_done() {
                break;
            }
            if self.rate && self.gen.peek_due() > self.now {
                break;
            }
            let io = self.gen.next_io();
            let due = if self.rate { self.gen.take_due(io.len) } else { 0 };
            self.think_count += 1;
            let s = self.free.pop().expect("a free slot");
            let recorded = self.now >= self.ctx.rec_start_ns;
            self.issued_rec += recorded as u64;
            self.slots[s as usize] = Slot { tag: io.dir as u8, file: io.target, recorded, len: io.len, offset: io.offset, submit: 0, due };
            // SAFETY: slot s < qd, and the buffer area holds qd * max_bs bytes (run_job's
            // caller allocates it so), so the offset stays inside the allocation.
            let p = unsafe { self.buf.ptr().add(s as usize * self.max_bs) };
            let kind = match io.dir {
                READ => OpKind::Read,
                TRIM => OpKind::Trim,
                _ => OpKind::Write,
            };
            // SAFETY: slot s owns bytes [s * max_bs, (s + 1) * max_bs) of the buffer area, and
            // io.len <= max_bs; the slot is off the free list until its completion is reaped
            // (`event`), so no other I/O uses those bytes meanwhile, and the buffer area
            // outlives the loop (it is borrowed for its whole length).
            unsafe { self.eng.push(Op { slot: s, file: io.target, kind, offset: io.offset, len: io.len, buf: p }) }?;
            self.pushed.push(s);
            self.inflight += 1;
            if self.pushed.len() >= self.batch {
                // Each group goes to the kernel as soon as it is complete, timed from just
                // before its own submission.
                self.stamp_submitted(clock());
                self.eng.submit()?;
            }
            if io.dir == WRITE {
                if let Some(n) = self.w.fsync_every {
                    self.writes_since_sync += 1;
                    if self.writes_since_sync >= n {
                        self.sync_wanted = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// The pushed I/Os are handed to the kernel at `t`: their submission time.
    fn stamp_submitted(&mut self, t: u64) {
        for &s in &self.pushed {
            self.slots[s as usize].submit = t;
        }
        self.pushed.clear();
    }

    /// Submit what is pushed and wait for completions (fio's `getevents`), never past the
    /// next window boundary, the run's end or, in rate-limited runs, the next due time.
    /// Returns the completion time every completion of this wait shares.
    fn getevents(&mut self) -> Result<u64> {
        let t_sub = clock();
        self.stamp_submitted(t_sub);
        // A boundary already passed (no rotation once issuing has stopped) does not count,
        // or the drain would spin.
        let mut deadline = t_sub + MAX_WAIT_NS;
        if self.win.boundary > t_sub {
            deadline = deadline.min(self.win.boundary);
        }
        if self.issuing {
            if let Some(e) = self.ctx.end_ns {
                deadline = deadline.min(e);
            }
            if self.rate && self.inflight < self.qd {
                deadline = deadline.min(self.gen.peek_due());
            }
            if self.think_until > t_sub {
                deadline = deadline.min(self.think_until);
            }
        }
        let thinking = self.think_until > t_sub;
        let want = u32::from(self.inflight > 0 || ((self.rate || thinking) && self.issuing));
        let timeout = Duration::from_nanos(deadline.saturating_sub(t_sub));
        self.eng.submit_wait(want, self.complete_max, timeout, &mut self.comps)?;
        Ok(clock())
    }

    /// Close the windows by time whose boundary `t_c` has passed.
    ///
    /// Once issuing has stopped (or at the run's planned end) no new window is opened: the
    /// I/Os still in flight complete into the last one, which ends at the last completion,
    /// rather than into a sliver of a window.
    fn rotate_windows(&mut self, t_c: u64) {
        while t_c >= self.win.boundary && self.issuing && self.ctx.end_ns.is_none_or(|e| self.win.boundary < e) {
            let end = self.win.boundary;
            self.send_window(end);
            self.win.boundary += self.win.window_ns;
        }
    }

    /// Send the current window, ending at `end_ns`, and open the next one there.
    fn send_window(&mut self, end_ns: u64) {
        let _ = self.ctx.tx.send(Msg::Window(Box::new(JobWindow {
            job: self.ctx.job,
            index: self.win.index,
            start_ns: self.win.start_ns,
            end_ns,
            tags: self.rec.take(),
        })));
        self.win.last_sent = Some(self.win.index);
        self.win.index += 1;
        self.win.start_ns = end_ns;
    }

    /// Handle every completion of the last wait.
    fn events(&mut self, t_c: u64) -> Result<()> {
        let mut comps = std::mem::take(&mut self.comps);
        let r = comps.iter().try_for_each(|&c| self.event(c, t_c));
        comps.clear();
        self.comps = comps;
        r
    }

    /// One completion (fio's `event`): free its slot, turn a failure into the run's error,
    /// record its latency (from the due time in rate-limited runs, with the service time
    /// from submission beside it), and close a window by I/O count when it is full.
    fn event(&mut self, c: Completion, t_c: u64) -> Result<()> {
        let slot = self.slots[c.slot as usize];
        self.free.push(c.slot);
        self.inflight -= 1;
        let tag = slot.tag as usize;
        // Trims (like fdatasync) complete with 0, reads and writes with their length.
        let expected = if tag == TRIM { 0 } else { slot.len as i32 };
        if c.res < 0 {
            let e = std::io::Error::from_raw_os_error(-c.res);
            if tag == SYNC {
                bail!("fdatasync failed: {e}");
            }
            if tag == TRIM {
                let why = match -c.res {
                    libc::EOPNOTSUPP | libc::ENOTTY => " (the target does not support discard / hole punching)",
                    libc::EINVAL => " (trims must be aligned to the device's logical block size, and within the device)",
                    libc::EBADF => " (the target is not open for writing)",
                    _ => "",
                };
                bail!("trim of {} bytes at offset {} of {} failed: {e}{why}", slot.len, slot.offset, self.ctx.targets[slot.file as usize]);
            }
            let hint = if c.res == -libc::EINVAL && self.w.direct {
                " (O_DIRECT needs block sizes and offsets aligned to the device's logical block size: try --bs 4k, or --buffered)"
            } else {
                ""
            };
            bail!(
                "{} of {} bytes at offset {} of {} failed: {e}{hint}",
                TAGS[tag],
                slot.len,
                slot.offset,
                self.ctx.targets[slot.file as usize]
            );
        }
        if c.res != expected {
            bail!(
                "short {}: {} of {} bytes at offset {} of {} (the target is smaller than the region, or was truncated during the run)",
                TAGS[tag],
                c.res,
                slot.len,
                slot.offset,
                self.ctx.targets[slot.file as usize]
            );
        }
        if !(slot.recorded && self.w.record) {
            return Ok(());
        }
        let rate = self.rate;
        let lat = if rate && tag != SYNC { t_c.saturating_sub(slot.due) } else { t_c.saturating_sub(slot.submit) }.max(1);
        let at = slot.file as usize * NT;
        self.rec.record(at + tag, lat, slot.len as u64);
        if rate && tag != SYNC {
            self.rec.record(at + READ_SVC + tag, t_c.saturating_sub(slot.submit).max(1), 0);
        }
        if let Some(raw) = &self.ctx.raw {
            let index = self.win.index;
            let _ = writeln!(self.raw_buf, "{index},{},{lat}", TAGS[tag]);
            if rate && tag != SYNC {
                let _ = writeln!(self.raw_buf, "{index},{},{}", TAGS[READ_SVC + tag], t_c.saturating_sub(slot.submit).max(1));
            }
            if self.raw_buf.len() > 1 << 20 {
                raw.append(&self.raw_buf)?;
                self.raw_buf.clear();
            }
        }
        if tag != SYNC && self.win.window_ns == u64::MAX {
            self.win.count += 1;
            if self.win.count >= self.ctx.window_quota {
                self.send_window(t_c);
                self.win.count = 0;
            }
        }
        Ok(())
    }

    /// Send the last, partial window (if recording had started) and flush the raw log.
    /// Returns the index of the last window sent.
    fn finish(mut self) -> Result<Option<u64>> {
        let end = self.now.max(self.win.start_ns);
        let has_data = self.rec.acc.iter().any(|a| a.count > 0);
        if self.now > self.ctx.rec_start_ns && (end > self.win.start_ns || has_data) {
            let _ = self.ctx.tx.send(Msg::Window(Box::new(JobWindow {
                job: self.ctx.job,
                index: self.win.index,
                start_ns: self.win.start_ns,
                end_ns: end,
                tags: self.rec.take(),
            })));
            self.win.last_sent = Some(self.win.index);
        }
        if let Some(raw) = &self.ctx.raw {
            raw.append(&self.raw_buf)?;
        }
        Ok(self.win.last_sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::Given;
    use crate::cli::{Cli, Cmd};
    use crate::run::engine::NullEngine;
    use clap::Parser;

    fn workload(extra: &[&str]) -> Workload {
        let mut v = vec!["nines", "run", "--target", "t", "-o", "o.hlog", "--seed", "3", "--engine", "null", "--size", "1MiB"];
        v.extend_from_slice(extra);
        let Cmd::Run(a) = Cli::try_parse_from(v).unwrap().cmd else { panic!() };
        Workload::from_config(&a.config(&Given::default())).unwrap()
    }

    /// The null engine, except that the `stall_at`-th submission takes `stall` to return (a
    /// device that hangs once).
    struct StallEngine {
        inner: NullEngine,
        calls: u32,
        stall_at: u32,
        stall: Duration,
    }

    impl Engine for StallEngine {
        unsafe fn push(&mut self, op: Op) -> std::io::Result<()> {
            // SAFETY: our caller's guarantees are passed on unchanged.
            unsafe { self.inner.push(op) }
        }
        fn submit_wait(&mut self, want: u32, max: usize, timeout: Duration, out: &mut Vec<Completion>) -> std::io::Result<()> {
            self.calls += 1;
            if self.calls == self.stall_at {
                std::thread::sleep(self.stall);
            }
            self.inner.submit_wait(want, max, timeout, out)
        }
    }

    fn run(w: Workload, eng: &mut impl Engine) -> Vec<JobWindow> {
        let _stop = STOP_TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, rx) = std::sync::mpsc::channel();
        let now = clock();
        let ctx = JobCtx {
            job: 0,
            targets: vec!["t".into()],
            qd: w.qd as usize,
            regions: vec![1 << 20],
            t0_ns: now,
            rec_start_ns: now,
            end_ns: w.runtime_ns.map(|r| now + r),
            ios_quota: w.ios,
            window_quota: u64::MAX,
            tx,
            pool: Arc::new(Mutex::new(Vec::new())),
            raw: None,
            w: Arc::new(w),
        };
        let buf = AlignedBuf::new(4096).unwrap();
        run_job(eng, &ctx, &buf).unwrap();
        drop(ctx);
        rx.iter()
            .filter_map(|m| match m {
                Msg::Window(w) => Some(*w),
                Msg::Done { error, .. } => {
                    assert!(error.is_none());
                    None
                }
            })
            .collect()
    }

    #[test]
    fn trims_are_recorded_under_their_own_tag() {
        let w = workload(&["--rw", "randtrim", "--qd", "4", "--ios", "500"]);
        let ws = run(w, &mut NullEngine::default());
        let total: u64 = ws.iter().filter_map(|w| w.tags[TRIM].as_ref()).map(|t| t.count).sum();
        assert_eq!(total, 500);
        assert!(ws.iter().all(|w| w.tags[READ].is_none() && w.tags[WRITE].is_none()));
        let bytes: u64 = ws.iter().filter_map(|w| w.tags[TRIM].as_ref()).map(|t| t.bytes).sum();
        assert_eq!(bytes, 500 * 4096);
    }

    #[test]
    fn a_refused_trim_is_an_error_naming_the_target() {
        /// Fails every I/O with EOPNOTSUPP, as a device without discard does.
        struct NoDiscard(Vec<u32>);
        impl Engine for NoDiscard {
            unsafe fn push(&mut self, op: Op) -> std::io::Result<()> {
                self.0.push(op.slot);
                Ok(())
            }
            fn submit_wait(&mut self, _: u32, _: usize, _: Duration, out: &mut Vec<Completion>) -> std::io::Result<()> {
                out.extend(self.0.drain(..).map(|slot| Completion { slot, res: -libc::EOPNOTSUPP }));
                Ok(())
            }
        }
        let _stop = STOP_TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, rx) = std::sync::mpsc::channel();
        let now = clock();
        let w = workload(&["--rw", "trim", "--ios", "10"]);
        let ctx = JobCtx {
            job: 0,
            targets: vec!["'/dev/nodiscard'".into()],
            qd: 1,
            regions: vec![1 << 20],
            t0_ns: now,
            rec_start_ns: now,
            end_ns: None,
            ios_quota: w.ios,
            window_quota: u64::MAX,
            tx,
            pool: Arc::new(Mutex::new(Vec::new())),
            raw: None,
            w: Arc::new(w),
        };
        let e = run_job(&mut NoDiscard(Vec::new()), &ctx, &AlignedBuf::new(4096).unwrap()).unwrap_err().to_string();
        STOP.store(0, Ordering::Relaxed);
        assert!(e.contains("trim of 4096 bytes at offset 0 of '/dev/nodiscard' failed") && e.contains("does not support discard"), "{e}");
        drop(ctx);
        assert!(rx.iter().any(|m| matches!(m, Msg::Done { error: Some(_), .. })));
    }

    fn over(ws: &[JobWindow], tag: usize, ns: u64) -> u64 {
        ws.iter().filter_map(|w| w.tags[tag].as_ref()).map(|t| t.count - t.hist.count_between(0, ns - 1)).sum()
    }

    #[test]
    fn a_stall_shows_in_latency_from_the_due_time_not_in_service_time() {
        // 1000 I/Os a second at QD1; the 100th submission hangs for 60 ms. The ~60 I/Os that
        // fell due meanwhile are issued late: measured from their due time they waited up to
        // 60 ms (coordinated omission corrected), while their service time stays tiny.
        let w = workload(&["--rate-iops", "1000", "--arrival", "uniform", "--ios", "400"]);
        let mut eng = StallEngine { inner: NullEngine::default(), calls: 0, stall_at: 100, stall: Duration::from_millis(60) };
        let ws = run(w, &mut eng);
        let total: u64 = ws.iter().filter_map(|w| w.tags[READ].as_ref()).map(|t| t.count).sum();
        assert_eq!(total, 400);
        let late = over(&ws, READ, 10_000_000);
        let slow_service = over(&ws, READ_SVC, 10_000_000);
        assert!(late >= 40, "only {late} I/Os over 10 ms from their due time");
        // Service time does not show the stall. (Not "none over 10 ms": on a loaded machine a
        // descheduled thread can stretch a null I/O's service time; the test must not depend
        // on the machine's load.)
        assert!(slow_service * 4 < late, "{slow_service} I/Os with a service time over 10 ms, {late} late from their due time");
    }

    #[test]
    fn windows_keep_their_boundaries_and_exact_max() {
        let w = workload(&["--rate-iops", "2000", "--arrival", "uniform", "--runtime", "300ms", "--window", "100ms"]);
        let mut eng = NullEngine::default();
        let ws = run(w, &mut eng);
        assert_eq!(ws.len(), 3);
        for (i, jw) in ws.iter().enumerate() {
            assert_eq!(jw.index, i as u64);
            if i < 2 {
                assert_eq!(jw.end_ns - jw.start_ns, 100_000_000);
            }
            let t = jw.tags[READ].as_ref().unwrap();
            // The exact max lies in the histogram's top bucket.
            assert!(t.max > 0 && t.hist.max() >= t.max && t.hist.lowest_equivalent(t.hist.max()) <= t.max);
            assert_eq!(t.hist.len(), t.count);
        }
        // 2000 due times a second for 300 ms: at most 601 I/Os.
        let total: u64 = ws.iter().map(|w| w.tags[READ].as_ref().unwrap().count).sum();
        assert!(total > 0 && total <= 601, "{total}");
    }
}
