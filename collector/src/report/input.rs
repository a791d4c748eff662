//! A run as a report or site embeds it.

use nines_core::run::Run;

/// A run to embed: the bytes the viewer reads, under a file name.
pub struct Input {
    /// File name (no directories: the page does not tell where the file was).
    pub name: String,
    /// The archive, or once [`budget::fit`] has chosen, the run's compact form.
    pub bytes: Vec<u8>,
    pub run: Run,
    /// What the bytes carry of the run, for the static summary.
    pub carries: String,
}
