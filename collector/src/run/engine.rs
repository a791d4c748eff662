//! I/O engines behind one trait: io_uring (Linux), psync (positioned reads and writes, every
//! OS) and null.
//!
//! The psync engine is fio's `psync` ioengine ("Basic pread(2) or pwrite(2) I/O", fio's
//! HOWTO, `ioengine`): one I/O at a time per job, through std's positioned I/O: `read_at`/
//! `write_at` (pread(2)/pwrite(2)) on Unix, `seek_read`/`seek_write` (ReadFile/WriteFile with
//! an OVERLAPPED offset) on Windows; a sync is `File::sync_data` (fdatasync(2) on Linux,
//! `fcntl(F_FULLFSYNC)` on macOS, FlushFileBuffers on Windows). Trims are Linux-only.
//!
//! Trims (discards) of a regular file punch a hole (`fallocate(PUNCH_HOLE | KEEP_SIZE)`, with
//! `IORING_OP_FALLOCATE` under io_uring); of a block device they are a real discard: the
//! `BLKDISCARD` ioctl under psync, the block layer's asynchronous io_uring command
//! `BLOCK_URING_CMD_DISCARD` (Linux 6.12+) under io_uring. A trim completes with result 0.
//!
//! The job loop pushes I/Os, then calls [`Engine::submit_wait`] once per batch: submission
//! and reaping happen in one system call for io_uring. Timing is done by the job loop, not
//! here, so every engine is timed the same way.

use std::fs::File;
use std::io;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::time::Duration;

#[cfg(target_os = "linux")]
use io_uring::{opcode, types, IoUring};

use super::config::EngineKind;

/// What an I/O does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// fdatasync of the whole file.
    Fsync,
    /// Discard `len` bytes at `offset` (hole punching in a regular file).
    Trim,
}

/// `FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE`: deallocate the range, keep the file's size.
#[cfg(target_os = "linux")]
pub const PUNCH_HOLE: i32 = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
/// `BLKDISCARD = _IO(0x12, 119)`, argument `[offset, len]` in bytes.
#[cfg(target_os = "linux")]
pub const BLKDISCARD: libc::c_ulong = 0x1277;
/// `BLOCK_URING_CMD_DISCARD = _IO(0x12, 0)` (include/uapi/linux/blkdev.h): `sqe->addr` is the
/// offset, `sqe->addr3` the length, in bytes.
#[cfg(target_os = "linux")]
const BLOCK_URING_CMD_DISCARD: u32 = 0x1200;

/// Does the running kernel have the block layer's io_uring discard command (Linux 6.12+)?
#[cfg(target_os = "linux")]
pub fn kernel_has_uring_discard() -> bool {
    let rel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut it = rel.trim().split(|c: char| !c.is_ascii_digit()).map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    (major, minor) >= (6, 12)
}

/// How an engine issues trims, for the metadata.
pub fn trim_method(engine: EngineKind, block: bool) -> &'static str {
    use EngineKind::*;
    match (engine, block) {
        (Null, _) => "none (null engine: trims complete at once)",
        (Psync, false) => "fallocate(PUNCH_HOLE|KEEP_SIZE), synchronous",
        (Psync, true) => "ioctl(BLKDISCARD), synchronous",
        (Uring, false) => "io_uring IORING_OP_FALLOCATE (PUNCH_HOLE|KEEP_SIZE), asynchronous",
        (Uring, true) => "io_uring IORING_OP_URING_CMD BLOCK_URING_CMD_DISCARD, asynchronous",
    }
}

/// One I/O handed to an engine. `slot` comes back in its completion.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub slot: u32,
    /// Which of the engine's files (targets), by index.
    pub file: u32,
    pub kind: OpKind,
    pub offset: u64,
    pub len: u32,
    /// The slot's buffer (at least `len` bytes, aligned for O_DIRECT).
    pub buf: *mut u8,
}

/// A completion: the slot and the result (bytes transferred, or a negative errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub res: i32,
}

