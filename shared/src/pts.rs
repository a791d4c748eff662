//! The SNIA Solid State Storage Performance Test Specification (PTS, Enterprise and Client,
//! version 2.0.x) as data: each test's cells in the specification's loop order, the PTS-E and
//! PTS-C defaults, the tracked results, and the round bookkeeping that says when a test has
//! reached steady state. Pure: `nines pts` (the collector) runs the cells and feeds each
//! round's measured values in; the steady-state arithmetic is [`crate::steady::pts`].
//!
//! Steady state, as PTS 2.0.2 defines it: over the measurement window of the last
//! `window_rounds` rounds (5 in the PTS) of every tracked result, the data excursion (max -
//! min) is no more than 20% of the window's average and the excursion of the least-squares
//! line across the window is no more than 10% of it. With several tracked results (version
//! 2.0's IOPS test tracks three) the test is steady at the first round that ends a window
//! over which every one of them holds.
//!
//! ```
//! use nines_core::pts::{Rounds, Test, Profile, Params};
//! let p = Params::defaults(Test::Iops, Profile::Enterprise);
//! assert_eq!(Test::Iops.cells(&p).len(), 56);
//! let mut r = Rounds::new(1, 5);
//! for v in [300.0, 200.0, 150.0, 101.0, 99.0, 100.0, 100.5, 99.5] {
//!     r.push(&[v]).unwrap();
//! }
//! assert_eq!(r.steady_at(), Some(8));
//! ```

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::steady::{pts, PtsEvaluation};

/// A test of the PTS that `nines pts` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// IOPS: seven read/write mixes by eight random block sizes per round.
    Iops,
    /// Throughput: sequential reads and writes of one large block size per round.
    Tp,
    /// Latency: one thread at QD1, three random block sizes by three mixes per round.
    Lat,
    /// Write saturation: 4 KiB random writes from fresh out of the box.
    Wsat,
    /// The response-time histogram of 4 KiB random writes (the whole 1-CDF for nines).
    Qos,
    /// Demand intensity / response-time histogram: to steady state at the most outstanding
    /// I/O, then the thread-count by queue-depth matrix from high to low, then response-time
    /// histograms at the maximum, two middle and the minimum IOPS points.
    Dirth,
    /// The composite block-size workload: a mix of twelve random block sizes over a skewed
    /// access range, 40/60 reads to writes, run as the demand-intensity test.
    Cbw,
    /// Host idle recovery: 4 KiB random writes to steady state, then bursts of writes between
    /// idle waits of growing length, each wait segment followed by a return to baseline.
    Hir,
    /// Cross-stimulus recovery: sequential, random, then sequential writes from the purged
    /// state, and how long the second sequential segment takes to recover.
    Xsr,
    /// Steady state at several active ranges (how full the drive is): 4 KiB random writes to
    /// steady state at 25%, 50%, 75% and 100% of the capacity, each after its own purge.
    Fill,
}

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::Iops => "iops",
            Test::Tp => "tp",
            Test::Lat => "lat",
            Test::Wsat => "wsat",
            Test::Qos => "qos",
            Test::Dirth => "dirth",
            Test::Cbw => "cbw",
            Test::Hir => "hir",
            Test::Xsr => "xsr",
            Test::Fill => "fill",
        }
    }

    /// Tests that run the demand-intensity matrix after their rounds.
    pub fn is_demand_intensity(self) -> bool {
        matches!(self, Test::Dirth | Test::Cbw)
    }

    /// The demand-intensity matrix of `dirth` and `cbw` in the specification's order, from the
    /// most outstanding I/O to the least: the outer loop over thread counts, the inner over
    /// queue depths, both from high to low (empty for the other tests).
    pub fn di_cells(self, p: &Params) -> Vec<Cell> {
        let Some(di) = &p.di else { return Vec::new() };
        let base = self.cells(p)[0];
        di.threads.iter().flat_map(|&t| di.qds.iter().map(move |&q| Cell { oio: Some((t, q)), ..base })).collect()
    }

    /// The cells of one round, in the specification's loop order: the outer loop over
    /// read/write mixes, the inner over block sizes (PTS 2.0.2, the IOPS and latency tests'
    /// test loops); tp writes, then reads its one block size; wsat and qos have one cell.
    pub fn cells(self, p: &Params) -> Vec<Cell> {
        let rnd = Cell::rnd;
        let top = p.di.as_ref().map(|d| (d.threads[0], d.qds[0]));
        match self {
            Test::Iops => IOPS_MIXES.iter().flat_map(|&m| IOPS_BLOCKS.iter().map(move |&b| rnd(m, b))).collect(),
            Test::Lat => LAT_MIXES.iter().flat_map(|&m| LAT_BLOCKS.iter().map(move |&b| rnd(m, b))).collect(),
            Test::Tp => [0, 100].iter().map(|&m| Cell { sequential: true, ..rnd(m, p.tp_bs) }).collect(),
            Test::Wsat | Test::Qos | Test::Hir | Test::Fill => vec![rnd(0, 4096)],
            Test::Dirth => {
                let d = p.di.as_ref();
                vec![Cell { oio: top, ..rnd(d.map_or(65, |d| d.read_pct), d.map_or(8192, |d| d.bs)) }]
            }
            Test::Cbw => vec![Cell { oio: top, composite: true, ..rnd(CBW_READ_PCT, 4096) }],
            // the three segments: sequential 1024 KiB, random 8 KiB, sequential 1024 KiB writes
            Test::Xsr => {
                let seq = Cell { sequential: true, ..rnd(0, 1 << 20) };
                vec![seq, rnd(0, 8192), seq]
            }
        }
    }

    /// What each round of the test's steady-state check measures of a tracked cell.
    pub fn measure(self) -> Measure {
        match self {
            Test::Iops | Test::Wsat | Test::Qos | Test::Dirth | Test::Cbw | Test::Hir | Test::Fill => Measure::Iops,
            Test::Tp | Test::Xsr => Measure::MBps,
            Test::Lat => Measure::MeanNs,
        }
    }

    /// The tracked results of PTS version 2.0 (`v2.0`, the default) or 1.1 (`v1.1`).
    pub fn tracked(self, version: Version, p: &Params) -> Vec<Cell> {
        let rnd = Cell::rnd;
        match (self, version) {
            (Test::Iops, Version::V2_0) => vec![rnd(0, 4096), rnd(65, 65536), rnd(100, 1 << 20)],
            (Test::Iops, Version::V1_1) => vec![rnd(0, 4096)],
            // latency: the average response time of RND 4KiB 100% writes
            (Test::Lat, _) => vec![rnd(0, 4096)],
            (Test::Tp, _) => self.cells(p),
            (Test::Wsat | Test::Qos | Test::Hir | Test::Fill, _) => vec![rnd(0, 4096)],
            // the demand-intensity tests track the most outstanding I/O's IOPS
            (Test::Dirth | Test::Cbw, _) => self.cells(p),
            // xsr has no rounds: its segments run for their time
            (Test::Xsr, _) => Vec::new(),
        }
    }
}

