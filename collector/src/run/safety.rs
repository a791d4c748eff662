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

fn open_for_io(real: &Path, w: &Workload, exclusive: bool) -> Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(w.writes() || w.fsync_every.is_some());
    let mut flags = open_flags(w);
    if exclusive {
        flags |= libc::O_EXCL;
    }
    o.custom_flags(flags);
    o.open(real).map_err(|e| match e.raw_os_error() {
        Some(libc::EINVAL) if w.direct => anyhow!(
            "could not open '{}' with O_DIRECT: the filesystem does not support it (tmpfs does not); pass --buffered",
            real.display()
        ),
        Some(libc::EBUSY) => anyhow!(
            "'{}' is in use (mounted, used as swap, or held by another device or program); nines will not write to it and no flag overrides this",
            real.display()
        ),
        _ => anyhow::Error::new(e).context(format!("could not open '{}'", real.display())),
    })
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
    let md = std::fs::metadata(&real).with_context(|| format!("could not stat {who}"))?;
    let ft = md.file_type();
    if ft.is_dir() {
        bail!("{who} is a directory; give a file (which nines will create) or a block device");
    }
    if ft.is_block_device() {
        return block_device(a, w, &real, &md, writes, &who);
    }
    if !ft.is_file() {
        bail!("{who} is neither a regular file nor a block device");
    }
    if a.destroy_data.is_some() {
        bail!("--destroy-data is for block devices and {who} is a regular file; to write to an existing file use --overwrite");
    }
    existing_file(a, w, &real, &md, writes, quiet, &who)
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
    let f = OpenOptions::new().read(true).write(true).create_new(true).open(real).with_context(|| format!("could not create {who}"))?;
    let marked = mark_ours(&f);
    if let Err(e) = layout(&f, 0, size, quiet, who) {
        // nothing of the file is worth keeping: remove it, so a full disk is not left full
        let written = f.metadata().map_or(0, |m| m.len());
        drop(f);
        let _ = std::fs::remove_file(real);
        return Err(if written > 0 { e.context(format!("{who} was removed again")) } else { e });
    }
    drop(f);
    let file = open_for_io(real, w, false)?;
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(size),
        region_bytes: Some(size),
        created_by_nines: Some(true),
        marked: Some(marked),
        device: fs_device_meta(real),
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
        eprintln!("nines: laying out {} of {who} with data", format_size(to - from));
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

fn existing_file(a: &RunArgs, w: &Workload, real: &Path, md: &std::fs::Metadata, writes: bool, quiet: bool, who: &str) -> Result<Target> {
    let probe = File::open(real).with_context(|| format!("could not open {who}"))?;
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
            drop(probe);
            let f = OpenOptions::new().write(true).open(real).with_context(|| format!("could not open {who}"))?;
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
            eprintln!("nines: warning: {who} has holes within the region; reads of holes return zeros without touching the device, so they measure nothing. Fill the file first (or let nines create one)");
        }
    }
    let file = open_for_io(real, w, false)?;
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(len.max(region)),
        region_bytes: Some(region),
        created_by_nines: Some(ours),
        laid_out_now: Some(laid_out),
        device: fs_device_meta(real),
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

fn block_device(a: &RunArgs, w: &Workload, real: &Path, md: &std::fs::Metadata, writes: bool, who: &str) -> Result<Target> {
    let rdev = md.rdev();
    let probe = File::open(real).with_context(|| format!("could not open {who}"))?;
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
                if dreal != real {
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
    drop(probe);
    let file = open_for_io(real, w, writes)?;
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

/// The block device a file lives on, if it is one.
fn fs_device_meta(real: &Path) -> Option<Map<String, Value>> {
    match std::fs::metadata(real) {
        Ok(md) => Some(device_meta(md.dev())),
        Err(_) => None,
    }
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