pub trait Engine {
    /// Queue an I/O; nothing reaches the kernel before [`Engine::submit`] or
    /// [`Engine::submit_wait`].
    ///
    /// # Safety
    ///
    /// The kernel (io_uring) or a later [`Engine::submit_wait`] (psync) reads or writes
    /// `op.len` bytes at `op.buf` after this call returns, so the caller guarantees that, for
    /// a read or a write, `op.buf` points to at least `op.len` bytes that stay allocated and
    /// are neither read nor written by anything else until the completion for `op.slot` has
    /// been reaped by [`Engine::submit_wait`]; with an engine whose buffer area is registered
    /// (io_uring's fixed buffers), they must lie inside that area. Fsyncs and trims do not
    /// touch `op.buf`. As io-uring's `SubmissionQueue::push`, whose contract this passes on.
    unsafe fn push(&mut self, op: Op) -> io::Result<()>;
    /// Submit what was pushed, then wait until at least `want` completions are ready or
    /// `timeout` has passed (a signal also ends the wait), and append at most `max` ready
    /// completions to `out` (the others stay ready for the next call, which then does not
    /// wait: fio's `getevents` with `iodepth_batch_complete_max`).
    fn submit_wait(&mut self, want: u32, max: usize, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()>;
    /// Hand what was pushed to the kernel now, without waiting or reaping. Engines that do
    /// their I/O in [`Engine::submit_wait`] do nothing here.
    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Completes every I/O at once without doing anything: for measuring nines' own overhead.
#[derive(Default)]
pub struct NullEngine {
    ready: Vec<Completion>,
}

impl Engine for NullEngine {
    #[inline]
    unsafe fn push(&mut self, op: Op) -> io::Result<()> {
        let res = if matches!(op.kind, OpKind::Fsync | OpKind::Trim) { 0 } else { op.len as i32 };
        self.ready.push(Completion { slot: op.slot, res });
        Ok(())
    }
    #[inline]
    fn submit_wait(&mut self, want: u32, max: usize, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
        if self.ready.is_empty() && want > 0 && !timeout.is_zero() {
            std::thread::sleep(timeout);
        }
        let n = self.ready.len().min(max);
        out.extend(self.ready.drain(..n));
        Ok(())
    }
}

/// Each target of a job: the open file, and whether it is a block device (trims are
/// discards, not hole punching).
pub type Files = [(Arc<File>, bool)];

/// Discard `len` bytes at `offset`: BLKDISCARD on a block device (linux/fs.h), a hole punched
/// with fallocate(2)'s FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE in a regular file.
#[cfg(target_os = "linux")]
pub fn discard(f: &File, block: bool, offset: u64, len: u64) -> io::Result<()> {
    let fd = f.as_raw_fd();
    let rc = if block {
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64 (offset, length) from the pointer, which lives
        // across the call.
        unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
    } else {
        // SAFETY: a plain system call on an open descriptor.
        unsafe { libc::fallocate(fd, PUNCH_HOLE, offset as libc::off_t, len as libc::off_t) }
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Trims are Linux-only (hole punching and device discards have no portable call): a
/// workload with trims is refused before the run, and this is never reached.
#[cfg(not(target_os = "linux"))]
pub fn discard(_f: &File, _block: bool, _offset: u64, _len: u64) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "trims (discards, hole punching) are only supported on Linux"))
}

/// fio's `psync`: positioned read/write, sync and trim, one at a time.
pub struct PsyncEngine {
    files: Vec<(Arc<File>, bool)>,
    pending: Vec<Op>,
}

impl PsyncEngine {
    pub fn new(files: &Files) -> PsyncEngine {
        PsyncEngine { files: files.to_vec(), pending: Vec::with_capacity(1) }
    }
}

/// A completion's result: the bytes transferred, or the negative OS error code.
fn ret(r: io::Result<usize>) -> i32 {
    match r {
        Ok(n) => i32::try_from(n).unwrap_or(i32::MAX),
        // an error without an OS code (std's Unsupported) is reported as EIO
        Err(e) => -e.raw_os_error().unwrap_or(libc::EIO),
    }
}

impl Engine for PsyncEngine {
    unsafe fn push(&mut self, op: Op) -> io::Result<()> {
        self.pending.push(op);
        Ok(())
    }
    fn submit_wait(&mut self, want: u32, max: usize, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
        if self.pending.is_empty() && want > 0 && !timeout.is_zero() {
            std::thread::sleep(timeout);
        }
        // One at a time: an op's "completion" is its system call, so the ops beyond `max`
        // are simply not started yet.
        let n = self.pending.len().min(max);
        for op in self.pending.drain(..n) {
            use crate::sys::FileExt;
            let (f, block) = &self.files[op.file as usize];
            let res = match op.kind {
                OpKind::Read => {
                    // SAFETY: `push`'s caller guarantees that the op's buffer holds `len` bytes
                    // that nothing else reads or writes until this completion is reaped, which
                    // is below.
                    let buf = unsafe { std::slice::from_raw_parts_mut(op.buf, op.len as usize) };
                    ret(f.read_at(buf, op.offset))
                }
                OpKind::Write => {
                    // SAFETY: as for a read.
                    let buf = unsafe { std::slice::from_raw_parts(op.buf, op.len as usize) };
                    ret(f.write_at(buf, op.offset))
                }
                OpKind::Fsync => ret(f.sync_data().map(|()| 0)),
                OpKind::Trim => ret(discard(f, *block, op.offset, u64::from(op.len)).map(|()| 0)),
            };
            out.push(Completion { slot: op.slot, res });
        }
        Ok(())
    }
}

/// io_uring with the target registered as a fixed file and the job's buffer area registered
/// as one fixed buffer (so O_DIRECT does not pin pages on every I/O), when the kernel allows.
#[cfg(target_os = "linux")]
pub struct UringEngine {
    ring: IoUring,
    /// Each target's fd (registered as fixed file number = its index when `fixed_file`), and
    /// whether it is a block device (trims are discards, not hole punching).
    files: Vec<(RawFd, bool)>,
    fixed_file: bool,
    fixed_buf: bool,
    ext_arg: bool,
}

#[cfg(target_os = "linux")]
impl UringEngine {
    /// A ring for `qd` I/Os in flight, over `files` (each an fd and whether it is a block
    /// device), with the buffer area `buf`..`buf+buf_len` registered with the kernel as a
    /// fixed buffer. Trims of a block device need the kernel's io_uring discard command.
    ///
    /// # Safety
    ///
    /// `buf` must point to `buf_len` bytes that stay allocated, and are not freed or moved,
    /// until the engine is dropped: the kernel reads and writes the registered area directly
    /// whenever an I/O on it is in flight.
    pub unsafe fn new(files: &Files, qd: u32, buf: *mut u8, buf_len: usize) -> io::Result<UringEngine> {
        let entries = qd.next_power_of_two().max(8);
        let ring = IoUring::builder().setup_cqsize(entries * 2).build(entries)?;
        let fds: Vec<RawFd> = files.iter().map(|f| f.0.as_raw_fd()).collect();
        let fixed_file = ring.submitter().register_files(&fds).is_ok();
        let iov = libc::iovec { iov_base: buf.cast(), iov_len: buf_len };
        // SAFETY: the caller keeps the area allocated until the engine (and its ring) is dropped.
        let fixed_buf = unsafe { ring.submitter().register_buffers(&[iov]) }.is_ok();
        let ext_arg = ring.params().is_feature_ext_arg();
        let files = files.iter().map(|(f, block)| (f.as_raw_fd(), *block)).collect();
        Ok(UringEngine { ring, files, fixed_file, fixed_buf, ext_arg })
    }

