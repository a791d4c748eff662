//! The data-safety rules on Linux (the parent module says which): openat2, O_DIRECT, the
//! `user.nines.created` extended attribute, block devices (BLKGETSIZE64, sysfs, mountinfo,
//! swaps, holders).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use nines_core::meta;
use nines_core::units::format_size;
use serde_json::{json, Map, Value};

use super::{layout, resolve, shown, signature, Target};
use crate::run::config::RunConfig;
use crate::run::workload::Workload;

const XATTR: &[u8] = b"user.nines.created\0";

fn open_flags(w: &Workload) -> i32 {
    let mut f = 0;
    if w.direct {
        f |= libc::O_DIRECT;
    }
    if w.sync {
        f |= libc::O_SYNC;
    }
    f
}

/// Open the resolved path `real` with `flags` (plus `O_CLOEXEC`) and `mode` for a new file,
/// following no symbolic link in any component: `real` was resolved already, so a link met
/// now was planted since (openat2(2) `RESOLVE_NO_SYMLINKS`; where the kernel lacks openat2,
/// `O_NOFOLLOW`, which guards the last component).
fn open_no_links(real: &Path, flags: i32, mode: u32) -> std::io::Result<File> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(real.as_os_str().as_bytes()).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: open_how is plain data; zeroed is its documented initial state.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    how.mode = if flags & libc::O_CREAT != 0 { u64::from(mode) } else { 0 };
    how.resolve = libc::RESOLVE_NO_SYMLINKS;
    // SAFETY: a NUL-terminated path, an open_how of the size passed.
    let fd = unsafe {
        libc::syscall(libc::SYS_openat2, libc::AT_FDCWD, c.as_ptr(), &how as *const libc::open_how, std::mem::size_of::<libc::open_how>())
    };
    if fd >= 0 {
        // SAFETY: a descriptor the kernel just gave us, owned by nothing else.
        return Ok(unsafe { File::from_raw_fd(fd as i32) });
    }
    let e = std::io::Error::last_os_error();
    if !matches!(e.raw_os_error(), Some(libc::ENOSYS) | Some(libc::EPERM)) {
        return Err(e);
    }
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC | libc::O_NOFOLLOW, mode as libc::c_uint) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Explain an error of opening the target.
fn open_error(e: std::io::Error, real: &Path, w: &Workload, what: &str) -> anyhow::Error {
    match e.raw_os_error() {
        Some(libc::EINVAL) if w.direct => anyhow!(
            "could not open '{}' with O_DIRECT: the filesystem does not support it (tmpfs does not); pass --buffered",
            real.display()
        ),
        Some(libc::EBUSY) => anyhow!(
            "'{}' is in use (mounted, used as swap, or held by another device or program); nines will not write to it and no flag overrides this",
            real.display()
        ),
        Some(libc::ELOOP) | Some(libc::EXDEV) => anyhow!(
            "could not {what} '{}': a symbolic link now stands in its path, which was resolved without one a moment before; \
             another process changed it, and nines will not follow it (check who can write that directory)",
            real.display()
        ),
        _ => anyhow::Error::new(e).context(format!("could not {what} '{}'", real.display())),
    }
}

/// The device and inode of an open file.
fn identity(f: &File) -> std::io::Result<(u64, u64)> {
    f.metadata().map(|m| (m.dev(), m.ino()))
}

