//! What the device and the host were doing beside a latency window: iostat -x's device rates,
//! /proc/stat's CPU shares and pressure stall information (PSI), computed from two samples of
//! kernel counters taken at the window's edges.
//!
//! Pure: the collector reads the files and hands their text here, so this builds for wasm32.
//!
//! Sources:
//! - /proc/diskstats field order: the kernel's Documentation/admin-guide/iostats.rst.
//! - Rates: sysstat's iostat (iostat.c, `compute_ext_disk_stats` in common.c) and `man iostat`.
//! - /proc/stat's `cpu` line: `man 5 proc` (proc_stat).
//! - /proc/pressure/*: the kernel's Documentation/accounting/psi.rst.
//!
//! A window's context is kept in the archive as a comment line that HdrHistogram log readers
//! skip (every line beginning with `#` that is not a header they know):
//!
//! ```text
//! #[context start_ns=0 end_ns=1000000000 dev=vda r_s=0.000 w_s=120.000 ... util=35.000 ...]
//! ```

use std::fmt::Write as _;

/// Bytes in a /proc/diskstats sector: always 512, whatever the device's sector size
/// (iostats.rst; sysstat divides sectors by 2 for kB).
pub const SECTOR_BYTES: u64 = 512;

/// One device's line of /proc/diskstats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    /// Field 1: reads completed successfully.
    pub reads: u64,
    /// Field 2: reads merged.
    pub reads_merged: u64,
    /// Field 3: sectors read.
    pub sectors_read: u64,
    /// Field 4: milliseconds spent reading.
    pub ms_reading: u64,
    /// Field 5: writes completed.
    pub writes: u64,
    /// Field 6: writes merged.
    pub writes_merged: u64,
    /// Field 7: sectors written.
    pub sectors_written: u64,
    /// Field 8: milliseconds spent writing.
    pub ms_writing: u64,
    /// Field 9: I/Os currently in progress (a gauge, not a counter).
    pub in_progress: u64,
    /// Field 10: milliseconds spent doing I/Os (io_ticks).
    pub io_ticks: u64,
    /// Field 11: weighted milliseconds spent doing I/Os (time_in_queue).
    pub time_in_queue: u64,
    /// Fields 12-15 (kernel 4.18+): discards completed, merged, sectors, milliseconds.
    pub discards: Option<[u64; 4]>,
    /// Fields 16-17 (kernel 5.5+): flush requests completed, milliseconds flushing.
    pub flushes: Option<[u64; 2]>,
}

/// Why a line of a /proc file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what}: {reason} in {line:?}")]
pub struct ParseError {
    pub what: &'static str,
    pub reason: String,
    pub line: String,
}

fn perr(what: &'static str, reason: impl Into<String>, line: &str) -> ParseError {
    ParseError { what, reason: reason.into(), line: line.to_string() }
}

fn numbers(what: &'static str, fields: &[&str], line: &str) -> Result<Vec<u64>, ParseError> {
    fields.iter().map(|f| f.parse::<u64>().map_err(|_| perr(what, format!("{f:?} is not a counter"), line))).collect()
}

impl DiskCounters {
    /// Parse one line of /proc/diskstats: `major minor name` then 11, 15 or 17 counters.
    pub fn parse(line: &str) -> Result<DiskCounters, ParseError> {
        const WHAT: &str = "/proc/diskstats";
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 14 {
            return Err(perr(WHAT, format!("expected major, minor, name and at least 11 counters, found {} fields", f.len()), line));
        }
        let major = f[0].parse().map_err(|_| perr(WHAT, "bad major number", line))?;
        let minor = f[1].parse().map_err(|_| perr(WHAT, "bad minor number", line))?;
        let n = numbers(WHAT, &f[3..], line)?;
        Ok(DiskCounters {
            major,
            minor,
            name: f[2].to_string(),
            reads: n[0],
            reads_merged: n[1],
            sectors_read: n[2],
            ms_reading: n[3],
            writes: n[4],
            writes_merged: n[5],
            sectors_written: n[6],
            ms_writing: n[7],
            in_progress: n[8],
            io_ticks: n[9],
            time_in_queue: n[10],
            discards: (n.len() >= 15).then(|| [n[11], n[12], n[13], n[14]]),
            flushes: (n.len() >= 17).then(|| [n[15], n[16]]),
        })
    }

    /// Parse all of /proc/diskstats; lines that do not parse are errors.
    pub fn parse_all(text: &str) -> Result<Vec<DiskCounters>, ParseError> {
        text.lines().filter(|l| !l.trim().is_empty()).map(DiskCounters::parse).collect()
    }
}

/// iostat -x's extended statistics of a device between two samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiskRates {
    /// r/s: reads completed per second.
    pub r_s: f64,
    /// w/s: writes completed per second.
    pub w_s: f64,
    /// rkB/s: kilobytes (1024 bytes) read per second.
    pub rkb_s: f64,
    /// wkB/s: kilobytes written per second.
    pub wkb_s: f64,
    /// r_await: mean milliseconds per read, queue and service (0 when no reads completed).
    pub r_await: f64,
    /// w_await: mean milliseconds per write (0 when no writes completed).
    pub w_await: f64,
    /// aqu-sz: mean number of requests queued or in service.
    pub aqu_sz: f64,
    /// %util: percent of elapsed time the device had at least one I/O in flight, at most 100.
    pub util: f64,
}

