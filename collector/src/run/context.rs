//! Where the target's I/Os go and what the host is doing: the whole disks under a path, and
//! samples of /proc/diskstats, /proc/stat and /proc/pressure/{io,cpu} whose differences
//! ([`Sample::context`]) say what the devices and the host did beside a latency window.
//! The arithmetic is nines-core's [`nines_core::context`]; this module only reads files.
//!
//! Linux only: elsewhere every call answers that it is not available on this OS.

use std::path::Path;
use std::time::Instant;

use nines_core::context::{CpuJiffies, CpuShares, DiskCounters, DiskRates, Pressure, PressureShares, WindowContext};

/// One reading of the counters.
#[derive(Clone, Debug)]
pub struct Sample {
    pub at: Instant,
    /// The /proc/diskstats lines of the sampler's devices (those found).
    pub disks: Vec<DiskCounters>,
    pub cpu: Option<CpuJiffies>,
    /// None where the kernel has no PSI (before 4.20, or `psi=0`).
    pub io_pressure: Option<Pressure>,
    pub cpu_pressure: Option<Pressure>,
    /// This process's CPU time so far, all threads, user + system, in microseconds
    /// (getrusage(2) `RUSAGE_SELF`).
    pub self_cpu_us: Option<u64>,
}

impl Sample {
    /// The context of the window between samples `a` and `b` (b taken after a); the window's
    /// edges in ns from the run's start are given by the caller.
    pub fn context(a: &Sample, b: &Sample, start_ns: u64, end_ns: u64) -> WindowContext {
        let interval_s = b.at.saturating_duration_since(a.at).as_secs_f64();
        let rates: Vec<DiskRates> = b
            .disks
            .iter()
            .filter_map(|db| a.disks.iter().find(|da| da.name == db.name).map(|da| DiskRates::between(da, db, interval_s)))
            .collect();
        let pressure = |x: &Option<Pressure>, y: &Option<Pressure>| match (x, y) {
            (Some(x), Some(y)) => Some(PressureShares::between(x, y, interval_s)),
            _ => None,
        };
        WindowContext {
            start_ns,
            end_ns,
            devices: b.disks.iter().map(|d| d.name.clone()).collect(),
            disk: (!rates.is_empty()).then(|| DiskRates::sum(&rates)),
            cpu: match (&a.cpu, &b.cpu) {
                (Some(x), Some(y)) => Some(CpuShares::between(x, y)),
                _ => None,
            },
            io_pressure: pressure(&a.io_pressure, &b.io_pressure),
            cpu_pressure: pressure(&a.cpu_pressure, &b.cpu_pressure),
            span_ns: Some(b.at.saturating_duration_since(a.at).as_nanos() as u64),
            nines_cpu: match (a.self_cpu_us, b.self_cpu_us) {
                (Some(x), Some(y)) if interval_s > 0.0 => Some(y.saturating_sub(x) as f64 / 1e6 / interval_s * 100.0),
                _ => None,
            },
        }
    }
}

/// Reads the counters of a set of disks and of the host.
#[derive(Clone, Debug)]
pub struct Sampler {
    devices: Vec<String>,
}

impl Sampler {
    /// A sampler of the whole disks under `path` ([`resolve_disks`]).
    pub fn for_path(path: &Path) -> Result<Sampler, String> {
        Ok(Sampler { devices: resolve_disks(path)? })
    }

    /// A sampler of the named /proc/diskstats devices (none: host counters only).
    pub fn for_devices(devices: Vec<String>) -> Sampler {
        Sampler { devices }
    }

    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// Read the counters now. /proc/diskstats and /proc/stat must be readable; the pressure
    /// files may be absent.
    pub fn sample(&self) -> Result<Sample, String> {
        imp::sample(&self.devices)
    }
}

/// The /proc/diskstats names of the whole disks that hold `path`: the file system's device
/// (st_dev; st_rdev for a block device itself), its parent disk if that is a partition, and
/// through device-mapper and md (`slaves/`) every disk beneath. Sorted, without repeats.
pub fn resolve_disks(path: &Path) -> Result<Vec<String>, String> {
    imp::resolve_disks(path)
}

/// How a run records its windows' context: the sampler (None: not at all), the disks it
/// reads, and why the device rates (or the whole context) are missing.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub sampler: Option<Sampler>,
    pub devices: Vec<String>,
    pub missing: Option<String>,
}

impl Plan {
    /// No context lines at all, for `reason`.
    pub fn off(reason: impl Into<String>) -> Plan {
        Plan { sampler: None, devices: Vec::new(), missing: Some(reason.into()) }
    }

