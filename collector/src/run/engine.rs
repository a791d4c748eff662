//! I/O engines behind one trait: io_uring, pread/pwrite and null.
//!
//! The job loop pushes I/Os, then calls [`Engine::submit_wait`] once per batch: submission
//! and reaping happen in one system call for io_uring. Timing is done by the job loop, not
//! here, so every engine is timed the same way.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use io_uring::{opcode, types, IoUring};

/// What an I/O does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// fdatasync of the whole file.
    Fsync,
}

/// One I/O handed to an engine. `slot` comes back in its completion.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub slot: u32,
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
    /// Queue an I/O; nothing reaches the kernel before [`Engine::submit_wait`].
    fn push(&mut self, op: Op) -> io::Result<()>;
    /// Submit what was pushed, then wait until at least `want` completions are ready or
    /// `timeout` has passed (a signal also ends the wait), and append every ready completion
    /// to `out`.
    fn submit_wait(&mut self, want: u32, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()>;
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
    fn push(&mut self, op: Op) -> io::Result<()> {
        self.ready.push(Completion { slot: op.slot, res: if op.kind == OpKind::Fsync { 0 } else { op.len as i32 } });
        Ok(())
    }
    #[inline]
    fn submit_wait(&mut self, want: u32, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
        if self.ready.is_empty() && want > 0 && !timeout.is_zero() {
            std::thread::sleep(timeout);
        }
        out.append(&mut self.ready);
        Ok(())
    }
}

/// pread/pwrite/fdatasync, one at a time.
pub struct PsyncEngine {
    fd: RawFd,
    pending: Vec<Op>,
}

impl PsyncEngine {
    pub fn new(fd: RawFd) -> PsyncEngine {
        PsyncEngine { fd, pending: Vec::with_capacity(1) }
    }
}

fn ret(r: isize) -> i32 {
    if r < 0 {
        -io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
    } else {
        r as i32
    }
}

impl Engine for PsyncEngine {
    fn push(&mut self, op: Op) -> io::Result<()> {
        self.pending.push(op);
        Ok(())
    }
    fn submit_wait(&mut self, want: u32, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
        if self.pending.is_empty() && want > 0 && !timeout.is_zero() {
            std::thread::sleep(timeout);
        }
        for op in self.pending.drain(..) {
            // SAFETY: the buffer belongs to the slot and outlives the call; lengths fit it.
            let res = unsafe {
                match op.kind {
                    OpKind::Read => ret(libc::pread(self.fd, op.buf.cast(), op.len as usize, op.offset as libc::off_t)),
                    OpKind::Write => ret(libc::pwrite(self.fd, op.buf.cast(), op.len as usize, op.offset as libc::off_t)),
                    OpKind::Fsync => ret(libc::fdatasync(self.fd) as isize),
                }
            };
            out.push(Completion { slot: op.slot, res });
        }
        Ok(())
    }
}

/// io_uring with the target registered as a fixed file and the job's buffer area registered
/// as one fixed buffer (so O_DIRECT does not pin pages on every I/O), when the kernel allows.
pub struct UringEngine {
    ring: IoUring,
    fd: types::Fixed,
    raw_fd: RawFd,
    fixed_file: bool,
    fixed_buf: bool,
    ext_arg: bool,
}

impl UringEngine {
    /// A ring for `qd` I/Os in flight, over `fd`, with the buffer area `buf`..`buf+buf_len`.
    pub fn new(fd: RawFd, qd: u32, buf: *mut u8, buf_len: usize) -> io::Result<UringEngine> {
        let entries = qd.next_power_of_two().max(8);
        let ring = IoUring::builder().setup_cqsize(entries * 2).build(entries)?;
        let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
        let iov = libc::iovec { iov_base: buf.cast(), iov_len: buf_len };
        // SAFETY: the buffer area outlives the ring (the job owns both and drops the ring first).
        let fixed_buf = unsafe { ring.submitter().register_buffers(&[iov]) }.is_ok();
        let ext_arg = ring.params().is_feature_ext_arg();
        Ok(UringEngine { ring, fd: types::Fixed(0), raw_fd: fd, fixed_file, fixed_buf, ext_arg })
    }

    /// What the engine could use, for the metadata.
    pub fn features(&self) -> (bool, bool) {
        (self.fixed_file, self.fixed_buf)
    }