impl FromStr for Test {
    type Err = PtsError;
    fn from_str(s: &str) -> Result<Test, PtsError> {
        match s {
            "iops" => Ok(Test::Iops),
            "tp" => Ok(Test::Tp),
            "lat" => Ok(Test::Lat),
            "wsat" => Ok(Test::Wsat),
            "qos" => Ok(Test::Qos),
            "dirth" => Ok(Test::Dirth),
            "cbw" => Ok(Test::Cbw),
            "hir" => Ok(Test::Hir),
            "xsr" => Ok(Test::Xsr),
            "fill" => Ok(Test::Fill),
            _ => Err(PtsError::UnknownTest(s.to_string())),
        }
    }
}

/// The IOPS test's read/write mixes, percent reads, in loop order.
pub const IOPS_MIXES: [u32; 7] = [100, 95, 65, 50, 35, 5, 0];
/// The IOPS test's block sizes, bytes, in loop order (1024 KiB down to 0.5 KiB).
pub const IOPS_BLOCKS: [u32; 8] = [1 << 20, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10, 4 << 10, 512];
/// The latency test's mixes, percent reads.
pub const LAT_MIXES: [u32; 3] = [100, 65, 0];
/// The latency test's block sizes, bytes.
pub const LAT_BLOCKS: [u32; 3] = [8 << 10, 4 << 10, 512];
/// The demand-intensity tests' thread counts and queue depths, from high to low.
pub const DI_LEVELS: [u32; 7] = [32, 16, 8, 6, 4, 2, 1];
/// The composite block-size workload's read share, percent (40/60 reads to writes).
pub const CBW_READ_PCT: u32 = 40;
/// The composite workload's block sizes and their share of the I/Os in percent (fio's
/// `bssplit`), as the Enterprise Composite Workload of the PTS-E defines them: 4 KiB for two
/// thirds, then 8 KiB, 16 KiB, 0.5 KiB and the rest.
pub const CBW_BSSPLIT: &str = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3";
/// The composite workload's access range (fio's `random_distribution=zoned`): half the I/Os
/// in the first 5% of the active range, 30% in the next 15%, 20% in the last 80%.
pub const CBW_ZONES: &str = "zoned:50/5:30/15:20/80";

/// One workload of a round: a read/write mix at one block size, random or sequential.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Percent reads (100 is all reads, 0 all writes).
    pub read_pct: u32,
    /// Block size, bytes (a composite cell's most common one).
    pub bs: u32,
    pub sequential: bool,
    /// The thread count and queue depth of a demand-intensity cell (`None`: the test's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oio: Option<(u32, u32)>,
    /// The composite block-size workload ([`CBW_BSSPLIT`] over [`CBW_ZONES`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub composite: bool,
}

impl Cell {
    /// A random cell of one block size at the test's outstanding I/O.
    pub const fn rnd(read_pct: u32, bs: u32) -> Cell {
        Cell { read_pct, bs, sequential: false, oio: None, composite: false }
    }

    /// The cell's scope name in an archive: `rnd_65-35_4k`, `rnd_100-0_512b`, `seq_0-100_1024k`
    /// (only `[A-Za-z0-9_-]`, so a valid scope of [`crate::tag`]).
    pub fn scope(&self) -> String {
        let kind = if self.sequential { "seq" } else { "rnd" };
        let bs = if self.composite { "cbw".to_string() } else { block_label(self.bs) };
        let oio = self.oio.map(|(t, q)| format!("_t{t}q{q}")).unwrap_or_default();
        format!("{kind}_{}-{}_{bs}{oio}", self.read_pct, 100 - self.read_pct)
    }

    /// The directions the cell issues: `read`, `write` or both.
    pub fn directions(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.read_pct > 0 {
            v.push("read");
        }
        if self.read_pct < 100 {
            v.push("write");
        }
        v
    }

    /// As the PTS writes it: `RND 4KiB 65/35`.
    pub fn text(&self) -> String {
        let kind = if self.sequential { "SEQ" } else { "RND" };
        let bs = if self.composite {
            "CBW".to_string()
        } else if self.bs.is_multiple_of(1024) {
            format!("{}KiB", self.bs / 1024)
        } else {
            format!("{}KiB", self.bs as f64 / 1024.0)
        };
        let oio = self.oio.map(|(t, q)| format!(" T{t}Q{q}")).unwrap_or_default();
        format!("{kind} {bs} {}/{}{oio}", self.read_pct, 100 - self.read_pct)
    }
}

fn block_label(bs: u32) -> String {
    if bs.is_multiple_of(1024) {
        format!("{}k", bs / 1024)
    } else {
        format!("{bs}b")
    }
}

