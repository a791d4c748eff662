//! `nines stats`.

use std::io::Write;

use anyhow::{bail, Result};
use nines_core::export;
use nines_core::run::distinct_names;
use nines_core::stats;

use crate::cli::StatsArgs;
use crate::load::{each_file_once, load_run};

pub fn run(args: &StatsArgs, out: &mut impl Write) -> Result<()> {
    let opts = args.sel.options()?;
    // One run in memory at a time: each is read, summed and dropped before the next, so the
    // stats of a thousand runs take the memory of the largest one, not of all of them.
    let files = each_file_once(&args.files);
    let mut results = Vec::with_capacity(files.len());
    for p in &files {
        let r = &load_run(p)?;
        let s = stats::run_stats(r, &opts);
        if s.tags.0.is_empty() {
            match &args.sel.tag {
                Some(t) => bail!("{}: no windows with tag '{t}' in the selected range (tags: {})", r.source, tag_list(r)),
                None => bail!("{}: no windows in the selected range", r.source),
            }
        }
        results.push(s);
    }
    // the names runs shown together get ([`nines_core::run::name_distinctly`])
    let names = distinct_names(&results.iter().map(|s| (s.name.as_str(), s.file.as_str())).collect::<Vec<_>>());
    for (s, n) in results.iter_mut().zip(names) {
        s.name = n;
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
