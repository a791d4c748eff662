//! `nines merge`: runs of many hosts into one archive, windows matched by wall-clock time and
//! summed exactly ([`nines_core::fleet`]).
//!
//! The runs are read one at a time, twice: once to plan the merge (their start times, window
//! lengths and tags), once to sum them. What stays in memory is the sums across runs (one
//! histogram a common window and tag, however many runs there are) and, per run, where its
//! own windows lie in a spill file: each run's windows are written out as archive lines as
//! soon as it is summed, and copied from there into the merged archive in its order. So a
//! merge of a thousand runs needs the memory of about one run, not of a thousand.

use crate::sys::FileExt;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

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
    for (i, (info, name)) in infos.iter_mut().zip(names).enumerate() {
        info.name = name;
        info.label = args.label.get(i).map_or_else(|| info.default_label(), |l| fleet::clean_label(l));
    }
    let labels: Vec<String> = infos.iter().map(|i| i.label.clone()).collect();
    let name = args.name.clone().unwrap_or_else(|| match args.output.file_stem() {
        Some(s) if !output::is_stdout(&args.output) => s.to_string_lossy().into_owned(),
        _ => "merge".to_string(),
    });
    let opts = fleet::Options { name, tolerance_s: args.tolerance, regrid_s: args.regrid };
    let mut merger = Merger::new(infos.clone(), &opts)?;
    // second reading: each run summed, its own windows written to the spill file
    let mut spill = spill_file(&args.output)?;
    // per run: where its windows begin in the spill file, and each one's length (they lie
    // there in the order the archive takes them: 12 bytes a window kept, for any number of
    // runs)
    let mut own = Vec::with_capacity(args.files.len());
    let mut begins = Vec::with_capacity(args.files.len());
    let mut lines = ArchiveWriter::new(Vec::new(), &Header::default())?;
    for (i, p) in args.files.iter().enumerate() {
        // (its warnings were printed at the first reading)
        let mut run = load_with(p, &Options::default())?;
        run.name.clone_from(&infos[i].name);
        let windows = merger.add(i, &run)?;
        drop(run);
        begins.push(spill.stream_position()?);
        lines.get_mut().clear();
        let mut placed = Vec::with_capacity(windows.len());
        for (k, pos, w) in windows {
            let from = lines.get_mut().len();
            lines.write_window(&w).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            let len = u32::try_from(lines.get_mut().len() - from).map_err(|_| {
                anyhow::anyhow!("{}: a window of {} bytes as an archive line, beyond 4 GiB", p.display(), lines.get_mut().len() - from)
            })?;
            placed.push((k, pos, len));
        }
        spill.write_all(lines.get_mut()).context("could not write the merge's spill file")?;
        own.push(placed);
    }
    drop(lines);
    let merged = merger.finish();
    let windows = merged.windows();
    let merge_meta = merged.meta.merge.clone();
    let header = Header { start_time: merged.start_time, meta: merged.meta.clone() };
    let replace = if args.force { Replace::Always } else { Replace::Never };
    output::write_output_with(&args.output, replace, &Inputs::new(&args.files), |w| {
        let mut aw = ArchiveWriter::new(w, &header)?;
        let mut buf = Vec::new();
        let mut at = begins;
        merged.assemble(own, |piece| match piece {
            Piece::Merged(win) => aw.write_window(&win),
            Piece::Own(run, len) => {
                buf.resize(len as usize, 0);
                spill.read_exact_at(&mut buf, at[run])?;
                at[run] += u64::from(len);
                aw.get_mut().write_all(&buf)
            }
        })?;
        aw.get_mut().flush()
    })?;
    // with the archive on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if output::goes_to_stdout(&args.output) { &mut err } else { out };
    let num = |k: &str| merge_meta.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    writeln!(
        out,
        "merged {} runs into {}: {} windows of {} s{}, largest offset {:.6} s (tolerance {} s); each run's tags kept in its scope: {}/TAG",
        args.files.len(),
        output::shown(&args.output),
        windows,
        num("window_s"),
        if merge_meta.contains_key("regrid") { " (regridded: each window counted whole in the one holding its midpoint)" } else { "" },
        num("max_offset_s"),
        num("tolerance_s"),
        labels.join("/TAG, ")
    )?;
    Ok(())
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
