//! What a viewer worker makes of a raw run (an archive, or any format `nines stats` reads):
//! its compact form ([`crate::compact`]), with the run's windows merged in groups of at
//! most [`GROUP_S`] seconds (a short run keeps them all), so the page holds only what it draws.
//! A brush that needs the recorded windows reads the file itself again (as a site's page
//! fetches the archive). The viewer's workers run it in a wasm module of their own (the
//! `nines-worker` crate), built for speed where the page's is built for size.

use crate::compact::{self, Builder, Compact, CompactError, WriteError};
use crate::import::LoadError;

/// The longest group a worker's compact form carries: a minute, the round of SNIA PTS
/// steady-state measurement (and the default of `nines report`).
pub const GROUP_S: f64 = 60.0;

/// A run of at most this many windows (all directions) keeps every window: it costs the page
/// little, and the panels that work per window (steady state, run-to-run) keep their rounds.
pub const FULL_WINDOWS: usize = 2_000;

/// Why a run could not be summarised; each names the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SummariseError {
    /// A compact form that does not read.
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// A raw run that does not read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The compact form could not be written (the file's name and why).
    #[error("{source_name}: {error}")]
    Write { source_name: String, error: WriteError },
}

/// The compact form of the run in `bytes` (named `name` in errors); a compact form is
/// checked and passed on as it is.
pub fn summarise(name: &str, bytes: &[u8]) -> Result<Vec<u8>, SummariseError> {
    if compact::sniff(bytes) {
        Compact::read(name, bytes)?;
        return Ok(bytes.to_vec());
    }
    let run = crate::import::read_any(name, bytes)?;
    let b = Builder::new(&run);
    let group = if run.windows.len() <= FULL_WINDOWS { 1 } else { b.group_within(GROUP_S) };
    // stored, not deflated: the form only crosses to the page's memory
    b.build(group).write_stored().map_err(|error| SummariseError::Write { source_name: name.to_string(), error })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::{Run, Window};
    use crate::stats::{run_stats, Options};

    fn archive(windows: usize) -> Vec<u8> {
        let l = Layout::default_ns();
        let run = Run {
            windows: (0..windows)
                .flat_map(|s| {
                    ["read", "write"].map(|t| Window {
                        start_s: s as f64,
                        length_s: 1.0,
                        tag: Some(t.into()),
                        hist: Hist::from_values(l, (1..=200u64).map(|i| 10_000 + i * (s as u64 % 7 + 1) * 13)),
                    })
                })
                .collect(),
            ..Run::default()
        };
        crate::archive::write(Vec::new(), &run).unwrap()
    }

    #[test]
    fn a_raw_archive_becomes_its_compact_form_of_minute_groups_with_the_same_stats() {
        let bytes = archive(1_500);
        let out = summarise("a.hlog", &bytes).unwrap();
        assert!(compact::sniff(&out));
        let c = Compact::read("a.hlog", &out).unwrap();
        assert_eq!(c.windows, 3_000);
        // 1 s windows: groups of the coarsest power of two and tenfold steps within a minute
        assert!(c.group > 1 && c.group <= 60, "{}", c.group);
        let run = crate::archive::read("a.hlog", &bytes).unwrap();
        let (a, b) = (run_stats(&run, &Options::default()), run_stats(&c.run, &Options::default()));
        for tag in ["read", "write", "all"] {
            assert_eq!(a.tags[tag].count, b.tags[tag].count);
            assert_eq!(a.tags[tag].max_ns, b.tags[tag].max_ns);
            assert_eq!(a.tags[tag].levels, b.tags[tag].levels, "{tag}");
        }
    }

    #[test]
    fn a_short_run_keeps_every_window() {
        let c = Compact::read("a.hlog", &summarise("a.hlog", &archive(150)).unwrap()).unwrap();
        assert_eq!((c.group, c.range(None, None).unwrap().windows.len()), (1, 300));
    }

    #[test]
    fn a_compact_form_passes_as_it_is_and_bad_bytes_name_the_file() {
        let c = summarise("a.hlog", &archive(3)).unwrap();
        assert_eq!(summarise("a.compact", &c).unwrap(), c);
        let e = summarise("bad.hlog", b"#[StartTime: x\nnot a line\n").unwrap_err().to_string();
        assert!(e.contains("bad.hlog"), "{e}");
        let mut cut = c.clone();
        cut.truncate(c.len() / 2);
        let e = summarise("cut.compact", &cut).unwrap_err().to_string();
        assert!(e.contains("cut.compact"), "{e}");
    }
}
