//! `nines pts` flags: the SNIA PTS's parameters, each with the specification's value as its
//! default (nines-core's `pts::Params::defaults`), and the data-safety flags of `nines run`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use nines_core::pts::{Profile, Test};
use nines_core::units::{parse_duration_ns, parse_size};

use super::run::EngineKind;

/// The PTS tests `nines pts` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PtsTest {
    /// IOPS: each round 56 cells, seven read/write mixes by eight random block sizes.
    Iops,
    /// Latency: each round one thread at QD1, 8, 4 and 0.5 KiB random by 100/0, 65/35, 0/100.
    Lat,
    /// Throughput: each round sequential writes, then reads, of one block size (--bs).
    Tp,
    /// Write saturation: 4 KiB random writes from the purged state until 4x the capacity is
    /// written (--capacities) or 24 hours; IOPS per round against time and bytes written,
    /// with the fresh, transition and steady regions and where steady state is lost.
    Wsat,
    /// Response-time histogram: 4 KiB random writes to steady state, then 20 minutes of them
    /// recorded (--qos-time) as the scope `qos`: the whole 1-CDF and every level of nines.
    Qos,
    /// Demand intensity / response-time histogram: rounds at the most outstanding I/O to
    /// steady state, then the thread-count by queue-depth matrix from high to low (IOPS and
    /// response time against outstanding I/O: the hockey stick), then response-time
    /// histograms (--hist-time) at the maximum, two middle and the minimum IOPS points.
    Dirth,
    /// The composite block-size workload (twelve block sizes, 40/60, a skewed access range),
    /// run as dirth is.
    Cbw,
    /// Host idle recovery: 4 KiB random writes to steady state, then bursts (--burst) between
    /// idle waits (--waits), each wait segment followed by a return to baseline.
    Hir,
    /// Cross-stimulus recovery: sequential 1024 KiB, random 8 KiB, then sequential 1024 KiB
    /// writes from the purged state (--segments), and when the last recovers.
    Xsr,
    /// The steady-state test at several active ranges (--fills 25,50,75,100), each after its
    /// own purge and preconditioning: how write performance depends on how full the drive is.
    Fill,
}

impl PtsTest {
    pub fn core(self) -> Test {
        match self {
            PtsTest::Iops => Test::Iops,
            PtsTest::Lat => Test::Lat,
            PtsTest::Tp => Test::Tp,
            PtsTest::Wsat => Test::Wsat,
            PtsTest::Qos => Test::Qos,
            PtsTest::Dirth => Test::Dirth,
            PtsTest::Cbw => Test::Cbw,
            PtsTest::Hir => Test::Hir,
            PtsTest::Xsr => Test::Xsr,
            PtsTest::Fill => Test::Fill,
        }
    }
}

/// PTS-E or PTS-C defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// PTS-E: the whole capacity, write cache disabled, 4 threads x QD32.
    Enterprise,
    /// PTS-C: 75% of the capacity, write cache enabled, 2 threads x QD16.
    Client,
}

impl ProfileArg {
    pub fn core(self) -> Profile {
        match self {
            ProfileArg::Enterprise => Profile::Enterprise,
            ProfileArg::Client => Profile::Client,
        }
    }
}

/// How the device is purged before the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Purge {
    /// Discard the whole capacity (BLKDISCARD on a block device; a regular file is punched
    /// whole with fallocate's PUNCH_HOLE).
    Discard,
    /// An NVMe format with user data erase.
    NvmeFormat,
    /// An NVMe sanitize.
    Sanitize,
    /// No purge (stated as a deviation from the specification).
    None,
}

impl Purge {
    pub fn name(self) -> &'static str {
        match self {
            Purge::Discard => "discard",
            Purge::NvmeFormat => "nvme-format",
            Purge::Sanitize => "sanitize",
            Purge::None => "none",
        }
    }
}