impl FromStr for Cell {
    type Err = PtsError;
    /// `4k:0/100`, `64KiB:65/35`, `1024k:100/0` (random), `seq:128k:0/100` (sequential).
    fn from_str(s: &str) -> Result<Cell, PtsError> {
        let bad = || PtsError::BadCell(s.to_string());
        let (sequential, rest) = match s.strip_prefix("seq:") {
            Some(r) => (true, r),
            None => (false, s.strip_prefix("rnd:").unwrap_or(s)),
        };
        let (bs, mix) = rest.split_once(':').ok_or_else(bad)?;
        let bs = crate::units::parse_size(bs).ok().and_then(|b| u32::try_from(b).ok()).filter(|&b| b > 0).ok_or_else(bad)?;
        let (r, w) = mix.split_once('/').ok_or_else(bad)?;
        let (r, w): (u32, u32) = (r.trim().parse().map_err(|_| bad())?, w.trim().parse().map_err(|_| bad())?);
        if r + w != 100 {
            return Err(bad());
        }
        Ok(Cell { sequential, ..Cell::rnd(r, bs) })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.sequential { "seq:" } else { "" };
        write!(f, "{kind}{}:{}/{}", block_label(self.bs), self.read_pct, 100 - self.read_pct)
    }
}

/// What a round measures of a tracked cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// I/Os per second of the cell's directions together.
    Iops,
    /// MB/s (10^6 bytes per second) of the cell's directions together.
    MBps,
    /// Mean response time of the cell's I/Os, ns.
    MeanNs,
}

impl Measure {
    pub fn label(self) -> &'static str {
        match self {
            Measure::Iops => "IOPS",
            Measure::MBps => "MB/s",
            Measure::MeanNs => "mean response time (ns)",
        }
    }

    /// The measure of `count` I/Os of `bs` bytes over `seconds`, of latencies summing to
    /// `sum_ns`. `None` when it cannot be measured (no time, or no I/O for a mean).
    pub fn of(self, count: u64, bs: u32, seconds: f64, mean_ns: Option<f64>) -> Option<f64> {
        match self {
            Measure::Iops => (seconds > 0.0).then(|| count as f64 / seconds),
            Measure::MBps => (seconds > 0.0).then(|| count as f64 * f64::from(bs) / seconds / 1e6),
            Measure::MeanNs => mean_ns.filter(|_| count > 0),
        }
    }
}

/// The PTS version whose tracked results are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Version {
    /// 2.0: the IOPS test tracks RND 4KiB 0/100, 64KiB 65/35 and 1024KiB 100/0.
    #[serde(rename = "2.0")]
    V2_0,
    /// 1.1: the IOPS test tracks RND 4KiB 0/100 alone.
    #[serde(rename = "1.1")]
    V1_1,
}

/// PTS-E (enterprise) or PTS-C (client) settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    Enterprise,
    Client,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Enterprise => "enterprise",
            Profile::Client => "client",
        }
    }
}

/// The write cache setting a profile asks for (nines does not change it: the archive states
/// the device's own, as sysfs reports it, and a mismatch is a deviation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteCache {
    /// PTS-E: write cache disabled ("write through" in sysfs `queue/write_cache`).
    Disabled,
    /// PTS-C: write cache enabled ("write back").
    Enabled,
}

/// A test's parameters: the specification's values by default, each one a flag of `nines pts`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Params {
    pub test: Test,
    pub profile: Profile,
    /// Length of one cell's run within a round, seconds (the PTS: 60).
    pub round_time_s: f64,
    /// Rounds after which a test that is not steady ends (the PTS: 25).
    pub max_rounds: usize,
    /// Rounds in the measurement window (the PTS: 5).
    pub window_rounds: usize,
    /// Threads (the PTS's thread count, TC).
    pub threads: u32,
    /// Outstanding I/Os per thread (the PTS's queue depth, QD).
    pub qd: u32,
    /// Percent of the user capacity the test's I/Os fall in (its ActiveRange, from LBA 0).
    pub active_range_pct: f64,
    /// Workload-independent preconditioning: how many times the user capacity is written in
    /// 128 KiB sequential writes (the PTS: twice).
    pub precondition_passes: f64,
    pub write_cache: WriteCache,
    /// tp's block size (PTS-E runs the test at 1024 KiB and at 128 KiB, PTS-C at 1024 KiB).
    pub tp_bs: u32,
    /// wsat ends when this many times the user capacity is written (the PTS: 4), or after
    /// `max_rounds` rounds, whichever comes first.
    pub wsat_capacities: f64,
    /// qos: how long the response-time histogram is recorded after steady state (the PTS:
    /// 20 minutes), seconds.
    pub qos_time_s: f64,
    /// dirth and cbw: the demand-intensity matrix and its histograms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub di: Option<DiParams>,
    /// hir: the bursts and waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hir: Option<HirParams>,
    /// xsr: the three segments' lengths, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xsr_segments_s: Option<[f64; 3]>,
    /// fill: the active ranges, percent of the capacity, in the order they run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fills: Option<Vec<f64>>,
}

/// The demand-intensity tests' parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiParams {
    /// Thread counts, from high to low (the PTS: 32, 16, 8, 6, 4, 2, 1).
    pub threads: Vec<u32>,
    /// Queue depths per thread, from high to low (the PTS: the same).
    pub qds: Vec<u32>,
    /// dirth's block size and read share (cbw's are its composite workload's).
    pub bs: u32,
    pub read_pct: u32,
    /// How long each response-time histogram (maximum, two middle and minimum IOPS points)
    /// is recorded, seconds (the PTS: 10 minutes).
    pub hist_time_s: f64,
}

impl DiParams {
    /// The matrix at most `threads` by `qd`: the specification's levels up to them, the
    /// maximum itself first when it is not one of them (`--threads 4 --qd 4`: 4, 2, 1).
    pub fn capped(&self, threads: u32, qd: u32) -> DiParams {
        let cap = |levels: &[u32], max: u32| {
            let mut v: Vec<u32> = levels.iter().copied().filter(|&l| l <= max).collect();
            if v.first() != Some(&max) {
                v.insert(0, max);
            }
            v
        };
        DiParams { threads: cap(&self.threads, threads), qds: cap(&self.qds, qd), ..self.clone() }
    }
}

