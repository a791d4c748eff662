//! `nines run`: the collector.
//!
//! ```text
//!  main: RunConfig (flags, job file) -> Workload, safety checks, target laid out, archive header
//!    |-- job thread x N: OpGen -> Engine (io_uring | psync | null) -> Recorder (per-tag
//!    |     hdrhistogram, exact max) -> closed windows --mpsc--> writer
//!    '-- writer thread: merges jobs per tag, appends + flushes each window, progress line,
//!          steady-state check (nines_core::steady) -> STOP
//!  main: joins, appends the end summary as metadata, prints the `nines stats` table
//! ```
//!
//! Latency is in nanoseconds from submission to completion, or, in rate-limited runs, from
//! the time the I/O was due (the service time from submission goes to `read.svc` /
//! `write.svc` / `trim.svc`). An I/O's submission time is read just before the system call
//! that hands it to the kernel (each I/O its own with the default `--submit-batch 1`); its
//! completion time when it is reaped: one completion a reap by default (`--complete-batch
//! 1`, fio's `iodepth_batch_complete_max` default), the others left in the ring and timed
//! when their turn comes, so each slot is refilled as soon as its I/O is reaped; completions
//! reaped together (`--complete-batch N`) share one timestamp, read right after the wait
//! returns. At QD1 this gives the same latencies as fio's `lat` (BENCHMARKS.md, collector
//! section, (d)). No engine does I/O in `push`: psync does its pread/pwrite/fallocate/
//! BLKDISCARD inside the timed wait, io_uring hands every I/O (trims too) to the kernel
//! asynchronously, so trims are timed exactly like reads and writes.

pub mod config;
pub mod context;
pub mod engine;
pub mod job;
pub mod job_file;
pub mod safety;
pub mod workload;
pub mod writer;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use nines_core::archive::{ArchiveWriter, Header};
use nines_core::export;
use nines_core::meta::{self, RunMeta};
use nines_core::stats;
use rand::{RngCore, SeedableRng};
#[cfg(unix)]
use signal_hook::consts::SIGHUP;
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::output;
use config::{EngineKind, RunConfig};
#[cfg(target_os = "linux")]
use engine::UringEngine;
use engine::{NullEngine, PsyncEngine};
use job::{clock, AlignedBuf, JobCtx, Msg, STOP, STOP_ERROR, STOP_STEADY};
use workload::{WindowRule, Workload, NT, TAGS};
pub use writer::SteadyOutcome;

/// The tags documentation stored in every archive's metadata.
const TAG_DOC: &str = "read, write, trim (discard / hole punching), sync (fdatasync): latency in ns \
of each direction; read.svc, write.svc, trim.svc (rate-limited runs only): service time from \
submission, while read/write/trim then hold latency from the time each I/O was due. With several \
concurrent jobs (fio job sections) JOB/read, JOB/write, ... hold each job's share, with several targets \
TARGET/read, ... each target's; the unscoped tags hold every I/O";

/// How a run ended, for the caller.
pub struct Outcome {
    pub output: PathBuf,
    pub stopped_by: String,
    pub engine: String,
    pub steady: Option<SteadyOutcome>,
    pub errors: Vec<String>,
    /// Why the run's context lines lack the device rates (or stopped), said once in the
    /// summary; None when they are complete or were not asked for (`--no-context`).
    pub context_note: Option<String>,
}

/// Print the end summary (the `nines stats` table of the archive) and turn job errors into
/// the command's error.
pub fn finish(o: &Outcome, no_summary: bool, out: &mut impl Write) -> Result<()> {
    if !no_summary {
        let bytes = std::fs::read(&o.output).with_context(|| format!("could not read back '{}'", o.output.display()))?;
        let run = nines_core::archive::read(&o.output.display().to_string(), &bytes)?;
        let s = stats::run_stats(&run, &stats::Options::default());
        write!(out, "{}", export::text::stats(&[s]))?;
        writeln!(out, "engine {}, stopped by {}", o.engine, o.stopped_by)?;
        match &o.steady {
            Some(SteadyOutcome::Reached { criterion, at_s, .. }) => writeln!(out, "steady state ({criterion}) reached at {at_s:.1} s")?,
            Some(SteadyOutcome::NotReached { criterion, .. }) => writeln!(out, "steady state ({criterion}) NOT reached")?,
            None => {}
        }
        if let Some(n) = &o.context_note {
            writeln!(out, "context: {n}")?;
        }
    }
    if let Some(e) = o.errors.first() {
        bail!("{e} (the archive '{}' keeps every window recorded before the error)", o.output.display());
    }
    Ok(())
}

/// After a run: wait until SIGINT, SIGTERM or SIGHUP (as `nines run --live` keeps its page
/// served), calling `announce` once they are caught, so that a signal sent as soon as the
/// announcement is read never finds the default action and kills the process.
pub fn wait_for_signal(announce: impl FnOnce()) {
    STOP.store(0, Ordering::Relaxed);
    install_signals(true);
    announce();
    while STOP.load(Ordering::Relaxed) == 0 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    install_signals(false);
}

/// Is a run recording? Outside one, SIGINT, SIGTERM and SIGHUP keep their default action.
static RUNNING: AtomicBool = AtomicBool::new(false);
/// Has a run had its first SIGINT / SIGTERM / SIGHUP (one flag each, as each signal's second
/// arrival kills, as `SA_RESETHAND` did)?
static SIGNALLED: [AtomicBool; 3] = [AtomicBool::new(false), AtomicBool::new(false), AtomicBool::new(false)];
/// SIGHUP (the terminal or ssh session gone) ends a run as SIGTERM does: with its summary
/// and a complete archive, rather than by the default action, which lost both.
#[cfg(unix)]
const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];
/// Windows has no SIGHUP (signal-hook's Windows signals are SIGINT and SIGTERM; the C
/// runtime raises SIGINT for Ctrl-C).
#[cfg(not(unix))]
const STOP_SIGNALS: [i32; 2] = [SIGINT, SIGTERM];

/// Is `sig` ignored (SIG_IGN) as the process was started? `nohup` starts a command with
/// SIGHUP ignored so that a hang-up does not end it; a run keeps it so (sigaction(2) with no
/// new action only reads the current one).
#[cfg(unix)]
fn ignored_at_start(sig: i32) -> bool {
    // SAFETY: a zeroed sigaction is a valid place for the old action; no action is set.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    r == 0 && old.sa_sigaction == libc::SIG_IGN
}

