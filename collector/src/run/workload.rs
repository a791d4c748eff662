//! The checked workload (from the run's configuration) and the per-job generator of I/Os: direction, offset,
//! length and, in rate-limited runs, when each I/O is due.

use anyhow::{bail, Result};
use nines_core::distribution::{Distribution, Sampler};
use nines_core::meta;
use nines_core::steady::Criterion;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::config::{Arrival, EngineKind, RunConfig, Rw};
use nines_core::units::{format_duration, format_size};

/// Tags recorded by the collector, by index. Directions are merged into `all` by readers;
/// `.svc` (service time from submission, only in rate-limited runs) is not. The directions
/// (read, write, trim) come first, each direction's `.svc` tag is at `READ_SVC + direction`,
/// and everything below `SYNC` is a direction.
pub const TAGS: [&str; 7] = ["read", "write", "trim", "sync", "read.svc", "write.svc", "trim.svc"];
pub const READ: usize = 0;
pub const WRITE: usize = 1;
pub const TRIM: usize = 2;
pub const SYNC: usize = 3;
pub const READ_SVC: usize = 4;
/// Number of tags.
pub const NT: usize = TAGS.len();

/// How windows are closed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowRule {
    /// Every this many nanoseconds.
    Time(u64),
    /// After this many I/Os in total.
    Ios(u64),
}

/// A workload whose every number has been checked.
#[derive(Clone, Debug)]
pub struct Workload {
    pub rw: Rw,
    /// Read share in percent (100 for read-only patterns, 0 for write-only and trim ones).
    pub mix: u32,
    /// Every I/O is a trim (--rw trim or randtrim).
    pub trim: bool,
    /// Block sizes and their share in percent.
    pub bs: Vec<(u32, u32)>,
    /// Offsets are multiples of this (the smallest block size).
    pub align: u32,
    pub max_bs: u32,
    pub qd: u32,
    pub jobs: u32,
    /// Region size asked for; `None` means the whole target.
    pub size: Option<u64>,
    /// Recording time (after the ramp).
    pub runtime_ns: Option<u64>,
    /// Recorded I/Os in total.
    pub ios: Option<u64>,
    pub ramp_ns: u64,
    pub direct: bool,
    pub sync: bool,
    pub fsync_every: Option<u64>,
    /// Per job.
    pub rate_iops: Option<f64>,
    /// Per job, bytes per second (each I/O's share of the schedule is its length).
    pub rate_bytes: Option<u64>,
    /// Think time (fio's thinktime, thinktime_blocks, thinktime_spin).
    pub think: Option<Think>,
    /// How many targets the I/Os are spread over (round robin).
    pub targets: u32,
    pub arrival: Arrival,
    pub window: WindowRule,
    pub steady: Option<(Criterion, u64)>,
    pub seed: u64,
    pub engine: EngineKind,
    pub record: bool,
    /// I/Os handed to the kernel per submission while refilling the queue.
    pub submit_batch: u32,
    /// Completions handled per reap at most (fio's iodepth_batch_complete_max).
    pub complete_batch: u32,
    /// Where random offsets fall (fio's random_distribution).
    pub distribution: Distribution,
    /// The fio job file and section the workload came from.
    pub job_file: Option<String>,
}