/// Open the file `f` again, with the run's flags, through `/proc/self/fd` (the same inode,
/// whatever has happened to its path since), and prove it is the same device and inode.
/// Where /proc is not mounted the resolved path is opened without links and checked alike.
fn reopen(f: &File, real: &Path, w: &Workload, write: bool, exclusive: bool) -> Result<File> {
    let want = identity(f).with_context(|| format!("could not stat '{}'", real.display()))?;
    let mut flags = open_flags(w) | if write { libc::O_RDWR } else { libc::O_RDONLY };
    if exclusive {
        flags |= libc::O_EXCL;
    }
    let proc_path = PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd()));
    let mut o = OpenOptions::new();
    o.read(true).write(write).custom_flags(flags & !(libc::O_RDWR | libc::O_RDONLY) | libc::O_CLOEXEC);
    let g = match o.open(&proc_path) {
        Ok(g) => g,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => open_no_links(real, flags, 0).map_err(|e| open_error(e, real, w, "open"))?,
        Err(e) => return Err(open_error(e, real, w, "open")),
    };
    let got = identity(&g).with_context(|| format!("could not stat '{}'", real.display()))?;
    if got != want {
        bail!(
            "'{}' is no longer the file nines checked (device and inode changed); another process replaced it, and the run stops",
            real.display()
        );
    }
    Ok(g)
}

/// An error unless `real` still names the file `f` is open on: a target renamed away, or
/// replaced by a link or another file while nines laid it out, stops the run before its I/O.
fn still_there(real: &Path, f: &File) -> Result<()> {
    let want = identity(f).with_context(|| format!("could not stat '{}'", real.display()))?;
    match std::fs::symlink_metadata(real) {
        Ok(m) if (m.dev(), m.ino()) == want => Ok(()),
        Ok(m) => bail!(
            "'{}' was replaced by {} while nines prepared it; another process changed the target's directory, so nines stops \
             before any I/O (it writes only through the file it opened, never through a link; check who can write that directory)",
            real.display(),
            if m.file_type().is_symlink() { "a symbolic link" } else { "another file" }
        ),
        Err(_) => bail!(
            "'{}' was renamed or removed while nines prepared it; another process changed the target's directory, so nines stops before any I/O",
            real.display()
        ),
    }
}

/// Check the rules for `target` (with `a`'s --destroy-data, --overwrite and
/// --ignore-signatures), create and lay it out if needed, and open it.
pub fn prepare(target: &Path, a: &RunConfig, w: &Workload, quiet: bool) -> Result<Target> {
    let (real, exists) = resolve(target)?;
    let writes = w.writes() || w.fsync_every.is_some();
    let who = shown(target, &real);
    if !exists {
        if a.destroy_data.is_some() {
            bail!("--destroy-data is for block devices, and {who} does not exist");
        }
        return create_file(&real, w, quiet, &who);
    }
    // One descriptor for every check: what is checked is what gets written. Non-blocking, so
    // a FIFO planted as the target does not hang the open.
    let probe = open_no_links(&real, libc::O_RDONLY | libc::O_NONBLOCK, 0).map_err(|e| open_error(e, &real, w, "open"))?;
    let md = probe.metadata().with_context(|| format!("could not stat {who}"))?;
    let ft = md.file_type();
    if ft.is_dir() {
        bail!("{who} is a directory; give a file (which nines will create) or a block device");
    }
    let t = if ft.is_block_device() {
        block_device(a, w, probe, &real, &md, writes, &who)?
    } else if ft.is_file() {
        if a.destroy_data.is_some() {
            bail!("--destroy-data is for block devices and {who} is a regular file; to write to an existing file use --overwrite");
        }
        existing_file(a, w, probe, &real, &md, writes, quiet, &who)?
    } else {
        bail!("{who} is neither a regular file nor a block device");
    };
    still_there(&real, &t.file)?;
    Ok(t)
}

fn is_ours(f: &File) -> bool {
    let mut v = [0u8; 8];
    // SAFETY: valid fd, NUL-terminated name, buffer of the given length.
    let n = unsafe { libc::fgetxattr(f.as_raw_fd(), XATTR.as_ptr().cast(), v.as_mut_ptr().cast(), v.len()) };
    n > 0
}

fn mark_ours(f: &File) -> bool {
    // SAFETY: valid fd, NUL-terminated name, one-byte value.
    unsafe { libc::fsetxattr(f.as_raw_fd(), XATTR.as_ptr().cast(), b"1".as_ptr().cast(), 1, 0) == 0 }
}