/// `b - a` for a counter; 0 if the counter went back (device removed and added again).
fn delta(a: u64, b: u64) -> u64 {
    b.saturating_sub(a)
}

impl DiskRates {
    /// The rates between samples `a` and `b` of one device, `interval_s` seconds apart,
    /// as sysstat's iostat computes them (iostat.c, `compute_ext_disk_stats` in common.c):
    /// r/s = Δreads / itv; rkB/s = Δsectors / 2 / itv; r_await = Δms_reading / Δreads;
    /// aqu-sz = Δtime_in_queue / itv_ms; %util = Δio_ticks / itv_ms × 100, capped at 100.
    pub fn between(a: &DiskCounters, b: &DiskCounters, interval_s: f64) -> DiskRates {
        if interval_s <= 0.0 || !interval_s.is_finite() {
            return DiskRates::default();
        }
        let per_s = |x: u64| x as f64 / interval_s;
        let await_ms = |ticks: u64, ios: u64| if ios == 0 { 0.0 } else { ticks as f64 / ios as f64 };
        let (reads, writes) = (delta(a.reads, b.reads), delta(a.writes, b.writes));
        let kb = |s: u64| s as f64 * SECTOR_BYTES as f64 / 1024.0;
        let interval_ms = interval_s * 1000.0;
        DiskRates {
            r_s: per_s(reads),
            w_s: per_s(writes),
            rkb_s: kb(delta(a.sectors_read, b.sectors_read)) / interval_s,
            wkb_s: kb(delta(a.sectors_written, b.sectors_written)) / interval_s,
            r_await: await_ms(delta(a.ms_reading, b.ms_reading), reads),
            w_await: await_ms(delta(a.ms_writing, b.ms_writing), writes),
            aqu_sz: delta(a.time_in_queue, b.time_in_queue) as f64 / interval_ms,
            util: (delta(a.io_ticks, b.io_ticks) as f64 / interval_ms * 100.0).min(100.0),
        }
    }

    /// The devices under one file system taken together: rates and queue sizes add up, the
    /// awaits are the means over all the I/Os (weighted by each device's I/O rate) and %util
    /// is the busiest device's (a sum of busy times past 100% would say nothing).
    pub fn sum(all: &[DiskRates]) -> DiskRates {
        let mut s = DiskRates::default();
        let (mut r_ticks, mut w_ticks) = (0.0, 0.0);
        for d in all {
            s.r_s += d.r_s;
            s.w_s += d.w_s;
            s.rkb_s += d.rkb_s;
            s.wkb_s += d.wkb_s;
            s.aqu_sz += d.aqu_sz;
            s.util = s.util.max(d.util);
            r_ticks += d.r_await * d.r_s;
            w_ticks += d.w_await * d.w_s;
        }
        s.r_await = if s.r_s > 0.0 { r_ticks / s.r_s } else { 0.0 };
        s.w_await = if s.w_s > 0.0 { w_ticks / s.w_s } else { 0.0 };
        s
    }
}

/// The `cpu` line of /proc/stat, in clock ticks (USER_HZ) since boot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuJiffies {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

impl CpuJiffies {
    /// Parse the aggregate `cpu  user nice system idle iowait irq softirq steal guest guest_nice`
    /// line; the guest fields are already counted in user and nice (proc(5)), so they are not
    /// read. Older kernels without the later fields read them as 0.
    pub fn parse_line(line: &str) -> Result<CpuJiffies, ParseError> {
        const WHAT: &str = "/proc/stat";
        let mut f = line.split_whitespace();
        if f.next() != Some("cpu") {
            return Err(perr(WHAT, "not the aggregate `cpu` line", line));
        }
        let rest: Vec<&str> = f.take(8).collect();
        if rest.len() < 4 {
            return Err(perr(WHAT, "fewer than 4 counters", line));
        }
        let mut n = numbers(WHAT, &rest, line)?;
        n.resize(8, 0);
        Ok(CpuJiffies { user: n[0], nice: n[1], system: n[2], idle: n[3], iowait: n[4], irq: n[5], softirq: n[6], steal: n[7] })
    }

    /// Find and parse the `cpu` line of the whole of /proc/stat.
    pub fn parse_stat(text: &str) -> Result<CpuJiffies, ParseError> {
        let line = text.lines().find(|l| l.starts_with("cpu ")).ok_or_else(|| perr("/proc/stat", "no `cpu` line", ""))?;
        CpuJiffies::parse_line(line)
    }

    fn fields(&self) -> [u64; 8] {
        [self.user, self.nice, self.system, self.idle, self.iowait, self.irq, self.softirq, self.steal]
    }
}

/// Percent of all CPU time between two samples spent in each state (as top, vmstat and
/// sysstat's mpstat give them); they add up to 100 unless no tick passed (all 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuShares {
    pub user: f64,
    pub nice: f64,
    pub system: f64,
    pub idle: f64,
    pub iowait: f64,
    pub irq: f64,
    pub softirq: f64,
    pub steal: f64,
}

impl CpuShares {
    pub fn between(a: &CpuJiffies, b: &CpuJiffies) -> CpuShares {
        let (fa, fb) = (a.fields(), b.fields());
        let d: Vec<u64> = fa.iter().zip(fb).map(|(&x, y)| delta(x, y)).collect();
        let total: u64 = d.iter().sum();
        let pct = |x: u64| if total == 0 { 0.0 } else { x as f64 * 100.0 / total as f64 };
        CpuShares {
            user: pct(d[0]),
            nice: pct(d[1]),
            system: pct(d[2]),
            idle: pct(d[3]),
            iowait: pct(d[4]),
            irq: pct(d[5]),
            softirq: pct(d[6]),
            steal: pct(d[7]),
        }
    }
}