impl Workload {
    /// The workload of a run's configuration, every number checked, alone and together.
    pub fn from_config(a: &RunConfig) -> Result<Workload> {
        let bs = block_sizes(a)?;
        let align = bs.iter().map(|b| b.0).min().unwrap_or(4096);
        let max_bs = bs.iter().map(|b| b.0).max().unwrap_or(4096);
        let mix = read_share(a)?;
        check_parallelism(a)?;
        let (size, ios, runtime_ns) = extent(a, max_bs)?;
        check_sync_and_rates(a)?;
        let think = think(a)?;
        let targets = a.targets.len() as u32;
        if targets > 1 && a.fsync_every.is_some() {
            bail!("--fsync-every with several targets is not supported: nines would have to choose which file to fdatasync; give one --target");
        }
        let window = window(a)?;
        let steady = steady(a, window)?;
        let distribution = a.random_distribution.clone().unwrap_or_default();
        if !distribution.is_uniform() && !a.rw.random() {
            bail!("--random-distribution {distribution} needs a random pattern (--rw randread, randwrite, randrw or randtrim); --rw {} is sequential", a.rw.name());
        }
        let job_file = a.job_file.as_ref().map(|f| match &a.section {
            Some(s) => format!("{} [{s}]", f.display()),
            None => f.display().to_string(),
        });
        let seed = a.seed.unwrap_or_else(|| {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            t.as_nanos() as u64 ^ (std::process::id() as u64) << 32
        });
        Ok(Workload {
            rw: a.rw,
            mix,
            trim: a.rw.trims(),
            bs,
            align,
            max_bs,
            qd: a.qd,
            jobs: a.jobs,
            size,
            runtime_ns,
            ios,
            ramp_ns: a.ramp_ns,
            direct: a.direct,
            sync: a.sync,
            fsync_every: a.fsync_every,
            rate_iops: a.rate_iops,
            rate_bytes: a.rate_bytes,
            think,
            targets,
            arrival: a.arrival,
            window,
            steady,
            seed,
            engine: a.engine,
            record: !a.no_record,
            submit_batch: a.submit_batch,
            complete_batch: a.complete_batch.unwrap_or(1),
            distribution,
            job_file,
        })
    }

    /// Does the workload destroy data (writes or trims)? The data-safety rules key on this.
    pub fn writes(&self) -> bool {
        self.mix < 100
    }

    /// The directions this workload issues (READ, WRITE, TRIM).
    pub fn directions(&self) -> Vec<usize> {
        if self.trim {
            return vec![TRIM];
        }
        let mut d = Vec::new();
        if self.mix > 0 {
            d.push(READ);
        }
        if self.mix < 100 {
            d.push(WRITE);
        }
        d
    }

    /// Is the workload rate-limited (I/Os per second or bytes per second)? Latency is then
    /// measured from each I/O's due time.
    pub fn rated(&self) -> bool {
        self.rate_iops.is_some() || self.rate_bytes.is_some()
    }

    /// The tags this workload produces, each written in every window (empty ones too).
    pub fn tags(&self) -> Vec<usize> {
        let dirs = self.directions();
        let mut t = dirs.clone();
        if self.fsync_every.is_some() {
            t.push(SYNC);
        }
        if self.rated() {
            t.extend(dirs.iter().map(|d| READ_SVC + d));
        }
        t
    }

    /// The workload as the archive's metadata records it.
    /// The workload as the archive's metadata states it.
    pub fn to_meta(&self, region: u64) -> meta::Workload {
        let latency_from = if self.rated() {
            "due time (coordinated-omission corrected); .svc tags hold service time from submission"
        } else if self.trim {
            "submission (for trims issued synchronously: from just before the call to just after it returns)"
        } else {
            "submission"
        };
        let bs: Vec<String> = self.bs.iter().map(|(b, p)| format!("{}/{p}", format_size(*b as u64))).collect();
        meta::Workload {
            rw: Some(self.rw.name().into()),
            read_pct: Some(self.mix),
            directions: self.directions().iter().map(|&d| TAGS[d].to_string()).collect(),
            bs: Some(meta::Size::Text(bs.join(":"))),
            bs_bytes: self.bs.iter().map(|&(b, p)| (u64::from(b), p)).collect(),
            qd: Some(self.qd),
            jobs: Some(self.jobs),
            submit_batch: Some(self.submit_batch.min(self.qd)),
            complete_batch: Some(self.complete_batch.min(self.qd)),
            size_bytes: Some(region),
            runtime_s: self.runtime_ns.map(|n| n as f64 / 1e9),
            ios: self.ios,
            ramp_s: Some(self.ramp_ns as f64 / 1e9),
            direct: Some(self.direct),
            sync: Some(self.sync),
            fsync_every: self.fsync_every,
            rate_iops_per_job: self.rate_iops,
            arrival: self.rated().then(|| self.arrival.name().to_string()),
            rate_bytes_per_job: self.rate_bytes,
            thinktime_s: self.think.map(|t| t.ns as f64 / 1e9),
            thinktime_blocks: self.think.map(|t| t.blocks),
            thinktime_spin_s: self.think.map(|t| t.spin_ns as f64 / 1e9),
            latency_from: Some(latency_from.into()),
            seed: Some(self.seed),
            recorded: Some(self.record),
            steady: self.steady.as_ref().map(|(c, w)| meta::SteadyRule {
                criterion: c.to_string(),
                window_s: *w as f64 / 1e9,
                ..meta::SteadyRule::default()
            }),
            random_distribution: self.rw.random().then(|| self.distribution.to_string()),
            job_file: self.job_file.clone(),
            ..meta::Workload::default()
        }
    }
}