/// SIGINT/SIGTERM/SIGHUP ask the run to stop and record which signal did (in [`STOP`],
/// unless the run is already stopping for another reason); a second one of the same signal
/// kills the process at once, with the signal's default action. With `on == false` (after
/// the run) they have their default action again. A SIGHUP ignored at start (`nohup`) stays
/// ignored.
fn install_signals(on: bool) {
    static HANDLERS: Once = Once::new();
    for flag in &SIGNALLED {
        flag.store(false, Ordering::SeqCst);
    }
    RUNNING.store(on, Ordering::SeqCst);
    HANDLERS.call_once(|| {
        for (i, sig) in STOP_SIGNALS.into_iter().enumerate() {
            #[cfg(unix)]
            if sig == SIGHUP && ignored_at_start(sig) {
                continue;
            }
            let action = move || {
                if !RUNNING.load(Ordering::SeqCst) || SIGNALLED[i].swap(true, Ordering::SeqCst) {
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                } else {
                    let _ = STOP.compare_exchange(0, sig, Ordering::Relaxed, Ordering::Relaxed);
                }
            };
            // SAFETY: the action is async-signal-safe: atomic loads, swaps and a
            // compare-exchange, and signal-hook's `emulate_default_handler`, documented as
            // async-signal-safe; it allocates nothing and takes no lock.
            if let Err(e) = unsafe { signal_hook::low_level::register(sig, action) } {
                crate::diag!("nines: warning: could not handle signal {sig} ({e}); it will end the run without completing the archive");
            }
        }
    });
}

