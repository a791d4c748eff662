//! Messages on stderr that never panic. `eprintln!` panics when stderr cannot be written
//! ("failed printing to stderr": a pipe whose reader has gone, EPIPE), so a warning could
//! turn a command that succeeds into exit status 101. Here every error of the write is
//! ignored (EPIPE, EBADF, EIO of a hung-up terminal): the command goes on and ends with the
//! status it would have had, only without the message, as ripgrep ends quietly when its
//! output is gone. Every message of nines on stderr goes through [`diag!`](crate::diag).

use std::fmt;
use std::io::Write;

/// Write `args` and a newline to stderr, ignoring any error.
pub fn line(args: fmt::Arguments<'_>) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|()| e.write_all(b"\n")).and_then(|()| e.flush());
}

/// Write `args` to stderr as they are (no newline), ignoring any error.
pub fn text(args: fmt::Arguments<'_>) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|()| e.flush());
}

/// Stderr as a writer whose writes never fail (their errors ignored, as [`line`]'s), for
/// code that writes its messages to any `Write` (`view::announce`).
pub struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().lock().write_all(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// `eprintln!` that never panics: [`line`].
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {
        $crate::diag::line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_is_formatted_as_eprintln_would() {
        // what reaches stderr is checked end to end (collector/tests/hostile_inputs.rs); here
        // only that the macro takes eprintln!'s arguments
        crate::diag!("nines: {} {x}", 1, x = "two");
        crate::diag!("");
    }
}