/// The block sizes with their shares (one, or `--bssplit`'s); O_DIRECT needs multiples of
/// 512 bytes.
fn block_sizes(a: &RunConfig) -> Result<Vec<(u32, u32)>> {
    let bs = match &a.bssplit {
        Some(split) => split.0.clone(),
        None => vec![(a.bs, 100)],
    };
    if a.direct && a.engine != EngineKind::Null {
        if let Some((b, _)) = bs.iter().find(|(b, _)| b % 512 != 0) {
            bail!("block size {b} is not a multiple of 512 bytes, which O_DIRECT needs; use a multiple of 512 or pass --buffered");
        }
    }
    Ok(bs)
}

/// The share of reads in percent: the pattern's, or `--mix` for the mixed ones.
fn read_share(a: &RunConfig) -> Result<u32> {
    if let Some(m) = a.mix {
        if m > 100 {
            bail!("--mix {m} is a percentage of reads and must be between 0 and 100");
        }
        if a.rw.trims() {
            bail!(
                "--mix does not apply to --rw {}: trims are not mixed with reads or writes (--mix is for randrw and rw)",
                if a.rw == Rw::Trim { "trim" } else { "randtrim" }
            );
        }
    }
    Ok(match a.rw {
        Rw::Randread | Rw::Read => 100,
        Rw::Randwrite | Rw::Write | Rw::Trim | Rw::Randtrim => 0,
        Rw::Randrw | Rw::Rw => a.mix.unwrap_or(50),
    })
}

/// Queue depth, submission and completion batches, and jobs within their bounds.
fn check_parallelism(a: &RunConfig) -> Result<()> {
    if a.qd == 0 || a.qd > 4096 {
        bail!("--qd {} must be between 1 and 4096", a.qd);
    }
    if a.submit_batch == 0 {
        bail!("--submit-batch must be at least 1");
    }
    if a.complete_batch == Some(0) {
        bail!("--complete-batch must be at least 1");
    }
    if a.jobs == 0 || a.jobs > 1024 {
        bail!("--jobs {} must be between 1 and 1024", a.jobs);
    }
    Ok(())
}

/// How much of the target and for how long: the region's size (at least one block), the
/// I/O count and the recording time (10 s unless --ios is given alone).
fn extent(a: &RunConfig, max_bs: u32) -> Result<(Option<u64>, Option<u64>, Option<u64>)> {
    let size = a.size;
    if let Some(s) = size {
        if s < max_bs as u64 {
            bail!("--size {} is smaller than the block size {}", format_size(s), format_size(max_bs as u64));
        }
    }
    let ios = a.ios;
    if ios == Some(0) {
        bail!("--ios must be at least 1");
    }
    let runtime_ns = match (a.runtime_ns, ios) {
        (Some(r), _) => Some(r),
        (None, Some(_)) => None,
        (None, None) => Some(10_000_000_000),
    };
    if runtime_ns == Some(0) {
        bail!("--runtime must be longer than 0");
    }
    Ok((size, ios, runtime_ns))
}

