//! `nines pts`: a SNIA PTS test end to end. Purge, workload-independent preconditioning, then
//! rounds of the test's cells until the tracked results reach steady state (nines-core's
//! `pts`) or `--max-rounds`. Every cell of every round is one run of the collector
//! (`run::collect`, as `nines run` does it, under the same data-safety rules), into a
//! temporary archive beside the output that is read back and removed.
//!
//! The test's archive holds every whole round: each cell's directions under the cell's scope
//! (`rnd_65-35_4k/read`), one window per cell and round, at the round's offset (round `r`
//! starts at `r x --round-time`). So all of a round's cells share its time span, as concurrent
//! jobs do, and `nines stats --tag CELL/read` gives that cell's IOPS over the rounds selected
//! (`--from`/`--to` pick the measurement window); the archive holds no unscoped direction,
//! since the cells ran one after another and a sum over them would be no real number. The
//! archive is rewritten (atomically) after every round, so a test stopped part way keeps
//! every round it finished.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use nines_core::hist::Hist;
use nines_core::meta::{self, RunMeta};
use nines_core::pts::{self, Cell, Params, Rounds, Test, Verdict, WriteCache};

use nines_core::run::{Run, Window};
use nines_core::units::{format_size, iso_date};
use serde_json::{json, Map, Value};

use crate::cli::pts::{PtsArgs, Purge};
use crate::output::{self, Inputs, Replace};
use crate::run::config::{Arrival, EngineKind, RunConfig, Rw};
use crate::run::{engine, safety, workload::Workload};

mod di;
mod fill;
mod recovery;

/// The block size of workload-independent preconditioning: 128 KiB sequential writes.
const PRECONDITION_BS: u32 = 128 << 10;

/// What the test is: its parameters, cells and tracked results, and the bytes it uses.
struct Plan {
    params: Params,
    cells: Vec<Cell>,
    /// Indices into `cells` of the tracked results.
    tracked: Vec<usize>,
    capacity: u64,
    /// Bytes of the capacity the test's I/Os fall in (the active range, whole blocks).
    region: u64,
    deviations: Vec<String>,
}

/// One cell's run in one round.
struct CellRun {
    windows: Vec<Window>,
    meta: RunMeta,
    value: f64,
    /// When its recording began, seconds since the epoch.
    start_time: Option<f64>,
    /// The signal that stopped it early.
    stopped: Option<String>,
}

pub fn run(a: &PtsArgs, out: &mut impl Write) -> Result<()> {
    let test = a.test.core();
    let mut params = Params::defaults(test, a.profile.core());
    apply_flags(a, &mut params)?;
    params.check()?;
    let cells = test.cells(&params);
    let tracked_cells = pts::parse_track(test, &params, &a.track)?;
    let tracked = tracked_cells.iter().map(|c| cells.iter().position(|x| x == c).unwrap_or(0)).collect();
    check_output(a)?;
    let work = tempfile::Builder::new()
        .prefix(".nines-pts.")
        .tempdir_in(output::parent_of(&a.output))
        .with_context(|| format!("could not create a working directory beside '{}'", a.output.display()))?;
    let mut deviations = params.deviations();
    if a.track != "v2.0" {
        deviations.push(format!("tracked results {} instead of version 2.0's", a.track));
    }
    let base = base_args(a, &params);
    if a.resume {
        return resume(a, &base, params, cells, tracked, work.path(), out);
    }
    let (capacity, purged) = purge(a, &base, &mut deviations)?;
    let region = active_region(&params, &cells, capacity)?;
    let plan = Plan { params, cells, tracked, capacity, region, deviations };
    say(a, &format!("{}: purge: {}", test.name(), purged["done"].as_str().unwrap_or("")));
    let prep = json!({ "purge": purged, "precondition": Value::Null });
    match test {
        // WSAT starts from the purged state: its fresh-out-of-box region is what it measures
        Test::Wsat => return wsat(a, &base, &plan, work.path(), prep, out),
        // so does XSR, whose first segment of sequential writes fills the drive
        Test::Xsr | Test::Fill => {
            let state = Resumed { windows: Vec::new(), metas: Vec::new(), start_time: None, prep };
            return if test == Test::Xsr {
                recovery::xsr(a, &base, &plan, work.path(), state, out)
            } else {
                fill::fill(a, &base, &plan, work.path(), state, out)
            };
        }
        _ => {}
    }
    let pre = precondition(a, &base, &plan, work.path())?;
    rounds(a, &base, &plan, work.path(), json!({ "purge": purged, "precondition": pre }), out)
}

/// The bytes of the capacity the test's I/Os fall in: the active range, in whole blocks of
/// the largest cell (at least 1 MiB).
fn active_region(params: &Params, cells: &[Cell], capacity: u64) -> Result<u64> {
    let align = u64::from(cells.iter().map(|c| c.bs).max().unwrap_or(4096)).max(1 << 20);
    let region = ((capacity as f64 * params.active_range_pct / 100.0) as u64 / align * align).min(capacity);
    if region == 0 {
        bail!(
            "the active range {}% of {} holds no whole block of {}; give a larger --capacity",
            params.active_range_pct,
            format_size(capacity),
            format_size(align)
        );
    }
    Ok(region)
}

/// Checks that the archive `--resume` reads back (its pts metadata `m`) is this test with
/// these parameters on this target; the capacity and the active region it tested.
fn check_archive(a: &PtsArgs, m: &serde_json::Map<String, Value>, params: &Params, cells: &[Cell]) -> Result<(u64, u64)> {
    let shown = a.output.display();
    let test = params.test;
    if m.get("test").and_then(Value::as_str) != Some(test.name()) {
        bail!(
            "--resume: '{shown}' is not the archive of a pts {} test (it records {})",
            test.name(),
            m.get("test").map_or("no pts test".into(), Value::to_string)
        );
    }
    if test == Test::Wsat {
        bail!("--resume: a wsat test is one run from the purged state; it cannot go on after a stop (start it again, with its purge)");
    }
    let had = m.get("params").cloned().unwrap_or(Value::Null);
    let want = serde_json::to_value(params)?;
    if had != want {
        let differ: Vec<String> = want
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| had.get(k.as_str()) != Some(v))
            .map(|(k, v)| format!("{k} {} (the archive: {})", v, had.get(k.as_str()).map_or("none".into(), Value::to_string)))
            .collect();
        bail!("--resume: '{shown}' was recorded with other parameters: {}; give the flags it was started with", differ.join(", "));
    }
    let path = m.get("device").and_then(|d| d.get("path")).and_then(Value::as_str);
    if a.engine != EngineKind::Null {
        let (real, _) = safety::resolve(&a.target)?;
        if path.is_some_and(|p| Path::new(p) != real) {
            bail!("--resume: '{shown}' is a test of '{}', not of '{}'", path.unwrap_or_default(), real.display());
        }
    }
    let capacity = m.get("device").and_then(|d| d.get("capacity_bytes")).and_then(Value::as_u64).or(a.capacity);
    let capacity = capacity.ok_or_else(|| anyhow!("--resume: '{shown}' records no capacity; give --capacity"))?;
    let region = active_region(params, cells, capacity)?;
    if m.get("active_range_bytes").and_then(Value::as_u64) != Some(region) {
        bail!(
            "--resume: '{shown}' tested {} bytes of the capacity, this test would test {region}",
            m.get("active_range_bytes").map_or("an unknown number of".into(), Value::to_string)
        );
    }
    Ok((capacity, region))
}

