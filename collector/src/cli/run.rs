//! `nines run` flags, typed at the edge (sizes in bytes, durations in ns, counts), with the
//! flag tests right under them. The flags become the run's configuration
//! ([`RunArgs::configs`]: `run::config::RunConfig`, a job file's settings applied); the run
//! checks how the values go together when it turns that into its workload (`run::workload`).
//! The enums the run needs (`Rw`, `Arrival`, `EngineKind`) are the run's, used here as flag
//! values.

use std::path::PathBuf;

use clap::Args;

use super::meta::{parse_meta, user_meta};
use crate::run::config::RunConfig;
pub use crate::run::config::{Arrival, BlockSplit, EngineKind, Rw, DEFAULT_ENGINE};
use nines_core::distribution::Distribution;
use nines_core::steady::Criterion;
use nines_core::units::{format_size, parse_bssplit, parse_count, parse_duration_ns, parse_size, MAX_BLOCK};

#[derive(Args, Debug, Clone, PartialEq)]
pub struct RunArgs {
    /// An fio job file whose options give the workload (README, "fio job files"). A flag
    /// given beside it overrides the file's setting, and says so on stderr.
    #[arg(value_name = "JOB.fio")]
    pub job_file: Option<PathBuf>,
    /// Run this section of the job file (with the [global] sections above it).
    #[arg(long, value_name = "NAME", requires = "job_file")]
    pub section: Option<String>,
    /// File or block device to drive. A file that does not exist is created and filled with
    /// data before the run (it needs --size). Repeat for several targets: each job spreads
    /// its I/Os over them round robin (fio's file_service_type=roundrobin), --size is divided
    /// between them (as fio divides size between a job's files), and the archive keeps each
    /// target's share under its own scoped tags (TARGET/read) beside the merged ones. With a
    /// job file: its filename= (a:b for several).
    #[arg(long, value_name = "PATH", required_unless_present = "job_file", default_value = "", hide_default_value = true, value_parser = parse_path, action = clap::ArgAction::Append)]
    pub target: PathBuf,
    /// Archive to write (an HdrHistogram interval log, conventionally .hlog). With a job
    /// file: NAME.hlog, after the job's name.
    #[arg(short = 'o', long = "output", value_name = "RUN.hlog", required_unless_present = "job_file", default_value = "", hide_default_value = true, value_parser = parse_path)]
    pub output: PathBuf,
    /// I/O pattern.
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: Rw,
    /// Share of reads in percent for randrw and rw [default: 50]; ignored by read-only and
    /// write-only patterns, refused with trim and randtrim (trims are never mixed).
    #[arg(long, value_name = "PCT")]
    pub mix: Option<u32>,
    /// Block size, e.g. 4k, 64KiB (1 byte to 64MiB).
    #[arg(long, value_name = "SIZE", default_value = "4k", conflicts_with = "bssplit", value_parser = parse_block_size)]
    pub bs: u32,
    /// Mixed block sizes with their share in percent, e.g. 4k/70:64k/30.
    #[arg(long, value_name = "SIZE/PCT:...", value_parser = parse_block_split)]
    pub bssplit: Option<BlockSplit>,
    /// I/Os in flight per job (queue depth).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub qd: u32,
    /// Submit I/Os to the kernel in groups of N while refilling the queue: 1 hands each I/O
    /// over as soon as it is generated (as fio does by default); larger groups save system
    /// calls but hold the first I/O of a group back until the group is complete.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub submit_batch: u32,
    /// Job threads, each with its own ring; all jobs share the target's region.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: u32,
    /// Bytes of the target to use, from offset 0 [default: the whole file or device].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<u64>,
    /// How long to record, after --ramp, e.g. 10s, 500ms, 2m (a bare number is seconds)
    /// [default: 10s unless --ios is given].
    #[arg(long = "runtime", value_name = "DUR", value_parser = parse_duration_ns)]
    pub runtime_ns: Option<u64>,
    /// Stop after this many recorded I/Os in total (split evenly between jobs), e.g. 100000
    /// or 100k.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub ios: Option<u64>,
    /// Run the workload this long before recording starts.
    #[arg(long = "ramp", value_name = "DUR", default_value = "0s", value_parser = parse_duration_ns)]
    pub ramp_ns: u64,
    /// Wait, then begin recording (the first window) at this wall-clock instant: RFC 3339 in
    /// UTC (`2026-12-02T01:00:00Z`, fractions allowed) or Unix seconds (`1796173200`). Runs
    /// of several hosts started with the same instant record the same wall-clock windows,
    /// for `nines merge`. A --ramp runs before it.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<f64>,
    /// Bypass the page cache with O_DIRECT (the default).
    #[arg(long, conflicts_with = "buffered")]
    pub direct: bool,
    /// Go through the page cache (no O_DIRECT).
    #[arg(long)]
    pub buffered: bool,
    /// Open the target with O_SYNC so every write is durable when it completes.
    #[arg(long)]
    pub sync: bool,
    /// Issue an fdatasync after every N writes (once the writes in flight have completed);
    /// its latency is recorded under the tag `sync`.
    #[arg(long, value_name = "N")]
    pub fsync_every: Option<u64>,
    /// Issue at most this many I/Os per second per job. Latency is then measured from when
    /// each I/O was due, and the service time from submission is recorded as `read.svc` /
    /// `write.svc` / `trim.svc`.
    #[arg(long, value_name = "N")]
    pub rate_iops: Option<f64>,
    /// How rate-limited I/Os are spaced.
    #[arg(long, value_enum, default_value = "poisson", requires = "rate_iops")]
    pub arrival: Arrival,
    /// Length of a window of the archive (at least 1ms).
    #[arg(long = "window", value_name = "DUR", default_value = "1s", conflicts_with = "window_ios", value_parser = parse_duration_ns)]
    pub window_ns: u64,
    /// Close a window after this many I/Os instead (e.g. 100000 or 100k); split evenly
    /// between jobs.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub window_ios: Option<u64>,
    /// Stop early once a fio-style steady-state criterion holds over --steady-window:
    /// iops:10%, iops_slope:0.1%, bw:..., bw_slope:..., lat:..., lat_slope:....
    #[arg(long, value_name = "CRITERION", value_parser = parse_criterion)]
    pub steady: Option<Criterion>,
    /// Rolling window the steady-state criterion is checked over.
    #[arg(long = "steady-window", value_name = "DUR", default_value = "30s", requires = "steady", value_parser = parse_duration_ns)]
    pub steady_window_ns: u64,
    /// Name of the run (default: the archive's file name).
    #[arg(long)]
    pub name: Option<String>,
    /// Free-text notes kept in the archive's metadata.
    #[arg(long)]
    pub notes: Option<String>,
    /// Where random offsets fall, with fio's random_distribution models and parameters:
    /// zipf:THETA[:CENTER], pareto:H[:CENTER], normal:DEV[:CENTER] or zoned:ACCESS/SIZE:...
    /// (e.g. zoned:60/10:40/90) [default: random, uniform].
    #[arg(long, value_name = "DIST", value_parser = parse_distribution)]
    pub random_distribution: Option<Distribution>,
    /// Seed of the offset, direction and arrival generators (default: from the clock).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// I/O engine.
    #[arg(long, value_enum, default_value = DEFAULT_ENGINE)]
    pub engine: EngineKind,
    /// Also write every I/O's latency to this CSV file (window,tag,latency_ns); for checking
    /// the archive's accuracy.
    #[arg(long, value_name = "FILE")]
    pub raw_log: Option<PathBuf>,
    /// No progress line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// No summary table on stdout at the end.
    #[arg(long)]
    pub no_summary: bool,
    /// Allow writes (and trims) to an existing file that nines did not create (its contents
    /// are lost).
    #[arg(long)]
    pub overwrite: bool,
    /// Allow writes (and trims) to this block device, destroying the data on it; must name
    /// the --target device (repeat it for each device of several --target).
    #[arg(long, value_name = "PATH", action = clap::ArgAction::Append)]
    pub destroy_data: Option<PathBuf>,
    /// With --destroy-data, write even over a partition table or filesystem signature.
    #[arg(long, requires = "destroy_data")]
    pub ignore_signatures: bool,
    /// Replace an existing archive at --output.
    #[arg(long)]
    pub force: bool,
    /// Do the I/O but record nothing (for measuring the recording overhead in benchmarks).
    #[arg(long, hide = true)]
    pub no_record: bool,
    /// Record no device and host context beside each window (the `#[context ...]` lines:
    /// the target's disks as iostat -x, CPU shares, pressure, nines' own CPU).
    #[arg(long)]
    pub no_context: bool,
    /// Serve the run as it is written (as `nines view --follow` does): the page draws each
    /// window as it lands and /metrics gives the last window's levels. After a run that ends
    /// by itself the page stays served until Ctrl-C.
    #[arg(long)]
    pub live: bool,
    /// With --live: where and how the page is served.
    #[command(flatten)]
    pub serve: super::view::ServeFlags,
    /// Bandwidth, think time and completion batches (flags added later, kept together so
    /// that code building a `RunArgs` by hand fills them in with `Default::default()`).
    #[command(flatten)]
    pub more: MoreRunArgs,
}