/// The demand-intensity points whose response-time histograms are recorded, as indices into
/// the matrix's cells: the maximum IOPS, two middle points (the cells whose IOPS are nearest
/// a third and two thirds of the way from the minimum to the maximum) and the minimum
/// outstanding I/O (one thread at QD1, the matrix's last cell). A middle point is left out
/// when no cell other than the ends is near it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiPoints {
    pub max: usize,
    pub mid: Vec<usize>,
    pub min: usize,
}

/// Pick the histogram points of a demand-intensity matrix from each cell's IOPS (in the
/// matrix's order, whose last cell is the least outstanding I/O); `None` for an empty
/// matrix. A cell whose IOPS could not be measured (NaN) is never picked as the maximum.
pub fn di_points(iops: &[f64]) -> Option<DiPoints> {
    let min = iops.len().checked_sub(1)?;
    let max = (0..iops.len()).filter(|&i| !iops[i].is_nan()).max_by(|&a, &b| iops[a].total_cmp(&iops[b])).unwrap_or(0);
    let (lo, hi) = (iops[min], iops[max]);
    let mut mid = Vec::new();
    for frac in [1.0 / 3.0, 2.0 / 3.0] {
        let goal = lo + frac * (hi - lo);
        let near = (0..iops.len())
            .filter(|&i| i != max && i != min && !mid.contains(&i) && !iops[i].is_nan())
            .min_by(|&a, &b| (iops[a] - goal).abs().total_cmp(&(iops[b] - goal).abs()));
        if let Some(i) = near {
            mid.push(i);
        }
    }
    Some(DiPoints { max, mid, min })
}

/// Cross-stimulus recovery: the first of `series` (one value a window) at or above `frac` of
/// `reference` after which most of the next `hold` windows are too, so that one good window
/// in a slump is not taken for a recovery. `None`: it did not recover.
pub fn recovered_at(series: &[f64], reference: f64, frac: f64, hold: usize) -> Option<usize> {
    let ok = |v: f64| v >= frac * reference;
    (0..series.len()).find(|&i| {
        let next = &series[i..(i + hold.max(1)).min(series.len())];
        ok(series[i]) && 2 * next.iter().filter(|&&v| ok(v)).count() > next.len()
    })
}

/// Host idle recovery's parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HirParams {
    /// Each burst of 4 KiB random writes, seconds (the PTS: 5).
    pub burst_s: f64,
    /// The idle waits between bursts, one segment each, seconds (the PTS: 5, 10, 15, 25, 50).
    pub waits_s: Vec<f64>,
    /// Bursts in each wait segment (the PTS: 360).
    pub bursts: usize,
    /// The return to baseline after each segment: continuous writes, seconds (the PTS: 1800).
    pub baseline_s: f64,
}

impl Params {
    /// The specification's values for `test` under `profile`. The total outstanding I/O is
    /// left to the test operator by the PTS (except the latency test's one thread at QD1);
    /// nines' defaults (enterprise 4 threads x QD32, client 2 x QD16) are stated in every
    /// archive, and `--threads` / `--qd` change them. PTS-C limits the test's I/Os to 75% of
    /// the capacity (its ActiveRange), PTS-E uses all of it.
    pub fn defaults(test: Test, profile: Profile) -> Params {
        let (threads, qd) = match (test, profile) {
            (Test::Lat, _) => (1, 1),
            // the demand-intensity matrix starts at its most outstanding I/O
            (Test::Dirth | Test::Cbw, _) => (DI_LEVELS[0], DI_LEVELS[0]),
            (_, Profile::Enterprise) => (4, 32),
            (_, Profile::Client) => (2, 16),
        };
        let (active_range_pct, write_cache) = match profile {
            Profile::Enterprise => (100.0, WriteCache::Disabled),
            Profile::Client => (75.0, WriteCache::Enabled),
        };
        Params {
            test,
            profile,
            round_time_s: 60.0,
            // wsat: 24 hours of one-minute rounds (the PTS ends it at 4x the capacity written
            // or 24 hours, whichever is first)
            max_rounds: if test == Test::Wsat { 1440 } else { 25 },
            window_rounds: 5,
            threads,
            qd,
            active_range_pct,
            precondition_passes: 2.0,
            write_cache,
            tp_bs: 1 << 20,
            wsat_capacities: 4.0,
            qos_time_s: 1200.0,
            di: test.is_demand_intensity().then(|| DiParams {
                threads: DI_LEVELS.to_vec(),
                qds: DI_LEVELS.to_vec(),
                bs: 8192,
                read_pct: 65,
                hist_time_s: 600.0,
            }),
            hir: (test == Test::Hir).then(|| HirParams {
                burst_s: 5.0,
                waits_s: vec![5.0, 10.0, 15.0, 25.0, 50.0],
                bursts: 360,
                baseline_s: 1800.0,
            }),
            xsr_segments_s: (test == Test::Xsr).then_some([8.0 * 3600.0, 6.0 * 3600.0, 8.0 * 3600.0]),
            fills: (test == Test::Fill).then(|| vec![25.0, 50.0, 75.0, 100.0]),
        }
    }