    /// The disks under every target (resolved once, at the start); a target that has none
    /// (tmpfs, an overlay, a network file system) is named in `missing` with the reason, and
    /// the host part (CPU, pressure) is recorded all the same. `no_device` (the null engine)
    /// skips the devices. A host whose /proc cannot be read records nothing and says why.
    pub fn for_targets(targets: &[&Path], no_device: Option<&str>) -> Plan {
        let mut devices = Vec::new();
        let mut why = Vec::new();
        match no_device {
            Some(r) => why.push(r.to_string()),
            None => {
                for t in targets {
                    match resolve_disks(t) {
                        Ok(d) => devices.extend(d),
                        Err(e) => why.push(format!("'{}': {e}", t.display())),
                    }
                }
            }
        }
        devices.sort();
        devices.dedup();
        let sampler = Sampler::for_devices(devices.clone());
        match sampler.sample() {
            Err(e) => Plan::off(format!("no context recorded: {e}")),
            Ok(s) => {
                // a disk resolved through sysfs but absent from /proc/diskstats
                for d in &devices {
                    if !s.disks.iter().any(|x| &x.name == d) {
                        why.push(format!("{d} is not in /proc/diskstats"));
                    }
                }
                let missing = (!why.is_empty()).then(|| format!("no device rates: {}", why.join("; ")));
                Plan { sampler: Some(sampler), devices, missing }
            }
        }
    }
}

/// One sample taken by [`spawn`]'s thread at the `k`th window edge (`rec_start + k *
/// window`), or why it could not be taken.
type Edge = (u64, Result<Sample, String>);

