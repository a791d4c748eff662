//! The data-safety rules where nines is not on Linux (macOS, Windows, the BSDs): the same
//! rules for files, each check by its most conservative portable equivalent, and no target
//! but a regular file. What is weaker than on Linux (`linux.rs`), and what stands in:
//!
//! - Symbolic links: the resolved path is opened without following a link in its last
//!   component (`O_NOFOLLOW` on Unix; `FILE_FLAG_OPEN_REPARSE_POINT` on Windows, which opens a
//!   link itself, refused then as not a regular file), but a link planted in an earlier
//!   component since the path was resolved is followed (Linux refuses it with openat2's
//!   `RESOLVE_NO_SYMLINKS`). Every file opened is checked to be the one the path names (its
//!   identity: device and inode, or volume and file index) before its layout and before the
//!   run, so a target swapped meanwhile stops the run before any I/O, as on Linux.
//! - Reopening: the run's handle is opened by path again, not through `/proc/self/fd`, and
//!   proven to be the same file as the one checked.
//! - New files are created exclusively (`create_new`: O_CREAT|O_EXCL, CREATE_NEW) and marked
//!   as nines' own with the extended attribute `user.nines.created` on macOS (fsetxattr(2));
//!   elsewhere there is no mark, so any existing file needs `--overwrite` for writes.
//! - Holes in an existing file are not looked for (Linux's SEEK_HOLE); a file nines did not
//!   create is read as it is.
//! - Direct I/O (the default; `--buffered` turns it off): `fcntl(F_NOCACHE)` on macOS and
//!   `FILE_FLAG_NO_BUFFERING` on Windows, as fio does for `direct=1` there (fio's HOWTO,
//!   `direct`); refused on other systems. `--sync`: `O_SYNC` on Unix,
//!   `FILE_FLAG_WRITE_THROUGH` on Windows.
//! - Block devices and raw disks (`/dev/disk2`, `\\.\PhysicalDrive0`) are refused whatever
//!   the flags: the checks that make writing to one safe (mounted, in use, signatures) are
//!   Linux's.

use std::fs::{File, OpenOptions};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use nines_core::meta;
use nines_core::units::format_size;

use super::{layout, resolve, shown, Target};
use crate::run::config::RunConfig;
use crate::run::workload::Workload;
use crate::sys;

const OS: &str = std::env::consts::OS;

/// Check the rules for `target` (with `a`'s --destroy-data, --overwrite and
/// --ignore-signatures), create and lay it out if needed, and open it.
pub fn prepare(target: &Path, a: &RunConfig, w: &Workload, quiet: bool) -> Result<Target> {
    let (real, exists) = resolve(target)?;
    let writes = w.writes() || w.fsync_every.is_some();
    let who = shown(target, &real);
    if a.destroy_data.is_some() {
        bail!("--destroy-data is for block devices, which nines drives only on Linux; on {OS} the target is a file");
    }
    if w.direct && !cfg!(any(target_os = "macos", windows)) {
        bail!("direct I/O (the default) is not supported by nines on {OS}; pass --buffered");
    }
    if !exists {
        return create_file(&real, w, quiet, &who);
    }
    let md = std::fs::symlink_metadata(&real).with_context(|| format!("could not stat {who}"))?;
    if md.is_dir() {
        bail!("{who} is a directory; give a file (which nines will create)");
    }
    if !md.is_file() {
        bail!("{who} is not a regular file; on {OS} nines runs on files only (block devices and raw disks only on Linux)");
    }
    let probe =
        open(&real, &Workload { direct: false, sync: false, ..w.clone() }, false, false).map_err(|e| open_error(e, &who, "open"))?;
    regular(&probe, &who)?;
    still_there(&real, &probe, &who)?;
    let len = probe.metadata().with_context(|| format!("could not stat {who}"))?.len();
    let ours = is_ours(&probe);
    if writes && !ours && !a.overwrite {
        bail!(
            "{who} is an existing file that nines did not create; this workload writes to it and would destroy its contents. \
             Pass --overwrite to allow that, or give a path that does not exist (nines creates and lays it out)"
        );
    }
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
    if region > len {
        if !(ours || a.overwrite) {
            bail!(
                "--size {} is larger than {who} ({}); nines will not extend a file it did not create without --overwrite",
                format_size(region),
                format_size(len)
            );
        }
        let f = reopen(&probe, &real, &Workload { direct: false, sync: false, ..w.clone() }, true, &who)?;
        if let Err(e) = layout(&f, len, region, quiet, &who) {
            // give back what the failed layout added beyond the file's old end
            let now = f.metadata().map_or(len, |m| m.len());
            if now > len && f.set_len(len).is_ok() {
                return Err(e.context(format!("{who} was cut back to its former {len} bytes")));
            }
            return Err(e);
        }
        laid_out = true;
    }
    let file = reopen(&probe, &real, w, writes, &who)?;
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(len.max(region)),
        region_bytes: Some(region),
        created_by_nines: Some(ours),
        laid_out_now: Some(laid_out),
        ..meta::Target::default()
    };
    Ok(Target { file, region, meta, real, block: false })
}