fn epoch_s(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

fn host_meta() -> meta::Host {
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string());
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string());
    let mem = read("/proc/meminfo")
        .and_then(|m| m.lines().find(|l| l.starts_with("MemTotal:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok()))
        .map(|k| k * 1024);
    meta::Host {
        hostname: read("/proc/sys/kernel/hostname"),
        kernel: read("/proc/sys/kernel/osrelease"),
        os: Some(std::env::consts::OS.into()),
        cpu,
        cpus: std::thread::available_parallelism().map(|n| n.get() as u64).ok(),
        memory_bytes: mem,
        ..clock_meta()
    }
}

/// The system clock's stated errors (adjtimex(2) with no modes set only reads them), so a
/// merge of several hosts' runs knows how far their windows may be apart.
#[cfg(target_os = "linux")]
fn clock_meta() -> meta::Host {
    // SAFETY: a zeroed timex is a valid argument; with `modes` 0 the call only fills it in.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::adjtimex(&mut t) };
    if state < 0 {
        return meta::Host::default();
    }
    meta::Host {
        clock_esterror_s: Some(t.esterror as f64 / 1e6),
        clock_maxerror_s: Some(t.maxerror as f64 / 1e6),
        clock_synced: Some(state != libc::TIME_ERROR),
        ..meta::Host::default()
    }
}

/// adjtimex(2) is Linux's: elsewhere the clock's errors are not recorded.
#[cfg(not(target_os = "linux"))]
fn clock_meta() -> meta::Host {
    meta::Host::default()
}

/// `--start-at`: sleep until the wall clock reads `epoch_s` (in steps short enough to notice
/// Ctrl-C, the last few milliseconds in short sleeps); how late it woke, in seconds. An error
/// when the instant has passed or when stopped while waiting (the archive, still empty, is
/// removed again).
fn wait_until(epoch_s_at: f64, quiet: bool) -> Result<f64> {
    let now = epoch_s(SystemTime::now());
    if epoch_s_at < now - 0.5 {
        bail!(
            "--start-at {} has passed ({:.1} s ago{}): give a later time",
            nines_core::units::iso_date(epoch_s_at),
            now - epoch_s_at,
            " counting --ramp"
        );
    }
    if !quiet && epoch_s_at > now + 1.0 {
        crate::diag!("nines: waiting {:.1} s for --start-at {}", epoch_s_at - now, nines_core::units::iso_date(epoch_s_at));
    }
    loop {
        let left = epoch_s_at - epoch_s(SystemTime::now());
        if left <= 0.0 {
            return Ok(-left);
        }
        if STOP.load(Ordering::Relaxed) != 0 {
            bail!("stopped while waiting for --start-at; nothing was recorded");
        }
        let step = if left > 0.2 {
            (left - 0.1).min(0.1)
        } else if left > 0.002 {
            left - 0.001
        } else {
            left.min(0.0002)
        };
        std::thread::sleep(std::time::Duration::from_secs_f64(step.max(0.0)));
    }
}

/// Run the workload and write the archive. Errors before the first window (bad flags,
/// safety refusals) are returned; errors during the run end the run and are reported in
/// [`Outcome::errors`] after the archive has been completed.
pub fn collect(a: &RunConfig) -> Result<Outcome> {
    collect_all(std::slice::from_ref(a))
}

/// One target of the run, opened once however many workloads drive it.
struct Opened {
    real: PathBuf,
    file: Option<std::fs::File>,
    block: bool,
    meta: meta::Target,
    /// As error messages name it.
    name: String,
    direct: bool,
    sync: bool,
    /// The tags' scope of this target (in a run of several targets).
    scope: String,
}

/// One workload of the run (a job file's section) with its targets (indices into the
/// opened targets) and their regions.
struct Part {
    w: Arc<Workload>,
    targets: Vec<(usize, u64)>,
    /// The scope of its jobs' tags (in a run of several workloads).
    scope: String,
}

/// Several workloads run at the same time (a job file's sections of one group, as fio runs
/// them), into one archive: every tag of the whole run (`read`, `write`) holds every job's
/// I/Os, and with several workloads each one's share is kept under its scope too
/// (`probe/read`), with several targets each target's (`a.dat/read`). The first of `parts`
/// gives the archive, its name and the run-wide settings (window, ramp, engine, steady state,
/// --start-at); the workloads must agree on the window, the ramp and the engine.
pub fn collect_all(parts: &[RunConfig]) -> Result<Outcome> {
    let a = parts.first().ok_or_else(|| anyhow!("no workload to run"))?;
    let mut ws: Vec<Workload> = parts.iter().map(Workload::from_config).collect::<Result<_>>()?;
    let quiet = a.quiet;
    check_together(parts, &ws)?;
    let engine0 = ws[0].engine;
    let (mut out_file, mut raw_file) = create_outputs(a, parts, engine0)?;
    let (kind, mut engine_meta) = choose_engine(&mut ws, engine0, quiet)?;
    let (mut opened, part_targets) = open_targets(parts, &ws, kind, quiet)?;
    check_trims(&ws, &part_targets, &opened, kind, &mut engine_meta)?;
    let part_scopes = scopes(parts, &mut opened);
    let plan = context_plan(a, &opened, kind);
    let runs: Vec<Part> =
        ws.into_iter().zip(part_targets).zip(part_scopes).map(|((w, targets), scope)| Part { w: Arc::new(w), targets, scope }).collect();
    let w = runs[0].w.clone();
    let raw = raw_log(raw_file.as_ref())?;
    let archive_err = |e: &std::io::Error| output::write_error(e, &a.output, "every window written before this error is in it");

    let clock = start_clock(a.start_at, w.ramp_ns, quiet)?;
    let meta = RunMeta {
        context_devices: plan.devices.clone(),
        context_missing: plan.missing.clone(),
        ..header_meta(a, &runs, &opened, &engine_meta, &clock)
    };
    let aw = ArchiveWriter::new(BufWriter::new(out_file.try_clone()?), &Header { start_time: clock.start_epoch, meta })
        .map_err(|e| archive_err(&e))?;
    let (out, routes) = tag_routes(&runs, &opened);
    let setup = Setup { runs: &runs, opened: &opened, clock: &clock, kind, quiet, raw: &raw, context: plan.sampler.clone() };
    let (mut aw, wres, features) = record(aw, &setup, &out, routes)?;
    install_signals(false);
    let stop = STOP.load(Ordering::Relaxed);
    let mut wres = match wres {
        Ok(r) => r,
        Err(e) => {
            // a write error (a full disk): what was written stays for the user to read
            out_file.keep();
            if let Some(r) = &mut raw_file {
                r.keep();
            }
            return Err(match e.downcast_ref::<std::io::Error>() {
                Some(io) => archive_err(io),
                None => e,
            });
        }
    };
    let stopped_by = stopped_by(stop, runs.iter().all(|r| r.w.ios.is_some() && r.w.runtime_ns.is_none()));
    if let Some(r) = &raw {
        r.w.lock().map_err(|_| anyhow!("raw log lock poisoned"))?.flush().map_err(|e| r.error(&e))?;
    }
    if wres.windows == 0 {
        // nothing was recorded (stopped during --ramp, or an error before the first window):
        // no archive is kept, so nothing blocks a rerun
        let why =
            wres.errors.first().cloned().unwrap_or_else(|| format!("stopped by {stopped_by} before recording began (during --ramp?)"));
        bail!("{why}; nothing was recorded, so '{}' was not kept", a.output.display());
    }
    out_file.keep();
    if let Some(r) = &mut raw_file {
        r.keep();
    }

    // The end summary, appended as metadata (readers merge it into the header's).
    if let Some((ff, fb)) = *features.lock().map_err(|_| anyhow!("lock poisoned"))? {
        engine_meta.registered_files = Some(ff);
        engine_meta.registered_buffers = Some(fb);
    }
    let mut summary = end_meta(engine_meta, &wres, &out, &clock, &stopped_by);
    let context_note = match &wres.context_failed {
        Some(e) => {
            let why = format!("context lines stopped during the run: {e}");
            summary.context_missing = Some(match &plan.missing {
                Some(m) => format!("{m}; {why}"),
                None => why.clone(),
            });
            Some(why)
        }
        None if a.no_context => None,
        None => plan.missing.clone().map(|m| if plan.sampler.is_some() { format!("{m} (CPU and pressure recorded)") } else { m }),
    };
    aw.write_meta(&summary).map_err(|e| archive_err(&e))?;
    let bw = aw.into_inner();
    let f = bw.into_inner().map_err(|e| archive_err(e.error()))?;
    f.sync_all().map_err(|e| archive_err(&e))?;
    drop(opened);

    Ok(Outcome {
        output: a.output.clone(),
        stopped_by,
        engine: kind_name(kind),
        steady: wres.steady.take(),
        errors: wres.errors,
        context_note,
    })
}

/// A run ready to record: its workloads with their targets, the targets opened, its clock,
/// the engine and the raw log.
struct Setup<'a> {
    runs: &'a [Part],
    opened: &'a [Opened],
    clock: &'a Clock,
    kind: EngineKind,
    quiet: bool,
    raw: &'a Option<Arc<job::RawLog>>,
    /// What samples each window's context (None: no context lines).
    context: Option<context::Sampler>,
}

/// The run itself: the writer thread appending each window to the archive (`out`, each job's
/// slots going to `routes`), every job's thread doing the I/O, until they end. The archive
/// writer back, with what the writer made of the run, and what io_uring set up.
fn record(
    mut aw: ArchiveWriter<BufWriter<std::fs::File>>,
    s: &Setup,
    out: &[writer::OutTag],
    routes: Vec<Vec<Vec<usize>>>,
) -> Result<(ArchiveWriter<BufWriter<std::fs::File>>, Result<writer::WriterResult>, Features)> {
    let (runs, clock) = (s.runs, s.clock);
    let total_jobs: u32 = runs.iter().map(|r| r.w.jobs).sum();
    let pool: job::Pool = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel::<Msg>();
    let features: Features = Arc::new(Mutex::new(None));
    let window_ns = match runs[0].w.window {
        WindowRule::Time(ns) => Some(ns),
        WindowRule::Ios(_) => None,
    };
    let (sampling, feed) = match &s.context {
        Some(sm) => {
            let (t, f) = context::spawn(sm.clone(), clock.rec_start_ns, window_ns)?;
            (Some(t), Some(f))
        }
        None => (None, None),
    };
    let writer = {
        let cfg = writer::WriterCfg {
            w: runs[0].w.clone(),
            jobs: total_jobs,
            rec_start_ns: clock.rec_start_ns,
            quiet: s.quiet,
            pool: pool.clone(),
            out: out.to_vec(),
            routes,
            context: feed,
        };
        std::thread::Builder::new().name("nines-writer".into()).spawn(move || {
            let r = writer::writer_loop(rx, &mut aw, cfg);
            (aw, r)
        })?
    };
    let common = JobsCommon {
        kind: s.kind,
        total_jobs,
        t0_ns: clock.t0_ns,
        rec_start_ns: clock.rec_start_ns,
        tx: &tx,
        pool: &pool,
        raw: s.raw,
        features: &features,
    };
    let handles = spawn_jobs(runs, s.opened, &common)?;
    drop(tx);
    for h in handles {
        let _ = h.join();
    }
    let (aw, wres) = writer.join().map_err(|_| anyhow!("the writer thread panicked"))?;
    if let Some(t) = sampling {
        t.end();
    }
    Ok((aw, wres, features))
}

/// How the run records its windows' context: off with `--no-context`; the disks under the
/// targets (the null engine does no I/O: host part only).
fn context_plan(a: &RunConfig, opened: &[Opened], kind: EngineKind) -> context::Plan {
    if a.no_context {
        return context::Plan::off("not recorded (--no-context)");
    }
    let targets: Vec<&Path> = opened.iter().map(|o| o.real.as_path()).collect();
    let no_device = (kind == EngineKind::Null).then_some("the null engine does no I/O on a device");
    context::Plan::for_targets(&targets, no_device)
}

/// What the first job's io_uring set up (registered files, registered buffers), for the
/// archive's engine metadata.
type Features = Arc<Mutex<Option<(bool, bool)>>>;

/// How a workload is named in errors: its job file and section, else its name.
fn label(p: &RunConfig) -> String {
    match (&p.job_file, &p.section) {
        (Some(f), Some(s)) => format!("{} [{s}]", f.display()),
        _ => p.name.clone().unwrap_or_else(|| "the workload".into()),
    }
}

/// Workloads run together share one archive, so they must agree on its window, ramp and
/// engine.
fn check_together(parts: &[RunConfig], ws: &[Workload]) -> Result<()> {
    for (p, w) in parts.iter().zip(ws).skip(1) {
        let w0 = &ws[0];
        let differ = if w.window != w0.window {
            Some("the window (log_hist_msec, --window)")
        } else if w.ramp_ns != w0.ramp_ns {
            Some("the ramp (ramp_time, --ramp)")
        } else if w.engine != w0.engine {
            Some("the engine (ioengine, --engine)")
        } else {
            None
        };
        if let Some(what) = differ {
            bail!(
                "{} and {} run together but differ in {what}; nines writes them into one archive with one of each: make them the same (or give the flag)",
                label(&parts[0]),
                label(p)
            );
        }
    }
    Ok(())
}

/// The archive and the raw log: never over an existing file by accident, never onto a
/// target, a device or each other. Created now, exclusively: a second `nines run -o` of the
/// same path is refused here, and if this run ends before recording anything the files are
/// removed again.
fn create_outputs(a: &RunConfig, parts: &[RunConfig], engine0: EngineKind) -> Result<(output::Created, Option<output::Created>)> {
    let all_targets: Vec<PathBuf> = parts.iter().flat_map(|p| p.targets.iter().cloned()).collect();
    let target_reals: Vec<PathBuf> = all_targets.iter().filter_map(|t| safety::resolve(t).ok().map(|(r, _)| r)).collect();
    let out_real = check_output(&a.output, "the archive -o", &target_reals, engine0)?;
    if let Some(raw) = &a.raw_log {
        let raw_real = check_output(raw, "the raw log --raw-log", &target_reals, engine0)?;
        if raw_real == out_real {
            bail!("--raw-log and -o name the same file '{}'; give two paths", raw.display());
        }
    }
    let never_over = if engine0 == EngineKind::Null { output::Inputs::default() } else { output::Inputs::new(all_targets.iter()) };
    let out_file = output::create_streaming(&a.output, a.force, &never_over, "the archive -o")?;
    let raw_file = match &a.raw_log {
        Some(p) => Some(output::create_streaming(p, a.force, &never_over, "the raw log --raw-log")?),
        None => None,
    };
    Ok((out_file, raw_file))
}

/// The engine the run uses (io_uring falls back to psync where the kernel refuses it, psync
/// runs every job at queue depth 1) and its metadata; each workload's I/O buffers checked
/// against the memory there is.
fn choose_engine(ws: &mut [Workload], engine0: EngineKind, quiet: bool) -> Result<(EngineKind, meta::Engine)> {
    let mut engine_meta = meta::Engine { requested: Some(engine0.name().into()), ..meta::Engine::default() };
    let mut kind = engine0;
    #[cfg(not(target_os = "linux"))]
    if kind == EngineKind::Uring {
        // asked for explicitly (here the default is psync): no silent fallback
        let e = engine::probe_uring().err().map(|e| e.to_string()).unwrap_or_default();
        bail!("--engine uring (ioengine=io_uring) cannot run here: {e}. Use --engine psync (ioengine=psync)");
    }
    #[cfg(not(target_os = "linux"))]
    if ws.iter().any(|w| w.trim) {
        bail!(
            "trims (--rw trim, randtrim) punch holes or discard, which nines does only on Linux (fallocate(2), BLKDISCARD); this is {}",
            std::env::consts::OS
        );
    }
    if kind == EngineKind::Uring {
        if let Err(e) = engine::probe_uring() {
            crate::diag!("nines: warning: io_uring is not available ({e}); falling back to the psync engine (pread/pwrite, one I/O at a time per job)");
            engine_meta.fallback_reason = Some(format!("io_uring unavailable: {e}"));
            kind = EngineKind::Psync;
        }
    }
    for w in ws.iter_mut() {
        if kind == EngineKind::Psync && w.qd > 1 {
            if !quiet {
                crate::diag!(
                    "nines: warning: the psync engine does one I/O at a time; --qd {} is run as 1 per job (use --jobs for concurrency)",
                    w.qd
                );
            }
            engine_meta.qd_requested = Some(w.qd);
            w.qd = 1;
        }
        check_buffer_memory(w)?;
    }
    engine_meta.name = Some(kind.name().into());
    Ok((kind, engine_meta))
}

/// The targets: each opened once, the workloads that write first (so the rules for writes
/// are checked, and a new file laid out, by a workload that writes). Each workload's targets
/// as indices into the opened ones, with their regions.
#[allow(clippy::type_complexity)]
fn open_targets(parts: &[RunConfig], ws: &[Workload], kind: EngineKind, quiet: bool) -> Result<(Vec<Opened>, Vec<Vec<(usize, u64)>>)> {
    let mut opened: Vec<Opened> = Vec::new();
    let mut part_targets: Vec<Vec<(usize, u64)>> = vec![Vec::new(); parts.len()];
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| !(ws[i].writes() || ws[i].fsync_every.is_some()));
    for &pi in &order {
        let (p, w) = (&parts[pi], &ws[pi]);
        let n = p.targets.len() as u64;
        // fio divides a job's size between its files
        let each = w.size.map(|s| s / n / u64::from(w.align) * u64::from(w.align));
        if let Some(e) = each.filter(|&e| e < u64::from(w.max_bs)) {
            bail!(
                "--size {} over {n} targets leaves {} for each, less than one block of {}",
                nines_core::units::format_size(w.size.unwrap_or(0)),
                nines_core::units::format_size(e),
                nines_core::units::format_size(u64::from(w.max_bs))
            );
        }
        let wt = Workload { size: each, ..w.clone() };
        for t in &p.targets {
            let target = if kind == EngineKind::Null {
                null_target(&mut opened, t, each, &wt)?
            } else {
                open_target(&mut opened, p, t, each, &wt, quiet)?
            };
            part_targets[pi].push(target);
        }
    }
    Ok((opened, part_targets))
}

