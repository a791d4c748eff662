//! `nines import`: read fio results, fio logs, other HdrHistogram logs and latency lists into
//! a nines archive. The parsing is `nines_core::import`; this is file handling.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use nines_core::import::{self, fio_json, sweep, Format, LatLogReader, Options, Unit};
use nines_core::run::Run;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Files to import: fio json+ output, fio histogram logs (NAME_clat_hist.N.log), fio
    /// latency logs (NAME_clat.N.log, _lat., _slat.), HdrHistogram interval logs, latency
    /// lists (one per line or CSV). The format of each is detected. Several files become one
    /// run (e.g. every job's log of one fio run), unless --sweep is given.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Archive to write (.hlog). With --sweep, a directory that gets one archive per run.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Unit of the latencies in plain lists: ns, us, ms or s. Required for lists; fio
    /// files and HdrHistogram logs say their own unit.
    #[arg(long, value_name = "UNIT", value_parser = parse_unit)]
    pub unit: Option<Unit>,
    /// Window length for per-I/O latency logs and lists with times, e.g. 1s, 500ms, 10s.
    #[arg(long, value_name = "DUR", default_value = "1s", value_parser = parse_duration)]
    pub window: f64,
    /// The files are steps of a parameter sweep (e.g. fio numjobs 1..1024): each file, and
    /// each JSON document in a file, becomes its own run named by the parameters that
    /// differ, written to OUT/<name>.hlog.
    #[arg(long)]
    pub sweep: bool,
    /// Name of the run (default: the first file's name without extension).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Overwrite output files that exist.
    #[arg(long)]
    pub force: bool,
}

fn parse_unit(s: &str) -> std::result::Result<Unit, String> {
    Unit::parse(s).ok_or_else(|| format!("unit {s:?} is not one of ns, us, ms, s"))
}

/// `1s`, `500ms`, `2.5s`, `100us`, `1m`; a bare number is seconds.
pub fn parse_duration(s: &str) -> std::result::Result<f64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let v: f64 = num.parse().map_err(|_| format!("duration {s:?} does not start with a number"))?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        u => return Err(format!("duration unit {u:?} is not one of us, ms, s, m, h")),
    };
    let d = v * scale;
    if !(d >= 1e-3 && d.is_finite()) {
        return Err(format!("duration {s:?} is shorter than 1ms, fio's time resolution"));
    }
    Ok(d)
}

/// Read one file as a run in any supported format. fio latency logs are streamed in chunks,
/// so logs larger than memory can be imported.
pub fn load_path(path: &Path, opts: &Options) -> Result<Run> {
    let name = path.display().to_string();
    let mut f = File::open(path).with_context(|| format!("could not open '{name}'"))?;
    let mut head = vec![0_u8; 8192];
    let mut n = 0;
    while n < head.len() {
        let k = f.read(&mut head[n..]).with_context(|| format!("could not read '{name}'"))?;
        if k == 0 {
            break;
        }
        n += k;
    }
    head.truncate(n);
    if import::detect(&name, &head) == Some(Format::FioLat) {
        let size = f.metadata().map(|m| m.len()).unwrap_or(0);
        let threads = crate::load::threads(8);
        if threads > 1 && size >= PARALLEL_BYTES {
            // Any error is reported by the plain pass below, which knows its line number.
            if let Ok(run) = read_lat_log_parts(path, &name, opts, size, threads) {
                return Ok(run);
            }
            f.seek(SeekFrom::Start(n as u64)).with_context(|| format!("could not read '{name}'"))?;
        }
        let mut r = LatLogReader::new(&name, opts.window_s);
        r.feed(&head)?;
        feed_range(&mut f, &mut r, u64::MAX).with_context(|| format!("could not read '{name}'"))??;
        return Ok(r.finish()?);
    }
    let mut bytes = head;
    f.read_to_end(&mut bytes).with_context(|| format!("could not read '{name}'"))?;
    Ok(import::read_any_with(&name, &bytes, opts)?)
}

/// Latency logs from this size up are read in parts on several threads.
const PARALLEL_BYTES: u64 = 16 << 20;


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