/// One line of a /proc/pressure file: `some avg10=0.00 avg60=0.00 avg300=0.00 total=0`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PressureLine {
    /// Percent of the last 10, 60 and 300 seconds stalled, as the kernel averages them.
    pub avg10: f64,
    pub avg60: f64,
    pub avg300: f64,
    /// Microseconds stalled since boot.
    pub total_us: u64,
}

/// A /proc/pressure/{io,cpu,memory} file (psi.rst): `some` is the time at least one task was
/// stalled on the resource, `full` the time all non-idle tasks were (absent before 5.13 for cpu).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pressure {
    pub some: PressureLine,
    pub full: Option<PressureLine>,
}

impl Pressure {
    pub fn parse(text: &str) -> Result<Pressure, ParseError> {
        const WHAT: &str = "/proc/pressure";
        let mut some = None;
        let mut full = None;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut f = line.split_whitespace();
            let kind = f.next().unwrap_or_default();
            let mut p = PressureLine::default();
            let mut seen_total = false;
            for kv in f {
                let (k, v) = kv.split_once('=').ok_or_else(|| perr(WHAT, format!("{kv:?} is not key=value"), line))?;
                let bad = || perr(WHAT, format!("{k}={v:?} is not a number"), line);
                match k {
                    "avg10" => p.avg10 = v.parse().map_err(|_| bad())?,
                    "avg60" => p.avg60 = v.parse().map_err(|_| bad())?,
                    "avg300" => p.avg300 = v.parse().map_err(|_| bad())?,
                    "total" => {
                        p.total_us = v.parse().map_err(|_| bad())?;
                        seen_total = true
                    }
                    _ => {}
                }
            }
            if !seen_total {
                return Err(perr(WHAT, "no total=", line));
            }
            match kind {
                "some" => some = Some(p),
                "full" => full = Some(p),
                _ => return Err(perr(WHAT, format!("{kind:?} is neither some nor full"), line)),
            }
        }
        Ok(Pressure { some: some.ok_or_else(|| perr(WHAT, "no `some` line", text))?, full })
    }
}

/// Percent of the time between two pressure samples that tasks were stalled, from the `total`
/// microsecond counters (psi.rst: "the absolute stall time ... can be used to detect latency
/// spikes which wouldn't necessarily make a dent in the time averages").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PressureShares {
    pub some: f64,
    pub full: Option<f64>,
}

impl PressureShares {
    pub fn between(a: &Pressure, b: &Pressure, interval_s: f64) -> PressureShares {
        let us = interval_s * 1e6;
        let share = |x: &PressureLine, y: &PressureLine| {
            if us <= 0.0 {
                0.0
            } else {
                (delta(x.total_us, y.total_us) as f64 / us * 100.0).min(100.0)
            }
        };
        let full = match (&a.full, &b.full) {
            (Some(x), Some(y)) => Some(share(x, y)),
            _ => None,
        };
        PressureShares { some: share(&a.some, &b.some), full }
    }
}

/// What the devices under the target and the host were doing during one window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowContext {
    /// The window's edges, nanoseconds from the run's start.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The /proc/diskstats names of the disks `disk` sums.
    pub devices: Vec<String>,
    pub disk: Option<DiskRates>,
    pub cpu: Option<CpuShares>,
    pub io_pressure: Option<PressureShares>,
    pub cpu_pressure: Option<PressureShares>,
    /// CPU time of the recording process itself (all its threads, user + system,
    /// getrusage(2) `RUSAGE_SELF`) in percent of one core: 100 is one core busy the whole
    /// window. Key `nines_cpu`.
    pub nines_cpu: Option<f64>,
    /// Nanoseconds between the two samples the rates come from (key `span_ns`): the window's
    /// length give or take how late a sample was taken at its edges. A rate times this span
    /// is the count of the window's samples exactly.
    pub span_ns: Option<u64>,
}

/// How a context comment line begins.
pub const CONTEXT_PREFIX: &str = "#[context ";

/// Why a context line could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContextLineError {
    #[error("not a context line (expected it to begin with `#[context ` and end with `]`)")]
    NotContext,
    #[error("{0:?} is not key=value")]
    NotKeyValue(String),
    #[error("{key}={value:?} is not a number")]
    Number { key: String, value: String },
    #[error("no {0}=")]
    Missing(&'static str),
}

const DISK_KEYS: [&str; 8] = ["r_s", "w_s", "rkB_s", "wkB_s", "r_await", "w_await", "aqu", "util"];
const CPU_KEYS: [&str; 8] = ["user", "nice", "sys", "idle", "iowait", "irq", "softirq", "steal"];