/// More `nines run` flags: bandwidth limits, think time and completion batches.
#[derive(Args, Debug, Clone, PartialEq, Default)]
pub struct MoreRunArgs {
    /// Issue at most this many bytes per second per job (fio's `rate`), e.g. 10m. Like
    /// --rate-iops each I/O is then due at a time of its own (a larger I/O takes a longer
    /// share), latency is measured from when it was due and the service time is kept as
    /// `.svc`; with a mixed pattern the limit holds for a job's I/Os together.
    #[arg(long = "rate", value_name = "BYTES", value_parser = parse_rate, conflicts_with = "rate_iops")]
    pub rate_bytes: Option<u64>,
    /// Stall a job this long after each group of --thinktime-blocks I/Os has completed before
    /// issuing the next (fio's `thinktime`: an application doing work between I/Os), e.g.
    /// 500us, 2ms (a bare number is seconds here, as for every nines duration; fio's own
    /// bare thinktime is microseconds).
    #[arg(long = "thinktime", value_name = "DUR", value_parser = parse_duration_ns)]
    pub thinktime_ns: Option<u64>,
    /// I/Os a job issues before each think time (fio's `thinktime_blocks`) [default: 1]; the
    /// queue never holds more than this many, whatever --qd says, as in fio.
    #[arg(long, value_name = "N", requires = "thinktime_ns")]
    pub thinktime_blocks: Option<u32>,
    /// Of each think time, spend this much busy on the CPU before sleeping the rest (fio's
    /// `thinktime_spin`).
    #[arg(long = "thinktime-spin", value_name = "DUR", value_parser = parse_duration_ns, requires = "thinktime_ns")]
    pub thinktime_spin_ns: Option<u64>,
    /// Handle at most N completions per reap [default: 1, fio's `iodepth_batch_complete_max`
    /// default]: the others stay in the completion queue, and each is timed when it is reaped,
    /// after the slots freed before it were refilled and submitted. So with the defaults
    /// every I/O's latency runs from its submission to its own reaping, as fio's does, and a
    /// completion waiting for the tool counts as latency. Larger N reaps all at once with one
    /// time stamp and refills the freed slots only after them all.
    #[arg(long, value_name = "N")]
    pub complete_batch: Option<u32>,
    /// A key of your own kept in the archive's metadata (under `user`), e.g. `--meta
    /// build=1234 --meta kernel=6.8`; a site's trend can order its runs by one.
    #[arg(long = "meta", value_name = "KEY=VALUE", value_parser = parse_meta)]
    pub meta: Vec<(String, String)>,
}

