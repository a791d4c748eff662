//! Loading runs from files for every command: each input is opened and read once, its
//! format told from its first bytes, and what is read whole is bounded.
//!
//! Limits (README, "Limits"): an input read whole (archives, fio JSON, spectra, lists) may
//! be at most [`MAX_WHOLE_INPUT`] bytes and no line longer than [`MAX_LINE`]; fio latency
//! logs are streamed (any size, lines up to [`MAX_LINE`]); a window's histogram decompresses
//! to at most 64 MiB (nines-core's codec). An input whose first 16 KiB no reader recognises
//! is refused without reading further, so `/dev/zero` or `/dev/urandom` cost nothing.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use nines_core::archive;
use nines_core::import::{self, Format, LatLogReader, Options};
use nines_core::run::{name_distinctly, Run};

/// The most bytes of one input read whole into memory.
pub const MAX_WHOLE_INPUT: u64 = 4 << 30;
/// The longest line of any text input.
pub const MAX_LINE: usize = 16 << 20;
/// How much of an input tells its format (every reader's sniffer looks at most this far).
const HEAD: usize = 16 << 10;
/// Archives from this size up are decoded on several threads.
const PARALLEL_ARCHIVE_BYTES: usize = 1 << 20;
/// Latency logs from this size up are read in parts on several threads.
const PARALLEL_LAT_BYTES: u64 = 16 << 20;

/// An input opened and its format told from its head.
struct Opened {
    name: String,
    file: File,
    head: Vec<u8>,
    /// The head is the whole input.
    at_end: bool,
    format: Format,
}

