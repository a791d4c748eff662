//! What differs between operating systems, for the commands that run everywhere (stats,
//! import, report, site, view, compare, merge, export, ...) and the portable engine of
//! `nines run`. Linux-only I/O (io_uring, block devices, sysfs) lives in `run::engine` and
//! `run::safety` behind `cfg(target_os = "linux")`.
//!
//! - [`id_of`], [`id_of_path`], [`id_of_link`]: a file's identity, so that two paths to one
//!   file are told alike: device and inode on Unix (stat(2)); volume serial number and file
//!   index on Windows (`GetFileInformationByHandle`, whose `BY_HANDLE_FILE_INFORMATION`
//!   documents the pair as identifying a file on one computer).
//! - [`FileTypeExt`]: std's Unix file-type tests; on Windows no directory entry is a device,
//!   FIFO or socket as std reports it (devices and pipes live in the `\\.\` namespace, which
//!   nines refuses), so they answer false there.
//! - [`FileExt`]: positioned reads and writes: `pread`/`pwrite` on Unix, `seek_read`/
//!   `seek_write` (ReadFile/WriteFile with an OVERLAPPED offset) on Windows, which also move
//!   the handle's file position: nothing in nines reads that position from a handle it
//!   reads or writes at offsets.
//! - [`no_follow`]: open a path without following a symbolic link in its last component
//!   (`O_NOFOLLOW`; on Windows `FILE_FLAG_OPEN_REPARSE_POINT`, which opens a link itself, and
//!   the caller's file-type check of the opened handle then refuses it).

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// A file's identity on this computer (device and inode on Unix).
pub type FileId = (u64, u64);

#[cfg(unix)]
pub use std::os::unix::fs::{FileExt, FileTypeExt};

/// Open flags for [`no_follow`]'s `extra` (none of them exists on Windows, where they are 0).
#[cfg(unix)]
pub use libc::{O_CLOEXEC, O_NOCTTY, O_NONBLOCK};
#[cfg(not(unix))]
pub const O_CLOEXEC: i32 = 0;
#[cfg(not(unix))]
pub const O_NOCTTY: i32 = 0;
#[cfg(not(unix))]
pub const O_NONBLOCK: i32 = 0;

/// The identity of an open file.
#[cfg(unix)]
pub fn id_of(f: &File) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    f.metadata().map(|m| (m.dev(), m.ino()))
}

/// The identity of the file `path` names, symbolic links followed (stat(2)).
#[cfg(unix)]
pub fn id_of_path(path: &Path) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map(|m| (m.dev(), m.ino()))
}

/// The identity of what `path` names itself: a symbolic link is not followed (lstat(2)).
#[cfg(unix)]
pub fn id_of_link(path: &Path) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).map(|m| (m.dev(), m.ino()))
}

/// `o` opens without following a symbolic link at the path's last component, with the Unix
/// open flags `extra` as well.
#[cfg(unix)]
pub fn no_follow(o: &mut OpenOptions, extra: i32) -> &mut OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    o.custom_flags(libc::O_NOFOLLOW | extra)
}

#[cfg(windows)]
mod windows {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::windows::fs::OpenOptionsExt;
    use std::os::windows::io::AsRawHandle;
    use std::path::Path;

    use windows_sys::Win32::Storage::FileSystem::{
        GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    };

    use super::FileId;

    pub fn id_of(f: &File) -> io::Result<FileId> {
        // SAFETY: all-zero bytes are a valid BY_HANDLE_FILE_INFORMATION (plain integers).
        let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: an open handle and a struct of the documented type, alive across the call.
        if unsafe { GetFileInformationByHandle(f.as_raw_handle() as _, &mut info) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((u64::from(info.dwVolumeSerialNumber), u64::from(info.nFileIndexHigh) << 32 | u64::from(info.nFileIndexLow)))
    }

    /// Open `path` for its attributes only (no read or write access; directories too, which
    /// need FILE_FLAG_BACKUP_SEMANTICS), a reparse point (link) itself unless `follow`.
    pub fn open_for_id(path: &Path, follow: bool) -> io::Result<File> {
        let flags = FILE_FLAG_BACKUP_SEMANTICS | if follow { 0 } else { FILE_FLAG_OPEN_REPARSE_POINT };
        OpenOptions::new().access_mode(0).custom_flags(flags).open(path)
    }

    pub fn no_follow(o: &mut OpenOptions) -> &mut OpenOptions {
        o.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
    }
}

#[cfg(windows)]
pub fn id_of(f: &File) -> io::Result<FileId> {
    windows::id_of(f)
}

#[cfg(windows)]
pub fn id_of_path(path: &Path) -> io::Result<FileId> {
    windows::id_of(&windows::open_for_id(path, true)?)
}

#[cfg(windows)]
pub fn id_of_link(path: &Path) -> io::Result<FileId> {
    windows::id_of(&windows::open_for_id(path, false)?)
}

#[cfg(windows)]
pub fn no_follow(o: &mut OpenOptions, _extra: i32) -> &mut OpenOptions {
    windows::no_follow(o)
}

/// std's `std::os::unix::fs::FileTypeExt`, answering false: no directory entry std reports on
/// Windows is a device, FIFO or socket.
#[cfg(not(unix))]
pub trait FileTypeExt {
    fn is_char_device(&self) -> bool;
    fn is_block_device(&self) -> bool;
    fn is_fifo(&self) -> bool;
    fn is_socket(&self) -> bool;
}

#[cfg(not(unix))]
impl FileTypeExt for std::fs::FileType {
    fn is_char_device(&self) -> bool {
        false
    }
    fn is_block_device(&self) -> bool {
        false
    }
    fn is_fifo(&self) -> bool {
        false
    }
    fn is_socket(&self) -> bool {
        false
    }
}

/// std's `std::os::unix::fs::FileExt` (the methods nines uses) on Windows' `seek_read` and
/// `seek_write`.
#[cfg(windows)]
pub trait FileExt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize>;
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(buf, offset) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "failed to fill whole buffer")),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(windows)]
impl FileExt for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_write(self, buf, offset)
    }
}

/// A new file's permissions for `tempfile`'s builder: `mode` less the umask on Unix; on
/// Windows none (files inherit their directory's ACL).
#[cfg(unix)]
pub fn mode(mode: u32) -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub fn mode(_mode: u32) -> Option<std::fs::Permissions> {
    None
}

/// Is this error a full disk or an exhausted quota (ENOSPC, EDQUOT; ERROR_DISK_FULL...)?
pub fn disk_full(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded)
}

/// A duplicate of this process's stdout (`err == false`) or stderr, as a file written past
/// std's buffer.
pub fn std_stream(err: bool) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = if err { io::stderr().as_fd().try_clone_to_owned()? } else { io::stdout().as_fd().try_clone_to_owned()? };
        Ok(File::from(fd))
    }
    #[cfg(windows)]
    {
        use std::os::windows::io::AsHandle;
        let h = if err { io::stderr().as_handle().try_clone_to_owned()? } else { io::stdout().as_handle().try_clone_to_owned()? };
        Ok(File::from(h))
    }
}