    /// What the engine could use, for the metadata.
    pub fn features(&self) -> (bool, bool) {
        (self.fixed_file, self.fixed_buf)
    }

    fn entry(&self, op: &Op) -> io_uring::squeue::Entry {
        let (raw_fd, block) = self.files[op.file as usize];
        macro_rules! build {
            ($fd:expr) => {
                match op.kind {
                    OpKind::Read if self.fixed_buf => opcode::ReadFixed::new($fd, op.buf, op.len, 0).offset(op.offset).build(),
                    OpKind::Write if self.fixed_buf => opcode::WriteFixed::new($fd, op.buf, op.len, 0).offset(op.offset).build(),
                    OpKind::Read => opcode::Read::new($fd, op.buf, op.len).offset(op.offset).build(),
                    OpKind::Write => opcode::Write::new($fd, op.buf, op.len).offset(op.offset).build(),
                    OpKind::Fsync => opcode::Fsync::new($fd).flags(types::FsyncFlags::DATASYNC).build(),
                    OpKind::Trim if block => {
                        // addr = offset; the 16 command bytes start at addr3, which holds the length.
                        let mut cmd = [0u8; 16];
                        cmd[..8].copy_from_slice(&(op.len as u64).to_ne_bytes());
                        opcode::UringCmd16::new($fd, BLOCK_URING_CMD_DISCARD).addr(Some(op.offset)).cmd(cmd).build()
                    }
                    OpKind::Trim => opcode::Fallocate::new($fd, op.len as u64).offset(op.offset).mode(PUNCH_HOLE).build(),
                }
            };
        }
        let e = if self.fixed_file { build!(types::Fixed(op.file)) } else { build!(types::Fd(raw_fd)) };
        e.user_data(op.slot as u64)
    }
}

#[cfg(target_os = "linux")]
impl Engine for UringEngine {
    #[inline]
    unsafe fn push(&mut self, op: Op) -> io::Result<()> {
        let e = self.entry(&op);
        loop {
            // SAFETY: the entry's buffer is the op's, which our caller keeps valid and
            // unaliased until the completion is reaped (its `# Safety`): the contract of
            // io-uring's `SubmissionQueue::push`.
            if unsafe { self.ring.submission().push(&e) }.is_ok() {
                return Ok(());
            }
            // Full submission queue (cannot happen with entries >= qd, but stay correct).
            self.ring.submit()?;
        }
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.ring.submit().map(drop)
    }