fn open(path: &Path) -> Result<Opened> {
    let name = path.display().to_string();
    let mut file = File::open(path).with_context(|| format!("could not open '{name}'"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        bail!("'{name}' is a directory; give a run's file");
    }
    let mut head = vec![0_u8; HEAD];
    let mut n = 0;
    while n < head.len() {
        let k = file.read(&mut head[n..]).with_context(|| format!("could not read '{name}'"))?;
        if k == 0 {
            break;
        }
        n += k;
    }
    head.truncate(n);
    let at_end = n < HEAD;
    let tried = || import::FORMATS.join(", ");
    let format = match import::detect(&name, &head) {
        Some(f) => f,
        None if at_end && head.iter().all(u8::is_ascii_whitespace) => {
            return Err(import::LoadError::Empty { source_name: name, tried: tried() }.into())
        }
        None => bail!("{name}: line 1: format not recognised; tried: {} (from the first {} bytes)", tried(), head.len()),
    };
    Ok(Opened { name, file, head, at_end, format })
}

/// Read the rest of an opened input whole, bounded by [`MAX_WHOLE_INPUT`] and [`MAX_LINE`].
fn read_whole(o: Opened) -> Result<(String, Format, Vec<u8>)> {
    let Opened { name, mut file, head, at_end, format } = o;
    let mut bytes = head;
    let mut last_nl = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if !at_end {
        let mut chunk = vec![0_u8; 1 << 20];
        loop {
            let k = file.read(&mut chunk).with_context(|| format!("could not read '{name}'"))?;
            if k == 0 {
                break;
            }
            if let Some(i) = chunk[..k].iter().rposition(|&b| b == b'\n') {
                last_nl = bytes.len() + i + 1;
            }
            bytes.extend_from_slice(&chunk[..k]);
            if bytes.len() as u64 > MAX_WHOLE_INPUT {
                bail!(
                    "{name}: larger than {}, the most nines reads of one input whole (fio latency logs are streamed and may be larger)",
                    nines_core::units::format_size(MAX_WHOLE_INPUT)
                );
            }
            // (a compact form is binary: no lines)
            if format != Format::Compact && bytes.len() - last_nl > MAX_LINE {
                let line = bytes[..last_nl].iter().filter(|&&b| b == b'\n').count() + 1;
                bail!(
                    "{name}: line {line} (from byte offset {last_nl}) is longer than {}, the longest line nines reads; is this a run's file?",
                    nines_core::units::format_size(MAX_LINE as u64)
                );
            }
        }
    }
    Ok((name, format, bytes))
}

/// Parse bytes read whole ([`read_input`]); large archives are decoded on every core.
pub fn parse(name: &str, format: Format, bytes: &[u8], opts: &Options) -> Result<Run> {
    if format == Format::Archive && bytes.len() >= PARALLEL_ARCHIVE_BYTES {
        return Ok(read_archive_parallel(name, bytes)?);
    }
    Ok(import::read_any_with(name, bytes, opts)?)
}

fn warn(run: &Run) {
    for w in &run.warnings {
        crate::diag!("nines: warning: {}: {w}", run.source);
    }
}

/// Read a run from a file in any supported format, reading the file once; warnings go to
/// stderr. Large interval logs are decoded on all cores, fio latency logs are streamed.
pub fn load_run(path: &Path) -> Result<Run> {
    let run = load_with(path, &Options::default())?;
    warn(&run);
    Ok(run)
}

/// [`load_run`] with the caller's unit and window, without printing warnings.
pub fn load_with(path: &Path, opts: &Options) -> Result<Run> {
    let o = open(path)?;
    if o.format == Format::FioLat {
        return stream_lat_log(o, path, opts);
    }
    let (name, format, bytes) = read_whole(o)?;
    parse(&name, format, &bytes, opts)
}

/// A run and the bytes it was read from (reports and sites carry the file as it is), read
/// once; warnings go to stderr. Every format is read whole here, within the limits.
pub fn load_with_bytes(path: &Path) -> Result<(Run, Vec<u8>)> {
    let (name, format, bytes) = read_whole(open(path)?)?;
    let run = parse(&name, format, &bytes, &Options::default())?;
    warn(&run);
    Ok((run, bytes))
}

/// The bytes of an input and its format, read once within the limits (`nines import --sweep`
/// reads each fio JSON document of a file as its own run).
pub fn read_input(path: &Path) -> Result<(String, Format, Vec<u8>)> {
    read_whole(open(path)?)
}

/// The most bytes of a text file read whole as a configuration (an fio job file or a file it
/// includes).
pub const MAX_TEXT_FILE: u64 = 1 << 20;

/// A small text file (an fio job file), read once, at most [`MAX_TEXT_FILE`] bytes, UTF-8.
/// The error is a sentence without the file's name (the caller names it).
pub fn read_text(path: &Path) -> std::result::Result<String, String> {
    let file = File::open(path).map_err(|e| format!("could not open it ({e})"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err("it is a directory".into());
    }
    read_text_from(file)
}

/// A file an fio job file includes, read as [`read_text`]: only a regular file. A job file
/// may name any file, so the type is looked at before the file is opened (a FIFO would block
/// the open until some writer came, a device's open may act on the device), and again on the
/// descriptor opened, with O_NONBLOCK and O_NOCTTY (open(2)), so that a file swapped for a
/// FIFO in between can neither block nor become the controlling terminal.
pub fn read_included_text(path: &Path) -> std::result::Result<String, String> {
    let not_regular = |m: &std::fs::Metadata| {
        let t = m.file_type();
        let what = if t.is_dir() {
            "a directory"
        } else if t.is_file() {
            ""
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        (!what.is_empty()).then(|| format!("{what}; an include names a file of fio options"))
    };
    let m = std::fs::metadata(path).map_err(|e| format!("could not open it ({e})"))?;
    if let Some(e) = not_regular(&m) {
        return Err(e);
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = o.open(path).map_err(|e| format!("could not open it ({e})"))?;
    let m = file.metadata().map_err(|e| format!("could not read it ({e})"))?;
    if let Some(e) = not_regular(&m) {
        return Err(e);
    }
    read_text_from(file)
}

fn read_text_from(file: File) -> std::result::Result<String, String> {
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_FILE + 1).read_to_end(&mut bytes).map_err(|e| format!("could not read it ({e})"))?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(format!("larger than {}, the most nines reads of a job file", nines_core::units::format_size(MAX_TEXT_FILE)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("byte offset {at}: not UTF-8 text; is this a job file?")
    })
}

/// A file's identity: its device and inode (stat(2), links followed), so that two paths to
/// one file are told alike. `None` when the path cannot be looked at.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    crate::sys::id_of_path(path).ok()
}

/// The inputs, each file once. A path to a file given before it (the same device and inode:
/// the same path again, another name of it, a link to it) is left out with a note on stderr,
/// so that no command reads one file as two runs and counts it twice. A path that cannot be
/// looked at is kept: reading it says why.
pub fn each_file_once<P: AsRef<Path>>(paths: &[P]) -> Vec<PathBuf> {
    let mut seen: Vec<((u64, u64), &Path)> = Vec::new();
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let p = p.as_ref();
        match file_id(p) {
            Some(id) => match seen.iter().find(|(s, _)| *s == id) {
                Some((_, first)) => {
                    crate::diag!("nines: note: '{}' is the same file as '{}'; it is read once", p.display(), first.display())
                }
                None => {
                    seen.push((id, p));
                    out.push(p.to_path_buf());
                }
            },
            None => out.push(p.to_path_buf()),
        }
    }
    out
}

/// An error when two of `runs` (read from `paths`, in order) hold the same run in two forms
/// (nines-core's `same_run`: a fio json+ and a log of its job, two logs of one job, the
/// same windows): `doing` says what counting both would do wrong.
pub fn refuse_same_run(paths: &[PathBuf], runs: &[Run], doing: &str) -> Result<()> {
    for (i, a) in runs.iter().enumerate() {
        for (j, b) in runs.iter().enumerate().skip(i + 1) {
            if let Some(why) = nines_core::same_run::same_run(a, b) {
                bail!("'{}' and '{}' hold the same run: {why}; {doing}", paths[i].display(), paths[j].display());
            }
        }
    }
    Ok(())
}

/// Read several runs to be shown together, each file once ([`each_file_once`]), stopping at
/// the first that fails; runs with the same name get distinct ones (nines-core's
/// `distinct_names`: the file name, else a number).
pub fn load_runs(paths: &[impl AsRef<Path>]) -> Result<Vec<Run>> {
    let mut runs = each_file_once(paths).iter().map(|p| load_run(p)).collect::<Result<Vec<_>>>()?;
    name_distinctly(&mut runs);
    Ok(runs)
}

/// Every run given, as [`load_runs`] but a file given twice read twice: `nines merge` adds up
/// the runs it is given, as asked.
pub fn load_every_run(paths: &[impl AsRef<Path>]) -> Result<Vec<Run>> {
    let mut runs = paths.iter().map(|p| load_run(p.as_ref())).collect::<Result<Vec<_>>>()?;
    name_distinctly(&mut runs);
    Ok(runs)
}

/// Two sets of runs compared (a baseline and candidates), read as [`load_runs`]: the names
/// are distinct across both sets. A set's runs are repeats of one measurement, their spread
/// its noise, so one run twice in a set (one file, or one run in two forms) is an error, as
/// is a file that is both a baseline and a candidate.
pub fn load_two_sets(a: &[impl AsRef<Path>], b: &[impl AsRef<Path>]) -> Result<(Vec<Run>, Vec<Run>)> {
    let (a, b) = (each_file_once(a), each_file_once(b));
    for p in &b {
        if let Some(q) = file_id(p).and_then(|id| a.iter().find(|q| file_id(q) == Some(id))) {
            bail!("'{}' is both a baseline and a candidate (the same file as '{}'); compare a run with another", p.display(), q.display());
        }
    }
    let mut runs = a.iter().chain(&b).map(|p| load_run(p)).collect::<Result<Vec<_>>>()?;
    let second = runs.split_off(a.len());
    let repeats = "a set's runs are repeats of a measurement, and the same run twice would narrow their spread; give each run once";
    refuse_same_run(&a, &runs, repeats)?;
    refuse_same_run(&b, &second, repeats)?;
    runs.extend(second);
    name_distinctly(&mut runs);
    let second = runs.split_off(a.len());
    Ok((runs, second))
}

/// What [`summarize_two_sets`] keeps of each run of a set, beside the run's distinct name.
pub type Named<T> = Vec<(String, T)>;

/// [`load_two_sets`] one run at a time: each run is read, given to `f`, and dropped before
/// the next, so that comparing a hundred runs a side takes the memory of one run and of what
/// `f` keeps. The same refusals (a file in both sets, one run twice in a set, by what
/// nines-core's `same_run::Identity` keeps of each run) and the same distinct names, given
/// beside what `f` returned.
pub fn summarize_two_sets<T>(a: &[impl AsRef<Path>], b: &[impl AsRef<Path>], mut f: impl FnMut(&Run) -> T) -> Result<(Named<T>, Named<T>)> {
    let (a, b) = (each_file_once(a), each_file_once(b));
    for p in &b {
        if let Some(q) = file_id(p).and_then(|id| a.iter().find(|q| file_id(q) == Some(id))) {
            bail!("'{}' is both a baseline and a candidate (the same file as '{}'); compare a run with another", p.display(), q.display());
        }
    }
    let repeats = "a set's runs are repeats of a measurement, and the same run twice would narrow their spread; give each run once";
    let mut names = Vec::new();
    let mut sets = (Vec::new(), Vec::new());
    for (paths, set) in [(&a, &mut sets.0), (&b, &mut sets.1)] {
        let mut ids: Vec<nines_core::same_run::Identity> = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            let run = load_run(p)?;
            let id = nines_core::same_run::Identity::of(&run);
            if let Some((j, why)) = ids.iter().enumerate().find_map(|(j, x)| nines_core::same_run::same_identity(x, &id).map(|w| (j, w))) {
                bail!("'{}' and '{}' hold the same run: {why}; {repeats}", paths[j].display(), p.display());
            }
            debug_assert_eq!(ids.len(), i);
            ids.push(id);
            names.push((run.name.clone(), run.source.clone()));
            set.push(f(&run));
        }
    }
    let mut names = nines_core::run::distinct_names(&names.iter().map(|(n, s)| (n.as_str(), s.as_str())).collect::<Vec<_>>()).into_iter();
    let (x, y) = sets;
    let x = x.into_iter().map(|t| (names.next().unwrap_or_default(), t)).collect();
    let y = y.into_iter().map(|t| (names.next().unwrap_or_default(), t)).collect();
    Ok((x, y))
}