/// A target under the null engine, which opens nothing: its region is the workload's size.
fn null_target(opened: &mut Vec<Opened>, t: &Path, each: Option<u64>, wt: &Workload) -> Result<(usize, u64)> {
    let region = each.ok_or_else(|| anyhow!("--engine null needs --size (the target is not opened)"))?;
    let idx = match opened.iter().position(|o| o.real.as_path() == t) {
        Some(i) => i,
        None => {
            opened.push(Opened {
                real: t.to_path_buf(),
                file: None,
                block: false,
                meta: meta::Target {
                    path: Some(t.display().to_string()),
                    kind: Some("none (null engine)".into()),
                    region_bytes: Some(region),
                    ..meta::Target::default()
                },
                name: format!("'{}'", t.display()),
                direct: wt.direct,
                sync: wt.sync,
                scope: String::new(),
            });
            opened.len() - 1
        }
    };
    Ok((idx, region))
}

/// A target of workload `p`: shared with a workload that opened it already the same way
/// (direct=, sync=), else opened under the data-safety rules, created and laid out if
/// needed. Its index among the opened targets, and its region.
fn open_target(opened: &mut Vec<Opened>, p: &RunConfig, t: &Path, each: Option<u64>, wt: &Workload, quiet: bool) -> Result<(usize, u64)> {
    let real = safety::resolve(t).map(|(r, _)| r)?;
    if let Some(i) = opened.iter().position(|o| o.real == real) {
        let o = &opened[i];
        if o.direct == wt.direct && o.sync == wt.sync {
            let size = o.meta.size_bytes.unwrap_or(0);
            let region = each.unwrap_or(size);
            if region > size || region < u64::from(wt.max_bs) {
                bail!(
                    "{} uses {} of {}, which holds {}; give the workloads sizes that fit",
                    label(p),
                    nines_core::units::format_size(region),
                    o.name,
                    nines_core::units::format_size(size)
                );
            }
            return Ok((i, region));
        }
        if o.block {
            bail!(
                "{} is driven by workloads that differ in direct= or sync= (--buffered, --sync); a block device is opened once (O_EXCL): give them the same",
                o.name
            );
        }
    }
    // this target's own --destroy-data, when several are given
    let mut pa = p.clone();
    if !p.destroy_all.is_empty() {
        let mine = p.destroy_all.iter().find(|d| safety::resolve(d).is_ok_and(|(r, _)| r == real)).cloned();
        let is_block = std::fs::metadata(&real).is_ok_and(|m| {
            use crate::sys::FileTypeExt;
            m.file_type().is_block_device()
        });
        pa.destroy_data = mine.or_else(|| if is_block { p.destroy_all.first().cloned() } else { None });
    }
    let tg = safety::prepare(t, &pa, wt, quiet)?;
    opened.push(Opened {
        name: format!("'{}'", tg.real.display()),
        real: tg.real,
        file: Some(tg.file),
        block: tg.block,
        meta: tg.meta,
        direct: wt.direct,
        sync: wt.sync,
        scope: String::new(),
    });
    Ok((opened.len() - 1, tg.region))
}

