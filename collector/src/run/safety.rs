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
//!
//! That is Linux (`safety/linux.rs`). Other systems (`safety/portable.rs`) keep the rules for
//! files, with the most conservative portable equivalent of each check, and refuse every
//! target that is not a regular file (block devices, `\\.\PhysicalDrive0`, `/dev/disk2`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use nines_core::meta;
use nines_core::units::format_size;
use rand::{RngCore, SeedableRng};

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{device_meta, prepare};
#[cfg(not(target_os = "linux"))]
mod portable;
#[cfg(not(target_os = "linux"))]
pub use portable::prepare;

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

/// Bytes the file system of `f` gives an unprivileged writer (statvfs f_bavail).
#[cfg(unix)]
fn free_bytes(f: &File) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: valid fd and out-pointer.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstatvfs(f.as_raw_fd(), &mut s) } == 0).then(|| (s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

/// Not known on Windows here: a layout larger than the free space fails on its first write
/// that does not fit, and the new file is removed again.
#[cfg(not(unix))]
fn free_bytes(_f: &File) -> Option<u64> {
    None
}

/// Bytes allocated to `f` (st_blocks is in 512-byte units); 0 where not known (Windows), so
/// the whole layout is counted as needed.
fn allocated(f: &File) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        f.metadata().map(|m| m.blocks() * 512).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        let _ = f;
        0
    }
}

/// Fill `[from, to)` with pseudo-random data (no holes, nothing a drive could compress or
/// deduplicate), then make it durable. Refused up front when the file system has too little
/// free space for what is not allocated yet.
fn layout(f: &File, from: u64, to: u64, quiet: bool, who: &str) -> Result<()> {
    let need = if from == 0 { to.saturating_sub(allocated(f)) } else { to - from };
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

#[cfg(all(test, unix))]
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
