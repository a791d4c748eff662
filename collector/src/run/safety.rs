//! The target: resolving it, the data-safety rules, laying out new files, and what the
//! metadata says about it.
//!
//! Rules (checked on the real path after resolving symlinks):
//! - a file that does not exist is created, marked as nines' own (extended attribute
//!   `user.nines.created`) and filled with written data before any I/O, so reads never hit
//!   holes;
//! - writes to an existing file nines did not create need `--overwrite`;
//! - writes to a block device need `--destroy-data PATH` naming that device; a mounted or
//!   otherwise busy device is always refused; one holding a partition table or filesystem
//!   signature needs `--ignore-signatures` as well;
//! - trims (--rw trim, randtrim) destroy data exactly like writes and are under every rule
//!   for writes (`Workload::writes` is true for them); a block device must also support
//!   discard;
//! - read-only runs need none of this.
//!
//! The target is opened once, and that descriptor is what every check looks at and what
//! the layout writes through; the descriptors the run does its I/O with are opened again
//! from it (`/proc/self/fd/N`, the same inode whatever has happened to the path since) and
//! proven to be the same device and inode. The resolved path is opened with no symbolic link
//! allowed in any component (openat2's `RESOLVE_NO_SYMLINKS`, Linux 5.6; `O_NOFOLLOW` on the
//! last component where openat2 is missing), new files exclusively (`O_CREAT|O_EXCL`). So
//! another local user who can write the target's directory and renames the file or plants
//! a link in its place while nines lays it out gets nothing written through the link: the
//! run stops with an error saying the target was replaced.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use nines_core::meta;
use nines_core::units::format_size;
use rand::{RngCore, SeedableRng};
use serde_json::{json, Map, Value};

use super::workload::Workload;
use crate::cli::run::RunArgs;

const XATTR: &[u8] = b"user.nines.created\0";

/// The target, ready for I/O.
pub struct Target {
    /// Open for the run (read-only or read-write, O_DIRECT unless --buffered).
    pub file: File,
    /// Bytes used, from offset 0.
    pub region: u64,
    pub meta: meta::Target,
    pub real: PathBuf,
    /// A block device (trims are discards), not a regular file (trims punch holes).
    pub block: bool,
}

/// Resolve symlinks. A path that does not exist resolves through its parent directory.
pub fn resolve(path: &Path) -> Result<(PathBuf, bool)> {
    match std::fs::canonicalize(path) {
        Ok(p) => Ok((p, true)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => {
                    let to = std::fs::read_link(path).map(|p| p.display().to_string()).unwrap_or_default();
                    bail!("'{}' is a symlink to '{to}', which does not exist; nines will not create a file through a dangling symlink (give the real path instead)", path.display());
                }
                // created by another process between the two looks: resolved as it is now
                Ok(_) => {
                    return std::fs::canonicalize(path)
                        .map(|p| (p, true))
                        .with_context(|| format!("could not resolve '{}'", path.display()))
                }
                Err(_) => {}
            }
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name = path.file_name().ok_or_else(|| anyhow!("'{}' does not name a file", path.display()))?;
            let dir =
                std::fs::canonicalize(parent).with_context(|| format!("directory '{}' of the target does not exist", parent.display()))?;
            Ok((dir.join(name), false))
        }
        Err(e) => Err(e).with_context(|| format!("could not resolve '{}'", path.display())),
    }
}

fn shown(path: &Path, real: &Path) -> String {
    if path == real {
        format!("'{}'", real.display())
    } else {
        format!("'{}' (resolved from '{}')", real.display(), path.display())
    }
}

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