/// Trims need the engine to discard on each target: refused where it cannot, and how it
/// does noted in the engine's metadata.
fn check_trims(
    ws: &[Workload],
    part_targets: &[Vec<(usize, u64)>],
    opened: &[Opened],
    kind: EngineKind,
    engine_meta: &mut meta::Engine,
) -> Result<()> {
    for (w, targets) in ws.iter().zip(part_targets) {
        if w.trim {
            for &(i, _) in targets {
                let o = &opened[i];
                #[cfg(target_os = "linux")]
                if kind == EngineKind::Uring && o.block && !engine::kernel_has_uring_discard() {
                    bail!(
                        "trims of the block device {} with io_uring need the kernel's io_uring discard command (Linux 6.12 or later); \
                         this kernel does not have it: use --engine psync (BLKDISCARD)",
                        o.name
                    );
                }
                engine_meta.trim = Some(engine::trim_method(kind, o.block).into());
            }
        }
    }
    Ok(())
}

/// Scope names: each workload's from its name, each target's from its file name; all
/// distinct (a later one gets -2, -3, ...), so no two scopes share tags. The workloads'
/// scopes (empty for a run of one), and the targets' set in `opened` (in a run of several).
fn scopes(parts: &[RunConfig], opened: &mut [Opened]) -> Vec<String> {
    let multi_job = parts.len() > 1;
    let multi_target = opened.len() > 1;
    let mut taken: Vec<String> = Vec::new();
    let mut distinct = |base: String| {
        let mut s = base.clone();
        let mut k = 2;
        while taken.contains(&s) {
            s = format!("{base}-{k}");
            k += 1;
        }
        taken.push(s.clone());
        s
    };
    let part_scopes: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let label = p.scope.clone().or_else(|| p.name.clone()).unwrap_or_else(|| format!("job{i}"));
            if multi_job {
                distinct(nines_core::tag::scope_name(&label))
            } else {
                String::new()
            }
        })
        .collect();
    if multi_target {
        for o in opened.iter_mut() {
            let file_name = o.real.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            o.scope = distinct(nines_core::tag::scope_name(&file_name));
        }
    }
    part_scopes
}

