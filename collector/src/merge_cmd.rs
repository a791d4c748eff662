//! `nines merge`: runs of many hosts into one archive, windows matched by wall-clock time and
//! summed exactly ([`nines_core::fleet`]).

use std::io::Write;

use anyhow::{bail, Result};
use nines_core::fleet::{self, Source};

use crate::cli::merge::MergeArgs;
use crate::load::load_every_run;
use crate::output::{self, Inputs, Replace};

pub fn run(args: &MergeArgs, out: &mut impl Write) -> Result<()> {
    if !args.label.is_empty() && args.label.len() != args.files.len() {
        bail!("--label is given {} times for {} runs: give one label per run, in order", args.label.len(), args.files.len());
    }
    let runs = load_every_run(&args.files)?;
    let sources: Vec<Source> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Source { run: r, label: args.label.get(i).map_or_else(|| fleet::label_of(r), |l| fleet::clean_label(l)) })
        .collect();
    let name = args.name.clone().unwrap_or_else(|| match args.output.file_stem() {
        Some(s) if !output::is_stdout(&args.output) => s.to_string_lossy().into_owned(),
        _ => "merge".to_string(),
    });
    let opts = fleet::Options { name, tolerance_s: args.tolerance, regrid_s: args.regrid };
    let merged = fleet::merge(&sources, &opts)?;
    let replace = if args.force { Replace::Always } else { Replace::Never };
    output::write_output_with(&args.output, replace, &Inputs::new(&args.files), |w| nines_core::archive::write(w, &merged).map(|_| ()))?;
    // with the archive on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if output::goes_to_stdout(&args.output) { &mut err } else { out };
    let m = &merged.meta.merge;
    let num = |k: &str| m.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    writeln!(
        out,
        "merged {} runs into {}: {} windows of {} s{}, largest offset {:.6} s (tolerance {} s); each run's tags kept in its scope: {}/TAG",
        sources.len(),
        output::shown(&args.output),
        merged.windows.iter().map(|w| w.start_s.to_bits()).collect::<std::collections::BTreeSet<_>>().len(),
        num("window_s"),
        if m.contains_key("regrid") { " (regridded: each window counted whole in the one holding its midpoint)" } else { "" },
        num("max_offset_s"),
        num("tolerance_s"),
        sources.iter().map(|s| s.label.as_str()).collect::<Vec<_>>().join("/TAG, ")
    )?;
    Ok(())
}
