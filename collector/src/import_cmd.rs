//! `nines import`: read fio results, fio logs, other HdrHistogram logs and latency lists into
//! a nines archive. The parsing is `nines_core::import`; this is file handling.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use nines_core::import::{self, fio_json, sweep, Format, Options};
use nines_core::run::Run;

use crate::cli::import::ImportArgs;
use crate::cli::meta::add_user_meta;
use crate::load;
use crate::output::{self, Inputs, Replace};

/// Write an archive whole (through a temporary file: a failed or interrupted import leaves
/// nothing behind), never over one of the inputs. `single`: the command's one output (`-o`),
/// which may be stdout, a character device or a FIFO; the files of `--sweep` are files.
fn write_archive(path: &Path, run: &Run, force: bool, inputs: &Inputs, single: bool) -> Result<()> {
    let replace = if force { Replace::Always } else { Replace::Never };
    let fill = |w: &mut std::io::BufWriter<&std::fs::File>| nines_core::archive::write(w, run).map(|_| ());
    if single {
        output::write_output_with(path, replace, inputs, fill)
    } else {
        output::write_atomic_with(path, replace, inputs, fill)
    }
}

fn summary(run: &Run) -> String {
    let s = nines_core::stats::run_stats(run, &nines_core::stats::Options::default());
    let parts: Vec<String> =
        s.tags.iter().map(|(t, x)| format!("{} {}", nines_core::table::shown(t), nines_core::units::group(x.count))).collect();
    format!("{} windows, {:.1} s: {}", run.windows.len(), s.duration_s, parts.join(", "))
}

/// A file name from a run name: letters, digits, `-`, `_`, `=`, `.` kept, others `_`.
fn file_stem(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_=.".contains(c) { c } else { '_' }).collect();
    let s = s.trim_matches('_').to_string();
    if s.is_empty() {
        "run".into()
    } else {
        s
    }
}

pub fn run(args: &ImportArgs, out: &mut impl Write) -> Result<()> {
    let opts = Options { unit: args.unit, window_s: args.window };
    let inputs = Inputs::new(&args.files);
    let files = load::each_file_once(&args.files);
    if args.sweep {
        output::refuse_stdout(&args.output, "-o", "the directory of a sweep's archives (--sweep)")?;
        let mut runs = Vec::new();
        for p in &files {
            let (name, format, bytes) = load::read_input(p)?;
            if format == Format::FioJson {
                runs.extend(fio_json::read_each(&name, &bytes)?);
            } else {
                runs.push(load::parse(&name, format, &bytes, &opts)?);
            }
        }
        let mut runs = sweep::label(runs);
        for r in &mut runs {
            add_user_meta(&mut r.meta.other, &args.meta);
        }
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
            write_archive(&path, r, args.force, &inputs, false)?;
            writeln!(out, "{}: {} ({})", path.display(), nines_core::table::shown(&r.name), summary(r))?;
        }
        return Ok(());
    }
    let mut runs = Vec::with_capacity(files.len());
    // fio writes empty slat logs for synchronous engines: with other files to import, an
    // empty file is skipped with a warning (alone, it is an error naming the file)
    let empty = |p: &PathBuf| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() == 0);
    let all_empty = files.iter().all(empty);
    let mut read = Vec::with_capacity(files.len());
    for p in &files {
        if !all_empty && empty(p) {
            crate::diag!("nines: warning: {}: the file is empty; skipped", p.display());
            continue;
        }
        let r = load::load_with(p, &opts)?;
        for w in &r.warnings {
            crate::diag!("nines: warning: {}: {w}", p.display());
        }
        runs.push(r);
        read.push(p.clone());
    }
    // the files of one import are parts of one run, added up: one run in two forms (a fio
    // json+ and a log of its job) would count every I/O twice
    load::refuse_same_run(
        &read,
        &runs,
        "importing both would count its I/Os twice: import one of them (nines merge adds runs up on purpose, each kept in its scope)",
    )?;
    let name = args.name.clone().unwrap_or_else(|| runs[0].name.clone());
    let mut run = import::combine(&name, &runs)?;
    add_user_meta(&mut run.meta.other, &args.meta);
    write_archive(&args.output, &run, args.force, &inputs, true)?;
    // with the archive on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if output::goes_to_stdout(&args.output) { &mut err } else { out };
    writeln!(out, "{}: {}", output::shown(&args.output), summary(&run))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems() {
        assert_eq!(file_stem("numjobs=16"), "numjobs=16");
        assert_eq!(file_stem("*-hdd=1, fio-*-jobs=2"), "-hdd=1__fio-_-jobs=2");
        assert_eq!(file_stem("//"), "run");
    }
}