/// The raw log (`--raw-log`), its header line written.
fn raw_log(raw_file: Option<&output::Created>) -> Result<Option<Arc<job::RawLog>>> {
    Ok(match raw_file {
        Some(c) => {
            let path = c.path().to_path_buf();
            let mut f = BufWriter::new(c.try_clone()?);
            writeln!(f, "window,tag,latency_ns").map_err(|e| output::write_error(&e, &path, "nothing was recorded"))?;
            Some(Arc::new(job::RawLog { path, w: Mutex::new(f) }))
        }
        None => None,
    })
}

/// When the run starts and its recording begins.
struct Clock {
    /// How late the wait for --start-at ended, in seconds.
    late_s: Option<f64>,
    /// The run's start on the monotonic clock (`job::clock`), the ramp's beginning.
    t0_ns: u64,
    /// The recording's start on the same clock, after the ramp.
    rec_start_ns: u64,
    /// The recording's start in seconds since the epoch.
    start_epoch: f64,
}

/// Catch the stop signals and start the run's clock: at once, or with --start-at (`at`, in
/// seconds since the epoch) after waiting for it, less the ramp.
fn start_clock(start_at: Option<f64>, ramp_ns: u64, quiet: bool) -> Result<Clock> {
    STOP.store(0, Ordering::Relaxed);
    install_signals(true);
    let late_s = match start_at {
        Some(at) => Some(wait_until(at - ramp_ns as f64 / 1e9, quiet)?),
        None => None,
    };
    // With --start-at the clocks are set back by how late the wait ended, so that the first
    // window begins at the instant asked for and every host's windows share its grid.
    let late_ns = late_s.map_or(0, |l| (l * 1e9) as u64);
    let t0_ns = clock().saturating_sub(late_ns);
    let t0_wall = SystemTime::now() - std::time::Duration::from_nanos(late_ns);
    let rec_start_ns = t0_ns + ramp_ns;
    let start_epoch = match start_at {
        Some(at) => at,
        None => epoch_s(t0_wall) + ramp_ns as f64 / 1e9,
    };
    Ok(Clock { late_s, t0_ns, rec_start_ns, start_epoch })
}

/// The archive header's metadata: the run, each workload and target, the host, the engine and
/// the window rule.
fn header_meta(a: &RunConfig, runs: &[Part], opened: &[Opened], engine_meta: &meta::Engine, clock: &Clock) -> RunMeta {
    let multi_job = runs.len() > 1;
    let multi_target = opened.len() > 1;
    let name = a.name.clone().unwrap_or_else(|| nines_core::archive::stem(&a.output.display().to_string()));
    let part_meta = |r: &Part| {
        let region = r.targets.first().map_or(0, |t| t.1);
        meta::Workload {
            start_at: a.start_at.map(nines_core::units::iso_date),
            start_late_s: clock.late_s,
            scope: multi_job.then(|| r.scope.clone()),
            targets: if r.targets.len() > 1 {
                r.targets.iter().map(|&(i, _)| opened[i].real.display().to_string()).collect()
            } else {
                Vec::new()
            },
            ..r.w.to_meta(region)
        }
    };
    let target_meta = |o: &Opened| meta::Target { scope: multi_target.then(|| o.scope.clone()), ..o.meta.clone() };
    RunMeta {
        version: Some(1),
        name: Some(name),
        notes: a.notes.clone(),
        tool: Some(meta::Tool { name: "nines".into(), version: env!("CARGO_PKG_VERSION").into(), ..meta::Tool::default() }),
        start: Some(nines_core::units::iso_date(clock.start_epoch)),
        workload: Some(part_meta(&runs[0])),
        jobs: if multi_job { runs.iter().map(part_meta).collect() } else { Vec::new() },
        target: Some(target_meta(&opened[0])),
        targets: if multi_target { opened.iter().map(target_meta).collect() } else { Vec::new() },
        host: Some(host_meta()),
        engine: Some(engine_meta.clone()),
        window: Some(match runs[0].w.window {
            WindowRule::Time(ns) => meta::WindowRule { by: "time".into(), length_s: Some(ns as f64 / 1e9), ..meta::WindowRule::default() },
            WindowRule::Ios(n) => meta::WindowRule { by: "ios".into(), ios: Some(n), ..meta::WindowRule::default() },
        }),
        units: Some("ns".into()),
        tags: Some(TAG_DOC.into()),
        param: a.param.clone(),
        other: a.meta_other.clone(),
        ..RunMeta::default()
    }
}

/// The archive's tags: the whole run's, then each workload's, then each target's; and for
/// each job of the run, the tags each of its recorder's slots (target x tag) goes to.
fn tag_routes(runs: &[Part], opened: &[Opened]) -> (Vec<writer::OutTag>, Vec<Vec<Vec<usize>>>) {
    let multi_job = runs.len() > 1;
    let multi_target = opened.len() > 1;
    let mut out: Vec<writer::OutTag> = Vec::new();
    let slot_of = |name: String, tag: usize, whole: bool, out: &mut Vec<writer::OutTag>| match out.iter().position(|o| o.name == name) {
        Some(i) => i,
        None => {
            out.push(writer::OutTag { name, tag, whole });
            out.len() - 1
        }
    };
    let mut whole_tags: Vec<usize> = runs.iter().flat_map(|r| r.w.tags()).collect();
    whole_tags.sort_unstable();
    whole_tags.dedup();
    for &t in &whole_tags {
        slot_of(TAGS[t].to_string(), t, true, &mut out);
    }
    let mut part_routes: Vec<Vec<Vec<usize>>> = Vec::new();
    for r in runs {
        let mut route: Vec<Vec<usize>> = vec![Vec::new(); NT * r.targets.len()];
        for t in r.w.tags() {
            let whole = slot_of(TAGS[t].to_string(), t, true, &mut out);
            let job = multi_job.then(|| slot_of(nines_core::tag::scoped(&r.scope, TAGS[t]), t, false, &mut out));
            for f in 0..r.targets.len() {
                route[f * NT + t].push(whole);
                route[f * NT + t].extend(job);
            }
        }
        part_routes.push(route);
    }
    if multi_target {
        for (r, route) in runs.iter().zip(&mut part_routes) {
            for t in r.w.tags() {
                for (f, &(i, _)) in r.targets.iter().enumerate() {
                    let d = slot_of(nines_core::tag::scoped(&opened[i].scope, TAGS[t]), t, false, &mut out);
                    route[f * NT + t].push(d);
                }
            }
        }
        // each target's tags together, in the order of the targets
        let rank = |o: &writer::OutTag| {
            if o.whole {
                (0, 0, 0)
            } else if let Some(i) = opened.iter().position(|x| nines_core::tag::Tag::parse(&o.name).scope == Some(x.scope.as_str())) {
                (2, i, o.tag)
            } else {
                (1, 0, 0)
            }
        };
        let mut idx: Vec<usize> = (0..out.len()).collect();
        idx.sort_by_key(|&i| rank(&out[i]));
        let mut new_pos = vec![0; out.len()];
        for (pos, &i) in idx.iter().enumerate() {
            new_pos[i] = pos;
        }
        out = idx.iter().map(|&i| out[i].clone()).collect();
        for route in &mut part_routes {
            for d in route.iter_mut().flatten() {
                *d = new_pos[*d];
            }
        }
    }
    let mut routes: Vec<Vec<Vec<usize>>> = Vec::new();
    for (r, route) in runs.iter().zip(&part_routes) {
        routes.extend(std::iter::repeat_n(route.clone(), r.w.jobs as usize));
    }
    (out, routes)
}