fn create_file(real: &Path, w: &Workload, quiet: bool, who: &str) -> Result<Target> {
    let size = w.size.ok_or_else(|| anyhow!("{who} does not exist; give --size so nines can create it with that much data"))?;
    // exclusively (O_EXCL: neither an existing file nor a planted link is opened), mode 0666
    // less the umask as every Unix tool creates files
    let f = open_no_links(real, libc::O_RDWR | libc::O_CREAT | libc::O_EXCL, 0o666).map_err(|e| open_error(e, real, w, "create"))?;
    let marked = mark_ours(&f);
    if let Err(e) = layout(&f, 0, size, quiet, who) {
        // nothing of the file is worth keeping: remove it, so a full disk is not left full
        let written = f.metadata().map_or(0, |m| m.len());
        // only the file nines created: not whatever another process put at the path since
        let ours = std::fs::symlink_metadata(real).is_ok_and(|m| identity(&f).is_ok_and(|id| id == (m.dev(), m.ino())));
        drop(f);
        if ours {
            let _ = std::fs::remove_file(real);
        }
        return Err(if written > 0 && ours { e.context(format!("{who} was removed again")) } else { e });
    }
    let file = reopen(&f, real, w, w.writes() || w.fsync_every.is_some(), false)?;
    still_there(real, &file)?;
    let dev = f.metadata().map(|m| m.dev()).ok();
    drop(f);
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(size),
        region_bytes: Some(size),
        created_by_nines: Some(true),
        marked: Some(marked),
        device: dev.map(device_meta),
        ..meta::Target::default()
    };
    Ok(Target { file, region: size, meta, real: real.to_path_buf(), block: false })
}

fn first_hole(f: &File) -> Option<u64> {
    // SAFETY: valid fd.
    let r = unsafe { libc::lseek(f.as_raw_fd(), 0, libc::SEEK_HOLE) };
    (r >= 0).then_some(r as u64)
}

#[allow(clippy::too_many_arguments)]
fn existing_file(
    a: &RunConfig,
    w: &Workload,
    probe: File,
    real: &Path,
    md: &std::fs::Metadata,
    writes: bool,
    quiet: bool,
    who: &str,
) -> Result<Target> {
    let ours = is_ours(&probe);
    if writes && !ours && !a.overwrite {
        bail!(
            "{who} is an existing file that nines did not create; this workload writes to it and would destroy its contents. \
             Pass --overwrite to allow that, or give a path that does not exist (nines creates and lays it out)"
        );
    }
    let len = md.len();
    let region = w.size.unwrap_or(len);
    if region < w.max_bs as u64 {
        bail!(
            "{who} holds {} bytes, less than one block of {}; give --size to make nines extend it{}",
            len,
            format_size(w.max_bs as u64),
            if ours { "" } else { " (with --overwrite)" }
        );
    }
    let mut laid_out = false;
    if region > len || first_hole(&probe).is_some_and(|h| h < region) {
        if ours || a.overwrite {
            let f = reopen(&probe, real, &Workload { direct: false, sync: false, ..w.clone() }, true, false)?;
            let from = if region > len && first_hole(&f).is_some_and(|h| h >= len) { len } else { 0 };
            if let Err(e) = layout(&f, from, region, quiet, who) {
                // give back what the failed layout added beyond the file's old end
                let now = f.metadata().map_or(len, |m| m.len());
                if now > len && f.set_len(len).is_ok() {
                    return Err(e.context(format!("{who} was cut back to its former {len} bytes")));
                }
                return Err(e);
            }
            laid_out = true;
        } else if region > len {
            bail!(
                "--size {} is larger than {who} ({}); nines will not extend a file it did not create without --overwrite",
                format_size(region),
                format_size(len)
            );
        } else if !quiet {
            crate::diag!("nines: warning: {who} has holes within the region; reads of holes return zeros without touching the device, so they measure nothing. Fill the file first (or let nines create one)");
        }
    }
    let file = reopen(&probe, real, w, writes, false)?;
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(len.max(region)),
        region_bytes: Some(region),
        created_by_nines: Some(ours),
        laid_out_now: Some(laid_out),
        device: Some(device_meta(md.dev())),
        ..meta::Target::default()
    };
    Ok(Target { file, region, meta, real: real.to_path_buf(), block: false })
}