/// `--resume`: the archive at --output is read back (its rounds, their tracked results, the
/// purge and preconditioning it records, its device and deviations), checked to be this
/// test with these parameters on this target, and the rounds go on from the next one, each
/// with the seed an uninterrupted test would have given it. Nothing is purged or written
/// before the next round, and the rounds already recorded stay as they are.
fn resume(
    a: &PtsArgs,
    base: &RunConfig,
    params: Params,
    cells: Vec<Cell>,
    tracked: Vec<usize>,
    work: &Path,
    out: &mut impl Write,
) -> Result<()> {
    let shown = a.output.display();
    let run = crate::load::load_run(&a.output).with_context(|| format!("--resume: the test's archive '{shown}'"))?;
    let m = &run.meta.pts;
    let test = params.test;
    let (capacity, region) = check_archive(a, m, &params, &cells)?;
    let mut deviations: Vec<String> = m
        .get("deviations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|d| !d.starts_with("steady state not reached") && !d.starts_with("resumed after") && !d.starts_with("resumed in"))
        .map(str::to_string)
        .collect();
    let metas: Vec<RunMeta> =
        run.meta.jobs.iter().map(|j| RunMeta { workload: Some(meta::Workload { scope: None, ..j.clone() }), ..run.meta.clone() }).collect();
    let mut prep = json!({ "purge": m.get("purge").cloned().unwrap_or(Value::Null), "precondition": m.get("precondition").cloned().unwrap_or(Value::Null) });
    for key in ["qos", "di", "hir", "xsr", "fill"] {
        if let Some(v) = m.get(key) {
            prep[key] = v.clone();
        }
    }
    let mut windows = run.windows;
    // xsr and fill keep their own state in the metadata: each goes on from its last whole
    // segment or round
    if matches!(test, Test::Xsr | Test::Fill) {
        if prep.get(if test == Test::Xsr { "xsr" } else { "fill" }).is_some_and(|x| x["done"] == true) {
            bail!("--resume: the {} test in '{shown}' has ended", test.name());
        }
        deviations.push(format!("resumed after a stop, from its last whole {}", if test == Test::Xsr { "segment" } else { "round" }));
        let plan = Plan { params, cells, tracked, capacity, region, deviations };
        let state = Resumed { windows, metas, start_time: run.start_time, prep };
        return match test {
            Test::Xsr => recovery::xsr(a, base, &plan, work, state, out),
            _ => fill::fill(a, base, &plan, work, state, out),
        };
    }
    // the rounds so far, from the metadata the windows were checked against when written
    let mut book = Rounds::new(tracked.len(), params.window_rounds);
    for r in m.get("rounds").and_then(Value::as_array).into_iter().flatten() {
        let v: Vec<f64> = r["tracked"].as_array().into_iter().flatten().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect();
        book.push(&v).map_err(|e| anyhow!("--resume: '{shown}': {e}"))?;
    }
    if book.is_empty() {
        bail!("--resume: '{shown}' holds no whole round; start the test again");
    }
    let rounds_over = book.steady_at().is_some() || book.len() >= params.max_rounds;
    // what follows the rounds (qos's recording, dirth's matrix, hir's segments) goes on too
    let after = match test {
        Test::Qos => Some("qos"),
        Test::Dirth | Test::Cbw => Some("di"),
        Test::Hir => Some("hir"),
        _ => None,
    };
    let after_done = after.is_some_and(|k| prep.get(k).is_some_and(|x| x["done"] == true));
    if rounds_over && (after.is_none() || after_done) {
        match book.steady_at() {
            Some(end) => bail!("--resume: the test in '{shown}' has ended: steady state was reached at round {end}"),
            None => bail!("--resume: the test in '{shown}' has ended: it ran its {} rounds (--max-rounds)", params.max_rounds),
        }
    }
    if rounds_over {
        let what = match test {
            Test::Qos => {
                // the response-time histogram is recorded again whole
                windows.retain(|w| !w.tag.as_deref().is_some_and(|t| t.starts_with("qos/")));
                prep.as_object_mut().map(|o| o.remove("qos"));
                "its response-time histogram, recorded again".to_string()
            }
            Test::Hir => {
                // the segment under way is run again from its first burst
                let whole = prep["hir"]["segments"].as_array().map_or(0, Vec::len);
                let waits = params.hir.as_ref().map(|h| h.waits_s.clone()).unwrap_or_default();
                if let Some(&w) = waits.get(whole) {
                    let (burst, base_scope) = (format!("hir_wait{}/", recovery::label(w)), format!("hir_base{}/", whole + 1));
                    windows.retain(|x| !x.tag.as_deref().is_some_and(|t| t.starts_with(&burst) || t.starts_with(&base_scope)));
                    if let Some(b) = prep["hir"]["bursts"].as_array_mut() {
                        b.retain(|x| x["segment"].as_u64().is_some_and(|s| s as usize <= whole));
                    }
                }
                format!("its wait segment {}", whole + 1)
            }
            _ => {
                let cells = prep["di"]["points"].as_array().map_or(0, Vec::len);
                format!("its demand-intensity matrix after cell {cells}")
            }
        };
        deviations.push(format!("resumed in {what}"));
    } else {
        deviations.push(format!("resumed after round {}", book.len()));
    }
    let plan = Plan { params, cells, tracked, capacity, region, deviations };
    say(a, &format!("{}: resuming after round {} of at most {}", test.name(), book.len(), plan.params.max_rounds));
    let state = State { book, windows, metas, start_time: run.start_time };
    rounds_from(a, base, &plan, work, prep, state, out)
}

/// What a stopped test's archive holds, for the tests that keep their own state (xsr, fill).
struct Resumed {
    windows: Vec<Window>,
    metas: Vec<RunMeta>,
    start_time: Option<f64>,
    prep: Value,
}

fn say(a: &PtsArgs, s: &str) {
    if !a.quiet {
        crate::diag!("nines: pts {s}");
    }
}

/// The flags over the specification's defaults.
fn apply_flags(a: &PtsArgs, p: &mut Params) -> Result<()> {
    if let Some(t) = a.round_time_ns {
        p.round_time_s = t as f64 / 1e9;
    }
    if let Some(n) = a.max_rounds {
        p.max_rounds = n;
    }
    if let Some(n) = a.window_rounds {
        p.window_rounds = n;
    }
    if let Some(n) = a.threads {
        ensure!(n >= 1, "--threads 0: a test needs at least one thread");
        p.threads = n;
    }
    if let Some(n) = a.qd {
        ensure!(n >= 1, "--qd 0: each thread needs at least one outstanding I/O");
        p.qd = n;
    }
    if let Some(r) = a.active_range {
        p.active_range_pct = r;
    }
    if let Some(n) = a.precondition {
        p.precondition_passes = n;
    }
    if let Some(t) = a.qos_time_ns {
        ensure!(a.test.core() == Test::Qos, "--qos-time is qos's; the {} test records its rounds", a.test.core().name());
        p.qos_time_s = t as f64 / 1e9;
    }
    if let Some(n) = a.capacities {
        ensure!(a.test.core() == Test::Wsat, "--capacities is wsat's; the {} test ends by its rounds", a.test.core().name());
        ensure!(n.is_finite() && n > 0.0, "--capacities {n}: give a positive number of times the capacity, such as 4");
        p.wsat_capacities = n;
    }
    let test = a.test.core();
    let only = |flag: &str, given: bool, tests: &[Test]| {
        ensure!(
            !given || tests.contains(&test),
            "{flag} is a flag of the {} test{}; not of {}",
            tests.iter().map(|t| t.name()).collect::<Vec<_>>().join(" and "),
            if tests.len() > 1 { "s" } else { "" },
            test.name()
        );
        Ok(())
    };
    only("--bs", a.bs.is_some(), &[Test::Tp, Test::Dirth])?;
    only("--mix", a.mix.is_some(), &[Test::Dirth])?;
    only("--hist-time", a.hist_time_ns.is_some(), &[Test::Dirth, Test::Cbw])?;
    for (flag, given) in [
        ("--burst", a.burst_ns.is_some()),
        ("--waits", a.waits.is_some()),
        ("--bursts", a.bursts.is_some()),
        ("--baseline-time", a.baseline_ns.is_some()),
    ] {
        only(flag, given, &[Test::Hir])?;
    }
    only("--segments", a.segments.is_some(), &[Test::Xsr])?;
    only("--fills", a.fills.is_some(), &[Test::Fill])?;
    ensure!(
        a.active_range.is_none() || test != Test::Fill,
        "--active-range is one range; the fill test runs at several: give them with --fills"
    );
    if let Some(bs) = a.bs {
        let bs = u32::try_from(bs)
            .ok()
            .filter(|&b| b > 0 && u64::from(b) <= nines_core::units::MAX_BLOCK)
            .ok_or_else(|| anyhow!("--bs {} must be between 1 byte and 64MiB", format_size(bs)))?;
        match &mut p.di {
            Some(d) => d.bs = bs,
            None => p.tp_bs = bs,
        }
    }
    if let Some(d) = &mut p.di {
        if let Some(m) = &a.mix {
            let c: pts::Cell =
                format!("4k:{m}").parse().map_err(|_| anyhow!("--mix {m:?}: expected R/W such as 65/35, the two adding up to 100"))?;
            d.read_pct = c.read_pct;
        }
        if let Some(t) = a.hist_time_ns {
            d.hist_time_s = t as f64 / 1e9;
        }
        // --threads and --qd cap the matrix (its first cell is the rounds' outstanding I/O)
        *d = d.capped(a.threads.unwrap_or(d.threads[0]), a.qd.unwrap_or(d.qds[0]));
        p.threads = d.threads[0];
        p.qd = d.qds[0];
    }
    if let Some(h) = &mut p.hir {
        if let Some(t) = a.burst_ns {
            h.burst_s = t as f64 / 1e9;
        }
        if let Some(w) = &a.waits {
            h.waits_s = w.0.iter().map(|&t| t as f64 / 1e9).collect();
        }
        if let Some(n) = a.bursts {
            h.bursts = n;
        }
        if let Some(t) = a.baseline_ns {
            h.baseline_s = t as f64 / 1e9;
        }
    }
    if let Some(seg) = &a.segments {
        ensure!(seg.0.len() == 3, "--segments takes the three segments' lengths (sequential, random, sequential), such as 8h,6h,8h");
        p.xsr_segments_s = Some([seg.0[0] as f64 / 1e9, seg.0[1] as f64 / 1e9, seg.0[2] as f64 / 1e9]);
    }
    if let Some(f) = &a.fills {
        p.fills = Some(f.0.clone());
    }
    Ok(())
}

/// The archive: never over an existing file without --force, never over the target.
fn check_output(a: &PtsArgs) -> Result<()> {
    if a.resume && std::fs::symlink_metadata(&a.output).is_err() {
        bail!("--resume: '{}' does not exist; --resume goes on with the test whose archive is --output", a.output.display());
    }
    if !a.force && !a.resume && std::fs::symlink_metadata(&a.output).is_ok() {
        bail!("'{}' already exists; pass --force to replace it", a.output.display());
    }
    let (out_real, _) = safety::resolve(&a.output).context("the archive -o")?;
    if a.engine != EngineKind::Null && safety::resolve(&a.target).is_ok_and(|(t, _)| t == out_real) {
        bail!("the archive -o '{}' is the target itself; give another path", a.output.display());
    }
    Ok(())
}

/// `nines run`'s arguments shared by every run of the test (the purge's checks, the
/// preconditioning, each cell).
fn base_args(a: &PtsArgs, p: &Params) -> RunConfig {
    RunConfig {
        job_file: None,
        section: None,
        targets: vec![a.target.clone()],
        output: PathBuf::new(),
        rw: Rw::Write,
        mix: None,
        bs: 4096,
        bssplit: None,
        qd: p.qd,
        submit_batch: 1,
        complete_batch: None,
        jobs: p.threads,
        size: a.capacity,
        runtime_ns: None,
        ios: None,
        ramp_ns: 0,
        start_at: None,
        direct: !a.buffered,
        sync: false,
        fsync_every: None,
        rate_iops: None,
        rate_bytes: None,
        arrival: Arrival::Poisson,
        thinktime_ns: None,
        thinktime_blocks: None,
        thinktime_spin_ns: None,
        window_ns: (p.round_time_s * 1e9) as u64,
        window_ios: None,
        steady: None,
        steady_window_ns: 30_000_000_000,
        name: None,
        notes: None,
        random_distribution: None,
        seed: a.seed,
        engine: a.engine,
        raw_log: None,
        quiet: true,
        overwrite: a.overwrite,
        destroy_data: a.destroy_data.clone(),
        destroy_all: Vec::new(),
        ignore_signatures: a.ignore_signatures,
        force: true,
        no_record: false,
        no_context: false,
        scope: None,
        param: Map::new(),
        meta_other: Map::new(),
    }
}

/// Purge the capacity as asked, under `nines run`'s data-safety rules (the target is opened
/// by `safety::prepare` for a write, or a trim for a discard, exactly as a run would open it).
/// Returns the capacity and what was done.
fn purge(a: &PtsArgs, base: &RunConfig, deviations: &mut Vec<String>) -> Result<(u64, Value)> {
    if matches!(a.purge, Purge::NvmeFormat | Purge::Sanitize) {
        bail!(
            "--purge {} is not supported here: this nines issues no NVMe admin commands. Purge with nvme-cli ({}) and run with --purge none (stated as a deviation), or use --purge discard",
            a.purge.name(),
            if a.purge == Purge::NvmeFormat { "nvme format DEV --ses=1" } else { "nvme sanitize DEV --sanact=2" }
        );
    }
    if a.engine == EngineKind::Null {
        let capacity = a.capacity.ok_or_else(|| anyhow!("--engine null needs --capacity (the target is not opened)"))?;
        deviations.push("the null engine: no I/O reached a device, and nothing was purged".into());
        return Ok((capacity, json!({ "method": a.purge.name(), "done": "nothing (null engine)" })));
    }
    if a.capacity.is_none() && !safety::resolve(&a.target)?.1 {
        bail!("'{}' does not exist: give --capacity, the size of the file to create", a.target.display());
    }
    let discard = a.purge == Purge::Discard;
    let args = RunConfig { rw: if discard { Rw::Trim } else { Rw::Write }, bs: PRECONDITION_BS, ..base.clone() };
    let w = Workload::from_config(&args)?;
    let t = safety::prepare(&a.target, &args, &w, a.quiet)?;
    let device_size = t.meta.size_bytes.unwrap_or(t.region);
    if t.region < device_size {
        deviations.push(format!("a capacity of {} of the target's {}", format_size(t.region), format_size(device_size)));
    }
    if !t.block {
        deviations.push("a regular file instead of a device: its filesystem stands between nines and the drive".into());
        if a.test.core() == Test::Wsat {
            // a run lays out the holes a purge punched, so that no I/O lands in a hole
            deviations.push("the file is laid out with data after the purge: wsat sees no fresh-out-of-box state".into());
        }
    }
    if a.buffered {
        deviations.push("buffered I/O through the page cache instead of direct I/O".into());
    }
    let want = match Params::defaults(a.test.core(), a.profile.core()).write_cache {
        WriteCache::Disabled => "write through",
        WriteCache::Enabled => "write back",
    };
    if let Some(have) = t.meta.other.get("write_cache").and_then(Value::as_str).filter(|h| *h != want) {
        deviations.push(format!("the write cache is '{have}' where the {} profile asks for '{want}'", a.profile.core().name()));
    }
    if !discard {
        deviations.push("no purge before the test (--purge none)".into());
        return Ok((t.region, json!({ "method": "none", "done": "nothing" })));
    }
    discard_all(&t.file, t.block, t.region).with_context(|| format!("could not purge '{}'", t.real.display()))?;
    let how = if t.block { "BLKDISCARD" } else { "fallocate(PUNCH_HOLE)" };
    let done = format!("{how} of bytes 0..{} ({})", t.region, format_size(t.region));
    Ok((t.region, json!({ "method": "discard", "done": done, "bytes": t.region })))
}

/// Discard `len` bytes from offset 0: BLKDISCARD on a block device (linux/fs.h), a hole
/// punched with fallocate(2)'s FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE in a regular file.
/// (Linux only: elsewhere an error saying so.)
fn discard_all(f: &std::fs::File, block: bool, len: u64) -> std::io::Result<()> {
    engine::discard(f, block, 0, len)
}

/// Workload-independent preconditioning: `passes` x the capacity in 128 KiB sequential
/// writes, one thread; the bytes are those the run's archive counts as written.
fn precondition(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path) -> Result<Value> {
    let passes = plan.params.precondition_passes;
    let ios = (passes * plan.capacity as f64 / f64::from(PRECONDITION_BS)).ceil() as u64;
    if ios == 0 {
        return Ok(json!({ "passes": passes, "bytes_written": 0 }));
    }
    say(
        a,
        &format!("{}: preconditioning: {} x {} in 128 KiB sequential writes", plan.params.test.name(), passes, format_size(plan.capacity)),
    );
    let path = work.join("precondition.hlog");
    let args = RunConfig {
        rw: Rw::Write,
        bs: PRECONDITION_BS,
        jobs: 1,
        size: Some(plan.capacity),
        ios: Some(ios),
        window_ns: 1_000_000_000,
        output: path.clone(),
        ..base.clone()
    };
    let o = crate::run::collect(&args).context("preconditioning")?;
    crate::run::finish(&o, true, &mut std::io::sink()).context("preconditioning")?;
    if o.stopped_by.starts_with("SIG") || o.stopped_by.starts_with("signal") {
        bail!("stopped by {} during preconditioning; nothing of the test was recorded", o.stopped_by);
    }
    let run = crate::load::load_run(&path)?;
    let s = run.meta.summary.clone().unwrap_or_default();
    let bytes = s.bytes.get("write").unwrap_or(0);
    let _ = std::fs::remove_file(&path);
    Ok(json!({ "passes": passes, "bs": PRECONDITION_BS, "ios": ios, "bytes_written": bytes, "seconds": s.duration_s }))
}

/// One run of the collector into its temporary archive (`args.output`), read back and
/// removed: the run, and the signal that stopped it early, if one did.
fn collect_once(args: &RunConfig, what: &str) -> Result<(Run, Option<String>)> {
    let o = crate::run::collect(args).with_context(|| what.to_string())?;
    crate::run::finish(&o, true, &mut std::io::sink()).with_context(|| what.to_string())?;
    let run = crate::load::load_run(&args.output)?;
    let _ = std::fs::remove_file(&args.output);
    let stopped = (o.stopped_by.starts_with("SIG") || o.stopped_by.starts_with("signal")).then_some(o.stopped_by);
    Ok((run, stopped))
}

/// One cell of one round through the collector; its windows moved to the round's offset
/// under the cell's scope.
fn run_cell(base: &RunConfig, plan: &Plan, round: usize, ci: usize, work: &Path) -> Result<CellRun> {
    let cell = plan.cells[ci];
    let t = plan.params.round_time_s;
    let seed = base.seed.map(|s| s ^ ((round as u64) << 32) ^ (ci as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let at = Stimulus { cell, scope: cell.scope(), offset: (round - 1) as f64 * t, seconds: t, window_s: t, seed, region: plan.region };
    run_stimulus(base, plan.params.test, &at, &format!("round {round}, cell {}", cell.text()), work)
}

/// A run of one cell's workload: where its windows go and how long it runs.
struct Stimulus {
    cell: Cell,
    /// The scope its directions are recorded under.
    scope: String,
    /// Its first window's start in the test's archive, seconds.
    offset: f64,
    seconds: f64,
    window_s: f64,
    seed: Option<u64>,
    /// The bytes its I/Os fall in, from offset 0.
    region: u64,
}

/// `nines run`'s arguments for a cell: its mix, block size (or the composite workload's block
/// sizes and access range) and outstanding I/O.
fn cell_args(base: &RunConfig, cell: Cell) -> Result<RunConfig> {
    let rw = match (cell.sequential, cell.read_pct) {
        (false, 100) => Rw::Randread,
        (false, 0) => Rw::Randwrite,
        (false, _) => Rw::Randrw,
        (true, 100) => Rw::Read,
        (true, 0) => Rw::Write,
        (true, _) => Rw::Rw,
    };
    let (jobs, qd) = cell.oio.unwrap_or((base.jobs, base.qd));
    let mut args = RunConfig { rw, mix: Some(cell.read_pct), bs: cell.bs, jobs, qd, ..base.clone() };
    if cell.composite {
        args.bssplit = Some(crate::cli::run::BlockSplit(nines_core::units::parse_bssplit(pts::CBW_BSSPLIT).map_err(|e| anyhow!(e))?));
        args.random_distribution = Some(pts::CBW_ZONES.parse().map_err(|e: nines_core::distribution::DistributionError| anyhow!(e))?);
    }
    Ok(args)
}

/// One run of a stimulus through the collector; its windows moved to its offset under its
/// scope.
fn run_stimulus(base: &RunConfig, test: Test, at: &Stimulus, what: &str, work: &Path) -> Result<CellRun> {
    let path = work.join(format!("{}-{}.hlog", at.scope, at.offset.to_bits()));
    let args = RunConfig {
        size: Some(at.region),
        runtime_ns: Some((at.seconds * 1e9) as u64),
        window_ns: (at.window_s * 1e9) as u64,
        output: path,
        seed: at.seed,
        ..cell_args(base, at.cell)?
    };
    let (run, stopped) = collect_once(&args, what)?;
    let first = run.windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let windows: Vec<Window> = run
        .windows
        .into_iter()
        .filter(|w| nines_core::tag::is_direction(w.tag.as_deref()))
        .map(|w| Window {
            start_s: at.offset + (w.start_s - first),
            tag: Some(nines_core::tag::scoped(&at.scope, w.tag.as_deref().unwrap_or("all"))),
            ..w
        })
        .collect();
    let value = cell_value(test, at.cell, &windows);
    Ok(CellRun { windows, meta: run.meta, value, start_time: run.start_time, stopped })
}

/// The tracked measure of a cell's windows of one round (NaN when it cannot be measured).
fn cell_value(test: Test, cell: Cell, windows: &[Window]) -> f64 {
    let start = windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let end = windows.iter().map(Window::end_s).fold(f64::NEG_INFINITY, f64::max);
    let count: u64 = windows.iter().map(|w| w.hist.count()).sum();
    let mean = (count > 0).then(|| Hist::merge_all(windows.iter().map(|w| &w.hist)).mean());
    test.measure().of(count, cell.bs, end - start, mean).unwrap_or(f64::NAN)
}

/// The rounds, until steady state or --max-rounds; the archive rewritten after each.
fn rounds(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path, prep: Value, out: &mut impl Write) -> Result<()> {
    let state = State {
        book: Rounds::new(plan.tracked.len(), plan.params.window_rounds),
        windows: Vec::new(),
        metas: Vec::new(),
        start_time: None,
    };
    rounds_from(a, base, plan, work, prep, state, out)
}

/// What the rounds so far left: their results, windows, each cell's metadata from its first
/// round, and when the first began.
struct State {
    book: Rounds,
    windows: Vec<Window>,
    metas: Vec<RunMeta>,
    start_time: Option<f64>,
}

/// The rounds after those in `state`.
fn rounds_from(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path, prep: Value, state: State, out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let State { mut book, mut windows, mut metas, mut start_time } = state;
    let tty = !a.quiet && std::io::stderr().is_terminal();
    // (a resumed test whose rounds are over goes on with what follows them)
    let first = if book.steady_at().is_some() { p.max_rounds + 1 } else { book.len() + 1 };
    for round in first..=p.max_rounds {
        let mut pending: Vec<Window> = Vec::new();
        let mut values = Vec::with_capacity(plan.cells.len());
        for (ci, cell) in plan.cells.iter().enumerate() {
            if tty {
                eprint!(
                    "\rnines: pts {}: round {round}/{}, cell {}/{} {}        ",
                    p.test.name(),
                    p.max_rounds,
                    ci + 1,
                    plan.cells.len(),
                    cell.text()
                );
            }
            let c = run_cell(base, plan, round, ci, work)?;
            if let Some(sig) = c.stopped {
                write_archive(a, plan, &book, &windows, &metas, start_time, &prep, Some(&sig))?;
                bail!(
                    "stopped by {sig} in round {round}; '{}' keeps the {} whole rounds before it (the same command with --resume goes on from there)",
                    a.output.display(),
                    book.len()
                );
            }
            start_time = start_time.or(c.start_time);
            if metas.len() < plan.cells.len() {
                metas.push(c.meta);
            }
            values.push(c.value);
            pending.extend(c.windows);
        }
        if tty {
            eprint!("\r");
        }
        book.push(&plan.tracked.iter().map(|&i| values[i]).collect::<Vec<_>>())?;
        windows.extend(pending);
        write_archive(a, plan, &book, &windows, &metas, start_time, &prep, None)?;
        say(a, &progress(plan, &book));
        if book.steady_at().is_some() {
            break;
        }
    }
    let after = match p.test {
        Test::Qos => qos(a, base, plan, work, &book, &mut windows, &metas, start_time, prep)?,
        Test::Dirth | Test::Cbw => di::demand_intensity(a, base, plan, work, &book, &mut windows, &metas, start_time, prep)?,
        Test::Hir => recovery::hir(a, base, plan, work, &book, &mut windows, &metas, start_time, prep)?,
        _ => String::new(),
    };
    report(a, plan, &book, &windows, &after, out)
}

/// The response-time histogram of PTS 2.0.2's QoS test: after the rounds of 4 KiB random
/// writes (steady or not: a test that did not reach steady state still says so, and exits
/// non-zero, after this), `qos_time_s` of the same writes recorded as the scope `qos`,
/// windows of a second (a twentieth of the time when it is shorter than 20 s), after the
/// last round. Where the PTS plots a histogram with its average, 99%, 99.99% and maximum,
/// nines keeps every window, so the whole 1-CDF and every level of nines with its support
/// are read from it (`nines stats --tag qos/write`, `nines report --tag qos/write`).
#[allow(clippy::too_many_arguments)]
fn qos(
    a: &PtsArgs,
    base: &RunConfig,
    plan: &Plan,
    work: &Path,
    book: &Rounds,
    windows: &mut Vec<Window>,
    metas: &[RunMeta],
    start_time: Option<f64>,
    mut prep: Value,
) -> Result<String> {
    let p = &plan.params;
    let cell = plan.cells[0];
    let t = p.qos_time_s;
    let window_s = if t >= 20.0 { 1.0 } else { t / 20.0 };
    say(a, &format!("qos: recording {} s of 4 KiB random writes for the response-time histogram", t));
    let path = work.join("qos.hlog");
    let args = RunConfig {
        rw: Rw::Randwrite,
        mix: Some(0),
        bs: cell.bs,
        size: Some(plan.region),
        runtime_ns: Some((t * 1e9) as u64),
        window_ns: (window_s * 1e9) as u64,
        output: path.clone(),
        seed: base.seed.map(|s| s ^ 0x0051_0053),
        ..base.clone()
    };
    let (run, stopped) = collect_once(&args, "qos")?;
    let first = run.windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    // after the last round's windows (a cell's run can outlast its round by a few ms)
    let offset = windows.iter().map(Window::end_s).fold(book.len() as f64 * p.round_time_s, f64::max);
    let measured: Vec<Window> = run
        .windows
        .into_iter()
        .filter(|w| w.tag.as_deref() == Some("write"))
        .map(|w| Window { start_s: offset + (w.start_s - first), tag: Some(nines_core::tag::scoped("qos", "write")), ..w })
        .collect();
    let ios: u64 = measured.iter().map(|w| w.hist.count()).sum();
    prep["qos"] = json!({
        "scope": "qos",
        "seconds": t,
        "window_s": window_s,
        "from_s": offset,
        "ios": ios,
        "after_round": book.len(),
        "steady_before": book.steady_at().is_some(),
        "done": stopped.is_none(),
    });
    let run = Run { name: format!("PTS qos {t} s"), windows: measured.clone(), source: a.output.display().to_string(), ..Run::default() };
    windows.extend(measured);
    write_archive(a, plan, book, windows, metas, start_time, &prep, stopped.as_deref())?;
    if let Some(sig) = stopped {
        bail!("stopped by {sig} while recording the response-time histogram; '{}' keeps what was recorded", a.output.display());
    }
    let s = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    Ok(format!(
        "the response-time histogram: {t} s of 4 KiB random writes after round {} (nines stats {} --tag qos/write):\n{}",
        book.len(),
        a.output.display(),
        nines_core::export::text::stats(&[s])
    ))
}

/// The write saturation test: one run of 4 KiB random writes from the purged state, one
/// window per round, until `wsat_capacities` x the capacity is written or `max_rounds`
/// rounds have passed. Each round's IOPS is a point against time and against the bytes
/// written so far; the fresh, transition and steady regions and where steady state is lost
/// are found in that series (nines-core's `pts::wsat_regions`). Not reaching steady state is
/// a finding of this test, not a failure: the PTS runs it for its curve.
fn wsat(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path, mut prep: Value, out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let cell = plan.cells[0];
    let goal = (p.wsat_capacities * plan.capacity as f64) as u64;
    let ios = goal.div_ceil(u64::from(cell.bs)).max(1);
    let max_s = p.round_time_s * p.max_rounds as f64;
    say(
        a,
        &format!(
            "wsat: 4 KiB random writes until {} ({} x the capacity) are written or {} rounds of {} s have passed",
            format_size(goal),
            p.wsat_capacities,
            p.max_rounds,
            p.round_time_s
        ),
    );
    let path = work.join("wsat.hlog");
    let args = RunConfig {
        rw: Rw::Randwrite,
        mix: Some(0),
        bs: cell.bs,
        size: Some(plan.region),
        runtime_ns: Some((max_s * 1e9) as u64),
        ios: Some(ios),
        output: path.clone(),
        quiet: a.quiet,
        ..base.clone()
    };
    let (run, stopped) = collect_once(&args, "wsat")?;
    let scope = cell.scope();
    let mut windows: Vec<Window> = run
        .windows
        .into_iter()
        .filter(|w| w.tag.as_deref() == Some("write"))
        .map(|w| Window { tag: Some(nines_core::tag::scoped(&scope, "write")), ..w })
        .collect();
    nines_core::sort::sort_by_f64(&mut windows, |w| w.start_s);
    let mut book = Rounds::new(1, p.window_rounds);
    let mut points = Vec::with_capacity(windows.len());
    let mut written = 0u64;
    for (r, w) in windows.iter().enumerate() {
        let iops = if w.length_s > 0.0 { w.hist.count() as f64 / w.length_s } else { f64::NAN };
        written = written.saturating_add(w.hist.count().saturating_mul(u64::from(cell.bs)));
        book.push(&[iops])?;
        points.push(json!({ "round": r + 1, "start_s": w.start_s, "seconds": w.length_s, "iops": iops, "written_bytes": written }));
    }
    ensure!(
        !book.is_empty(),
        "wsat recorded no window of writes{}",
        stopped.as_deref().map(|s| format!(" (stopped by {s})")).unwrap_or_default()
    );
    let regions = pts::wsat_regions(&book.series[0], p.window_rounds);
    let ended = match &stopped {
        Some(sig) => sig.clone(),
        None if written >= goal => format!("{} x the capacity written", p.wsat_capacities),
        None => format!("the round limit (--max-rounds {})", p.max_rounds),
    };
    prep["wsat"] = json!({
        "goal_bytes": goal,
        "written_bytes": written,
        "capacity_writes": written as f64 / plan.capacity as f64,
        "ended_by": ended,
        "regions": regions,
        "points": points,
    });
    write_archive(a, plan, &book, &windows, std::slice::from_ref(&run.meta), run.start_time, &prep, stopped.as_deref())?;
    // the terminal: regions, then the curve against time and bytes written
    writeln!(out, "SNIA PTS wsat ({}), {}: {} rounds, ended by {ended}", p.profile.name(), a.output.display(), book.len())?;
    let iops = &book.series[0];
    let span = |(f, e): (usize, usize)| {
        let avg = iops[f..e].iter().sum::<f64>() / (e - f).max(1) as f64;
        format!("rounds {}..{e}, average {}", f + 1, show(p.test, avg))
    };
    if regions.fresh.1 > regions.fresh.0 {
        writeln!(out, "  fresh out of the box: {}", span(regions.fresh))?;
    }
    if let Some(t) = regions.transition {
        writeln!(out, "  transition: {}", span(t))?;
    }
    match regions.steady {
        Some(s) => writeln!(out, "  steady state: {}", span(s))?,
        None => writeln!(out, "  steady state not reached in {} rounds", book.len())?,
    }
    if let Some(l) = regions.lost_at {
        writeln!(
            out,
            "  steady state lost in round {}: {}, more than 20% off the steady average, and it stays off",
            l + 1,
            show(p.test, iops[l])
        )?;
    }
    for d in &plan.deviations {
        writeln!(out, "  deviation: {d}")?;
    }
    writeln!(out, "  round       time       written        IOPS")?;
    let step = book.len().div_ceil(40).max(1);
    for (r, pt) in points.iter().enumerate() {
        if r % step != 0 && r + 1 != points.len() && Some(r) != regions.lost_at {
            continue;
        }
        let end_s = pt["start_s"].as_f64().unwrap_or(0.0) + pt["seconds"].as_f64().unwrap_or(0.0);
        writeln!(
            out,
            "  {:>5}  {:>9}  {:>10}  {:>10}",
            r + 1,
            format!("{end_s:.3} s"),
            format!("{:.3} GB", pt["written_bytes"].as_f64().unwrap_or(0.0) / 1e9),
            nines_core::units::format_rate(iops[r])
        )?;
    }
    if let Some(sig) = stopped {
        bail!("stopped by {sig}; '{}' keeps the {} rounds recorded before it", a.output.display(), book.len());
    }
    Ok(())
}

/// The progress line of a finished round: the tracked results and how far steady state is.
fn progress(plan: &Plan, book: &Rounds) -> String {
    let p = &plan.params;
    let r = book.len();
    let vals: Vec<String> =
        plan.tracked.iter().zip(&book.series).map(|(&i, s)| format!("{} {}", plan.cells[i].text(), show(p.test, s[r - 1]))).collect();
    let state = if book.steady_at().is_some() {
        "steady".to_string()
    } else if r < p.window_rounds {
        format!("{} to {} more rounds", p.window_rounds - r, p.max_rounds - r)
    } else {
        format!("not steady yet, at most {} more rounds", p.max_rounds - r)
    };
    format!("{}: round {r}/{}: {}; {state}", p.test.name(), p.max_rounds, vals.join(", "))
}

fn show(test: Test, v: f64) -> String {
    match test.measure() {
        pts::Measure::Iops => format!("{} IOPS", nines_core::units::format_rate(v)),
        pts::Measure::MBps => format!("{v:.1} MB/s"),
        pts::Measure::MeanNs => format!("{} mean", nines_core::units::format_ns_f(v)),
    }
}

/// Write the archive of the whole rounds so far (atomically, replacing the last one).
#[allow(clippy::too_many_arguments)]
fn write_archive(
    a: &PtsArgs,
    plan: &Plan,
    book: &Rounds,
    windows: &[Window],
    metas: &[RunMeta],
    start_time: Option<f64>,
    prep: &Value,
    stopped: Option<&str>,
) -> Result<()> {
    if book.is_empty() {
        return Ok(());
    }
    let run = assemble(a, plan, book, windows, metas, start_time, prep, stopped);
    let replace = if a.force || book.len() > 1 || stopped.is_some() { Replace::Always } else { Replace::Never };
    let inputs = if a.engine == EngineKind::Null { Inputs::default() } else { Inputs::new([&a.target]) };
    output::write_atomic_with(&a.output, replace, &inputs, |w| nines_core::archive::write(w, &run).map(|_| ()))
}

/// The test's run: its windows and metadata.
#[allow(clippy::too_many_arguments)]
fn assemble(
    a: &PtsArgs,
    plan: &Plan,
    book: &Rounds,
    windows: &[Window],
    metas: &[RunMeta],
    start_time: Option<f64>,
    prep: &Value,
    stopped: Option<&str>,
) -> Run {
    let p = &plan.params;
    let verdict = Verdict::of(book);
    let mut meta = metas.first().cloned().unwrap_or_default();
    meta.workload = None;
    meta.summary = None;
    meta.jobs = metas
        .iter()
        .zip(&plan.cells)
        .filter_map(|(m, c)| m.workload.clone().map(|w| meta::Workload { scope: Some(c.scope()), ..w }))
        .collect();
    meta.name =
        Some(format!("PTS {} {}", p.test.name(), a.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()));
    meta.tags = Some("CELL/read, CELL/write: the latency in ns of each cell's reads and writes (CELL: rnd|seq_READ-WRITE_BS); each round's cells are at the round's offset, one window each".into());
    let mut ios = meta::Counts::default();
    for w in windows {
        let t = w.tag.clone().unwrap_or_default();
        let n = ios.get(&t).unwrap_or(0);
        ios.insert(t, n + w.hist.count());
    }
    // the rounds, and what follows them (qos's recording)
    let duration_s = windows.iter().map(Window::end_s).fold(book.len() as f64 * p.round_time_s, f64::max);
    let stopped_by = match (stopped, verdict.steady) {
        (Some(s), _) => s.to_string(),
        // wsat ends by bytes written or rounds, whether steady or not
        (None, _) if prep.get("wsat").is_some() => prep["wsat"]["ended_by"].as_str().unwrap_or_default().to_string(),
        (None, _) if prep.get("xsr").is_some() => "its three segments".into(),
        (None, _) if prep.get("fill").is_some() => "its active ranges".into(),
        (None, true) => "steady".into(),
        (None, false) if book.len() >= p.max_rounds => "max-rounds".into(),
        (None, false) => "running".into(),
    };
    meta.summary = Some(meta::Summary {
        end: iso_date(start_time.unwrap_or(0.0) + duration_s),
        duration_s,
        windows: windows.len() as u64,
        ios,
        stopped_by,
        ..meta::Summary::default()
    });
    meta.steady = Some(meta::SteadyMeta {
        criterion: format!("SNIA PTS over {} rounds", p.window_rounds),
        reached: verdict.steady,
        windows_checked: Some(book.len() as u64),
        ..meta::SteadyMeta::default()
    });
    meta.pts = pts_meta(a, plan, book, &verdict, prep, metas);
    if let (Some(s), Some(st)) = (meta.pts.get("steady").and_then(Value::as_bool), meta.steady.as_mut()) {
        st.reached = s;
    }
    Run {
        name: meta.name.clone().unwrap_or_default(),
        source: a.output.display().to_string(),
        start_time,
        meta,
        windows: windows.to_vec(),
        warnings: Vec::new(),
        context: Vec::new(),
    }
}

/// The `pts` metadata key: parameters, purge, preconditioning, device, cells, rounds, verdict
/// and deviations.
fn pts_meta(a: &PtsArgs, plan: &Plan, book: &Rounds, verdict: &Verdict, prep: &Value, metas: &[RunMeta]) -> Map<String, Value> {
    let p = &plan.params;
    let device = metas.first().and_then(|m| m.target.clone()).map(|t| {
        let mut d = t.other.clone();
        d.insert("capacity_bytes".into(), json!(plan.capacity));
        d.insert("size_bytes".into(), json!(t.size_bytes));
        d.insert("path".into(), json!(t.path));
        d
    });
    let rounds: Vec<Value> = (0..book.len())
        .map(|r| json!({ "round": r + 1, "start_s": r as f64 * p.round_time_s, "tracked": book.series.iter().map(|s| s[r]).collect::<Vec<_>>() }))
        .collect();
    let window = verdict.window.map(
        |(f, e)| json!({ "first_round": f + 1, "last_round": e, "from_s": f as f64 * p.round_time_s, "to_s": e as f64 * p.round_time_s }),
    );
    let mut deviations = plan.deviations.clone();
    let fill: Vec<&Value> = prep.get("fill").and_then(Value::as_array).into_iter().flatten().collect();
    let (steady, verdict_text) = if p.test == Test::Fill {
        let missed: Vec<String> = fill
            .iter()
            .filter(|l| l["steady"] != json!(true))
            .map(|l| format!("{}%", l["active_range_pct"].as_f64().unwrap_or(0.0)))
            .collect();
        if missed.is_empty() {
            (true, format!("steady state reached at every active range ({})", fill.len()))
        } else {
            deviations.push(format!("steady state not reached at {}", missed.join(", ")));
            (false, format!("steady state not reached at {}", missed.join(", ")))
        }
    } else if p.test == Test::Xsr {
        let text = match prep["xsr"]["recovered_after_s"].as_f64() {
            Some(t) => format!("recovered {t} s into the last segment"),
            None if prep["xsr"].get("reference_mbps").is_some() => "not recovered in the last segment".into(),
            None => "segments not all run".into(),
        };
        (false, text)
    } else {
        (verdict.steady, verdict.text())
    };
    if !verdict.steady && !matches!(p.test, Test::Wsat | Test::Xsr | Test::Fill) {
        deviations.push(format!("steady state not reached in {} rounds", book.len()));
    }
    let v = json!({
        "test": p.test.name(),
        "specification": "SNIA SSS PTS 2.0.2",
        "profile": p.profile.name(),
        "params": p,
        "active_range_bytes": plan.region,
        "purge": prep["purge"],
        "precondition": prep["precondition"],
        "device": device,
        "cells": plan.cells.iter().map(|c| json!({ "scope": c.scope(), "cell": c.text() })).collect::<Vec<_>>(),
        "tracked": plan.tracked.iter().map(|&i| json!({ "scope": plan.cells[i].scope(), "cell": plan.cells[i].text(), "measure": p.test.measure().label() })).collect::<Vec<_>>(),
        "rounds": rounds,
        "steady": steady,
        "verdict": verdict_text,
        "window": window,
        "window_tracked": verdict.tracked,
        "deviations": deviations,
        "command": a.test.core().name(),
    });
    let mut m = v.as_object().cloned().unwrap_or_default();
    for key in ["wsat", "qos", "di", "hir", "xsr", "fill"] {
        if let Some(w) = prep.get(key) {
            m.insert(key.into(), w.clone());
        }
    }
    m
}

/// The end: the tracked results over the measurement window, every cell's `nines stats`
/// rows over it, and the verdict (an error when steady state was not reached).
fn report(a: &PtsArgs, plan: &Plan, book: &Rounds, windows: &[Window], after: &str, out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let verdict = Verdict::of(book);
    writeln!(out, "SNIA PTS {} ({}), {}: {}", p.test.name(), p.profile.name(), a.output.display(), verdict.text())?;
    for (k, &i) in plan.tracked.iter().enumerate() {
        let vals: Vec<String> = book.series[k].iter().map(|v| show(p.test, *v)).collect();
        writeln!(out, "  {} per round: {}", plan.cells[i].text(), vals.join(", "))?;
        if let Some(e) = verdict.tracked.get(k).and_then(|t| t.eval) {
            writeln!(
                out,
                "    window average {}, range {:.1}% (limit 20%), fitted line's excursion {:.1}% (limit 10%): {}",
                show(p.test, e.average),
                100.0 * e.range / e.average,
                100.0 * e.excursion / e.average,
                if e.holds { "holds" } else { "does not hold" }
            )?;
        }
    }
    for d in &plan.deviations {
        writeln!(out, "  deviation: {d}")?;
    }
    if let Some((f, e)) = verdict.window {
        let (from, to) = ((f as f64 - 0.5) * p.round_time_s, (e as f64 - 0.5) * p.round_time_s);
        let name = format!("PTS {}", p.test.name());
        let run = Run { name, windows: windows.to_vec(), source: a.output.display().to_string(), ..Run::default() };
        let opts = nines_core::stats::Options { from: Some(from.max(0.0)), to: Some(to), ..Default::default() };
        let s = nines_core::stats::run_stats(&run, &opts);
        writeln!(
            out,
            "every cell over rounds {}..{e} (nines stats {} --from {} --to {}):",
            f + 1,
            a.output.display(),
            secs(from.max(0.0)),
            secs(to)
        )?;
        write!(out, "{}", nines_core::export::text::stats(&[s]))?;
    }
    write!(out, "{after}")?;
    if !verdict.steady {
        bail!(
            "steady state not reached in {} rounds (--max-rounds {}); '{}' keeps every round",
            book.len(),
            p.max_rounds,
            a.output.display()
        );
    }
    Ok(())
}

/// Seconds as `nines stats --from` takes them, exactly.
fn secs(s: f64) -> String {
    format!("{s}")
}