impl WindowContext {
    /// The archive comment line, without a newline; numbers to 3 decimals, absent parts
    /// left out: `#[context start_ns=.. end_ns=.. dev=a,b r_s=.. .. util=.. user=.. io_some=..]`.
    pub fn to_line(&self) -> String {
        let mut s = format!("{CONTEXT_PREFIX}start_ns={} end_ns={}", self.start_ns, self.end_ns);
        if !self.devices.is_empty() {
            let _ = write!(s, " dev={}", self.devices.join(","));
        }
        let mut put = |k: &str, v: f64| {
            let _ = write!(s, " {k}={v:.3}");
        };
        if let Some(d) = &self.disk {
            for (k, v) in DISK_KEYS.iter().zip([d.r_s, d.w_s, d.rkb_s, d.wkb_s, d.r_await, d.w_await, d.aqu_sz, d.util]) {
                put(k, v);
            }
        }
        if let Some(c) = &self.cpu {
            for (k, v) in CPU_KEYS.iter().zip([c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq, c.steal]) {
                put(k, v);
            }
        }
        for (name, p) in [("io", &self.io_pressure), ("cpu", &self.cpu_pressure)] {
            if let Some(p) = p {
                put(&format!("{name}_some"), p.some);
                if let Some(f) = p.full {
                    put(&format!("{name}_full"), f);
                }
            }
        }
        if let Some(n) = self.nines_cpu {
            put("nines_cpu", n);
        }
        if let Some(n) = self.span_ns {
            let _ = write!(s, " span_ns={n}");
        }
        s.push(']');
        s
    }

    /// Read a line written by [`WindowContext::to_line`]. Unknown keys are skipped, so later
    /// versions may add some; a group (disk, cpu) is present when all of its keys are.
    pub fn parse_line(line: &str) -> Result<WindowContext, ContextLineError> {
        let body = line.trim_end().strip_prefix(CONTEXT_PREFIX).and_then(|b| b.strip_suffix(']')).ok_or(ContextLineError::NotContext)?;
        let mut c = WindowContext::default();
        let mut nums: Vec<(&str, f64)> = Vec::new();
        let (mut start, mut end) = (None, None);
        for kv in body.split_whitespace() {
            let (k, v) = kv.split_once('=').ok_or_else(|| ContextLineError::NotKeyValue(kv.to_string()))?;
            let bad = || ContextLineError::Number { key: k.to_string(), value: v.to_string() };
            match k {
                "start_ns" => start = Some(v.parse::<u64>().map_err(|_| bad())?),
                "end_ns" => end = Some(v.parse::<u64>().map_err(|_| bad())?),
                "span_ns" => c.span_ns = Some(v.parse::<u64>().map_err(|_| bad())?),
                "dev" => c.devices = v.split(',').filter(|d| !d.is_empty()).map(str::to_string).collect(),
                _ => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => nums.push((k, x)),
                    _ => return Err(bad()),
                },
            }
        }
        c.start_ns = start.ok_or(ContextLineError::Missing("start_ns"))?;
        c.end_ns = end.ok_or(ContextLineError::Missing("end_ns"))?;
        let get = |k: &str| nums.iter().find(|(n, _)| *n == k).map(|x| x.1);
        let group = |keys: &[&str; 8]| -> Option<[f64; 8]> {
            let mut out = [0.0; 8];
            for (o, k) in out.iter_mut().zip(keys) {
                *o = get(k)?;
            }
            Some(out)
        };
        c.disk = group(&DISK_KEYS).map(|v| DiskRates {
            r_s: v[0],
            w_s: v[1],
            rkb_s: v[2],
            wkb_s: v[3],
            r_await: v[4],
            w_await: v[5],
            aqu_sz: v[6],
            util: v[7],
        });
        c.cpu = group(&CPU_KEYS).map(|v| CpuShares {
            user: v[0],
            nice: v[1],
            system: v[2],
            idle: v[3],
            iowait: v[4],
            irq: v[5],
            softirq: v[6],
            steal: v[7],
        });
        c.io_pressure = get("io_some").map(|some| PressureShares { some, full: get("io_full") });
        c.cpu_pressure = get("cpu_some").map(|some| PressureShares { some, full: get("cpu_full") });
        c.nines_cpu = get("nines_cpu");
        Ok(c)
    }

    /// Every context line of an archive's text, in order; other lines are ignored and a
    /// context line that does not parse is skipped (it is a comment: it must never make an
    /// archive unreadable).
    pub fn collect(text: &str) -> Vec<WindowContext> {
        text.lines().filter(|l| l.starts_with(CONTEXT_PREFIX)).filter_map(|l| WindowContext::parse_line(l).ok()).collect()
    }
}

/// How many numbers a context record holds ([`WindowContext::values`]).
pub const FIELDS: usize = 21;

/// Index of the first number of each part in [`WindowContext::values`]: the disk's 8
/// (r_s, w_s, rkB_s, wkB_s, r_await, w_await, aqu, util), the CPU's 8 (user, nice, sys,
/// idle, iowait, irq, softirq, steal), I/O pressure some and full, CPU pressure some and full,
/// then nines' own CPU.
const DISK_AT: usize = 0;
const CPU_AT: usize = 8;
const IO_P_AT: usize = 16;
const CPU_P_AT: usize = 18;
const NINES_AT: usize = 20;

impl WindowContext {
    /// The record's numbers in a fixed order (see `FIELDS`), absent parts as None.
    pub fn values(&self) -> [Option<f64>; FIELDS] {
        let mut v = [None; FIELDS];
        if let Some(d) = &self.disk {
            for (o, x) in v[DISK_AT..].iter_mut().zip([d.r_s, d.w_s, d.rkb_s, d.wkb_s, d.r_await, d.w_await, d.aqu_sz, d.util]) {
                *o = Some(x);
            }
        }
        if let Some(c) = &self.cpu {
            for (o, x) in v[CPU_AT..].iter_mut().zip([c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq, c.steal]) {
                *o = Some(x);
            }
        }
        for (at, p) in [(IO_P_AT, &self.io_pressure), (CPU_P_AT, &self.cpu_pressure)] {
            if let Some(p) = p {
                v[at] = Some(p.some);
                v[at + 1] = p.full;
            }
        }
        v[NINES_AT] = self.nines_cpu;
        v
    }