fn blk_size(f: &File) -> Result<u64> {
    let mut size: u64 = 0;
    // BLKGETSIZE64 = _IOR(0x12, 114, size_t)
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    // SAFETY: valid fd and a u64 out-pointer, as the ioctl expects.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &mut size) };
    if r != 0 {
        return Err(std::io::Error::last_os_error()).context("could not read the device size");
    }
    Ok(size)
}

fn sysfs_dir(rdev: u64) -> PathBuf {
    PathBuf::from(format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev)))
}

fn read_trim(p: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Device numbers ("maj:min") of a device and of its partitions.
fn with_partitions(rdev: u64) -> Vec<String> {
    let mut out = vec![format!("{}:{}", libc::major(rdev), libc::minor(rdev))];
    if let Ok(rd) = std::fs::read_dir(sysfs_dir(rdev)) {
        for e in rd.flatten() {
            let p = e.path();
            if p.join("partition").exists() {
                if let Some(d) = read_trim(p.join("dev")) {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// Why a device is in use, if it is: mounted (it or a partition), swap, or held by another
/// block device (device mapper, md, bcache...).
fn in_use(real: &Path, rdev: u64) -> Option<String> {
    let devs = with_partitions(rdev);
    if let Ok(mi) = std::fs::read_to_string("/proc/self/mountinfo") {
        for line in mi.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() > 4 && devs.iter().any(|d| d == f[2]) {
                return Some(format!("mounted at {} (device {})", f[4], f[2]));
            }
        }
    }
    if let Ok(sw) = std::fs::read_to_string("/proc/swaps") {
        for line in sw.lines().skip(1) {
            if let Some(p) = line.split_whitespace().next() {
                if let Ok(m) = std::fs::metadata(p) {
                    if m.file_type().is_block_device() && devs.contains(&format!("{}:{}", libc::major(m.rdev()), libc::minor(m.rdev()))) {
                        return Some(format!("used as swap ({p})"));
                    }
                }
            }
        }
    }
    for d in &devs {
        let holders = PathBuf::from(format!("/sys/dev/block/{d}/holders"));
        if let Ok(rd) = std::fs::read_dir(&holders) {
            let names: Vec<String> = rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
            if !names.is_empty() {
                return Some(format!("held by {} (device {d})", names.join(", ")));
            }
        }
    }
    let _ = real;
    None
}

fn block_device(a: &RunConfig, w: &Workload, probe: File, real: &Path, md: &std::fs::Metadata, writes: bool, who: &str) -> Result<Target> {
    let rdev = md.rdev();
    let size = blk_size(&probe)?;
    let region = w.size.unwrap_or(size);
    if region > size {
        bail!("--size {} is larger than the device {who} ({})", format_size(region), format_size(size));
    }
    if region < w.max_bs as u64 {
        bail!("device {who} is {} bytes, less than one block of {}", size, format_size(w.max_bs as u64));
    }
    if w.direct {
        let lbs: u64 = read_trim(sysfs_dir(rdev).join("queue/logical_block_size"))
            .or_else(|| read_trim(sysfs_dir(rdev).join("../queue/logical_block_size")))
            .and_then(|s| s.parse().ok())
            .unwrap_or(512);
        if let Some((b, _)) = w.bs.iter().find(|(b, _)| !(*b as u64).is_multiple_of(lbs)) {
            bail!("block size {b} is not a multiple of {who}'s logical block size ({lbs} bytes), which O_DIRECT needs; use a multiple of {lbs} or pass --buffered");
        }
    }
    let mut sig = None;
    if writes {
        match &a.destroy_data {
            None => bail!(
                "{who} is a block device and this workload writes to it, destroying the data on it. \
                 If that is what you want, pass --destroy-data {} (naming the same device)",
                real.display()
            ),
            Some(d) => {
                let (dreal, _) = resolve(d)?;
                // the same device node: compared by device number, as the opened target is
                let same = std::fs::metadata(&dreal).is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev);
                if dreal != real || !same {
                    bail!("--destroy-data names '{}' but the target is {who}; they must name the same device", dreal.display());
                }
            }
        }
        if let Some(why) = in_use(real, rdev) {
            bail!("{who} is {why}; nines never writes to a device in use and no flag overrides this (unmount or release it first)");
        }
        let mut head = vec![0u8; (1usize << 20).min(size as usize)];
        use std::os::unix::fs::FileExt;
        let n = probe.read_at(&mut head, 0).with_context(|| format!("could not read the start of {who}"))?;
        head.truncate(n);
        sig = signature(&head);
        if let Some(s) = sig {
            if !a.ignore_signatures {
                bail!(
                    "{who} holds {s}; nines will not write over it. If its data is not needed, pass --ignore-signatures \
                     as well as --destroy-data (or erase it first with `wipefs -a {}`)",
                    real.display()
                );
            }
        }
    }
    if w.trim {
        let max = read_trim(sysfs_dir(rdev).join("queue/discard_max_bytes"))
            .or_else(|| read_trim(sysfs_dir(rdev).join("../queue/discard_max_bytes")))
            .and_then(|s| s.parse::<u64>().ok());
        if max == Some(0) {
            bail!(
                "{who} does not support discard (its queue/discard_max_bytes is 0), so --rw {} cannot run on it",
                if w.rw.random() { "randtrim" } else { "trim" }
            );
        }
    }
    let file = reopen(&probe, real, w, writes, writes)?;
    drop(probe);
    // the device's facts at the top level of `target` (they describe the target itself)
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("block".into()),
        size_bytes: Some(size),
        region_bytes: Some(region),
        overwritten_signature: sig.map(String::from),
        other: device_meta(rdev),
        ..meta::Target::default()
    };
    Ok(Target { file, region, meta, real: real.to_path_buf(), block: true })
}

/// Model, firmware and queue facts of a block device from sysfs (of the whole disk for a
/// partition).
pub fn device_meta(rdev: u64) -> Map<String, Value> {
    let dir = sysfs_dir(rdev);
    let mut m = Map::new();
    m.insert("dev".into(), json!(format!("{}:{}", libc::major(rdev), libc::minor(rdev))));
    let canon = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
    let disk =
        if canon.join("partition").exists() { canon.parent().map(Path::to_path_buf).unwrap_or(canon.clone()) } else { canon.clone() };
    if let Some(n) = disk.file_name() {
        m.insert("name".into(), json!(n.to_string_lossy()));
    }
    let facts = [
        ("model", "device/model"),
        ("vendor", "device/vendor"),
        ("firmware", "device/firmware_rev"),
        ("firmware", "device/rev"),
        ("serial", "device/serial"),
        ("wwid", "wwid"),
        ("write_cache", "queue/write_cache"),
        ("rotational", "queue/rotational"),
        ("logical_block_size", "queue/logical_block_size"),
        ("physical_block_size", "queue/physical_block_size"),
        ("scheduler", "queue/scheduler"),
        ("backing_file", "loop/backing_file"),
    ];
    for (k, p) in facts {
        if m.contains_key(k) {
            continue;
        }
        if let Some(v) = read_trim(disk.join(p)) {
            m.insert(k.into(), json!(v));
        }
    }
    m
}