/// What the command line said beyond the values clap's derive keeps: the flags given (not
/// defaulted) and every `--target` and `--destroy-data` (the derive keeps the first of each).
/// Filled in by [`Given::of`] from the matches of `nines run` (or `nines curve`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Given {
    /// The clap ids of the flags given: a job file's settings yield to these.
    pub ids: Vec<String>,
    /// Every `--target`, when more than one was given.
    pub targets: Vec<PathBuf>,
    /// Every `--destroy-data` given.
    pub destroy_data: Vec<PathBuf>,
}

impl Given {
    /// The flags given and the lists of a repeated `--target` and `--destroy-data`.
    pub fn of(m: &clap::ArgMatches) -> Given {
        let mut g = Given { ids: given(m), ..Given::default() };
        if let Ok(Some(v)) = m.try_get_many::<PathBuf>("target") {
            let v: Vec<PathBuf> = v.cloned().collect();
            if v.len() > 1 {
                g.targets = v;
            }
        }
        if let Ok(Some(v)) = m.try_get_many::<PathBuf>("destroy_data") {
            g.destroy_data = v.cloned().collect();
        }
        g
    }

    /// Was the flag of this clap id given?
    pub fn has(&self, id: &str) -> bool {
        self.ids.iter().any(|g| g == id)
    }
}