fn create_file(real: &Path, w: &Workload, quiet: bool, who: &str) -> Result<Target> {
    let size = w.size.ok_or_else(|| anyhow!("{who} does not exist; give --size so nines can create it with that much data"))?;
    let f = open(real, &Workload { direct: false, sync: false, ..w.clone() }, true, true).map_err(|e| open_error(e, who, "create"))?;
    let marked = mark_ours(&f);
    if let Err(e) = layout(&f, 0, size, quiet, who) {
        let written = f.metadata().map_or(0, |m| m.len());
        // only the file nines created: not whatever another process put at the path since
        let ours = sys::id_of_link(real).is_ok_and(|id| sys::id_of(&f).is_ok_and(|mine| mine == id));
        drop(f);
        if ours {
            let _ = std::fs::remove_file(real);
        }
        return Err(if written > 0 && ours { e.context(format!("{who} was removed again")) } else { e });
    }
    let file = reopen(&f, real, w, w.writes() || w.fsync_every.is_some(), who)?;
    drop(f);
    let meta = meta::Target {
        path: Some(real.display().to_string()),
        kind: Some("file".into()),
        size_bytes: Some(size),
        region_bytes: Some(size),
        created_by_nines: Some(true),
        marked: Some(marked),
        ..meta::Target::default()
    };
    Ok(Target { file, region: size, meta, real: real.to_path_buf(), block: false })
}

/// Open `real` (its last component not followed if a link) for reading, and writing if
/// `write`; a new file exclusively if `create`; with the workload's direct and sync modes.
fn open(real: &Path, w: &Workload, write: bool, create: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(write || create).create_new(create);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // mode 0666 less the umask, as every Unix tool creates files
        o.mode(0o666).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | if w.sync { libc::O_SYNC } else { 0 });
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        use windows_sys::Win32::Storage::FileSystem::{FILE_FLAG_NO_BUFFERING, FILE_FLAG_OPEN_REPARSE_POINT, FILE_FLAG_WRITE_THROUGH};
        let mut flags = FILE_FLAG_OPEN_REPARSE_POINT;
        if w.direct {
            flags |= FILE_FLAG_NO_BUFFERING;
        }
        if w.sync {
            flags |= FILE_FLAG_WRITE_THROUGH;
        }
        o.custom_flags(flags);
    }
    let f = o.open(real)?;
    #[cfg(target_os = "macos")]
    if w.direct {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl(2) F_NOCACHE on an open descriptor, with an int argument.
        if unsafe { libc::fcntl(f.as_raw_fd(), libc::F_NOCACHE, 1) } == -1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(f)
}

fn open_error(e: std::io::Error, who: &str, what: &str) -> anyhow::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return anyhow!(
            "could not {what} {who}: a symbolic link now stands at its path, which was resolved without one a moment before; \
             another process changed it, and nines will not follow it (check who can write that directory)"
        );
    }
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        return anyhow!("could not {what} {who}: another process created it meanwhile; nines creates only new files");
    }
    anyhow::Error::new(e).context(format!("could not {what} {who}"))
}

/// An error unless the open `f` is a regular file (not a link opened itself on Windows).
fn regular(f: &File, who: &str) -> Result<()> {
    let m = f.metadata().with_context(|| format!("could not stat {who}"))?;
    if !m.is_file() {
        bail!("{who} changed into something that is not a regular file while nines opened it; nines stops before any I/O");
    }
    Ok(())
}

/// Open the file `f` is open on again, by path, with the run's modes, and prove it is the
/// same file.
fn reopen(f: &File, real: &Path, w: &Workload, write: bool, who: &str) -> Result<File> {
    let want = sys::id_of(f).with_context(|| format!("could not stat {who}"))?;
    let g = open(real, w, write, false).map_err(|e| open_error(e, who, "open"))?;
    regular(&g, who)?;
    if sys::id_of(&g).with_context(|| format!("could not stat {who}"))? != want {
        bail!("{who} is no longer the file nines checked (its identity changed); another process replaced it, and the run stops");
    }
    still_there(real, &g, who)?;
    Ok(g)
}

/// An error unless `real` still names the file `f` is open on.
fn still_there(real: &Path, f: &File, who: &str) -> Result<()> {
    let want = sys::id_of(f).with_context(|| format!("could not stat {who}"))?;
    match sys::id_of_link(real) {
        Ok(id) if id == want => Ok(()),
        Ok(_) => bail!(
            "{who} was replaced by another file or a link while nines prepared it; another process changed the target's directory, \
             so nines stops before any I/O (check who can write that directory)"
        ),
        Err(_) => bail!("{who} was renamed or removed while nines prepared it; another process changed the target's directory, so nines stops before any I/O"),
    }
}

#[cfg(target_os = "macos")]
const XATTR: &[u8] = b"user.nines.created\0";

/// Did nines create this file (its extended attribute, macOS)?
#[cfg(target_os = "macos")]
fn is_ours(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    let mut v = [0u8; 8];
    // SAFETY: valid fd, NUL-terminated name, buffer of the given length; position and
    // options 0 (getxattr(2) on macOS).
    let n = unsafe { libc::fgetxattr(f.as_raw_fd(), XATTR.as_ptr().cast(), v.as_mut_ptr().cast(), v.len(), 0, 0) };
    n > 0
}

#[cfg(target_os = "macos")]
fn mark_ours(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: valid fd, NUL-terminated name, one-byte value; position and options 0.
    unsafe { libc::fsetxattr(f.as_raw_fd(), XATTR.as_ptr().cast(), b"1".as_ptr().cast(), 1, 0, 0) == 0 }
}

/// No mark here: every existing file is someone else's, and writes to it need --overwrite.
#[cfg(not(target_os = "macos"))]
fn is_ours(_f: &File) -> bool {
    false
}

#[cfg(not(target_os = "macos"))]
fn mark_ours(_f: &File) -> bool {
    false
}