/// What every job thread of the run shares.
struct JobsCommon<'a> {
    kind: EngineKind,
    total_jobs: u32,
    t0_ns: u64,
    rec_start_ns: u64,
    tx: &'a mpsc::Sender<Msg>,
    pool: &'a job::Pool,
    raw: &'a Option<Arc<job::RawLog>>,
    features: &'a Features,
}

/// Start every workload's job threads, numbered across the run, each workload's sharing the
/// files of its targets (none under the null engine, which opens nothing).
fn spawn_jobs(runs: &[Part], opened: &[Opened], c: &JobsCommon) -> Result<Vec<std::thread::JoinHandle<()>>> {
    let mut handles = Vec::new();
    let mut job_no = 0u32;
    for r in runs {
        let pw = &r.w;
        let mut files: Vec<(Arc<std::fs::File>, bool)> = Vec::new();
        for &(i, _) in &r.targets {
            if let Some(f) = &opened[i].file {
                let f = f.try_clone().with_context(|| format!("could not reopen {}", opened[i].name))?;
                files.push((Arc::new(f), opened[i].block));
            }
        }
        let files: Arc<[(Arc<std::fs::File>, bool)]> = files.into();
        for j in 0..pw.jobs {
            let ios_quota = pw.ios.map(|n| n / pw.jobs as u64 + u64::from((j as u64) < n % pw.jobs as u64));
            let window_quota = match pw.window {
                WindowRule::Ios(n) => (n / c.total_jobs as u64 + u64::from((job_no as u64) < n % c.total_jobs as u64)).max(1),
                WindowRule::Time(_) => u64::MAX,
            };
            let ctx = JobCtx {
                job: job_no,
                targets: r.targets.iter().map(|&(i, _)| opened[i].name.clone()).collect(),
                w: pw.clone(),
                qd: pw.qd as usize,
                regions: r.targets.iter().map(|t| t.1).collect(),
                t0_ns: c.t0_ns,
                rec_start_ns: c.rec_start_ns,
                end_ns: pw.runtime_ns.map(|rt| c.rec_start_ns + rt),
                ios_quota,
                window_quota,
                tx: c.tx.clone(),
                pool: c.pool.clone(),
                raw: c.raw.clone(),
            };
            let features = c.features.clone();
            let files = files.clone();
            let kind = c.kind;
            handles.push(
                std::thread::Builder::new().name(format!("nines-job{job_no}")).spawn(move || job_thread(ctx, kind, &files, features))?,
            );
            job_no += 1;
        }
    }
    Ok(handles)
}

/// What stopped the run, as its summary says: `ios` or `runtime` when it ran to its end
/// (`by_ios`: every workload stops after a number of I/Os), else the reason in [`STOP`].
fn stopped_by(stop: i32, by_ios: bool) -> String {
    match stop {
        0 if by_ios => "ios".to_string(),
        0 => "runtime".to_string(),
        STOP_STEADY => "steady".to_string(),
        STOP_ERROR => "error".to_string(),
        libc::SIGINT => "SIGINT".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        #[cfg(unix)]
        libc::SIGHUP => "SIGHUP".to_string(),
        s => format!("signal {s}"),
    }
}

/// The end summary appended to the archive as metadata: the engine as it ran, the windows,
/// I/Os and bytes of each tag, what stopped the run and the steady-state outcome.
fn end_meta(engine_meta: meta::Engine, wres: &writer::WriterResult, out: &[writer::OutTag], clock: &Clock, stopped_by: &str) -> RunMeta {
    let duration_s = wres.end_ns.saturating_sub(clock.rec_start_ns) as f64 / 1e9;
    let mut ios = meta::Counts::default();
    let mut bytes = meta::Counts::default();
    for (i, o) in out.iter().enumerate() {
        ios.insert(o.name.clone(), wres.counts[i]);
        if wres.bytes[i] > 0 {
            bytes.insert(o.name.clone(), wres.bytes[i]);
        }
    }
    RunMeta {
        engine: Some(engine_meta),
        summary: Some(meta::Summary {
            end: nines_core::units::iso_date(clock.start_epoch + duration_s),
            duration_s,
            windows: wres.windows,
            ios,
            bytes,
            stopped_by: stopped_by.to_string(),
            errors: wres.errors.clone(),
            ..meta::Summary::default()
        }),
        steady: wres.steady.as_ref().map(SteadyOutcome::to_meta),
        ..RunMeta::default()
    }
}

