//! `nines stats`.

use std::io::Write;

use anyhow::{bail, Result};
use nines_core::export;
use nines_core::stats;

use crate::cli::StatsArgs;
use crate::load::load_runs;

pub fn run(args: &StatsArgs, out: &mut impl Write) -> Result<()> {
    let opts = args.sel.options()?;
    let runs = load_runs(&args.files)?;
    let mut results = Vec::with_capacity(runs.len());
    for r in &runs {
        let s = stats::run_stats(r, &opts);
        if s.tags.0.is_empty() {
            match &args.sel.tag {
                Some(t) => bail!("{}: no windows with tag '{t}' in the selected range (tags: {})", r.source, tag_list(r)),
                None => bail!("{}: no windows in the selected range", r.source),
            }
        }
        results.push(s);
    }
    if args.json {
        writeln!(out, "{}", export::json::stats(&results))?;
    } else {
        write!(out, "{}", export::text::stats(&results))?;
    }
    Ok(())
}

fn tag_list(r: &nines_core::run::Run) -> String {
    r.tags().iter().map(|t| nines_core::table::shown(stats::tag_name(t.as_deref())).into_owned()).collect::<Vec<_>>().join(", ")
}
