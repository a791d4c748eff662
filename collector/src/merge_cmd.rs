//! `nines merge`: runs of many hosts into one archive, windows matched by wall-clock time and
//! summed exactly ([`nines_core::fleet`]).
//!
//! The runs are read one at a time: once to plan the merge (their start times, window
//! lengths and tags), then once per band of common windows to sum them. What stays in memory
//! is the band's sums across runs (one histogram a common window and tag, however many runs
//! there are) and, per run, where its own windows lie in a spill file: each run's windows are
//! written out as archive lines as soon as it is read for the first band, and read back from
//! there one at a time into the merged archive in its order (only where each run's windows
//! begin and end stays in memory).
//!
//! Why bands: a sum holds every bucket any run hit in its window, so the sums of every common
//! window widen with the runs (about 25 MB of packed sums at 10 one-hour runs, 65 MB at 100:
//! BENCHMARKS.md, "At fleet scale"). Holding only the common windows whose sums fit in
//! `--memory-mb` keeps the memory to one run's plus that budget, however many runs there are,
//! at the cost of reading every run again per further band. The budget is a size rather than
//! a number of windows because the width of a sum is only known once the runs are summed: the
//! band shrinks from its end as its sums pass the budget (see [`nines_core::fleet::Merger`]).
//! A merge whose sums fit stays one band, reading each run twice as before; the header, which
//! states every run's offset from the grid, is known after the first band, which places every
//! window of every run. The default budget, 64 MB, is what the sums of about 100 one-hour runs
//! at 2,000 IOPS take (measured: one band at 100 runs, so no merge of that size reads its runs
//! more than twice); past it a larger fleet holds one run plus about the budget, and each
//! band past the first costs about 0.05 s of CPU a run-hour.

use crate::sys::FileExt;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use nines_core::archive::{ArchiveWriter, Header};
use nines_core::fleet::{self, Merger, Piece, SourceInfo};
use nines_core::import::Options;
use nines_core::run::distinct_names;

use crate::cli::merge::MergeArgs;
use crate::load::{load_run, load_with};
use crate::output::{self, Inputs, Replace};