    /// A record of window `[start_ns, end_ns)` holding numbers in the order of
    /// [`WindowContext::values`]; a part (disk, CPU) is there when all of its numbers are.
    pub fn from_values(start_ns: u64, end_ns: u64, devices: Vec<String>, v: &[Option<f64>; FIELDS]) -> WindowContext {
        let part = |at: usize| -> Option<[f64; 8]> {
            let mut out = [0.0; 8];
            for (o, x) in out.iter_mut().zip(&v[at..at + 8]) {
                *o = (*x)?;
            }
            Some(out)
        };
        let disk = part(DISK_AT).map(|d| DiskRates {
            r_s: d[0],
            w_s: d[1],
            rkb_s: d[2],
            wkb_s: d[3],
            r_await: d[4],
            w_await: d[5],
            aqu_sz: d[6],
            util: d[7],
        });
        let cpu = part(CPU_AT).map(|c| CpuShares {
            user: c[0],
            nice: c[1],
            system: c[2],
            idle: c[3],
            iowait: c[4],
            irq: c[5],
            softirq: c[6],
            steal: c[7],
        });
        let pressure = |at: usize| v[at].map(|some| PressureShares { some, full: v[at + 1] });
        WindowContext {
            start_ns,
            end_ns,
            devices,
            disk,
            cpu,
            io_pressure: pressure(IO_P_AT),
            cpu_pressure: pressure(CPU_P_AT),
            nines_cpu: v[NINES_AT],
            span_ns: None,
        }
    }

    /// Adjacent records taken together, as one record of their whole span: each number the
    /// mean over time (records weighted by their span), r_await and w_await the means over
    /// the device's reads and writes, as iostat gives them over one longer interval (see
    /// [`ContextSummary`]). A number no record has stays absent. None for no records.
    pub fn merge(recs: &[WindowContext]) -> Option<WindowContext> {
        let (first, last) = (recs.first()?, recs.last()?);
        let len = |c: &WindowContext| c.span_ns.unwrap_or(c.end_ns.saturating_sub(c.start_ns)) as f64;
        let all: Vec<[Option<f64>; FIELDS]> = recs.iter().map(WindowContext::values).collect();
        let mut out = [None; FIELDS];
        for (j, o) in out.iter_mut().enumerate() {
            let weight = |c: &WindowContext, v: &[Option<f64>; FIELDS]| match j {
                4 => v[0].unwrap_or(0.0) * len(c),
                5 => v[1].unwrap_or(0.0) * len(c),
                _ => len(c),
            };
            *o = mean_max(recs.iter().zip(&all).filter_map(|(c, v)| Some((v[j]?, weight(c, v))))).map(|m| m.mean);
        }
        let mut m = WindowContext::from_values(first.start_ns, last.end_ns, first.devices.clone(), &out);
        let spans: Option<u64> = recs.iter().map(|c| c.span_ns).sum();
        m.span_ns = spans;
        Some(m)
    }
}

/// The mean and the largest value of one context number over a run's windows.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MeanMax {
    pub mean: f64,
    pub max: f64,
}

/// A context number over the windows: (value, weight) pairs; None when there are none or
/// the weights add up to nothing.
pub(crate) fn mean_max(xs: impl Iterator<Item = (f64, f64)>) -> Option<MeanMax> {
    let (mut sw, mut swx, mut max, mut any) = (0.0, 0.0, f64::NEG_INFINITY, false);
    for (x, w) in xs {
        any = true;
        sw += w;
        swx += w * x;
        max = max.max(x);
    }
    any.then(|| MeanMax { mean: if sw > 0.0 { swx / sw } else { 0.0 }, max })
}

/// What the device and the host did over a run (`nines stats --context`): each context
/// number's mean and max over the windows in range.
///
/// The means are over time (each window weighted by its length), so the rates' means are the
/// rates over the whole span, as iostat gives them for one interval; r_await and w_await are
/// weighted by each window's reads and writes (the device's I/Os), as iostat's await over the
/// span is (the time spent over the I/Os done).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ContextSummary {
    /// Context records in range.
    pub windows: usize,
    /// The disks the device numbers sum (the run's `context_devices`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<String>,
    /// Why the device part (or the whole context) is missing (the run's `context_missing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// Each number by its name in `stats --context` (`util`, `aqu_sz`, `r_await`, ...,
    /// `nines_cpu`), in a fixed order; numbers no window has are left out. In JSON an
    /// object by name.
    #[serde(serialize_with = "numbers_object")]
    pub numbers: Vec<(&'static str, MeanMax)>,
    /// The device's reads and writes per second that the run did not issue: r/s + w/s less
    /// the run's own read and write IOPS in the same window (present only with the device
    /// part). Negative where the block layer merged the run's I/Os, or held them in a cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_iops: Option<MeanMax>,
    /// fio's own disk statistics of an imported fio json+ run (the run's `disk_util`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disk_util: Vec<crate::meta::DiskUtil>,
}