impl RunArgs {
    /// The run's configuration as the flags give it, before a job file is applied (see
    /// [`RunArgs::configs`]).
    pub fn config(&self, given: &Given) -> RunConfig {
        let m = &self.more;
        RunConfig {
            job_file: self.job_file.clone(),
            section: self.section.clone(),
            targets: if given.targets.is_empty() { vec![self.target.clone()] } else { given.targets.clone() },
            output: self.output.clone(),
            rw: self.rw,
            mix: self.mix,
            bs: self.bs,
            bssplit: self.bssplit.clone(),
            qd: self.qd,
            submit_batch: self.submit_batch,
            complete_batch: m.complete_batch,
            jobs: self.jobs,
            size: self.size,
            runtime_ns: self.runtime_ns,
            ios: self.ios,
            ramp_ns: self.ramp_ns,
            start_at: self.start_at,
            direct: !self.buffered,
            sync: self.sync,
            fsync_every: self.fsync_every,
            rate_iops: self.rate_iops,
            rate_bytes: m.rate_bytes,
            arrival: self.arrival,
            thinktime_ns: m.thinktime_ns,
            thinktime_blocks: m.thinktime_blocks,
            thinktime_spin_ns: m.thinktime_spin_ns,
            window_ns: self.window_ns,
            window_ios: self.window_ios,
            steady: self.steady,
            steady_window_ns: self.steady_window_ns,
            name: self.name.clone(),
            notes: self.notes.clone(),
            random_distribution: self.random_distribution.clone(),
            seed: self.seed,
            engine: self.engine,
            raw_log: self.raw_log.clone(),
            quiet: self.quiet,
            overwrite: self.overwrite,
            destroy_data: self.destroy_data.clone(),
            destroy_all: given.destroy_data.clone(),
            ignore_signatures: self.ignore_signatures,
            force: self.force,
            no_record: self.no_record,
            no_context: self.no_context,
            scope: None,
            param: serde_json::Map::new(),
            meta_other: user_meta(&m.meta),
        }
    }

    /// The workloads the command line runs together: the flags' configuration with the job
    /// file applied, one per section run at the same time (see [`RunConfig::resolve`]).
    pub fn configs(&self, given: &Given) -> anyhow::Result<Vec<RunConfig>> {
        self.config(given).resolve(&given.ids)
    }
}

/// A rate in bytes per second: a size (`10m`, `512k`), above 0.
fn parse_rate(s: &str) -> Result<u64, String> {
    match parse_size(s).map_err(|e| e.to_string())? {
        0 => Err("a rate must be above 0 bytes per second".into()),
        r => Ok(r),
    }
}

/// The ids of the `nines run` flags the command line gave (as against defaults).
fn given(m: &clap::ArgMatches) -> Vec<String> {
    m.ids().filter(|id| m.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)).map(|id| id.to_string()).collect()
}

/// A path; empty only as the default of --target and -o beside a job file (which fills them in;
/// the run refuses an empty one).
fn parse_path(s: &str) -> Result<PathBuf, String> {
    Ok(PathBuf::from(s))
}

fn parse_distribution(s: &str) -> Result<Distribution, nines_core::distribution::DistributionError> {
    s.parse()
}

fn parse_block_size(s: &str) -> Result<u32, String> {
    let b = parse_size(s).map_err(|e| e.to_string())?;
    if b == 0 || b > MAX_BLOCK {
        return Err(format!("{} must be between 1 byte and 64MiB", format_size(b)));
    }
    Ok(b as u32)
}

fn parse_block_split(s: &str) -> Result<BlockSplit, nines_core::units::UnitError> {
    parse_bssplit(s).map(BlockSplit)
}

fn parse_criterion(s: &str) -> Result<Criterion, String> {
    s.parse().map_err(|e: nines_core::steady::CriterionError| e.to_string())
}