pub fn run(args: &MergeArgs, out: &mut impl Write) -> Result<()> {
    if !args.label.is_empty() && args.label.len() != args.files.len() {
        bail!("--label is given {} times for {} runs: give one label per run, in order", args.label.len(), args.files.len());
    }
    let replace = if args.force { Replace::Always } else { Replace::Never };
    // a merge of a fleet reads for minutes: an output it may not write is refused first
    output::refuse_early(&args.output, replace, &Inputs::new(&args.files))?;
    // first reading: what the plan needs of each run
    let mut infos = Vec::with_capacity(args.files.len());
    let mut sources = Vec::with_capacity(args.files.len());
    for p in &args.files {
        let run = load_run(p)?;
        infos.push(SourceInfo::of(&run, String::new()));
        sources.push(run.source);
    }
    // the names runs shown together get ([`nines_core::run::name_distinctly`])
    let names = distinct_names(&infos.iter().zip(&sources).map(|(i, s)| (i.name.as_str(), s.as_str())).collect::<Vec<_>>());
    for (info, name) in infos.iter_mut().zip(names) {
        info.name = name;
    }
    // the hosts' names, or the runs' names where runs of one host are merged
    let defaults = fleet::default_labels(&infos);
    for (i, (info, default)) in infos.iter_mut().zip(defaults).enumerate() {
        info.label = args.label.get(i).map_or(default, |l| fleet::clean_label(l));
    }
    let labels: Vec<String> = infos.iter().map(|i| i.label.clone()).collect();
    // the names the runs are given again at each reading (the merger keeps the rest of the plan)
    let names: Vec<String> = infos.iter().map(|i| i.name.clone()).collect();
    let name = args.name.clone().unwrap_or_else(|| match args.output.file_stem() {
        Some(s) if !output::is_stdout(&args.output) => s.to_string_lossy().into_owned(),
        _ => "merge".to_string(),
    });
    let opts = fleet::Options { name, tolerance_s: args.tolerance, regrid_s: args.regrid };
    if !(args.memory_mb.is_finite() && args.memory_mb >= 0.0) {
        bail!("--memory-mb {}: give a size in MB, 0 or more", args.memory_mb);
    }
    // (f64 to usize saturates)
    let budget = (args.memory_mb * 1e6) as usize;
    let mut merger = Merger::new(infos, &opts)?.with_budget(budget);
    // second reading, the first band
    let (spill, spans) = first_band(&args.files, &args.output, &names, &mut merger)?;
    let mut band = merger.take_band();
    let (start_time, meta) = merger.head();
    // what the last line says of the merge (the header itself, a few hundred bytes a run, is
    // dropped once written)
    let num = |k: &str| meta.merge.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    let (window_s, max_offset_s, tolerance_s, regrid) =
        (num("window_s"), num("max_offset_s"), num("tolerance_s"), meta.merge.contains_key("regrid"));
    let mut header = Some(Header { start_time, meta });
    let shape = merger.shape();
    let failed = std::cell::Cell::new(None);
    let (mut windows, mut bands) = (0, 0);
    // an error reading a run again for a later band, as it was
    let mut later = None;
    output::write_output_with(&args.output, replace, &Inputs::new(&args.files), |w| {
        let mut aw = ArchiveWriter::new(w, &header.take().expect("written once"))?;
        let mut buf = Vec::new();
        let mut own: Vec<_> = spans.iter().map(|&(at, end)| Spilled { file: &spill, at, end, failed: &failed }.peekable()).collect();
        loop {
            windows += band.windows();
            bands += 1;
            shape.assemble(band, &mut own, |piece| match piece {
                Piece::Merged(win) => aw.write_window(&win),
                Piece::Own(_, (at, len)) => {
                    buf.resize(len as usize, 0);
                    spill.read_exact_at(&mut buf, at)?;
                    aw.get_mut().write_all(&buf)
                }
            })?;
            // a record that could not be read back ended its run's windows early
            if let Some(e) = failed.take() {
                return Err(e);
            }
            if merger.done() {
                break;
            }
            // the next band: every run read and summed again (its own windows are spilled)
            if let Err(e) = next_band(&args.files, &names, &mut merger) {
                let said = format!("{e:#}");
                later = Some(e);
                return Err(std::io::Error::other(said));
            }
            band = merger.take_band();
        }
        aw.get_mut().flush()
    })
    .map_err(|e| later.take().unwrap_or(e))?;
    // with the archive on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if output::goes_to_stdout(&args.output) { &mut err } else { out };
    writeln!(
        out,
        "merged {} runs into {}: {} windows of {} s{}, largest offset {:.6} s (tolerance {} s); each run's tags kept in its scope: {}",
        args.files.len(),
        output::shown(&args.output),
        windows,
        window_s,
        if regrid { " (regridded: each window counted whole in the one holding its midpoint)" } else { "" },
        max_offset_s,
        tolerance_s,
        scopes(&labels)
    )?;
    if bands > 1 {
        writeln!(
            out,
            "the sums across runs took {bands} bands of common windows (--memory-mb {}), every run read once per band",
            args.memory_mb
        )?;
    }
    Ok(())
}

/// The runs' scopes as the last line names them: every one for a few runs, the first and
/// last three and how many between for a fleet (a line is not the place for a thousand; the
/// merged header lists them all).
fn scopes(labels: &[String]) -> String {
    let scope = |l: &String| format!("{l}/TAG");
    if labels.len() <= 8 {
        return labels.iter().map(scope).collect::<Vec<_>>().join(", ");
    }
    let (head, tail) = (&labels[..3], &labels[labels.len() - 3..]);
    format!(
        "{}, ... ({} more), {}",
        head.iter().map(scope).collect::<Vec<_>>().join(", "),
        labels.len() - 6,
        tail.iter().map(scope).collect::<Vec<_>>().join(", ")
    )
}