    /// Where these parameters depart from the specification's (one sentence each).
    pub fn deviations(&self) -> Vec<String> {
        let spec = Params::defaults(self.test, self.profile);
        let mut v = Vec::new();
        if self.round_time_s != spec.round_time_s {
            v.push(format!("rounds of {} s per cell instead of {} s", self.round_time_s, spec.round_time_s));
        }
        if self.max_rounds != spec.max_rounds {
            v.push(format!("at most {} rounds instead of {}", self.max_rounds, spec.max_rounds));
        }
        if self.window_rounds != spec.window_rounds {
            v.push(format!("a measurement window of {} rounds instead of {}", self.window_rounds, spec.window_rounds));
        }
        if self.test == Test::Lat && (self.threads, self.qd) != (1, 1) {
            v.push(format!("{} threads x QD{} instead of the latency test's one thread at QD1", self.threads, self.qd));
        }
        if self.active_range_pct != spec.active_range_pct {
            v.push(format!("an active range of {}% instead of {}%", self.active_range_pct, spec.active_range_pct));
        }
        if self.test == Test::Wsat && self.wsat_capacities != spec.wsat_capacities {
            v.push(format!("ending at {} x the capacity written instead of {} x", self.wsat_capacities, spec.wsat_capacities));
        }
        if self.test == Test::Qos && self.qos_time_s != spec.qos_time_s {
            v.push(format!("a response-time histogram of {} s instead of {} s", self.qos_time_s, spec.qos_time_s));
        }
        if let (Some(d), Some(s)) = (&self.di, &spec.di) {
            if (&d.threads, &d.qds) != (&s.threads, &s.qds) {
                v.push(format!(
                    "a demand-intensity matrix of thread counts {:?} by queue depths {:?} instead of {:?} by {:?}",
                    d.threads, d.qds, s.threads, s.qds
                ));
            }
            if d.hist_time_s != s.hist_time_s {
                v.push(format!("response-time histograms of {} s instead of {} s", d.hist_time_s, s.hist_time_s));
            }
        }
        if let (Some(h), Some(s)) = (&self.hir, &spec.hir) {
            if h != s {
                v.push(format!(
                    "bursts of {} s, {} per wait segment, waits of {:?} s and {} s back to baseline instead of {} s, {}, {:?} s and {} s",
                    h.burst_s, h.bursts, h.waits_s, h.baseline_s, s.burst_s, s.bursts, s.waits_s, s.baseline_s
                ));
            }
        }
        if let (Some(x), Some(s)) = (self.xsr_segments_s, spec.xsr_segments_s) {
            if x != s {
                v.push(format!("segments of {:?} s instead of {:?} s", x, s));
            }
        }
        if let (Some(f), Some(s)) = (&self.fills, &spec.fills) {
            if f != s {
                v.push(format!("active ranges of {f:?}% instead of {s:?}%"));
            }
        }
        if !matches!(self.test, Test::Wsat | Test::Xsr) && self.precondition_passes != spec.precondition_passes {
            v.push(format!(
                "workload-independent preconditioning of {} x the capacity instead of {} x",
                self.precondition_passes, spec.precondition_passes
            ));
        }
        v
    }

    /// Check the parameters go together.
    pub fn check(&self) -> Result<(), PtsError> {
        if self.window_rounds < 2 {
            return Err(PtsError::Window(self.window_rounds));
        }
        if self.max_rounds < self.window_rounds {
            return Err(PtsError::MaxRounds { max: self.max_rounds, window: self.window_rounds });
        }
        if !(self.active_range_pct > 0.0 && self.active_range_pct <= 100.0) {
            return Err(PtsError::ActiveRange(self.active_range_pct));
        }
        if !(self.precondition_passes >= 0.0 && self.precondition_passes.is_finite()) {
            return Err(PtsError::Passes(self.precondition_passes));
        }
        if !(self.round_time_s > 0.0 && self.round_time_s.is_finite()) {
            return Err(PtsError::RoundTime(self.round_time_s));
        }
        if !(self.qos_time_s > 0.0 && self.qos_time_s.is_finite()) {
            return Err(PtsError::QosTime(self.qos_time_s));
        }
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if let Some(d) = &self.di {
            if d.threads.is_empty() || d.qds.is_empty() || d.threads.contains(&0) || d.qds.contains(&0) {
                return Err(PtsError::Matrix);
            }
            if !positive(d.hist_time_s) {
                return Err(PtsError::Time("--hist-time", d.hist_time_s));
            }
        }
        if let Some(h) = &self.hir {
            if !positive(h.burst_s) || h.bursts == 0 || h.waits_s.is_empty() || !h.waits_s.iter().all(|&w| w >= 0.0 && w.is_finite()) {
                return Err(PtsError::Hir);
            }
            if !(h.baseline_s >= 0.0 && h.baseline_s.is_finite()) {
                return Err(PtsError::Time("--baseline-time", h.baseline_s));
            }
        }
        if let Some(x) = self.xsr_segments_s {
            if let Some(&t) = x.iter().find(|&&t| !positive(t)) {
                return Err(PtsError::Time("--segments", t));
            }
        }
        if let Some(f) = &self.fills {
            if f.is_empty() {
                return Err(PtsError::ActiveRange(0.0));
            }
            if let Some(&r) = f.iter().find(|&&r| !(r > 0.0 && r <= 100.0)) {
                return Err(PtsError::ActiveRange(r));
            }
        }
        Ok(())
    }
}

/// Why a test's definition or its rounds are refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PtsError {
    #[error("unknown PTS test {0:?}; expected iops, tp, lat, wsat, qos, dirth, cbw, hir, xsr or fill")]
    UnknownTest(String),
    #[error("cannot read the cell {0:?}: expected BS:R/W such as 4k:0/100 or 64KiB:65/35 (seq:128k:0/100 for sequential), the two shares adding up to 100")]
    BadCell(String),
    #[error("the tracked result {cell} is not a cell of the {test} test")]
    NotACell { cell: String, test: &'static str },
    #[error("a measurement window of {0} rounds is too short: the least-squares line needs at least 2")]
    Window(usize),
    #[error("--max-rounds {max} is fewer than the {window} rounds of the measurement window")]
    MaxRounds { max: usize, window: usize },
    #[error("--active-range {0}% is outside 0% (exclusive) to 100%")]
    ActiveRange(f64),
    #[error("preconditioning of {0} x the capacity is not a non-negative number")]
    Passes(f64),
    #[error("a round time of {0} s is not positive")]
    RoundTime(f64),
    #[error("--qos-time of {0} s is not positive")]
    QosTime(f64),
    #[error("{0} of {1} s is not positive")]
    Time(&'static str, f64),
    #[error("the demand-intensity matrix needs at least one thread count and one queue depth, none of them 0")]
    Matrix,
    #[error("host idle recovery needs a positive burst time, at least one burst and at least one wait (of 0 s or more)")]
    Hir,
    #[error("round {round} has {got} tracked values, the test tracks {want}")]
    Width { round: usize, got: usize, want: usize },
}

/// The tracked results: `v2.0` (the default), `v1.1`, or cells (`4k:0/100,64k:65/35`).
/// Each named cell must be one of the test's.
pub fn parse_track(test: Test, p: &Params, s: &str) -> Result<Vec<Cell>, PtsError> {
    let cells = match s.trim() {
        "v2.0" | "2.0" => return Ok(test.tracked(Version::V2_0, p)),
        "v1.1" | "1.1" => return Ok(test.tracked(Version::V1_1, p)),
        list => list.split(',').map(|c| c.trim().parse::<Cell>()).collect::<Result<Vec<_>, _>>()?,
    };
    let all = test.cells(p);
    for c in &cells {
        if !all.contains(c) {
            return Err(PtsError::NotACell { cell: c.to_string(), test: test.name() });
        }
    }
    Ok(cells)
}

/// The rounds of a test so far: per round, one value per tracked result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rounds {
    /// `series[t][r]`: tracked result `t` in round `r` (NaN where it could not be measured,
    /// which no window holding it passes).
    pub series: Vec<Vec<f64>>,
    pub window: usize,
}