    #[inline]
    fn submit_wait(&mut self, want: u32, max: usize, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
        // Completions left from the last reap (see `max`) are taken from the ring without a
        // system call when they are enough and nothing waits to be submitted, as fio's
        // io_uring engine reaps (`fio_ioring_getevents`, engines/io_uring.c).
        if want > 0 && self.ring.submission().is_empty() && self.ring.completion().len() >= want as usize {
            out.extend(self.ring.completion().take(max).map(|cqe| Completion { slot: cqe.user_data() as u32, res: cqe.result() }));
            return Ok(());
        }
        // A zero timeout still goes through the waiting path: with deferred task work,
        // completions are only posted by an enter that asks for events.
        let r = if want == 0 {
            self.ring.submit()
        } else if self.ext_arg {
            let ts = types::Timespec::from(timeout);
            let args = types::SubmitArgs::new().timespec(&ts);
            self.ring.submitter().submit_with_args(want as usize, &args)
        } else {
            self.ring.submit_and_wait(want as usize)
        };
        match r {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY)) => {}
            Err(e) => return Err(e),
        }
        out.extend(self.ring.completion().take(max).map(|cqe| Completion { slot: cqe.user_data() as u32, res: cqe.result() }));
        Ok(())
    }
}

#[cfg(target_os = "linux")]
impl Drop for UringEngine {
    fn drop(&mut self) {
        // A ring is torn down asynchronously after its fd is closed, and registered files
        // keep the target open until then: a device opened with O_EXCL would stay busy for a
        // moment after nines exits. Unregistering is synchronous.
        if self.fixed_file {
            let _ = self.ring.submitter().unregister_files();
        }
        if self.fixed_buf {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

/// Can this process use io_uring at all? `Err` says why not (old kernel, seccomp, sysctl).
#[cfg(target_os = "linux")]
pub fn probe_uring() -> io::Result<()> {
    if std::env::var_os("NINES_TEST_NO_URING").is_some() {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "NINES_TEST_NO_URING is set"));
    }
    IoUring::new(2).map(drop)
}

/// io_uring is a Linux interface (io_uring(7)): elsewhere it never is available.
#[cfg(not(target_os = "linux"))]
pub fn probe_uring() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("io_uring is a Linux kernel interface and this is {}; the psync engine runs here", std::env::consts::OS),
    ))
}