/// The first band: each run read again and summed, its own windows written to the spill file
/// (each as its slot, its tag's position and its length, 12 bytes, before its archive line);
/// the spill file and, per run, where its windows begin and end in it.
fn first_band(files: &[PathBuf], output: &Path, names: &[String], merger: &mut Merger) -> Result<(File, Vec<(u64, u64)>)> {
    let mut spill = spill_file(output)?;
    // per run, where its windows begin and end in the spill file: 16 bytes a run
    let mut spans = Vec::with_capacity(files.len());
    let mut lines = ArchiveWriter::new(Vec::new(), &Header::default())?;
    for (i, p) in files.iter().enumerate() {
        // (its warnings were printed at the first reading)
        let mut run = load_with(p, &Options::default())?;
        run.name.clone_from(&names[i]);
        // the run's histograms are moved into its own windows, not copied
        let windows = merger.add_run(i, run)?;
        let begin = spill.stream_position()?;
        lines.get_mut().clear();
        for (k, pos, w) in windows {
            let at = lines.get_mut().len();
            lines.get_mut().extend_from_slice(&[0; SPILL_HEAD]);
            lines.write_window(&w).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            let line = lines.get_mut().len() - at - SPILL_HEAD;
            let len = u32::try_from(line)
                .map_err(|_| anyhow::anyhow!("{}: a window of {line} bytes as an archive line, beyond 4 GiB", p.display()))?;
            let head = &mut lines.get_mut()[at..at + SPILL_HEAD];
            for (i, v) in [k, pos, len].into_iter().enumerate() {
                head[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        spill.write_all(lines.get_mut()).context("could not write the merge's spill file")?;
        spans.push((begin, spill.stream_position()?));
    }
    Ok((spill, spans))
}

/// A band after the first: every run read and summed again (its own windows are spilled
/// already).
fn next_band(files: &[PathBuf], names: &[String], merger: &mut Merger) -> Result<()> {
    for (i, p) in files.iter().enumerate() {
        let mut run = load_with(p, &Options::default())?;
        run.name.clone_from(&names[i]);
        merger.add_run(i, run)?;
    }
    Ok(())
}

/// The bytes before each window in the spill file: its slot, its tag's position in its run's
/// tags and the length of its archive line, each a little-endian u32.
const SPILL_HEAD: usize = 12;

/// One run's own windows in the spill file, read back one at a time as the merged archive
/// takes them (slot, tag position, and where its archive line lies), so that no list of a
/// thousand runs' windows is kept in memory. A read that fails ends the run's windows and is
/// kept in `failed` for the caller.
struct Spilled<'a> {
    file: &'a File,
    at: u64,
    end: u64,
    failed: &'a std::cell::Cell<Option<std::io::Error>>,
}

impl Iterator for Spilled<'_> {
    type Item = (u32, u32, (u64, u32));

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let mut head = [0u8; SPILL_HEAD];
        if let Err(e) = self.file.read_exact_at(&mut head, self.at) {
            self.failed.set(Some(e));
            self.at = self.end;
            return None;
        }
        let word = |i: usize| u32::from_le_bytes([head[4 * i], head[4 * i + 1], head[4 * i + 2], head[4 * i + 3]]);
        let line = self.at + SPILL_HEAD as u64;
        self.at = line + u64::from(word(2));
        Some((word(0), word(1), (line, word(2))))
    }
}

/// An unnamed temporary file for the runs' own windows (as large as the merged archive): in
/// the output's directory, which has room for the output, else in the temporary directory.
/// It has no name, so no other user can open or replace it, and it is gone when closed.
fn spill_file(output: &Path) -> Result<File> {
    let to_file = !output::is_stdout(output) && std::fs::symlink_metadata(output).map_or(true, |m| m.is_file());
    let dir = output.parent().filter(|d| to_file && !d.as_os_str().is_empty());
    let made = match dir {
        Some(d) => tempfile::tempfile_in(d).or_else(|_| tempfile::tempfile()),
        None => tempfile::tempfile(),
    };
    let mut f = made.context("could not make a spill file for the merge")?;
    f.seek(SeekFrom::Start(0))?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::scopes;

    #[test]
    fn the_last_line_names_a_few_scopes_and_counts_the_rest() {
        let labels = |n: usize| (0..n).map(|i| format!("h{i}")).collect::<Vec<_>>();
        assert_eq!(scopes(&labels(3)), "h0/TAG, h1/TAG, h2/TAG");
        assert_eq!(scopes(&labels(8)).matches("/TAG").count(), 8);
        assert_eq!(scopes(&labels(1000)), "h0/TAG, h1/TAG, h2/TAG, ... (994 more), h997/TAG, h998/TAG, h999/TAG");
    }
}