    fn entry(&self, op: &Op) -> io_uring::squeue::Entry {
        macro_rules! build {
            ($fd:expr) => {
                match op.kind {
                    OpKind::Read if self.fixed_buf => opcode::ReadFixed::new($fd, op.buf, op.len, 0).offset(op.offset).build(),
                    OpKind::Write if self.fixed_buf => opcode::WriteFixed::new($fd, op.buf, op.len, 0).offset(op.offset).build(),
                    OpKind::Read => opcode::Read::new($fd, op.buf, op.len).offset(op.offset).build(),
                    OpKind::Write => opcode::Write::new($fd, op.buf, op.len).offset(op.offset).build(),
                    OpKind::Fsync => opcode::Fsync::new($fd).flags(types::FsyncFlags::DATASYNC).build(),
                }
            };
        }
        let e = if self.fixed_file { build!(self.fd) } else { build!(types::Fd(self.raw_fd)) };
        e.user_data(op.slot as u64)
    }
}

impl Engine for UringEngine {
    #[inline]
    fn push(&mut self, op: Op) -> io::Result<()> {
        let e = self.entry(&op);
        // SAFETY: the buffer stays valid until the completion is reaped (the slot is not
        // reused before that).
        loop {
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
    fn submit_wait(&mut self, want: u32, timeout: Duration, out: &mut Vec<Completion>) -> io::Result<()> {
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
        for cqe in self.ring.completion() {
            out.push(Completion { slot: cqe.user_data() as u32, res: cqe.result() });
        }
        Ok(())
    }
}

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
pub fn probe_uring() -> io::Result<()> {
    if std::env::var_os("NINES_TEST_NO_URING").is_some() {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "NINES_TEST_NO_URING is set"));
    }
    IoUring::new(2).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(engine: &mut dyn Engine, buf: &mut [u8]) {
        let p = buf.as_mut_ptr();
        buf[..4096].fill(0xab);
        engine.push(Op { slot: 3, kind: OpKind::Write, offset: 8192, len: 4096, buf: p }).unwrap();
        let mut out = Vec::new();
        while out.is_empty() {
            engine.submit_wait(1, Duration::from_millis(100), &mut out).unwrap();
        }
        assert_eq!(out, [Completion { slot: 3, res: 4096 }]);
        buf[..4096].fill(0);
        engine.push(Op { slot: 1, kind: OpKind::Read, offset: 8192, len: 4096, buf: p }).unwrap();
        engine.push(Op { slot: 2, kind: OpKind::Read, offset: 1 << 20, len: 4096, buf: unsafe { p.add(4096) } }).unwrap();
        out.clear();
        while out.len() < 2 {
            engine.submit_wait(2, Duration::from_millis(100), &mut out).unwrap();
        }
        out.sort_by_key(|c| c.slot);
        // Reading past the end of the file returns 0 bytes.
        assert_eq!(out, [Completion { slot: 1, res: 4096 }, Completion { slot: 2, res: 0 }]);
        assert!(buf[..4096].iter().all(|&b| b == 0xab));
        engine.push(Op { slot: 0, kind: OpKind::Fsync, offset: 0, len: 0, buf: p }).unwrap();
        out.clear();
        while out.is_empty() {
            engine.submit_wait(1, Duration::from_millis(100), &mut out).unwrap();
        }
        assert_eq!(out, [Completion { slot: 0, res: 0 }]);
    }

    fn file() -> (tempfile::NamedTempFile, RawFd) {
        use std::os::fd::AsRawFd;
        let f = tempfile::NamedTempFile::new().unwrap();
        f.as_file().set_len(16384).unwrap();
        let fd = f.as_file().as_raw_fd();
        (f, fd)
    }

    #[test]
    fn uring_reads_what_it_wrote() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 8192];
        let mut e = UringEngine::new(fd, 4, buf.as_mut_ptr(), buf.len()).unwrap();
        roundtrip(&mut e, &mut buf);
    }

    #[test]
    fn psync_reads_what_it_wrote() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 8192];
        roundtrip(&mut PsyncEngine::new(fd), &mut buf);
    }

    #[test]
    fn uring_wait_times_out_without_io() {
        let (_f, fd) = file();
        let mut buf = vec![0u8; 4096];
        let mut e = UringEngine::new(fd, 4, buf.as_mut_ptr(), buf.len()).unwrap();
        let t = std::time::Instant::now();
        let mut out = Vec::new();
        e.submit_wait(1, Duration::from_millis(20), &mut out).unwrap();
        assert!(out.is_empty());
        assert!(t.elapsed() >= Duration::from_millis(19));
    }

    #[test]
    fn null_completes_at_once() {
        let mut e = NullEngine::default();
        e.push(Op { slot: 9, kind: OpKind::Read, offset: 0, len: 512, buf: std::ptr::null_mut() }).unwrap();
        let mut out = Vec::new();
        e.submit_wait(1, Duration::from_secs(10), &mut out).unwrap();
        assert_eq!(out, [Completion { slot: 9, res: 512 }]);
    }
}