/// `--fsync-every` needs writes; a rate limit is positive, and only one is given.
fn check_sync_and_rates(a: &RunConfig) -> Result<()> {
    if a.fsync_every == Some(0) {
        bail!("--fsync-every must be at least 1");
    }
    if a.fsync_every.is_some() && (!a.rw.writes() || a.rw.trims()) {
        bail!("--fsync-every needs a workload with writes (--rw randwrite, randrw, write or rw); reads and trims are not followed by fdatasync");
    }
    if let Some(r) = a.rate_iops {
        if !(r.is_finite() && r > 0.0 && r <= 1e8) {
            bail!("--rate-iops {r} must be a positive number of I/Os per second (per job)");
        }
    }
    if a.rate_iops.is_some() && a.rate_bytes.is_some() {
        bail!("--rate-iops and --rate both limit the job; give one");
    }
    Ok(())
}

/// The think time, if any (a zero think time is none).
fn think(a: &RunConfig) -> Result<Option<Think>> {
    Ok(match a.thinktime_ns {
        Some(ns) => {
            let blocks = a.thinktime_blocks.unwrap_or(1);
            if blocks == 0 {
                bail!("--thinktime-blocks must be at least 1");
            }
            let spin_ns = a.thinktime_spin_ns.unwrap_or(0);
            if spin_ns > ns {
                bail!(
                    "--thinktime-spin {} is longer than --thinktime {}; the spin is part of the think time",
                    format_duration(spin_ns),
                    format_duration(ns)
                );
            }
            (ns > 0).then_some(Think { ns, blocks, spin_ns })
        }
        None => None,
    })
}

/// How windows are closed: by I/Os (at least one per job) or by time (at least 1ms, the
/// archive's resolution).
fn window(a: &RunConfig) -> Result<WindowRule> {
    Ok(match a.window_ios {
        Some(n) => {
            if n < a.jobs as u64 {
                bail!("--window-ios {n} must be at least the number of jobs ({})", a.jobs);
            }
            WindowRule::Ios(n)
        }
        None => {
            let w = a.window_ns;
            if w < 1_000_000 {
                bail!("--window {} is shorter than 1ms; the archive's timestamps have millisecond resolution", format_duration(w));
            }
            WindowRule::Time(w)
        }
    })
}

/// The steady-state criterion with the window it is checked over: windows by time, at least
/// two of them.
fn steady(a: &RunConfig, window: WindowRule) -> Result<Option<(Criterion, u64)>> {
    Ok(match a.steady {
        Some(c) => {
            let WindowRule::Time(w) = window else {
                bail!("--steady needs windows by time (--window), not --window-ios");
            };
            let sw = a.steady_window_ns;
            if sw < 2 * w {
                bail!("--steady-window {} must cover at least two windows of {}", format_duration(sw), format_duration(w));
            }
            Some((c, sw))
        }
        None => None,
    })
}

/// fio's think time: after `blocks` I/Os have completed, stall `ns` (the first `spin_ns` of
/// it busy on the CPU) before issuing the next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Think {
    pub ns: u64,
    pub blocks: u32,
    pub spin_ns: u64,
}

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IoSpec {
    /// READ, WRITE or TRIM.
    pub dir: usize,
    /// Which of the job's targets.
    pub target: u32,
    pub offset: u64,
    pub len: u32,
}

/// Where a job is in one of its targets.
struct FilePos {
    region: u64,
    cursor: u64,
    /// Skewed random offsets (None: uniform).
    skew: Option<Sampler>,
}

/// The per-job generator of I/Os.
pub struct OpGen {
    rng: SmallRng,
    random: bool,
    mix: u32,
    trim: bool,
    /// (block size, cumulative share).
    bs: Vec<(u32, u32)>,
    align: u64,
    files: Vec<FilePos>,
    /// The target of the next I/O (fio's file_service_type=roundrobin: one I/O each in turn).
    file: usize,
    interval_ns: f64,
    /// With a rate in bytes per second: nanoseconds per byte.
    ns_per_byte: f64,
    poisson: bool,
    next_due: f64,
    /// Due times never fall before this (the end of the last think time).
    not_before: f64,
}

