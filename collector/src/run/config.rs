//! The run's configuration: what `nines run` is to do, typed and with every list complete
//! (all targets, every `--destroy-data`), built by the command line (`cli::run`) or by the
//! commands that run workloads of their own (`nines curve`, `nines pts`, `nines demo`), and
//! with a job file's settings applied ([`RunConfig::resolve`]). Nothing here knows clap's
//! matches: the flags given on the command line come in as their ids.
//!
//! The numbers are checked together when the config becomes a [`Workload`](super::workload::Workload).

use std::path::PathBuf;

use anyhow::Result;
use clap::ValueEnum;
use nines_core::distribution::Distribution;
use nines_core::steady::Criterion;

/// I/O pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Rw {
    /// Random reads.
    Randread,
    /// Random writes.
    Randwrite,
    /// Random reads and writes, --mix percent reads.
    Randrw,
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Sequential reads and writes, --mix percent reads.
    Rw,
    /// Sequential trims (discard): hole punching in a file, discard on a block device.
    Trim,
    /// Random trims (discard).
    Randtrim,
}

impl Rw {
    /// The name as the command line and the archive's metadata write it.
    pub fn name(self) -> &'static str {
        match self {
            Rw::Randread => "randread",
            Rw::Randwrite => "randwrite",
            Rw::Randrw => "randrw",
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::Rw => "rw",
            Rw::Trim => "trim",
            Rw::Randtrim => "randtrim",
        }
    }
    pub fn random(self) -> bool {
        matches!(self, Rw::Randread | Rw::Randwrite | Rw::Randrw | Rw::Randtrim)
    }
    pub fn reads(self) -> bool {
        matches!(self, Rw::Randread | Rw::Read | Rw::Randrw | Rw::Rw)
    }
    /// Does the pattern destroy data (writes or trims)? Every data-safety rule keys on this.
    pub fn writes(self) -> bool {
        !matches!(self, Rw::Randread | Rw::Read)
    }
    /// Does the pattern trim (discard) instead of reading and writing?
    pub fn trims(self) -> bool {
        matches!(self, Rw::Trim | Rw::Randtrim)
    }
}

/// When rate-limited I/Os are due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Arrival {
    /// Exponential gaps between I/Os (a Poisson process), as fio's `rate_process=poisson`
    /// gives them (a notebook sweeping fio threads with Poisson rate-limited O_SYNC writes,
    /// baseline vs patched, runs this way).
    Poisson,
    /// Evenly spaced I/Os.
    Uniform,
}

impl Arrival {
    /// The name as the command line and the archive's metadata write it.
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Poisson => "poisson",
            Arrival::Uniform => "uniform",
        }
    }
}

/// Which I/O engine drives the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// io_uring: one ring per job, batched submission and reaping (Linux only; the default
    /// there, falling back to psync with a warning when the kernel refuses io_uring).
    Uring,
    /// pread/pwrite, one I/O at a time per job (queue depth 1), as fio's psync ioengine: runs
    /// on every OS (the default on macOS and Windows).
    Psync,
    /// No I/O at all: every I/O completes at once. Measures nines' own overhead; the target
    /// is not opened.
    Null,
}

/// The engine `--engine` defaults to: io_uring on Linux, psync elsewhere.
pub const DEFAULT_ENGINE: &str = if cfg!(target_os = "linux") { "uring" } else { "psync" };

impl EngineKind {
    /// The name as the command line and the archive's metadata write it.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Uring => "uring",
            EngineKind::Psync => "psync",
            EngineKind::Null => "null",
        }
    }
}

/// Block sizes with their share in percent (summing to 100), as `--bssplit` gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSplit(pub Vec<(u32, u32)>);

/// One workload of a run: its target(s), its archive and every setting, as the flags (and a
/// job file) give them.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    /// The fio job file the workload came from (`nines run JOB.fio`).
    pub job_file: Option<PathBuf>,
    /// The job file's section.
    pub section: Option<String>,
    /// Every target, in order; the I/Os are spread over them round robin. Never empty once
    /// resolved.
    pub targets: Vec<PathBuf>,
    /// The archive to write.
    pub output: PathBuf,
    pub rw: Rw,
    /// Share of reads in percent, as given.
    pub mix: Option<u32>,
    /// The block size (unless `bssplit`).
    pub bs: u32,
    pub bssplit: Option<BlockSplit>,
    pub qd: u32,
    pub submit_batch: u32,
    pub complete_batch: Option<u32>,
    pub jobs: u32,
    pub size: Option<u64>,
    pub runtime_ns: Option<u64>,
    pub ios: Option<u64>,
    pub ramp_ns: u64,
    /// `--start-at`, in seconds since the epoch.
    pub start_at: Option<f64>,
    /// O_DIRECT (everything but `--buffered`).
    pub direct: bool,
    pub sync: bool,
    pub fsync_every: Option<u64>,
    pub rate_iops: Option<f64>,
    /// Bytes per second per job.
    pub rate_bytes: Option<u64>,
    pub arrival: Arrival,
    pub thinktime_ns: Option<u64>,
    pub thinktime_blocks: Option<u32>,
    pub thinktime_spin_ns: Option<u64>,
    pub window_ns: u64,
    pub window_ios: Option<u64>,
    pub steady: Option<Criterion>,
    pub steady_window_ns: u64,
    pub name: Option<String>,
    pub notes: Option<String>,
    pub random_distribution: Option<Distribution>,
    pub seed: Option<u64>,
    pub engine: EngineKind,
    pub raw_log: Option<PathBuf>,
    pub quiet: bool,
    pub overwrite: bool,
    /// The device the target may be destroyed on, for a run of one target whose config was
    /// built by hand (with `destroy_all` empty).
    pub destroy_data: Option<PathBuf>,
    /// Every `--destroy-data` of the command line: each target takes the one naming it (a
    /// block device the first, when none does).
    pub destroy_all: Vec<PathBuf>,
    pub ignore_signatures: bool,
    pub force: bool,
    pub no_record: bool,
    /// Record no `#[context ...]` lines (device rates, CPU, pressure) beside the windows.
    pub no_context: bool,
    /// The scope of this workload's tags when it runs beside others (a job file's section:
    /// its job's name).
    pub scope: Option<String>,
    /// Metadata a caller adds to the archive: `param` (`nines curve` labels each point with
    /// its load) and other keys.
    pub param: serde_json::Map<String, serde_json::Value>,
    pub meta_other: serde_json::Map<String, serde_json::Value>,
}

impl RunConfig {
    /// The workloads to run together: this one without a job file; with one, one per section
    /// run at the same time, its settings yielding to the flags `given` (clap ids). Notes
    /// go to stderr unless `quiet`.
    pub fn resolve(&self, given: &[String]) -> Result<Vec<RunConfig>> {
        super::job_file::resolve_all(self, given)
    }

    /// [`RunConfig::resolve`] for a caller that runs one workload: an error when the job
    /// file runs several at the same time.
    pub fn resolve_one(&self, given: &[String]) -> Result<RunConfig> {
        super::job_file::resolve(self, given)
    }
}