/// The steady-state check of one tracked result over a measurement window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tracked {
    /// `None` when a value of the window could not be measured (or the average is not positive).
    pub eval: Option<PtsEvaluation>,
    /// The window's smallest and largest values.
    pub min: f64,
    pub max: f64,
}

impl Rounds {
    pub fn new(tracked: usize, window: usize) -> Rounds {
        Rounds { series: vec![Vec::new(); tracked], window }
    }

    /// Whole rounds recorded.
    pub fn len(&self) -> usize {
        self.series.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add a round: one value per tracked result.
    pub fn push(&mut self, values: &[f64]) -> Result<(), PtsError> {
        if values.len() != self.series.len() {
            return Err(PtsError::Width { round: self.len() + 1, got: values.len(), want: self.series.len() });
        }
        for (s, v) in self.series.iter_mut().zip(values) {
            s.push(*v);
        }
        Ok(())
    }

    /// Each tracked result over the window of rounds `[end - window, end)`; `None` before
    /// `window` rounds.
    pub fn window_at(&self, end: usize) -> Option<Vec<Tracked>> {
        if end < self.window || end > self.len() || self.window < 2 {
            return None;
        }
        let w = |s: &Vec<f64>| {
            let v = &s[end - self.window..end];
            Tracked {
                eval: pts(v),
                min: v.iter().copied().fold(f64::INFINITY, f64::min),
                max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            }
        };
        Some(self.series.iter().map(w).collect())
    }

    /// Does every tracked result hold over the window ending at round `end`?
    pub fn holds_at(&self, end: usize) -> bool {
        self.window_at(end).is_some_and(|t| t.iter().all(|x| x.eval.is_some_and(|e| e.holds)))
    }

    /// The first round (1-based count of rounds) ending a window over which every tracked
    /// result holds: the test stops there.
    pub fn steady_at(&self) -> Option<usize> {
        (self.window..=self.len()).find(|&e| self.holds_at(e))
    }

    /// The window the results are reported over: the steady one, else the last.
    pub fn report_window(&self) -> Option<(usize, usize)> {
        let end = self.steady_at().or_else(|| (self.len() >= self.window).then_some(self.len()))?;
        Some((end - self.window, end))
    }
}

/// The regions of a write saturation test's IOPS, one value per round (PTS 2.0.2's WSAT plots
/// them against time and against bytes written). Each is a range of rounds, 0-based, end
/// exclusive, and they follow one another:
///
/// - `fresh`: fresh out of the box, the rounds from the first while IOPS stay at or above 90%
///   of the first round's (before the drive runs out of erased blocks);
/// - `transition`: from there to the steady region;
/// - `steady`: from the first window of `window` rounds over which the PTS's steady-state
///   criteria hold (range at most 20% and the fitted line's excursion at most 10% of the
///   average) until steady state is lost, or to the end;
/// - `lost_at`: after steady state was reached, the first round more than 20% off the steady
///   window's average where most of the next `window` rounds are off too (a cache cliff,
///   burst credits used up, garbage collection falling behind): steady state lost, which a
///   test that stops at the first steady window never sees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WsatRegions {
    pub fresh: (usize, usize),
    pub transition: Option<(usize, usize)>,
    pub steady: Option<(usize, usize)>,
    pub lost_at: Option<usize>,
}

/// The regions of a write saturation test's per-round IOPS (see [`WsatRegions`]).
pub fn wsat_regions(iops: &[f64], window: usize) -> WsatRegions {
    let n = iops.len();
    let first = iops.first().copied().unwrap_or(f64::NAN);
    // (a NaN round, which could not be measured, ends the fresh region too)
    let mut fresh_end = iops.iter().position(|&v| v.partial_cmp(&(0.9 * first)).is_none_or(|o| o.is_lt())).unwrap_or(n);
    let mut book = Rounds::new(1, window);
    for &v in iops {
        book.series[0].push(v);
    }
    let Some(end) = book.steady_at() else {
        return WsatRegions { fresh: (0, fresh_end), transition: (fresh_end < n).then_some((fresh_end, n)), steady: None, lost_at: None };
    };
    let start = end - window;
    fresh_end = fresh_end.min(start);
    // Lost: a round more than 20% off the steady window's average (the most a window's range
    // may span) where most of the `window` rounds from it are off too, so that a single
    // outlier, which would only fail one window, is not taken for a lasting change.
    let average = iops[start..end].iter().sum::<f64>() / window as f64;
    let off = |v: f64| !(v >= 0.8 * average && v <= 1.2 * average);
    let lost = (end..n).find(|&r| {
        let next = &iops[r..(r + window).min(n)];
        off(iops[r]) && 2 * next.iter().filter(|&&v| off(v)).count() > next.len()
    });
    WsatRegions {
        fresh: (0, fresh_end),
        transition: (fresh_end < start).then_some((fresh_end, start)),
        steady: Some((start, lost.unwrap_or(n))),
        lost_at: lost,
    }
}