impl OpGen {
    /// A generator for job `job` of `w`, over `region` bytes, with due times starting at
    /// `start_ns`.
    pub fn new(w: &Workload, job: u32, region: u64, start_ns: u64) -> OpGen {
        OpGen::over(w, job, &[region], start_ns)
    }

    /// A generator for job `job` of `w` over targets of `regions` bytes each, I/Os going to
    /// them in turn.
    pub fn over(w: &Workload, job: u32, regions: &[u64], start_ns: u64) -> OpGen {
        let mut cum = 0;
        let bs =
            w.bs.iter()
                .map(|(b, p)| {
                    cum += p;
                    (*b, cum)
                })
                .collect();
        // Sequential jobs start at evenly spaced offsets so they do not read the same blocks.
        let align = w.align as u64;
        let mut g = OpGen {
            rng: SmallRng::seed_from_u64(w.seed.wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(job as u64 + 1))),
            random: w.rw.random(),
            mix: w.mix,
            trim: w.trim,
            bs,
            align,
            files: Vec::new(),
            file: 0,
            interval_ns: w.rate_iops.map_or(0.0, |r| 1e9 / r),
            ns_per_byte: w.rate_bytes.map_or(0.0, |r| 1e9 / r as f64),
            poisson: w.arrival == Arrival::Poisson,
            next_due: start_ns as f64,
            not_before: 0.0,
        };
        for &region in regions {
            let cursor = (region / w.jobs as u64 * job as u64) / align * align;
            // Skewed offsets: over the blocks of the smallest size, as fio counts them, each
            // job with its own random start of the hot set (fio's jobs have their own).
            let skew = (g.random && !w.distribution.is_uniform()).then(|| {
                let start = g.rng.gen::<u64>();
                Sampler::new(&w.distribution, region.div_ceil(align), start)
            });
            g.files.push(FilePos { region, cursor, skew });
        }
        g
    }

    #[inline]
    pub fn next_io(&mut self) -> IoSpec {
        let dir = if self.trim {
            TRIM
        } else if self.mix == 100 || (self.mix > 0 && self.rng.gen_range(0..100) < self.mix) {
            READ
        } else {
            WRITE
        };
        let len = if self.bs.len() == 1 {
            self.bs[0].0
        } else {
            let r = self.rng.gen_range(0..100);
            self.bs.iter().find(|(_, c)| r < *c).map_or(self.bs[0].0, |b| b.0)
        };
        let len64 = len as u64;
        let target = self.file;
        self.file = (self.file + 1) % self.files.len();
        let f = &mut self.files[target];
        let offset = if let Some(s) = &f.skew {
            let rng = &mut self.rng;
            let b = s.block(&mut || rng.gen::<f64>());
            // a block near the end that a larger I/O would run past is moved back inside
            (b * self.align).min((f.region - len64) / self.align * self.align)
        } else if self.random {
            let slots = (f.region - len64) / self.align;
            self.rng.gen_range(0..=slots) * self.align
        } else {
            if f.cursor + len64 > f.region {
                f.cursor = 0;
            }
            let o = f.cursor;
            f.cursor += len64;
            o
        };
        IoSpec { dir, target: target as u32, offset, len }
    }

    /// When the next I/O is due (rate-limited runs), in ns on the job's clock.
    #[inline]
    pub fn peek_due(&self) -> u64 {
        self.next_due.max(self.not_before) as u64
    }

    /// Take the due time of the next I/O, of `len` bytes, and schedule the one after it:
    /// 1/rate later with --rate-iops, len/rate later with --rate in bytes per second (as
    /// fio's rate spaces I/Os by their bytes), the gap drawn from an exponential
    /// distribution of that mean for Poisson arrivals.
    #[inline]
    pub fn take_due(&mut self, len: u32) -> u64 {
        self.next_due = self.next_due.max(self.not_before);
        let due = self.next_due as u64;
        let mean = self.interval_ns + self.ns_per_byte * f64::from(len);
        let gap = if self.poisson {
            // Exponential gaps: -ln(U) / rate with U in (0, 1].
            let u: f64 = 1.0 - self.rng.gen::<f64>();
            -u.ln() * mean
        } else {
            mean
        };
        self.next_due += gap;
        due
    }

    /// A think time ended at `t`: no I/O is due before it (the schedule moves on from there;
    /// the application's own pause is not the target's latency).
    pub fn thought_until(&mut self, t: u64) {
        self.not_before = self.not_before.max(t as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::Given;
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    fn workload(extra: &[&str]) -> Result<Workload> {
        let mut v = vec!["nines", "run", "--target", "t", "-o", "o.hlog", "--seed", "7"];
        v.extend_from_slice(extra);
        let Cmd::Run(a) = Cli::try_parse_from(v).unwrap().cmd else { panic!() };
        Workload::from_config(&a.config(&Given::default()))
    }

    #[test]
    fn checks_numbers() {
        assert!(workload(&["--mix", "101", "--rw", "randrw"]).unwrap_err().to_string().contains("--mix"));
        assert!(workload(&["--qd", "0"]).is_err());
        assert!(workload(&["--bs", "1000"]).unwrap_err().to_string().contains("512"));
        assert!(workload(&["--bs", "1000", "--buffered"]).is_ok());
        assert!(workload(&["--size", "1k"]).is_err());
        assert!(workload(&["--window", "10us"]).is_err());
        assert!(workload(&["--fsync-every", "8"]).unwrap_err().to_string().contains("writes"));
        assert!(workload(&["--rate-iops", "0"]).is_err());
        assert!(workload(&["--steady", "iops:10%", "--steady-window", "1s"]).is_err());
        assert!(workload(&["--steady", "iops:10%", "--window-ios", "1000"]).is_err());
        assert_eq!(workload(&[]).unwrap().runtime_ns, Some(10_000_000_000));
        assert_eq!(workload(&["--ios", "5k"]).unwrap().runtime_ns, None);
    }

    #[test]
    fn tags_follow_the_workload() {
        let names = |w: Workload| w.tags().into_iter().map(|t| TAGS[t]).collect::<Vec<_>>();
        assert_eq!(names(workload(&[]).unwrap()), ["read"]);
        assert_eq!(names(workload(&["--rw", "randrw", "--fsync-every", "4"]).unwrap()), ["read", "write", "sync"]);
        assert_eq!(names(workload(&["--rw", "randwrite", "--rate-iops", "64"]).unwrap()), ["write", "write.svc"]);
        assert_eq!(names(workload(&["--rw", "randrw", "--rate-iops", "64"]).unwrap()), ["read", "write", "read.svc", "write.svc"]);
        assert_eq!(names(workload(&["--rw", "randtrim"]).unwrap()), ["trim"]);
        assert_eq!(names(workload(&["--rw", "trim", "--rate-iops", "64"]).unwrap()), ["trim", "trim.svc"]);
        // Every direction's .svc tag sits at READ_SVC + direction, and directions come before SYNC.
        for d in [READ, WRITE, TRIM] {
            assert!(d < SYNC);
            assert_eq!(TAGS[READ_SVC + d], format!("{}.svc", TAGS[d]));
        }
    }

    #[test]
    fn trim_rules() {
        let w = workload(&["--rw", "randtrim", "--bs", "64k"]).unwrap();
        assert!(w.trim && w.writes(), "trims count as writes for the safety rules");
        assert_eq!(w.mix, 0);
        assert_eq!(w.to_meta(1 << 20).rw.as_deref(), Some("randtrim"));
        assert_eq!(w.to_meta(1 << 20).directions, ["trim"]);
        let e = workload(&["--rw", "randtrim", "--mix", "50"]).unwrap_err().to_string();
        assert!(e.contains("--mix") && e.contains("randtrim"), "{e}");
        assert!(workload(&["--rw", "trim", "--mix", "0"]).unwrap_err().to_string().contains("--mix"));
        let e = workload(&["--rw", "trim", "--fsync-every", "4"]).unwrap_err().to_string();
        assert!(e.contains("--fsync-every") && e.contains("trims"), "{e}");
        assert!(workload(&["--rw", "randtrim", "--bssplit", "4k/50:1m/50"]).is_ok());
        assert!(workload(&["--rw", "randtrim", "--bs", "1000"]).unwrap_err().to_string().contains("512"));
        // --mix keeps its meaning for randrw (default 50) and is ignored by randread.
        assert_eq!(workload(&["--rw", "randrw"]).unwrap().mix, 50);
        assert_eq!(workload(&["--mix", "30"]).unwrap().mix, 100);
        let mut g = OpGen::new(&w, 0, 1 << 20, 0);
        for _ in 0..1000 {
            let io = g.next_io();
            assert_eq!(io.dir, TRIM);
            assert!(io.offset.is_multiple_of(65536) && io.offset + io.len as u64 <= 1 << 20);
        }
        let w = workload(&["--rw", "trim", "--bs", "4k"]).unwrap();
        let mut g = OpGen::new(&w, 0, 12288, 0);
        let offs: Vec<u64> = (0..4).map(|_| g.next_io().offset).collect();
        assert_eq!(offs, [0, 4096, 8192, 0]);
    }

    #[test]
    fn generator_respects_mix_alignment_and_region() {
        let w = workload(&["--rw", "randrw", "--mix", "70", "--bssplit", "4k/50:16k/50"]).unwrap();
        let region = 1 << 20;
        let mut g = OpGen::new(&w, 0, region, 0);
        let n = 100_000;
        let mut reads = 0;
        for _ in 0..n {
            let io = g.next_io();
            assert_eq!(io.offset % 4096, 0);
            assert!(io.offset + io.len as u64 <= region);
            assert!(io.len == 4096 || io.len == 16384);
            reads += (io.dir == READ) as u32;
        }
        let share = reads as f64 / n as f64;
        assert!((share - 0.7).abs() < 0.01, "read share {share}");
    }

    #[test]
    fn seeds_reproduce_and_jobs_differ() {
        let w = workload(&["--rw", "randrw"]).unwrap();
        let seq = |job| {
            let mut g = OpGen::new(&w, job, 1 << 30, 0);
            (0..64).map(|_| g.next_io()).collect::<Vec<_>>()
        };
        assert_eq!(seq(0), seq(0));
        assert_ne!(seq(0), seq(1));
    }

    #[test]
    fn sequential_wraps() {
        let w = workload(&["--rw", "read", "--bs", "4k"]).unwrap();
        let mut g = OpGen::new(&w, 0, 12288, 0);
        let offs: Vec<u64> = (0..5).map(|_| g.next_io().offset).collect();
        assert_eq!(offs, [0, 4096, 8192, 0, 4096]);
    }

    #[test]
    fn arrivals() {
        let w = workload(&["--rate-iops", "1000", "--arrival", "uniform"]).unwrap();
        let mut g = OpGen::new(&w, 0, 1 << 20, 5);
        assert_eq!((g.take_due(4096), g.take_due(4096), g.take_due(4096)), (5, 1_000_005, 2_000_005));
        let w = workload(&["--rate-iops", "1000"]).unwrap();
        let mut g = OpGen::new(&w, 0, 1 << 20, 0);
        let n = 20_000;
        for _ in 0..n {
            g.take_due(4096);
        }
        // The mean gap of a Poisson process at 1000/s is 1 ms (within a few percent here).
        let mean_gap = g.peek_due() as f64 / n as f64;
        assert!((mean_gap - 1e6).abs() < 0.03e6, "mean gap {mean_gap}");
    }
}