/// `--start-at`: RFC 3339 in UTC, or Unix seconds; the instant in seconds since the epoch.
pub fn parse_start_at(s: &str) -> std::result::Result<f64, String> {
    let t = s.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return t.parse::<f64>().map_err(|_| format!("{s:?} is not a number of Unix seconds"));
    }
    if !t.ends_with(['Z', 'z']) {
        return Err(format!("{s:?}: expected RFC 3339 in UTC ending in Z (e.g. 2026-12-02T01:00:00Z) or Unix seconds"));
    }
    let at = humantime::parse_rfc3339(t).map_err(|e| format!("{s:?} is not an RFC 3339 time ({e}); expected e.g. 2026-12-02T01:00:00Z"))?;
    Ok(at.duration_since(std::time::UNIX_EPOCH).map_err(|_| format!("{s:?} is before 1970"))?.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::{Parser, ValueEnum};

    use super::*;

    #[test]
    fn names_are_the_flag_values() {
        for v in Rw::value_variants() {
            assert_eq!(v.to_possible_value().unwrap().get_name(), v.name());
        }
        for v in Arrival::value_variants() {
            assert_eq!(v.to_possible_value().unwrap().get_name(), v.name());
        }
        for v in EngineKind::value_variants() {
            assert_eq!(v.to_possible_value().unwrap().get_name(), v.name());
        }
    }

    fn parse(args: &[&str]) -> Result<RunArgs, clap::Error> {
        let mut v = vec!["nines", "run", "--target", "t", "-o", "o.hlog"];
        v.extend_from_slice(args);
        Cli::try_parse_from(v).map(|c| match c.cmd {
            Cmd::Run(a) => *a,
            _ => panic!("not run"),
        })
    }

    #[test]
    fn defaults() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.rw, Rw::Randread);
        assert_eq!(a.qd, 1);
        assert_eq!(a.jobs, 1);
        assert_eq!(a.window_ns, 1_000_000_000);
        assert_eq!(a.engine, EngineKind::Uring);
        assert!(!a.buffered);
        assert_eq!(a.submit_batch, 1);
        assert_eq!(parse(&["--submit-batch", "8"]).unwrap().submit_batch, 8);
    }

    #[test]
    fn meta_keys_go_under_user_in_the_archive_metadata() {
        let a = parse(&["--meta", "build=1234", "--meta", "kernel=6.8=rc1", "--meta", "build=1235"]).unwrap();
        let m = user_meta(&a.more.meta);
        assert_eq!(serde_json::Value::Object(m), serde_json::json!({"user": {"build": "1235", "kernel": "6.8=rc1"}}));
        assert!(user_meta(&parse(&[]).unwrap().more.meta).is_empty());
        for bad in ["build", "=1", " =1"] {
            assert!(parse(&["--meta", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn rw_and_mix() {
        let a = parse(&["--rw", "randrw", "--mix", "70"]).unwrap();
        assert_eq!(a.rw, Rw::Randrw);
        assert_eq!(a.mix, Some(70));
        assert_eq!(parse(&[]).unwrap().mix, None);
        assert!(parse(&["--rw", "trimwrite"]).is_err());
        assert!(Rw::Randrw.reads() && Rw::Randrw.writes() && Rw::Randrw.random());
        assert!(!Rw::Read.writes() && !Rw::Write.reads() && !Rw::Write.random());
    }

    #[test]
    fn trims() {
        assert_eq!(parse(&["--rw", "trim"]).unwrap().rw, Rw::Trim);
        assert_eq!(parse(&["--rw", "randtrim"]).unwrap().rw, Rw::Randtrim);
        // Trims destroy data: every safety rule that keys on writes() covers them.
        assert!(Rw::Trim.writes() && Rw::Randtrim.writes());
        assert!(!Rw::Trim.reads() && !Rw::Randtrim.reads());
        assert!(Rw::Trim.trims() && Rw::Randtrim.trims() && !Rw::Randrw.trims() && !Rw::Write.trims());
        assert!(Rw::Randtrim.random() && !Rw::Trim.random());
    }

    #[test]
    fn bs_conflicts_with_bssplit() {
        assert!(parse(&["--bs", "8k", "--bssplit", "4k/50:8k/50"]).is_err());
        assert_eq!(parse(&["--bssplit", "4k/50:8k/50"]).unwrap().bssplit, Some(BlockSplit(vec![(4096, 50), (8192, 50)])));
        assert_eq!(parse(&["--bs", "64KiB"]).unwrap().bs, 65536);
        let e = parse(&["--bs", "4q"]).unwrap_err().to_string();
        assert!(e.contains("--bs") && e.contains("not a size"), "{e}");
        assert!(parse(&["--bs", "0"]).unwrap_err().to_string().contains("between 1 byte and 64MiB"));
        assert!(parse(&["--bs", "128m"]).is_err());
        assert!(parse(&["--bssplit", "4k/50:8k/40"]).unwrap_err().to_string().contains("100%"));
    }

    #[test]
    fn window_rules_conflict() {
        assert!(parse(&["--window", "2s", "--window-ios", "1000"]).is_err());
        assert_eq!(parse(&["--window-ios", "100k"]).unwrap().window_ios, Some(100_000));
        assert_eq!(parse(&["--window", "250ms"]).unwrap().window_ns, 250_000_000);
        assert_eq!(parse(&["--window", "2"]).unwrap().window_ns, 2_000_000_000, "a bare number is seconds");
    }

    #[test]
    fn arrival_needs_rate() {
        assert!(parse(&["--arrival", "uniform"]).is_err());
        let a = parse(&["--rate-iops", "64", "--arrival", "uniform"]).unwrap();
        assert_eq!(a.arrival, Arrival::Uniform);
        assert_eq!(a.rate_iops, Some(64.0));
    }

    #[test]
    fn steady_window_needs_steady() {
        assert!(parse(&["--steady-window", "10s"]).is_err());
        let a = parse(&["--steady", "iops:10%", "--steady-window", "10s"]).unwrap();
        assert_eq!((a.steady.map(|c| c.to_string()), a.steady_window_ns), (Some("iops:10%".into()), 10_000_000_000));
        assert!(parse(&["--steady", "wat:10%"]).unwrap_err().to_string().contains("--steady"));
    }

    #[test]
    fn safety_flags() {
        assert!(parse(&["--ignore-signatures"]).is_err(), "needs --destroy-data");
        let a = parse(&["--destroy-data", "/dev/loop0", "--ignore-signatures", "--overwrite"]).unwrap();
        assert_eq!(a.destroy_data.as_deref(), Some(std::path::Path::new("/dev/loop0")));
        assert!(a.overwrite && a.ignore_signatures);
    }

    #[test]
    fn engines_and_buffering() {
        assert_eq!(parse(&["--engine", "psync"]).unwrap().engine, EngineKind::Psync);
        assert_eq!(parse(&["--engine", "null"]).unwrap().engine, EngineKind::Null);
        assert!(parse(&["--engine", "libaio"]).is_err());
        assert!(parse(&["--buffered"]).unwrap().buffered);
    }

    #[test]
    fn sizes_durations_and_counts_are_typed() {
        let a = parse(&["--size", "1GiB", "--runtime", "500ms", "--ramp", "2", "--ios", "5k"]).unwrap();
        assert_eq!((a.size, a.runtime_ns, a.ramp_ns, a.ios), (Some(1 << 30), Some(500_000_000), 2_000_000_000, Some(5000)));
        let d = parse(&[]).unwrap();
        assert_eq!((d.size, d.runtime_ns, d.ramp_ns, d.ios, d.steady_window_ns), (None, None, 0, None, 30_000_000_000));
        assert!(parse(&["--runtime", "10 parsecs"]).unwrap_err().to_string().contains("--runtime"));
        assert!(parse(&["--size", "lots"]).is_err());
        assert!(parse(&["--ios", "1.5"]).is_err());
    }

    #[test]
    fn start_at_takes_utc_rfc3339_or_unix_seconds() {
        assert_eq!(parse(&["--start-at", "2026-12-02T01:00:00Z"]).unwrap().start_at, Some(1_796_173_200.0));
        assert_eq!(parse(&["--start-at", "2026-12-02T01:00:00.250Z"]).unwrap().start_at, Some(1_796_173_200.25));
        assert_eq!(parse(&["--start-at", "1796173200.5"]).unwrap().start_at, Some(1_796_173_200.5));
        let e = parse(&["--start-at", "2026-12-02T01:00:00+01:00"]).unwrap_err().to_string();
        assert!(e.contains("in UTC ending in Z"), "{e}");
        assert!(parse(&["--start-at", "2026-13-02T01:00:00Z"]).unwrap_err().to_string().contains("not an RFC 3339 time"));
        assert!(parse(&["--start-at", "soon"]).is_err());
    }

    #[test]
    fn target_and_output_required() {
        assert!(Cli::try_parse_from(["nines", "run", "--target", "t"]).is_err());
        assert!(Cli::try_parse_from(["nines", "run", "-o", "x.hlog"]).is_err());
    }
}