/// The sampling thread of a run: it sleeps until each window edge on the run's monotonic
/// clock (the clock the jobs cut windows by) and samples there; with windows counted in I/Os
/// (edges not known ahead) only the recording's start. It ends when `stop` is dropped.
pub struct Thread {
    stop: Option<std::sync::mpsc::Sender<()>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Thread {
    /// Stop the thread and wait for it.
    pub fn end(mut self) {
        self.stop.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Start sampling at the window edges of a run whose recording starts at `rec_start_ns` (on
/// [`super::job::clock`]) with windows of `window_ns` (None: windows counted in I/Os). The
/// writer's [`Feed`] takes the samples.
pub fn spawn(sampler: Sampler, rec_start_ns: u64, window_ns: Option<u64>) -> std::io::Result<(Thread, Feed)> {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (stop_tx, stop_rx) = channel::<()>();
    let (tx, rx) = channel::<Edge>();
    let s = sampler.clone();
    let mut got = std::collections::BTreeMap::new();
    // A recording that starts now (no ramp): its first edge sampled here, before the jobs
    // start, so that no I/O of theirs completes before it (a thread woken at the edge may
    // wake a little late).
    let mut first = 0u64;
    if super::job::clock() >= rec_start_ns {
        if let Ok(x) = sampler.sample() {
            got.insert(0, x);
            first = 1;
        }
    }
    let handle = std::thread::Builder::new().name("nines-context".into()).spawn(move || {
        if first == 1 && window_ns.is_none() {
            return;
        }
        let mut k = first;
        loop {
            let due = rec_start_ns.saturating_add(k.saturating_mul(window_ns.unwrap_or(0)));
            loop {
                let now = super::job::clock();
                if now >= due {
                    break;
                }
                match stop_rx.recv_timeout(std::time::Duration::from_nanos(due - now)) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
            if tx.send((k, s.sample())).is_err() || window_ns.is_none() {
                return;
            }
            k += 1;
        }
    })?;
    let thread = Thread { stop: Some(stop_tx), handle: Some(handle) };
    Ok((thread, Feed { sampler, rec_start_ns, window_ns, rx, got, prev: None, failed: None }))
}

/// The writer's side: the context of each window it writes, from the samples at its edges.
pub struct Feed {
    sampler: Sampler,
    rec_start_ns: u64,
    window_ns: Option<u64>,
    rx: std::sync::mpsc::Receiver<Edge>,
    got: std::collections::BTreeMap<u64, Sample>,
    /// The sample at the end of the last window, with that end: the next window's start.
    prev: Option<(u64, Sample)>,
    /// Why sampling stopped during the run (then no more context lines are written).
    pub failed: Option<String>,
}

impl Feed {
    /// The context of the window from `start_ns` to `end_ns` (on the run's clock): the
    /// sampling thread's samples at those edges when they are window edges, else (the last
    /// window, cut when the jobs stopped; windows counted in I/Os) a sample taken now, just
    /// after the window was closed. None once sampling has failed.
    pub fn window(&mut self, start_ns: u64, end_ns: u64) -> Option<WindowContext> {
        if self.failed.is_some() {
            return None;
        }
        let a = match self.prev.take() {
            Some((t, s)) if t == start_ns => s,
            _ => self.at(start_ns)?,
        };
        let b = self.at(end_ns)?;
        let c = Sample::context(&a, &b, start_ns.saturating_sub(self.rec_start_ns), end_ns.saturating_sub(self.rec_start_ns));
        self.prev = Some((end_ns, b));
        Some(c)
    }

    /// The index of the window edge at `t`, if it is one.
    fn edge(&self, t: u64) -> Option<u64> {
        let since = t.checked_sub(self.rec_start_ns)?;
        match self.window_ns {
            _ if since == 0 => Some(0),
            Some(w) if w > 0 && since % w == 0 => Some(since / w),
            _ => None,
        }
    }

    fn at(&mut self, t: u64) -> Option<Sample> {
        if let Some(k) = self.edge(t) {
            loop {
                if let Some(s) = self.got.remove(&k) {
                    // edges before this one are never asked for again
                    self.got = self.got.split_off(&k);
                    return Some(s);
                }
                match self.rx.recv() {
                    Ok((i, Ok(s))) => {
                        self.got.insert(i, s);
                    }
                    Ok((_, Err(e))) => {
                        self.failed = Some(e);
                        return None;
                    }
                    // the thread has ended (windows counted in I/Os): sample here
                    Err(_) => break,
                }
            }
        }
        match self.sampler.sample() {
            Ok(s) => Some(s),
            Err(e) => {
                self.failed = Some(e);
                None
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::*;

    const NA: &str = "device and host context is not available on this OS (it reads Linux's /proc and /sys)";

    pub fn sample(_devices: &[String]) -> Result<Sample, String> {
        Err(NA.into())
    }

    pub fn resolve_disks(_path: &Path) -> Result<Vec<String>, String> {
        Err(NA.into())
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::path::PathBuf;

    pub fn sample(devices: &[String]) -> Result<Sample, String> {
        let at = Instant::now();
        let text = fs::read_to_string("/proc/diskstats").map_err(|e| format!("/proc/diskstats: {e}"))?;
        let mut disks = Vec::new();
        for line in text.lines() {
            // only parse the lines of our devices: the name is the third field
            if line.split_whitespace().nth(2).is_some_and(|n| devices.iter().any(|d| d == n)) {
                disks.push(DiskCounters::parse(line).map_err(|e| e.to_string())?);
            }
        }
        let stat = fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
        let cpu = Some(CpuJiffies::parse_stat(&stat).map_err(|e| e.to_string())?);
        let pressure = |name: &str| -> Result<Option<Pressure>, String> {
            match fs::read_to_string(format!("/proc/pressure/{name}")) {
                Ok(t) => Pressure::parse(&t).map(Some).map_err(|e| e.to_string()),
                // absent (no PSI in this kernel) or refused (psi=0 gives EOPNOTSUPP on read)
                Err(_) => Ok(None),
            }
        };
        Ok(Sample { at, disks, cpu, io_pressure: pressure("io")?, cpu_pressure: pressure("cpu")?, self_cpu_us: self_cpu_us() })
    }

    /// getrusage(2) of the whole process (every thread), user + system, in microseconds.
    fn self_cpu_us() -> Option<u64> {
        // SAFETY: rusage is plain integers, all-zero a valid value; getrusage fills it in.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid out-pointer to a live rusage.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
            return None;
        }
        let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        Some(us(ru.ru_utime) + us(ru.ru_stime))
    }

    /// glibc's encoding of dev_t (sys/sysmacros.h `gnu_dev_major` / `gnu_dev_minor`).
    fn major_minor(dev: u64) -> (u64, u64) {
        (((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff), ((dev >> 12) & 0xffff_ff00) | (dev & 0xff))
    }

    /// The mountinfo line (proc(5)) of the mount whose device is `maj:min`: (fs type, source).
    fn mount_of(maj: u64, min: u64) -> Option<(String, String)> {
        let text = fs::read_to_string("/proc/self/mountinfo").ok()?;
        let want = format!("{maj}:{min}");
        text.lines().find_map(|l| {
            let mut f = l.split_whitespace();
            if f.nth(2)? != want {
                return None;
            }
            let (_, after) = l.split_once(" - ")?;
            let mut a = after.split_whitespace();
            Some((a.next()?.to_string(), a.next()?.to_string()))
        })
    }

    pub fn resolve_disks(path: &Path) -> Result<Vec<String>, String> {
        let md = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let dev = if md.file_type().is_block_device() { md.rdev() } else { md.dev() };
        let (mut maj, mut min) = major_minor(dev);
        let mut sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
        if !sys.exists() {
            // No block device behind st_dev: a virtual file system (tmpfs, overlay, NFS), or
            // one that hands out anonymous device numbers (btrfs), whose mount source may
            // still name the block device.
            let (fstype, source) = mount_of(maj, min)
                .ok_or_else(|| format!("no block device: {} is on device {maj}:{min}, not in /sys/dev/block", path.display()))?;
            let src_dev = (source.starts_with("/dev/"))
                .then(|| fs::metadata(&source).ok())
                .flatten()
                .filter(|m| m.file_type().is_block_device())
                .map(|m| major_minor(m.rdev()));
            match src_dev {
                Some((a, b)) if Path::new(&format!("/sys/dev/block/{a}:{b}")).exists() => {
                    (maj, min) = (a, b);
                    sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
                }
                _ => return Err(format!("no block device: the file system is {fstype} (mounted from {source:?})")),
            }
        }
        let mut out = Vec::new();
        under(&sys, &mut out, 0)?;
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Add the whole disks under the sysfs block device `sys` to `out`.
    fn under(sys: &Path, out: &mut Vec<String>, depth: usize) -> Result<(), String> {
        if depth > 16 {
            return Err(format!("{}: stacked more than 16 devices deep", sys.display()));
        }
        let real = fs::canonicalize(sys).map_err(|e| format!("{}: {e}", sys.display()))?;
        // a partition's sysfs directory sits inside its disk's and has a `partition` file
        let disk = if real.join("partition").exists() { real.parent().map(Path::to_path_buf).unwrap_or(real) } else { real };
        let slaves: Vec<PathBuf> =
            fs::read_dir(disk.join("slaves")).map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
        if slaves.is_empty() {
            let name = disk.file_name().and_then(|n| n.to_str()).ok_or_else(|| format!("{}: no device name", disk.display()))?;
            out.push(name.to_string());
            return Ok(());
        }
        for s in slaves {
            under(&s, out, depth + 1)?;
        }
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    fn diskstats_names() -> Vec<String> {
        std::fs::read_to_string("/proc/diskstats")
            .unwrap()
            .lines()
            .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
            .collect()
    }

    #[test]
    fn a_file_on_disk_resolves_to_disks_in_diskstats() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let names = diskstats_names();
        for p in [here.as_path(), Path::new("/tmp")] {
            match resolve_disks(p) {
                Ok(disks) => {
                    println!("{} -> {disks:?}", p.display());
                    assert!(!disks.is_empty());
                    for d in &disks {
                        assert!(names.contains(d), "{d} not in /proc/diskstats");
                    }
                }
                // a machine whose /tmp or checkout is on tmpfs or overlay: the error says why
                Err(e) => {
                    println!("{} -> {e}", p.display());
                    assert!(e.starts_with("no block device"), "{e}");
                }
            }
        }
    }

    #[test]
    fn tmpfs_has_no_block_device() {
        let shm = Path::new("/dev/shm");
        if !shm.exists() {
            return;
        }
        let e = resolve_disks(shm).unwrap_err();
        println!("{e}");
        assert!(e.contains("no block device: the file system is tmpfs"), "{e}");
    }

    #[test]
    fn writing_64_mib_raises_the_write_count() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("target");
        std::fs::create_dir_all(&dir).unwrap();
        let Ok(sampler) = Sampler::for_path(&dir) else {
            println!("target dir is not on a block device: nothing to measure");
            return;
        };
        let path = dir.join(format!("context-test-{}.tmp", std::process::id()));
        let a = sampler.sample().unwrap();
        {
            let mut f = std::fs::File::create(&path).unwrap();
            let chunk = vec![0x5au8; 1 << 20];
            for _ in 0..64 {
                f.write_all(&chunk).unwrap();
            }
            f.sync_all().unwrap();
        }
        let b = sampler.sample().unwrap();
        std::fs::remove_file(&path).unwrap();
        let ctx = Sample::context(&a, &b, 0, b.at.duration_since(a.at).as_nanos() as u64);
        println!("{}", ctx.to_line());
        let wa: u64 = a.disks.iter().map(|d| d.writes).sum();
        let wb: u64 = b.disks.iter().map(|d| d.writes).sum();
        let sa: u64 = a.disks.iter().map(|d| d.sectors_written).sum();
        let sb: u64 = b.disks.iter().map(|d| d.sectors_written).sum();
        assert!(wb > wa, "writes {wa} -> {wb}");
        // 64 MiB = 131072 sectors reached the disk (other writers only add)
        assert!(sb - sa >= 131072, "sectors written {sa} -> {sb}");
        let disk = ctx.disk.unwrap();
        assert!(disk.w_s > 0.0 && disk.wkb_s > 0.0, "{disk:?}");
        assert!(ctx.cpu.is_some());
    }
}
