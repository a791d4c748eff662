//! Loading runs from files for every command.

use std::path::Path;

use anyhow::{Context, Result};
use nines_core::archive;
use nines_core::run::Run;

/// Archives larger than this are decoded on several threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// Read a run from a file in any supported format; warnings go to stderr. Large interval
/// logs are decoded on all cores, fio latency logs are streamed (see `import_cmd::load_path`).
pub fn load_run(path: &Path) -> Result<Run> {
    let name = path.display().to_string();
    let run = if large_archive(path) {
        let bytes = std::fs::read(path).with_context(|| format!("could not read '{name}'"))?;
        read_archive_parallel(&name, &bytes)?
    } else {
        crate::import_cmd::load_path(path, &nines_core::import::Options::default())?
    };
    for w in &run.warnings {
        eprintln!("nines: warning: {name}: {w}");
    }
    Ok(run)
}

/// Is this an interval log big enough to be worth decoding on several threads?
fn large_archive(path: &Path) -> bool {
    use std::io::Read;
    let Ok(meta) = std::fs::metadata(path) else { return false };
    if (meta.len() as usize) < PARALLEL_BYTES {
        return false;
    }
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head)).is_ok() && archive::sniff(&head)
}

/// Read several runs, stopping at the first that fails.
pub fn load_runs(paths: &[impl AsRef<Path>]) -> Result<Vec<Run>> {
    paths.iter().map(|p| load_run(p.as_ref())).collect()
}

/// Decode an interval log's window lines on all cores (nines-core has no threads; the
/// decoding of each line is independent, so chunks are decoded side by side and joined in
/// order). Gives exactly what `archive::read` gives.
pub fn read_archive_parallel(name: &str, bytes: &[u8]) -> Result<Run, archive::ArchiveError> {
    let scanned = archive::scan(name, bytes)?;
    let lines = scanned.data_lines();
    let threads = threads(16);
    if threads == 1 {
        // no thread to spawn: its own malloc arena would grow by an mprotect call at a time
        let windows = archive::decode_lines(name, lines)?;
        return scanned.finish_checked(windows);
    }
    let chunk = lines.len().div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<archive::RawWindow>, archive::ArchiveError>> = std::thread::scope(|s| {
        let handles: Vec<_> = lines.chunks(chunk).map(|c| s.spawn(move || archive::decode_lines(name, c))).collect();
        handles.into_iter().map(|h| h.join().expect("decoder thread does not panic")).collect()
    });
    let mut windows = Vec::with_capacity(lines.len());
    for p in parts {
        windows.extend(p?);
    }
    scanned.finish_checked(windows)
}

/// Threads for reading and decoding: `NINES_THREADS` if set (e.g. 1 for benchmarks), else
/// the cores; at most `max`.
pub(crate) fn threads(max: usize) -> usize {
    std::env::var("NINES_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_read_equals_serial_read() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/java-rw.hlog");
        let bytes = std::fs::read(&path).unwrap();
        let serial = archive::read("x", &bytes).unwrap();
        let parallel = read_archive_parallel("x", &bytes).unwrap();
        assert_eq!(serial, parallel);
        // a cut file keeps its warning, and a bad line names the same line
        let cut = &bytes[..bytes.len() - 100];
        assert_eq!(archive::read("x", cut).unwrap(), read_archive_parallel("x", cut).unwrap());
        let text = String::from_utf8(bytes).unwrap().replacen(",1.000,", ",x,", 7);
        assert_eq!(archive::read("x", text.as_bytes()).unwrap_err(), read_archive_parallel("x", text.as_bytes()).unwrap_err());
    }
}