/// Refuse a workload whose I/O buffers (one per job: queue depth x largest block, allocated
/// before the first I/O) do not fit in the memory this process may use, instead of dying in
/// the allocator.
fn check_buffer_memory(w: &Workload) -> Result<()> {
    let per_job = u64::from(w.qd).checked_mul(u64::from(w.max_bs));
    let total = per_job.and_then(|b| b.checked_mul(u64::from(w.jobs)));
    let limit = memory_limit();
    let shown = nines_core::units::format_approx;
    match (total, limit) {
        (Some(t), Some((avail, _))) if t <= avail / 4 * 3 => Ok(()),
        (Some(t), Some((avail, from))) => bail!(
            "the I/O buffers need {} (--jobs {} x --qd {} x the largest block {}), more than three quarters of the {} this process can use ({from}); lower --qd, --jobs or --bs",
            shown(t), w.jobs, w.qd, shown(u64::from(w.max_bs)), shown(avail)
        ),
        (Some(_), None) => Ok(()),
        (None, _) => bail!("the I/O buffers (--jobs {} x --qd {} x the largest block {}) overflow 64 bits; lower --qd, --jobs or --bs", w.jobs, w.qd, shown(u64::from(w.max_bs))),
    }
}

/// The memory this process can allocate, and where that limit comes from: the least of
/// MemAvailable (/proc/meminfo), the cgroup v2 limit less what the cgroup uses, and the
/// address-space and data limits (ulimit -v, ulimit -d).
fn memory_limit() -> Option<(u64, &'static str)> {
    let mut best: Option<(u64, &'static str)> = None;
    let mut take = |v: u64, from: &'static str| {
        if best.is_none_or(|(b, _)| v < b) {
            best = Some((v, from));
        }
    };
    let read = |p: &str| std::fs::read_to_string(p).ok();
    if let Some(kb) = read("/proc/meminfo")
        .and_then(|m| m.lines().find(|l| l.starts_with("MemAvailable:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()))
    {
        take(kb * 1024, "MemAvailable in /proc/meminfo");
    }
    if let (Some(max), Some(cur)) = (read("/sys/fs/cgroup/memory.max"), read("/sys/fs/cgroup/memory.current")) {
        if let (Ok(max), Ok(cur)) = (max.trim().parse::<u64>(), cur.trim().parse::<u64>()) {
            take(max.saturating_sub(cur), "the cgroup's memory.max");
        }
    }
    #[cfg(unix)]
    for (res, from) in [(libc::RLIMIT_AS, "the address-space limit, ulimit -v"), (libc::RLIMIT_DATA, "the data limit, ulimit -d")] {
        // SAFETY: rlimit is plain integers, for which all-zero bytes are a valid value.
        let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
        // SAFETY: getrlimit writes the struct it is given, which lives across the call.
        if unsafe { libc::getrlimit(res, &mut rl) } == 0 && rl.rlim_cur != libc::RLIM_INFINITY {
            take(rl.rlim_cur, from);
        }
    }
    best
}

/// Check a file nines is about to create: not a device or directory, not the target. Returns
/// its real path. (Whether it may replace an existing file is `output::create_streaming`'s
/// check, made when the file is created exclusively.)
fn check_output(p: &Path, what: &str, targets: &[PathBuf], engine: EngineKind) -> Result<PathBuf> {
    use crate::sys::FileTypeExt;
    let (real, exists) = safety::resolve(p).with_context(|| what.to_string())?;
    if engine != EngineKind::Null && targets.contains(&real) {
        bail!("{what} '{}' is the target itself; give another path", p.display());
    }
    if exists {
        let ft = std::fs::metadata(&real)?.file_type();
        if ft.is_dir() || ft.is_block_device() {
            bail!("{what} '{}' is a {}, not a file; give a file path", p.display(), if ft.is_dir() { "directory" } else { "block device" });
        }
    }
    Ok(real)
}

fn kind_name(k: EngineKind) -> String {
    match k {
        EngineKind::Uring => "io_uring".into(),
        EngineKind::Psync => "psync".into(),
        EngineKind::Null => "null".into(),
    }
}

fn job_thread(ctx: JobCtx, kind: EngineKind, files: &engine::Files, features: Arc<Mutex<Option<(bool, bool)>>>) {
    let w = ctx.w.clone();
    let mut buf = match AlignedBuf::new(ctx.qd * w.max_bs as usize) {
        Ok(b) => b,
        Err(e) => {
            STOP.compare_exchange(0, STOP_ERROR, Ordering::Relaxed, Ordering::Relaxed).ok();
            let _ = ctx.tx.send(Msg::Done { job: ctx.job, last_index: None, error: Some(format!("job {}: {e}", ctx.job)) });
            return;
        }
    };
    if w.writes() && !w.trim {
        // Written data is random, so nothing below can compress or deduplicate it.
        rand::rngs::SmallRng::seed_from_u64(w.seed ^ ctx.job as u64).fill_bytes(buf.as_mut_slice());
    }
    let _ = match kind {
        EngineKind::Null => job::run_job(&mut NullEngine::default(), &ctx, &buf),
        EngineKind::Psync => job::run_job(&mut PsyncEngine::new(files), &ctx, &buf),
        // refused before the run where io_uring is not (`run` above)
        #[cfg(not(target_os = "linux"))]
        EngineKind::Uring => {
            drop(features);
            Ok(())
        }
        // SAFETY: `buf` lives to the end of this function, after the engine is dropped.
        #[cfg(target_os = "linux")]
        EngineKind::Uring => match unsafe { UringEngine::new(files, ctx.qd as u32, buf.ptr(), buf.len()) } {
            Ok(mut e) => {
                if ctx.job == 0 {
                    if let Ok(mut f) = features.lock() {
                        *f = Some(e.features());
                    }
                }
                job::run_job(&mut e, &ctx, &buf)
            }
            Err(e) => {
                STOP.compare_exchange(0, STOP_ERROR, Ordering::Relaxed, Ordering::Relaxed).ok();
                let _ = ctx.tx.send(Msg::Done {
                    job: ctx.job,
                    last_index: None,
                    error: Some(format!("job {}: could not set up io_uring: {e}", ctx.job)),
                });
                Ok(())
            }
        },
    };
}

/// Is `path` on a tmpfs (where O_DIRECT is not supported)?
#[cfg(target_os = "linux")]
pub fn on_tmpfs(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: valid C string and out-pointer.
    unsafe {
        let mut s: libc::statfs = std::mem::zeroed();
        // f_type is signed on glibc and unsigned on musl: compared as i128, which holds both
        libc::statfs(c.as_ptr(), &mut s) == 0 && i128::from(s.f_type) == i128::from(libc::TMPFS_MAGIC)
    }
}

/// Only Linux's tmpfs refuses O_DIRECT this way; elsewhere the answer is no.
#[cfg(not(target_os = "linux"))]
pub fn on_tmpfs(_path: &Path) -> bool {
    false
}