fn write_archive(path: &Path, run: &Run, force: bool) -> Result<()> {
    if path.exists() && !force {
        bail!("'{}' exists; give --force to overwrite it", path.display());
    }
    let f = File::create(path).with_context(|| format!("could not create '{}'", path.display()))?;
    let mut w = nines_core::archive::write(BufWriter::new(f), run).with_context(|| format!("could not write '{}'", path.display()))?;
    w.flush().with_context(|| format!("could not write '{}'", path.display()))?;
    Ok(())
}

fn summary(run: &Run) -> String {
    let s = nines_core::stats::run_stats(run, &nines_core::stats::Options::default());
    let parts: Vec<String> = s.tags.iter().map(|(t, x)| format!("{t} {}", nines_core::units::group(x.count))).collect();
    format!("{} windows, {:.1} s: {}", run.windows.len(), s.duration_s, parts.join(", "))
}

/// A file name from a run name: letters, digits, `-`, `_`, `=`, `.` kept, others `_`.
fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_=.".contains(c) { c } else { '_' })
        .collect();
    let s = s.trim_matches('_').to_string();
    if s.is_empty() { "run".into() } else { s }
}

pub fn run(args: &ImportArgs, out: &mut impl Write) -> Result<()> {
    let opts = Options { unit: args.unit, window_s: args.window };
    if args.sweep {
        let mut runs = Vec::new();
        for p in &args.files {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).with_context(|| format!("could not read '{name}'"))?;
            if import::detect(&name, &bytes) == Some(Format::FioJson) {
                runs.extend(fio_json::read_each(&name, &bytes)?);
            } else {
                runs.push(load_path(p, &opts)?);
            }
        }
        let runs = sweep::label(runs);
        std::fs::create_dir_all(&args.output).with_context(|| format!("could not create directory '{}'", args.output.display()))?;
        let mut used = std::collections::HashSet::new();
        for r in &runs {
            let mut stem = file_stem(&r.name);
            let mut k = 2;
            while !used.insert(stem.clone()) {
                stem = format!("{}-{k}", file_stem(&r.name));
                k += 1;
            }
            let path = args.output.join(format!("{stem}.hlog"));
            write_archive(&path, r, args.force)?;
            writeln!(out, "{}: {} ({})", path.display(), r.name, summary(r))?;
        }
        return Ok(());
    }
    let mut runs = Vec::with_capacity(args.files.len());
    // fio writes empty slat logs for synchronous engines: with other files to import, an
    // empty file is skipped with a warning (alone, it is an error naming the file)
    let empty = |p: &PathBuf| std::fs::metadata(p).is_ok_and(|m| m.len() == 0);
    let all_empty = args.files.iter().all(empty);
    for p in &args.files {
        if !all_empty && empty(p) {
            eprintln!("nines: warning: {}: the file is empty; skipped", p.display());
            continue;
        }
        let r = load_path(p, &opts)?;
        for w in &r.warnings {
            eprintln!("nines: warning: {}: {w}", p.display());
        }
        runs.push(r);
    }
    let name = args.name.clone().unwrap_or_else(|| runs[0].name.clone());
    let run = import::combine(&name, &runs)?;
    write_archive(&args.output, &run, args.force)?;
    writeln!(out, "{}: {}", args.output.display(), summary(&run))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1s"), Ok(1.0));
        assert_eq!(parse_duration("500ms"), Ok(0.5));
        assert_eq!(parse_duration("2"), Ok(2.0));
        assert_eq!(parse_duration("1m"), Ok(60.0));
        assert!(parse_duration("10us").is_err());
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("3 parsecs").is_err());
    }

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
        let e = load_path(&path, &opts).unwrap_err().to_string();
        assert!(e.contains(&format!("line {line}:")), "{e} (expected line {line})");
    }

    #[test]
    fn file_stems() {
        assert_eq!(file_stem("numjobs=16"), "numjobs=16");
        assert_eq!(file_stem("*-hdd=1, fio-*-jobs=2"), "-hdd=1__fio-_-jobs=2");
        assert_eq!(file_stem("//"), "run");
    }
}