#[derive(Args, Debug, Clone, PartialEq)]
pub struct PtsArgs {
    /// The test to run.
    #[arg(value_enum)]
    pub test: PtsTest,
    /// The device (or file) under test. Its data is destroyed: a block device needs
    /// --destroy-data naming it, an existing file nines did not create needs --overwrite.
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// The test's archive: every cell a scope of its own (`rnd_65-35_4k/read`), each round's
    /// cells one window each, at the round's offset.
    #[arg(short = 'o', long = "output", value_name = "TEST.hlog")]
    pub output: PathBuf,
    /// PTS-E (enterprise) or PTS-C (client) defaults.
    #[arg(long, value_enum, default_value = "enterprise")]
    pub profile: ProfileArg,
    /// How the device is purged first.
    #[arg(long, value_enum, default_value = "discard")]
    pub purge: Purge,
    /// How long each cell runs in a round [default: 1m].
    #[arg(long = "round-time", value_name = "DUR", value_parser = parse_duration_ns)]
    pub round_time_ns: Option<u64>,
    /// Rounds after which a test that has not reached steady state ends [default: 25; wsat:
    /// 1440, 24 hours of one-minute rounds].
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<usize>,
    /// Rounds in the steady-state measurement window [default: 5].
    #[arg(long, value_name = "N")]
    pub window_rounds: Option<usize>,
    /// Threads (the PTS's thread count) [default: enterprise 4, client 2, lat 1].
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// Outstanding I/Os per thread [default: enterprise 32, client 16, lat 1].
    #[arg(long, value_name = "N")]
    pub qd: Option<u32>,
    /// Percent of the capacity the test's I/Os fall in, from offset 0 [default: enterprise
    /// 100, client 75].
    #[arg(long, value_name = "PCT", value_parser = parse_pct)]
    pub active_range: Option<f64>,
    /// The user capacity to test, from offset 0 [default: the whole device or file; needed
    /// for a file that does not exist yet and for --engine null].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub capacity: Option<u64>,
    /// The tracked results steady state is judged on: v2.0 (the default), v1.1, or cells
    /// such as 4k:0/100,64k:65/35.
    #[arg(long, value_name = "WHICH", default_value = "v2.0")]
    pub track: String,
    /// Workload-independent preconditioning: times the capacity written in 128 KiB
    /// sequential writes [default: 2].
    #[arg(long, value_name = "N")]
    pub precondition: Option<f64>,
    /// qos: how long the response-time histogram is recorded after steady state [default:
    /// 20m].
    #[arg(long = "qos-time", value_name = "DUR", value_parser = parse_duration_ns)]
    pub qos_time_ns: Option<u64>,
    /// wsat: stop when this many times the capacity is written [default: 4].
    #[arg(long, value_name = "N")]
    pub capacities: Option<f64>,
    /// tp's block size [default: 1024k; PTS-E also runs the test at 128k]; dirth's [default:
    /// 8k].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub bs: Option<u64>,
    /// dirth's read/write mix, percent reads/writes [default: 65/35].
    #[arg(long, value_name = "R/W")]
    pub mix: Option<String>,
    /// dirth, cbw: how long each response-time histogram is recorded [default: 10m].
    #[arg(long = "hist-time", value_name = "DUR", value_parser = parse_duration_ns)]
    pub hist_time_ns: Option<u64>,
    /// hir: each burst of writes [default: 5s].
    #[arg(long = "burst", value_name = "DUR", value_parser = parse_duration_ns)]
    pub burst_ns: Option<u64>,
    /// hir: the idle waits, one segment each [default: 5s,10s,15s,25s,50s].
    #[arg(long, value_name = "DUR,...", value_parser = parse_durations)]
    pub waits: Option<Durations>,
    /// hir: bursts in each wait segment [default: 360].
    #[arg(long, value_name = "N")]
    pub bursts: Option<usize>,
    /// hir: the return to baseline after each wait segment [default: 30m].
    #[arg(long = "baseline-time", value_name = "DUR", value_parser = parse_duration_ns)]
    pub baseline_ns: Option<u64>,
    /// xsr: the lengths of its three segments [default: 8h,6h,8h].
    #[arg(long, value_name = "DUR,DUR,DUR", value_parser = parse_durations)]
    pub segments: Option<Durations>,
    /// fill: the active ranges, percent of the capacity [default: 25,50,75,100].
    #[arg(long, value_name = "PCT,...", value_parser = parse_pcts)]
    pub fills: Option<Percents>,
    /// I/O engine.
    #[arg(long, value_enum, default_value = super::run::DEFAULT_ENGINE)]
    pub engine: EngineKind,
    /// Go through the page cache (no O_DIRECT): a deviation.
    #[arg(long)]
    pub buffered: bool,
    /// Seed of the offset and direction generators (each cell and round its own from it).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Allow the test to write over an existing file that nines did not create.
    #[arg(long)]
    pub overwrite: bool,
    /// Allow the test to destroy the data of this block device; must name --target.
    #[arg(long, value_name = "PATH")]
    pub destroy_data: Option<PathBuf>,
    /// With --destroy-data, write even over a partition table or filesystem signature.
    #[arg(long, requires = "destroy_data")]
    pub ignore_signatures: bool,
    /// Replace an existing archive at --output.
    #[arg(long)]
    pub force: bool,
    /// Go on with the test whose archive is --output, from its last whole round (after Ctrl-C,
    /// a crash or a reboot), with the same test, flags and target; no purge or preconditioning
    /// again. Every round already in the archive is kept as it is.
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Durations in ns, as `--waits 5s,10s` gives them.
#[derive(Clone, Debug, PartialEq)]
pub struct Durations(pub Vec<u64>);

/// Percentages, as `--fills 25,50` gives them.
#[derive(Clone, Debug, PartialEq)]
pub struct Percents(pub Vec<f64>);

fn parse_durations(s: &str) -> Result<Durations, nines_core::units::UnitError> {
    s.split(',').map(|d| parse_duration_ns(d.trim())).collect::<Result<Vec<_>, _>>().map(Durations)
}

fn parse_pcts(s: &str) -> Result<Percents, String> {
    s.split(',').map(parse_pct).collect::<Result<Vec<_>, _>>().map(Percents)
}

fn parse_pct(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().trim_end_matches('%').parse().map_err(|_| format!("{s:?} is not a percentage such as 75 or 75%"))?;
    if v > 0.0 && v <= 100.0 {
        Ok(v)
    } else {
        Err(format!("{s} is outside 0% (exclusive) to 100%"))
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn pts_flags() {
        let cli = Cli::try_parse_from([
            "nines",
            "pts",
            "iops",
            "--target",
            "/dev/x",
            "-o",
            "a.hlog",
            "--round-time",
            "100ms",
            "--active-range",
            "75%",
            "--profile",
            "client",
            "--purge",
            "none",
        ])
        .unwrap();
        let Cmd::Pts(a) = cli.cmd else { panic!("not pts") };
        assert_eq!(a.test, super::PtsTest::Iops);
        assert_eq!(a.round_time_ns, Some(100_000_000));
        assert_eq!(a.active_range, Some(75.0));
        assert_eq!((a.profile, a.purge), (super::ProfileArg::Client, super::Purge::None));
        assert_eq!(a.track, "v2.0");
        for (flag, bad) in [("--active-range", "0"), ("--active-range", "120%"), ("--round-time", "soon"), ("--capacity", "lots")] {
            let e = Cli::try_parse_from(["nines", "pts", "lat", "--target", "t", "-o", "o", flag, bad]).unwrap_err().to_string();
            assert!(e.contains(flag), "{e}");
        }
        assert!(Cli::try_parse_from(["nines", "pts", "iops", "-o", "o"]).is_err(), "--target is required");
        assert!(Cli::try_parse_from(["nines", "pts", "fil", "--target", "t", "-o", "o"]).is_err());
        let cli =
            Cli::try_parse_from(["nines", "pts", "hir", "--target", "t", "-o", "o", "--waits", "1s, 2s", "--fills", "25,50%"]).unwrap();
        let Cmd::Pts(a) = cli.cmd else { panic!("not pts") };
        assert_eq!(a.waits, Some(super::Durations(vec![1_000_000_000, 2_000_000_000])));
        assert_eq!(a.fills, Some(super::Percents(vec![25.0, 50.0])));
        assert!(Cli::try_parse_from(["nines", "pts", "fill", "--target", "t", "-o", "o", "--fills", "25,0"]).is_err());
    }
}