fn numbers_object<S: serde::Serializer>(v: &[(&'static str, MeanMax)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, x) in v {
        m.serialize_entry(k, x)?;
    }
    m.end()
}

/// How a window's context gives one number.
pub type Getter = fn(&WindowContext) -> Option<f64>;

/// The numbers of `stats --context` (and of `nines export`'s windows table, as `ctx_NAME`
/// in lower case), each with how a window gives it.
pub const NUMBERS: [(&str, Getter); 19] = [
    ("util", |c| c.disk.map(|d| d.util)),
    ("aqu_sz", |c| c.disk.map(|d| d.aqu_sz)),
    ("r_await", |c| c.disk.map(|d| d.r_await)),
    ("w_await", |c| c.disk.map(|d| d.w_await)),
    ("r_s", |c| c.disk.map(|d| d.r_s)),
    ("w_s", |c| c.disk.map(|d| d.w_s)),
    ("rkB_s", |c| c.disk.map(|d| d.rkb_s)),
    ("wkB_s", |c| c.disk.map(|d| d.wkb_s)),
    ("user", |c| c.cpu.map(|x| x.user)),
    ("sys", |c| c.cpu.map(|x| x.system)),
    ("iowait", |c| c.cpu.map(|x| x.iowait)),
    ("irq", |c| c.cpu.map(|x| x.irq)),
    ("softirq", |c| c.cpu.map(|x| x.softirq)),
    ("steal", |c| c.cpu.map(|x| x.steal)),
    ("io_some", |c| c.io_pressure.map(|p| p.some)),
    ("io_full", |c| c.io_pressure.and_then(|p| p.full)),
    ("cpu_some", |c| c.cpu_pressure.map(|p| p.some)),
    ("cpu_full", |c| c.cpu_pressure.and_then(|p| p.full)),
    ("nines_cpu", |c| c.nines_cpu),
];

/// The context record of the window starting `start_s` seconds from the run's start (the
/// archive keeps window starts to the millisecond), from records in time order.
pub fn record_at(context: &[WindowContext], start_s: f64) -> Option<&WindowContext> {
    let ns = (start_s * 1e9).round().max(0.0) as u64;
    let i = context.partition_point(|c| c.start_ns + 1_000_000 <= ns);
    context.get(i).filter(|c| c.start_ns.abs_diff(ns) < 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real-looking lines: a virtio disk on kernel 6.x (17 counters), its partition, and an old
    // kernel's 11-counter line.
    const VDA_A: &str = " 253       0 vda 30000 1200 2400000 15000 50000 8000 4000000 90000 2 70000 105000 100 0 20480 5 6000 3000";
    const VDA_B: &str = " 253       0 vda 30500 1250 2480000 15900 51200 8100 4327680 96000 1 70800 106600 100 0 20480 5 6040 3010";
    const OLD: &str = "   8       1 sda1 4 0 8 12 0 0 0 0 0 12 12";

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn diskstats_line_fields() {
        let d = DiskCounters::parse(VDA_A).unwrap();
        assert_eq!((d.major, d.minor, d.name.as_str()), (253, 0, "vda"));
        assert_eq!((d.reads, d.reads_merged, d.sectors_read, d.ms_reading), (30000, 1200, 2400000, 15000));
        assert_eq!((d.writes, d.writes_merged, d.sectors_written, d.ms_writing), (50000, 8000, 4000000, 90000));
        assert_eq!((d.in_progress, d.io_ticks, d.time_in_queue), (2, 70000, 105000));
        assert_eq!(d.discards, Some([100, 0, 20480, 5]));
        assert_eq!(d.flushes, Some([6000, 3000]));
        let o = DiskCounters::parse(OLD).unwrap();
        assert_eq!((o.name.as_str(), o.reads, o.io_ticks, o.time_in_queue, o.discards, o.flushes), ("sda1", 4, 12, 12, None, None));
        assert!(DiskCounters::parse("8 0 sda 1 2 3").unwrap_err().to_string().contains("at least 11 counters"));
        assert!(DiskCounters::parse("8 0 sda 1 2 3 x 5 6 7 8 9 10 11").unwrap_err().to_string().contains("\"x\" is not a counter"));
        let all = DiskCounters::parse_all(&format!("{VDA_A}\n{OLD}\n")).unwrap();
        assert_eq!(all.len(), 2);
    }

    #[test]
    fn iostat_rates_by_hand() {
        let (a, b) = (DiskCounters::parse(VDA_A).unwrap(), DiskCounters::parse(VDA_B).unwrap());
        // over 2 s: 500 reads, 1200 writes; 80000 sectors read = 40000 kB, 327680 sectors
        // written = 163840 kB; 900 ms reading / 500 reads; 6000 ms writing / 1200 writes;
        // 1600 ms in queue / 2000 ms; 800 ms busy / 2000 ms = 40%
        let r = DiskRates::between(&a, &b, 2.0);
        assert!(close(r.r_s, 250.0) && close(r.w_s, 600.0), "{r:?}");
        assert!(close(r.rkb_s, 20000.0) && close(r.wkb_s, 81920.0), "{r:?}");
        assert!(close(r.r_await, 1.8) && close(r.w_await, 5.0), "{r:?}");
        assert!(close(r.aqu_sz, 0.8) && close(r.util, 40.0), "{r:?}");
        // no I/Os: awaits are 0, not NaN
        let z = DiskRates::between(&a, &a, 1.0);
        assert_eq!(z, DiskRates::default());
        // io_ticks counted past the interval (samples not exactly aligned) cap at 100%
        let mut c = b.clone();
        c.io_ticks = a.io_ticks + 2500;
        assert_eq!(DiskRates::between(&a, &c, 2.0).util, 100.0);
        // a counter that went back counts as 0
        assert_eq!(DiskRates::between(&b, &a, 2.0).r_s, 0.0);
        assert_eq!(DiskRates::between(&a, &b, 0.0), DiskRates::default());
    }

    #[test]
    fn summing_devices() {
        let x = DiskRates { r_s: 100.0, w_s: 0.0, rkb_s: 400.0, wkb_s: 0.0, r_await: 2.0, w_await: 0.0, aqu_sz: 0.2, util: 30.0 };
        let y = DiskRates { r_s: 300.0, w_s: 50.0, rkb_s: 1200.0, wkb_s: 200.0, r_await: 1.0, w_await: 4.0, aqu_sz: 0.5, util: 60.0 };
        let s = DiskRates::sum(&[x, y]);
        assert!(close(s.r_s, 400.0) && close(s.w_s, 50.0) && close(s.rkb_s, 1600.0) && close(s.wkb_s, 200.0));
        // (100*2 + 300*1) / 400 = 1.25 ms
        assert!(close(s.r_await, 1.25) && close(s.w_await, 4.0), "{s:?}");
        assert!(close(s.aqu_sz, 0.7) && close(s.util, 60.0), "{s:?}");
        assert_eq!(DiskRates::sum(&[]), DiskRates::default());
    }

    #[test]
    fn proc_stat_cpu_shares() {
        let a = CpuJiffies::parse_stat("cpu  1000 10 500 8000 100 0 40 0 0 0\ncpu0 500 5 250 4000 50 0 20 0 0 0\nintr 1 2\n").unwrap();
        assert_eq!(a, CpuJiffies { user: 1000, nice: 10, system: 500, idle: 8000, iowait: 100, irq: 0, softirq: 40, steal: 0 });
        let b = CpuJiffies::parse_line("cpu  1050 10 530 8100 120 0 40 0 0 0").unwrap();
        // deltas 50 0 30 100 20 0 0 0: total 200
        let s = CpuShares::between(&a, &b);
        assert!(close(s.user, 25.0) && close(s.system, 15.0) && close(s.idle, 50.0) && close(s.iowait, 10.0), "{s:?}");
        assert_eq!(CpuShares::between(&a, &a), CpuShares::default());
        // a 2.6-era line with only 4 counters
        assert_eq!(CpuJiffies::parse_line("cpu 1 2 3 4").unwrap().iowait, 0);
        assert!(CpuJiffies::parse_line("cpu0 1 2 3 4").is_err());
        assert!(CpuJiffies::parse_stat("intr 1\n").is_err());
    }

    #[test]
    fn pressure_files_and_stall_share() {
        let a =
            Pressure::parse("some avg10=1.50 avg60=0.80 avg300=0.20 total=1000000\nfull avg10=0.50 avg60=0.10 avg300=0.00 total=400000\n")
                .unwrap();
        assert_eq!(a.some, PressureLine { avg10: 1.5, avg60: 0.8, avg300: 0.2, total_us: 1_000_000 });
        assert_eq!(a.full.unwrap().total_us, 400_000);
        let b =
            Pressure::parse("some avg10=9.00 avg60=2.00 avg300=0.50 total=1250000\nfull avg10=3.00 avg60=0.60 avg300=0.10 total=500000\n")
                .unwrap();
        // over 1 s: 250 ms some, 100 ms full
        let s = PressureShares::between(&a, &b, 1.0);
        assert!(close(s.some, 25.0) && close(s.full.unwrap(), 10.0), "{s:?}");
        // an older kernel's cpu file: some only
        let c = Pressure::parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n").unwrap();
        assert_eq!(c.full, None);
        assert_eq!(PressureShares::between(&c, &c, 1.0), PressureShares { some: 0.0, full: None });
        assert!(Pressure::parse("some avg10=0.00").is_err());
        assert!(Pressure::parse("").is_err());
    }

    fn sample_context() -> WindowContext {
        WindowContext {
            start_ns: 1_000_000_000,
            end_ns: 2_000_000_000,
            devices: vec!["vda".into(), "vdb".into()],
            disk: Some(DiskRates {
                r_s: 250.0,
                w_s: 600.0,
                rkb_s: 20000.0,
                wkb_s: 81920.0,
                r_await: 1.8,
                w_await: 5.0,
                aqu_sz: 0.8,
                util: 40.0,
            }),
            cpu: Some(CpuShares { user: 25.0, nice: 0.0, system: 15.0, idle: 50.0, iowait: 10.0, irq: 0.0, softirq: 0.0, steal: 0.0 }),
            io_pressure: Some(PressureShares { some: 25.0, full: Some(10.0) }),
            cpu_pressure: Some(PressureShares { some: 1.25, full: None }),
            nines_cpu: Some(3.5),
            span_ns: Some(1_000_250_000),
        }
    }

    #[test]
    fn context_line_round_trip() {
        let c = sample_context();
        let line = c.to_line();
        assert_eq!(
            line,
            "#[context start_ns=1000000000 end_ns=2000000000 dev=vda,vdb r_s=250.000 w_s=600.000 rkB_s=20000.000 wkB_s=81920.000 \
             r_await=1.800 w_await=5.000 aqu=0.800 util=40.000 user=25.000 nice=0.000 sys=15.000 idle=50.000 iowait=10.000 \
             irq=0.000 softirq=0.000 steal=0.000 io_some=25.000 io_full=10.000 cpu_some=1.250 nines_cpu=3.500 span_ns=1000250000]"
        );
        assert_eq!(WindowContext::parse_line(&line).unwrap(), c);
        // partial contexts (tmpfs: no disk; no PSI) and unknown keys from a later version
        let bare = WindowContext { start_ns: 0, end_ns: 5, ..WindowContext::default() };
        assert_eq!(bare.to_line(), "#[context start_ns=0 end_ns=5]");
        assert_eq!(WindowContext::parse_line("#[context start_ns=0 end_ns=5 later=1.5]").unwrap(), bare);
        assert_eq!(WindowContext::parse_line("#[nines {}]"), Err(ContextLineError::NotContext));
        assert_eq!(WindowContext::parse_line("#[context end_ns=5]"), Err(ContextLineError::Missing("start_ns")));
        assert!(matches!(WindowContext::parse_line("#[context start_ns=0 end_ns=5 util=x]"), Err(ContextLineError::Number { .. })));
        // rounding to 3 decimals: a second trip is exact
        let odd = WindowContext { disk: Some(DiskRates { r_s: 1.0 / 3.0, ..DiskRates::default() }), ..sample_context() };
        let once = WindowContext::parse_line(&odd.to_line()).unwrap();
        assert!((once.disk.unwrap().r_s - 1.0 / 3.0).abs() < 5e-4);
        assert_eq!(WindowContext::parse_line(&once.to_line()).unwrap(), once);
    }

    #[test]
    fn archive_with_context_lines_reads_the_same() {
        use crate::hist::{Hist, Layout};
        use crate::run::{Run, Window};
        let l = Layout::default_ns();
        let windows: Vec<Window> = (0..3u64)
            .map(|s| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some("read".into()),
                hist: Hist::from_values(l, (1..=500).map(|i| 100_000 + i * 41 + s)),
            })
            .collect();
        let run = Run { name: "ctx".into(), start_time: Some(1_764_489_600.0), windows, ..Run::default() };
        let plain = String::from_utf8(crate::archive::write(Vec::new(), &run).unwrap()).unwrap();
        // a context line after each window line
        let mut with = String::new();
        let mut i = 0u64;
        for line in plain.lines() {
            with.push_str(line);
            with.push('\n');
            if line.starts_with("Tag=") {
                let c = WindowContext { start_ns: i * 1_000_000_000, end_ns: (i + 1) * 1_000_000_000, ..sample_context() };
                with.push_str(&c.to_line());
                with.push('\n');
                i += 1;
            }
        }
        let a = crate::archive::read("plain.hlog", plain.as_bytes()).unwrap();
        let b = crate::archive::read("with.hlog", with.as_bytes()).unwrap();
        assert_eq!(a.windows, b.windows);
        assert_eq!(b.windows.len(), 3);
        assert!(b.warnings.is_empty());
        assert!(crate::archive::sniff(with.as_bytes()));
        let ctx = WindowContext::collect(&with);
        assert_eq!(ctx.len(), 3);
        assert_eq!(ctx[2].start_ns, 2_000_000_000);
    }

    #[test]
    fn summary_means_weights_and_other_iops() {
        use crate::hist::{Hist, Layout};
        use crate::run::{Run, Window};
        let l = Layout::default_ns();
        // two 1 s windows: the run did 100 then 300 reads; the device saw 150 then 300 reads
        // a second, with awaits of 1 ms then 3 ms
        let windows: Vec<Window> = [100u64, 300]
            .iter()
            .enumerate()
            .flat_map(|(i, &n)| {
                let read = Window {
                    start_s: i as f64,
                    length_s: 1.0,
                    tag: Some("read".into()),
                    hist: Hist::from_values(l, (0..n).map(|_| 50_000)),
                };
                // a scoped share and a service time are not counted again
                let scoped = Window { tag: Some("job/read".into()), ..read.clone() };
                let svc = Window { tag: Some("read.svc".into()), ..read.clone() };
                [read, scoped, svc]
            })
            .collect();
        let ctx = |i: u64, r_s: f64, r_await: f64| WindowContext {
            start_ns: i * 1_000_000_000,
            end_ns: (i + 1) * 1_000_000_000,
            disk: Some(DiskRates { r_s, r_await, util: 10.0 * (i + 1) as f64, ..DiskRates::default() }),
            ..WindowContext::default()
        };
        let run = Run { windows, context: vec![ctx(0, 150.0, 1.0), ctx(1, 300.0, 3.0)], ..Run::default() };
        let s = ContextSummary::of(&run, None, None).unwrap();
        assert_eq!(s.windows, 2);
        assert_eq!(s.get("util"), Some(MeanMax { mean: 15.0, max: 20.0 }));
        assert_eq!(s.get("r_s"), Some(MeanMax { mean: 225.0, max: 300.0 }));
        // (150 * 1 + 300 * 3) / 450 reads = 2.333 ms, as iostat over the 2 s would give
        assert!(close(s.get("r_await").unwrap().mean, 1050.0 / 450.0), "{s:?}");
        // 50 then 0 reads a second not issued by the run
        assert_eq!(s.other_iops, Some(MeanMax { mean: 25.0, max: 50.0 }));
        assert_eq!(s.get("user"), None);
        // --from 1s: the second window only
        let late = ContextSummary::of(&run, Some(1.0), None).unwrap();
        assert_eq!((late.windows, late.other_iops.unwrap().mean), (1, 0.0));
        // a run that says nothing about context has no summary
        assert_eq!(ContextSummary::of(&Run::default(), None, None), None);
    }
}