// the io_uring tests and hole punching are Linux-only; the psync engine's positioned I/O is
// tested the same way on every OS by these and collector/tests/collector.rs
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn roundtrip(engine: &mut dyn Engine, buf: &mut [u8]) {
        let p = buf.as_mut_ptr();
        buf[..4096].fill(0xab);
        // SAFETY (here and below): `buf` outlives the engine's use of it, the ops use
        // disjoint 4096-byte parts of it, and the test touches it only after reaping.
        unsafe { engine.push(Op { file: 0, slot: 3, kind: OpKind::Write, offset: 8192, len: 4096, buf: p }) }.unwrap();
        let mut out = Vec::new();
        while out.is_empty() {
            engine.submit_wait(1, usize::MAX, Duration::from_millis(100), &mut out).unwrap();
        }
        assert_eq!(out, [Completion { slot: 3, res: 4096 }]);
        buf[..4096].fill(0);
        unsafe { engine.push(Op { file: 0, slot: 1, kind: OpKind::Read, offset: 8192, len: 4096, buf: p }) }.unwrap();
        unsafe { engine.push(Op { file: 0, slot: 2, kind: OpKind::Read, offset: 1 << 20, len: 4096, buf: p.add(4096) }) }.unwrap();
        out.clear();
        while out.len() < 2 {
            engine.submit_wait(2, usize::MAX, Duration::from_millis(100), &mut out).unwrap();
        }
        out.sort_by_key(|c| c.slot);
        // Reading past the end of the file returns 0 bytes.
        assert_eq!(out, [Completion { slot: 1, res: 4096 }, Completion { slot: 2, res: 0 }]);
        assert!(buf[..4096].iter().all(|&b| b == 0xab));
        unsafe { engine.push(Op { file: 0, slot: 0, kind: OpKind::Fsync, offset: 0, len: 0, buf: p }) }.unwrap();
        out.clear();
        while out.is_empty() {
            engine.submit_wait(1, usize::MAX, Duration::from_millis(100), &mut out).unwrap();
        }
        assert_eq!(out, [Completion { slot: 0, res: 0 }]);
    }

    fn file() -> (tempfile::NamedTempFile, Arc<File>) {
        let f = tempfile::NamedTempFile::new().unwrap();
        f.as_file().set_len(16384).unwrap();
        let h = Arc::new(f.as_file().try_clone().unwrap());
        (f, h)
    }

    #[test]
    fn uring_reads_what_it_wrote() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 8192];
        // SAFETY: `buf` outlives `e`, dropped first at the end of the test.
        let mut e = unsafe { UringEngine::new(&[(fd, false)], 4, buf.as_mut_ptr(), buf.len()) }.unwrap();
        roundtrip(&mut e, &mut buf);
    }

    #[test]
    fn uring_reaps_at_most_max_and_leaves_the_rest_in_the_ring() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 3 * 4096];
        let p = buf.as_mut_ptr();
        // SAFETY: `buf` outlives `e`, dropped first at the end of the test; the three reads
        // use disjoint parts of it and the test does not touch it meanwhile.
        let mut e = unsafe { UringEngine::new(&[(fd, false)], 4, p, buf.len()) }.unwrap();
        for slot in 0..3u32 {
            unsafe { e.push(Op { file: 0, slot, kind: OpKind::Read, offset: 0, len: 4096, buf: p.add(slot as usize * 4096) }) }.unwrap();
        }
        let mut out = Vec::new();
        // wait for all three, take one
        while out.is_empty() {
            e.submit_wait(3, 1, Duration::from_secs(5), &mut out).unwrap();
        }
        assert_eq!(out.len(), 1);
        // the other two are taken one by one from the ring, with no time to wait
        e.submit_wait(1, 1, Duration::ZERO, &mut out).unwrap();
        e.submit_wait(1, 1, Duration::ZERO, &mut out).unwrap();
        let mut slots: Vec<u32> = out.iter().map(|c| c.slot).collect();
        slots.sort_unstable();
        assert_eq!(slots, [0, 1, 2]);
        e.submit_wait(1, 1, Duration::ZERO, &mut out).unwrap();
        assert_eq!(out.len(), 3, "nothing more to reap");
        drop(e);
    }

    #[test]
    fn psync_reads_what_it_wrote() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 8192];
        roundtrip(&mut PsyncEngine::new(&[(fd, false)]), &mut buf);
    }

    #[test]
    fn uring_wait_times_out_without_io() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 4096];
        // SAFETY: `buf` outlives `e`, dropped first at the end of the test.
        let mut e = unsafe { UringEngine::new(&[(fd, false)], 4, buf.as_mut_ptr(), buf.len()) }.unwrap();
        let t = std::time::Instant::now();
        let mut out = Vec::new();
        e.submit_wait(1, usize::MAX, Duration::from_millis(20), &mut out).unwrap();
        assert!(out.is_empty());
        assert!(t.elapsed() >= Duration::from_millis(19));
    }

    /// Fill a file with data, punch a 64 KiB hole through the engine, and check the blocks went.
    fn punches_a_hole(engine: &mut dyn Engine, f: &std::fs::File) {
        use std::os::unix::fs::{FileExt, MetadataExt};
        f.write_all_at(&vec![0x5au8; 256 << 10], 0).unwrap();
        f.sync_all().unwrap();
        let before = f.metadata().unwrap().blocks();
        // SAFETY: a trim touches no buffer.
        unsafe { engine.push(Op { file: 0, slot: 5, kind: OpKind::Trim, offset: 64 << 10, len: 64 << 10, buf: std::ptr::null_mut() }) }
            .unwrap();
        let mut out = Vec::new();
        while out.is_empty() {
            engine.submit_wait(1, usize::MAX, Duration::from_millis(100), &mut out).unwrap();
        }
        assert_eq!(out, [Completion { slot: 5, res: 0 }]);
        let md = f.metadata().unwrap();
        assert_eq!(md.len(), 256 << 10, "the size is kept");
        assert!(md.blocks() < before, "blocks {before} -> {}", md.blocks());
        let mut b = vec![1u8; 64 << 10];
        f.read_exact_at(&mut b, 64 << 10).unwrap();
        assert!(b.iter().all(|&x| x == 0), "the hole reads as zeros");
        f.read_exact_at(&mut b, 0).unwrap();
        assert!(b.iter().all(|&x| x == 0x5a), "data before the hole is kept");
    }

    #[test]
    fn uring_trim_punches_a_hole() {
        let f = tempfile::NamedTempFile::new_in(std::env::temp_dir()).unwrap();
        let mut buf = vec![0u8; 4096];
        let h = Arc::new(f.as_file().try_clone().unwrap());
        // SAFETY: `buf` outlives `e`, dropped first at the end of the test.
        let mut e = unsafe { UringEngine::new(&[(h, false)], 4, buf.as_mut_ptr(), buf.len()) }.unwrap();
        punches_a_hole(&mut e, f.as_file());
    }

    #[test]
    fn psync_trim_punches_a_hole() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let h = Arc::new(f.as_file().try_clone().unwrap());
        punches_a_hole(&mut PsyncEngine::new(&[(h, false)]), f.as_file());
    }

    #[test]
    fn null_completes_at_once() {
        let mut e = NullEngine::default();
        // SAFETY: the null engine never touches the buffer.
        unsafe { e.push(Op { file: 0, slot: 9, kind: OpKind::Read, offset: 0, len: 512, buf: std::ptr::null_mut() }) }.unwrap();
        let mut out = Vec::new();
        e.submit_wait(1, usize::MAX, Duration::from_secs(10), &mut out).unwrap();
        assert_eq!(out, [Completion { slot: 9, res: 512 }]);
    }
}