/// How a test ended, for the archive's metadata and the terminal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Steady state was reached.
    pub steady: bool,
    /// Rounds run.
    pub rounds: usize,
    /// The measurement window reported: rounds `first..end` (0-based, `end` exclusive).
    pub window: Option<(usize, usize)>,
    /// Per tracked result over that window.
    pub tracked: Vec<Tracked>,
}

impl Verdict {
    pub fn of(r: &Rounds) -> Verdict {
        let window = r.report_window();
        Verdict {
            steady: r.steady_at().is_some(),
            rounds: r.len(),
            window,
            tracked: window.and_then(|(_, e)| r.window_at(e)).unwrap_or_default(),
        }
    }

    /// One line: `steady state reached over rounds 4..8` or `steady state not reached in 25 rounds`.
    pub fn text(&self) -> String {
        match (self.steady, self.window) {
            (true, Some((a, e))) => format!("steady state reached over rounds {}..{e}", a + 1),
            _ => format!("steady state not reached in {} rounds", self.rounds),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(test: Test) -> Params {
        Params::defaults(test, Profile::Enterprise)
    }

    #[test]
    fn demand_intensity_matrix_and_points() {
        let p = p(Test::Dirth);
        let cells = Test::Dirth.di_cells(&p);
        assert_eq!(cells.len(), 49);
        assert_eq!(cells[0].scope(), "rnd_65-35_8k_t32q32");
        assert_eq!(cells[1].text(), "RND 8KiB 65/35 T32Q16");
        assert_eq!(cells[48].oio, Some((1, 1)));
        assert_eq!(Test::Cbw.cells(&Params::defaults(Test::Cbw, Profile::Enterprise))[0].scope(), "rnd_40-60_cbw_t32q32");
        let d = p.di.clone().unwrap().capped(4, 3);
        assert_eq!((d.threads, d.qds), (vec![4, 2, 1], vec![3, 2, 1]));
        // the composite block sizes add up to 100%
        let split = crate::units::parse_bssplit(CBW_BSSPLIT).unwrap();
        assert_eq!(split.iter().map(|s| s.1).sum::<u32>(), 100);
        // a hockey stick: IOPS rise, then flatten; the last cell is T1Q1
        let iops = [900.0, 1000.0, 950.0, 700.0, 400.0, 250.0, 100.0];
        let pts = di_points(&iops).unwrap();
        assert_eq!((pts.max, pts.min), (1, 6));
        // a third of the way: 100 + 300 = 400 (cell 4); two thirds: 700 (cell 3)
        assert_eq!(pts.mid, vec![4, 3]);
        assert_eq!(di_points(&[]), None);
        assert_eq!(di_points(&[5.0, 7.0]).unwrap(), DiPoints { max: 1, mid: vec![0], min: 1 });
    }

    #[test]
    fn recovery_holds() {
        let s = [20.0, 30.0, 95.0, 40.0, 45.0, 92.0, 99.0, 97.0, 98.0];
        // window 2 reaches 90 but the next two do not: not recovered until window 5
        assert_eq!(recovered_at(&s, 100.0, 0.9, 3), Some(5));
        assert_eq!(recovered_at(&s[..5], 100.0, 0.9, 3), None);
    }

    #[test]
    fn wsat_regions_fresh_transition_steady_and_lost() {
        // 3 fresh rounds, a fall, 6 steady rounds, then a cliff
        let v = [100.0, 98.0, 95.0, 60.0, 40.0, 30.0, 30.5, 29.5, 30.0, 30.2, 29.8, 12.0, 11.0];
        let r = wsat_regions(&v, 5);
        assert_eq!(r.fresh, (0, 3));
        // the first window that holds is rounds 5..10 (30.0 .. 30.2, 0-based)
        assert_eq!(r.steady, Some((5, 11)));
        assert_eq!(r.transition, Some((3, 5)));
        // round 12 (0-based 11) falls to 12 IOPS and the rounds after it stay there
        assert_eq!(r.lost_at, Some(11));
        // one outlier is not a loss
        let r = wsat_regions(&[50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 20.0, 50.0, 50.0, 50.0], 3);
        assert_eq!((r.steady, r.lost_at), (Some((0, 10)), None));
        // never steady: fresh, then transition to the end
        let r = wsat_regions(&[100.0, 95.0, 70.0, 50.0, 20.0, 90.0, 10.0], 5);
        assert_eq!((r.fresh, r.transition, r.steady, r.lost_at), ((0, 2), Some((2, 7)), None, None));
        // steady from the first round: no fresh region, no transition
        let r = wsat_regions(&[50.0; 8], 5);
        assert_eq!((r.fresh, r.transition, r.steady, r.lost_at), ((0, 0), None, Some((0, 8)), None));
    }

    #[test]
    fn iops_cells_in_loop_order() {
        let c = Test::Iops.cells(&p(Test::Iops));
        assert_eq!(c.len(), 56);
        // outer loop: mixes 100/0 .. 0/100; inner loop: 1024 KiB .. 0.5 KiB
        assert_eq!(c[0], Cell::rnd(100, 1 << 20));
        assert_eq!(c[7], Cell::rnd(100, 512));
        assert_eq!(c[8], Cell::rnd(95, 1 << 20));
        assert_eq!(c[55].scope(), "rnd_0-100_512b");
        assert_eq!(c[2 * 8 + 2].scope(), "rnd_65-35_64k");
        let mut scopes: Vec<String> = c.iter().map(Cell::scope).collect();
        assert!(scopes.iter().all(|s| crate::tag::is_scope_name(s)));
        scopes.sort();
        scopes.dedup();
        assert_eq!(scopes.len(), 56);
        assert_eq!(
            Test::Lat.cells(&p(Test::Lat)).iter().map(Cell::to_string).collect::<Vec<_>>()[..4],
            ["8k:100/0", "4k:100/0", "512b:100/0", "8k:65/35"]
        );
        assert_eq!(Test::Tp.cells(&p(Test::Tp))[0].scope(), "seq_0-100_1024k");
    }

    #[test]
    fn tracked_results_by_version() {
        let pi = p(Test::Iops);
        let v2: Vec<String> = Test::Iops.tracked(Version::V2_0, &pi).iter().map(Cell::text).collect();
        assert_eq!(v2, ["RND 4KiB 0/100", "RND 64KiB 65/35", "RND 1024KiB 100/0"]);
        assert_eq!(parse_track(Test::Iops, &pi, "v1.1").unwrap(), vec![Cell::rnd(0, 4096)]);
        assert_eq!(parse_track(Test::Iops, &pi, "64KiB:65/35, 0.5k:5/95").unwrap().len(), 2);
        assert!(matches!(parse_track(Test::Iops, &pi, "3k:0/100"), Err(PtsError::NotACell { .. })));
        assert!(matches!(parse_track(Test::Iops, &pi, "4k:10/100"), Err(PtsError::BadCell(_))));
        assert!(matches!(parse_track(Test::Iops, &pi, "4k"), Err(PtsError::BadCell(_))));
        for c in Test::Iops.cells(&pi) {
            assert_eq!(c.to_string().parse::<Cell>().unwrap(), c);
        }
    }

    #[test]
    fn profiles_and_deviations() {
        let e = p(Test::Iops);
        assert!(e.deviations().is_empty());
        assert_eq!((e.round_time_s, e.max_rounds, e.window_rounds, e.active_range_pct), (60.0, 25, 5, 100.0));
        let c = Params::defaults(Test::Iops, Profile::Client);
        assert_eq!((c.active_range_pct, c.write_cache), (75.0, WriteCache::Enabled));
        assert_eq!((p(Test::Lat).threads, p(Test::Lat).qd), (1, 1));
        let short = Params { round_time_s: 0.1, max_rounds: 8, threads: 2, ..p(Test::Lat) };
        let d = short.deviations();
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[0].contains("0.1 s") && d[2].contains("QD1"), "{d:?}");
        assert_eq!(Params { window_rounds: 1, ..e.clone() }.check(), Err(PtsError::Window(1)));
        assert_eq!(Params { max_rounds: 3, ..e.clone() }.check(), Err(PtsError::MaxRounds { max: 3, window: 5 }));
        assert_eq!(Params { active_range_pct: 0.0, ..e }.check(), Err(PtsError::ActiveRange(0.0)));
    }

    #[test]
    fn rounds_by_hand() {
        // Two tracked results. The first settles at 100 from round 4; the second is lopsided
        // (one round 14% over the mean) but within the PTS's range and line limits.
        let a = [300.0, 200.0, 150.0, 101.0, 99.0, 100.0, 100.5, 99.5];
        let b = [50.0, 40.0, 100.0, 95.0, 114.0, 95.5, 95.5, 100.0];
        let mut r = Rounds::new(2, 5);
        for i in 0..a.len() {
            r.push(&[a[i], b[i]]).unwrap();
        }
        // a holds over rounds 4..8 (end 8) only; b over 3..7 and 4..8
        assert!(!r.holds_at(7));
        assert_eq!(r.steady_at(), Some(8));
        let w = r.window_at(8).unwrap();
        let e = w[0].eval.unwrap();
        assert_eq!(e.average, 100.0);
        assert_eq!(e.range, 2.0);
        assert_eq!((w[0].min, w[0].max), (99.0, 101.0));
        let v = Verdict::of(&r);
        assert!(v.steady);
        assert_eq!(v.window, Some((3, 8)));
        assert_eq!(v.text(), "steady state reached over rounds 4..8");
        assert_eq!(r.push(&[1.0]), Err(PtsError::Width { round: 9, got: 1, want: 2 }));
    }

    #[test]
    fn range_and_line_disagree() {
        // Lopsided: range 19 of 100 (holds, 19% <= 20%), fitted line moves 3.4 (holds).
        let mut r = Rounds::new(1, 5);
        for v in [100.0, 95.0, 114.0, 95.5, 95.5] {
            r.push(&[v]).unwrap();
        }
        let t = r.window_at(5).unwrap()[0].eval.unwrap();
        assert!(t.range_ok && t.slope_ok);
        // A steady climb: range 12 of 100 passes the range test, but the least-squares line
        // rises 12 across the window, more than 10% of the average.
        let mut r = Rounds::new(1, 5);
        for v in [94.0, 97.0, 100.0, 103.0, 106.0] {
            r.push(&[v]).unwrap();
        }
        let t = r.window_at(5).unwrap()[0].eval.unwrap();
        assert!(t.range_ok && !t.slope_ok && !t.holds);
        assert_eq!(t.excursion, 12.0);
        assert!(!Verdict::of(&r).steady);
        assert_eq!(Verdict::of(&r).text(), "steady state not reached in 5 rounds");
        // The opposite: one outlier round makes the range 30% of the average while the
        // fitted line stays flat (the outlier sits in the middle of the window).
        let mut r = Rounds::new(1, 5);
        for v in [96.0, 96.0, 120.0, 92.0, 96.0] {
            r.push(&[v]).unwrap();
        }
        let t = r.window_at(5).unwrap()[0].eval.unwrap();
        assert_eq!((t.average, t.range), (100.0, 28.0));
        assert!(!t.range_ok && t.slope_ok, "{t:?}");
        // A round that could not be measured keeps its windows from holding.
        let mut r = Rounds::new(1, 2);
        r.push(&[f64::NAN]).unwrap();
        r.push(&[1.0]).unwrap();
        r.push(&[1.0]).unwrap();
        assert_eq!(r.steady_at(), Some(3));
        assert!(r.window_at(2).unwrap()[0].eval.is_none());
    }

    #[test]
    fn measures() {
        assert_eq!(Measure::Iops.of(500, 4096, 0.5, None), Some(1000.0));
        assert_eq!(Measure::MBps.of(1000, 1 << 20, 1.0, None), Some(1048.576));
        assert_eq!(Measure::MeanNs.of(0, 4096, 1.0, Some(5.0)), None);
        assert_eq!(Measure::Iops.of(1, 4096, 0.0, None), None);
    }
}