/// Check the rules, create and lay out the target if needed, and open it.
pub fn prepare(a: &RunArgs, w: &Workload, quiet: bool) -> Result<Target> {
    let (real, exists) = resolve(&a.target)?;
    let writes = w.writes() || w.fsync_every.is_some();
    let who = shown(&a.target, &real);
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

/// Bytes the file system of `f` gives an unprivileged writer (statvfs f_bavail).
fn free_bytes(f: &File) -> Option<u64> {
    // SAFETY: valid fd and out-pointer.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstatvfs(f.as_raw_fd(), &mut s) } == 0).then(|| (s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

/// Fill `[from, to)` with pseudo-random data (no holes, nothing a drive could compress or
/// deduplicate), then make it durable. Refused up front when the file system has too little
/// free space for what is not allocated yet.
fn layout(f: &File, from: u64, to: u64, quiet: bool, who: &str) -> Result<()> {
    let allocated = f.metadata().map(|m| m.blocks() * 512).unwrap_or(0);
    let need = if from == 0 { to.saturating_sub(allocated) } else { to - from };
    if let Some(free) = free_bytes(f) {
        if need > free {
            bail!(
                "laying out {} of {who} needs {} more on its file system, which has {} free; give a smaller --size or free some space",
                nines_core::units::format_approx(to - from),
                nines_core::units::format_approx(need),
                nines_core::units::format_approx(free)
            );
        }
    }
    if !quiet {
        crate::diag!("nines: laying out {} of {who} with data", format_size(to - from));
    }
    let mut rng = rand::rngs::SmallRng::seed_from_u64(from ^ 0x006e_696e_6573);
    let mut chunk = vec![0u8; 1 << 20];
    use std::io::Seek;
    let mut wr = f;
    wr.seek(std::io::SeekFrom::Start(from))?;
    let mut left = to - from;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        rng.fill_bytes(&mut chunk[..n]);
        wr.write_all(&chunk[..n]).with_context(|| format!("could not lay out {who} (disk full?)"))?;
        left -= n as u64;
    }
    f.sync_all().with_context(|| format!("could not sync {who}"))?;
    Ok(())
}

fn first_hole(f: &File) -> Option<u64> {
    // SAFETY: valid fd.
    let r = unsafe { libc::lseek(f.as_raw_fd(), 0, libc::SEEK_HOLE) };
    (r >= 0).then_some(r as u64)
}

#[allow(clippy::too_many_arguments)]
fn existing_file(
    a: &RunArgs,
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

/// A partition table or filesystem signature in the first MiB, if any.
pub fn signature(head: &[u8]) -> Option<&'static str> {
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        return Some("a GPT partition table");
    }
    if at(1080, &[0x53, 0xef]) {
        return Some("an ext2/ext3/ext4 filesystem");
    }
    if at(0, b"XFSB") {
        return Some("an XFS filesystem");
    }
    if at(65600, b"_BHRfS_M") {
        return Some("a btrfs filesystem");
    }
    if at(0, b"LUKS\xba\xbe") {
        return Some("a LUKS encrypted volume");
    }
    if at(512, b"LABELONE") || at(536, b"LABELONE") {
        return Some("an LVM physical volume");
    }
    if at(4096, &[0xfc, 0x4e, 0x2b, 0xa9]) {
        return Some("an md RAID member");
    }
    if at(4086, b"SWAPSPACE2") || at(4086, b"SWAP-SPACE") {
        return Some("a swap area");
    }
    if at(1024, &[0x10, 0x20, 0xf5, 0xf2]) {
        return Some("an F2FS filesystem");
    }
    if at(3, b"NTFS    ") {
        return Some("an NTFS filesystem");
    }
    if at(32769, b"CD001") {
        return Some("an ISO 9660 filesystem");
    }
    if at(510, &[0x55, 0xaa]) {
        return Some("an MBR partition table or FAT boot sector");
    }
    None
}

fn block_device(a: &RunArgs, w: &Workload, probe: File, real: &Path, md: &std::fs::Metadata, writes: bool, who: &str) -> Result<Target> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        let mut h = vec![0u8; 70_000];
        assert_eq!(signature(&h), None);
        h[1080] = 0x53;
        h[1081] = 0xef;
        assert_eq!(signature(&h), Some("an ext2/ext3/ext4 filesystem"));
        let mut h = vec![0u8; 70_000];
        h[512..520].copy_from_slice(b"EFI PART");
        h[510] = 0x55;
        h[511] = 0xaa;
        assert_eq!(signature(&h), Some("a GPT partition table"));
        let mut h = vec![0u8; 4096];
        h[510] = 0x55;
        h[511] = 0xaa;
        assert_eq!(signature(&h), Some("an MBR partition table or FAT boot sector"));
        assert_eq!(signature(b"XFSB"), Some("an XFS filesystem"));
        assert_eq!(signature(&[]), None);
    }

    #[test]
    fn resolves_symlinks_and_new_paths() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::write(&real, b"x").unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let (r, exists) = resolve(&link).unwrap();
        assert!(exists);
        assert_eq!(r, std::fs::canonicalize(&real).unwrap());
        let (r, exists) = resolve(&d.path().join("new")).unwrap();
        assert!(!exists);
        assert_eq!(r.file_name().unwrap(), "new");
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
        assert!(resolve(&dangling).unwrap_err().to_string().contains("dangling"));
    }
}