/// Stream a fio latency log: in parts on several threads when it is a large regular file
/// (which can be opened again at an offset), else in one pass over the open file.
fn stream_lat_log(o: Opened, path: &Path, opts: &Options) -> Result<Run> {
    let Opened { name, mut file, head, .. } = o;
    let regular = file.metadata().map(|m| m.is_file()).unwrap_or(false);
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let threads = threads(8);
    if regular && threads > 1 && size >= PARALLEL_LAT_BYTES {
        // Any error is reported by the plain pass below, which knows its line number.
        if let Ok(run) = read_lat_log_parts(path, &name, opts, size, threads) {
            return Ok(run);
        }
        file.seek(SeekFrom::Start(head.len() as u64)).with_context(|| format!("could not read '{name}'"))?;
    }
    let mut r = LatLogReader::new(&name, opts.window_s);
    r.feed(&head)?;
    feed_range(&mut file, &mut r, u64::MAX).with_context(|| format!("could not read '{name}'"))??;
    Ok(r.finish()?)
}

/// Feed `r` from the file's position for at most `len` bytes, in 256 KiB chunks.
fn feed_range(f: &mut File, r: &mut LatLogReader, len: u64) -> std::io::Result<Result<(), import::LatLogError>> {
    let mut buf = vec![0_u8; 1 << 18];
    let mut left = len;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let k = f.read(&mut buf[..want])?;
        if k == 0 {
            break;
        }
        left -= k as u64;
        if let Err(e) = r.feed(&buf[..k]) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

/// Read a large latency log in `parts` byte ranges split at line starts, side by side, and
/// join the parts exactly (nines_core's `LatLogReader::continuation`/`absorb`).
fn read_lat_log_parts(path: &Path, name: &str, opts: &Options, size: u64, parts: usize) -> Result<Run> {
    // Part boundaries: just after the first newline at or past each even split.
    let mut bounds = vec![0_u64];
    let mut f = File::open(path)?;
    for k in 1..parts {
        let at = size * k as u64 / parts as u64;
        f.seek(SeekFrom::Start(at))?;
        let mut probe = vec![0_u8; 4096];
        let got = f.read(&mut probe)?;
        let nl = probe[..got].iter().position(|&b| b == b'\n').ok_or_else(|| anyhow::anyhow!("no line end near byte {at}"))?;
        let b = at + nl as u64 + 1;
        if b > *bounds.last().unwrap_or(&0) && b < size {
            bounds.push(b);
        }
    }
    bounds.push(size);
    // The first part's first bytes fix the column count and time base for the others.
    let mut first = LatLogReader::new(name, opts.window_s);
    let mut f0 = File::open(path)?;
    let head_len = (64 << 10).min(bounds[1]);
    feed_range(&mut f0, &mut first, head_len)??;
    let mut readers: Vec<(LatLogReader, u64, u64)> = vec![];
    for w in bounds.windows(2).skip(1) {
        readers.push((first.continuation(), w[0], w[1]));
    }
    let rest = bounds[1] - head_len;
    let results: Vec<Result<LatLogReader>> = std::thread::scope(|s| {
        let main = s.spawn(move || -> Result<LatLogReader> {
            feed_range(&mut f0, &mut first, rest)??;
            Ok(first)
        });
        let others: Vec<_> = readers
            .into_iter()
            .map(|(mut r, from, to)| {
                s.spawn(move || -> Result<LatLogReader> {
                    let mut f = File::open(path)?;
                    f.seek(SeekFrom::Start(from))?;
                    feed_range(&mut f, &mut r, to - from)??;
                    Ok(r)
                })
            })
            .collect();
        std::iter::once(main).chain(others).map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a reader thread panicked")))).collect()
    });
    let mut it = results.into_iter();
    let mut all = it.next().ok_or_else(|| anyhow::anyhow!("no parts"))??;
    for r in it {
        all.absorb(r?)?;
    }
    Ok(all.finish()?)
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
    fn parts_read_equals_plain_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big_clat.1.log");
        let mut text = String::new();
        for i in 0..200_000u64 {
            text.push_str(&format!("{}, {}, {}, 4096, 0\n", i / 37, 1000 + (i * 7919) % 900_000, i % 3));
        }
        std::fs::write(&path, &text).unwrap();
        let opts = Options { unit: None, window_s: 0.5 };
        let plain = import::read_any_with(&path.display().to_string(), text.as_bytes(), &opts).unwrap();
        for parts in [2, 3, 7] {
            let run = read_lat_log_parts(&path, &path.display().to_string(), &opts, text.len() as u64, parts).unwrap();
            assert_eq!(run, plain, "{parts} parts");
        }
        // a bad line in a later part: the error names the file's own line number
        let bad = text.replacen("5405, ", "5405, x", 1);
        std::fs::write(&path, &bad).unwrap();
        let line = bad[..bad.find(", x").unwrap()].matches('\n').count() + 1;
        assert!(read_lat_log_parts(&path, "p", &opts, bad.len() as u64, 3).is_err());
        let e = load_with(&path, &opts).unwrap_err().to_string();
        assert!(e.contains(&format!("line {line}:")), "{e} (expected line {line})");
    }

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
