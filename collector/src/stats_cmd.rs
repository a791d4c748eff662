//! `nines stats`.

use std::io::Write;

use anyhow::{bail, Result};
use nines_core::context::ContextSummary;
use nines_core::export;
use nines_core::run::distinct_names;
use nines_core::stats;

use crate::cli::StatsArgs;
use crate::load::{each_file_once, load_run};

pub fn run(args: &StatsArgs, out: &mut impl Write) -> Result<()> {
    let mut opts = args.sel.options()?;
    if !args.levels.is_empty() {
        opts.levels = nines_core::quantile::sorted_levels(args.levels.clone());
    }
    if args.windows {
        for l in &args.limit {
            if !opts.levels.iter().any(|x| x.num as u128 * l.level.den as u128 == l.level.num as u128 * x.den as u128) {
                let all = opts.levels.iter().map(|x| x.label.as_str()).collect::<Vec<_>>().join(", ");
                bail!(
                    "--limit {} {}: {} is not among the levels computed ({all}); add it with --levels",
                    l.level.label,
                    l.text(),
                    l.level.label
                );
            }
        }
    }
    // One run in memory at a time: each is read, summed and dropped before the next, so the
    // stats of a thousand runs take the memory of the largest one, not of all of them.
    let files = each_file_once(&args.files);
    let mut results = Vec::with_capacity(files.len());
    let mut contexts = Vec::new();
    for p in &files {
        let r = &load_run(p)?;
        let mut s = stats::run_stats(r, &opts);
        if args.windows {
            stats::attach_windows(r, &opts, &args.limit, &mut s);
        }
        if s.tags.0.is_empty() {
            match &args.sel.tag {
                Some(t) => bail!("{}: no windows with tag '{t}' in the selected range (tags: {})", r.source, tag_list(r)),
                None => bail!("{}: no windows in the selected range", r.source),
            }
        }
        if args.context {
            contexts.push(ContextSummary::of(r, args.sel.from, args.sel.to));
        }
        results.push(s);
    }
    // a limit for one direction that no run has would silently bound nothing
    for l in &args.limit {
        if let Some(t) = &l.tag {
            if !results.iter().any(|s| s.tags.get(t).is_some()) {
                bail!("--limit '{t} {} {}': no run has a direction '{t}' in the selected range", l.level.label, l.text());
            }
        }
    }
    // the names runs shown together get ([`nines_core::run::name_distinctly`])
    let names = distinct_names(&results.iter().map(|s| (s.name.as_str(), s.file.as_str())).collect::<Vec<_>>());
    for (s, n) in results.iter_mut().zip(names) {
        s.name = n;
    }
    if args.context {
        if args.json {
            writeln!(out, "{}", export::json::stats_context(&results, &contexts))?;
        } else {
            for (i, (s, c)) in results.iter().zip(&contexts).enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                write!(out, "{}", export::text::stats(std::slice::from_ref(s)))?;
                match c {
                    Some(c) => write!(out, "{}", export::text::context(c))?,
                    None => {
                        writeln!(out, "context: none recorded (the run has no #[context] lines: imported, or written by an older nines)")?
                    }
                }
            }
        }
    } else if args.json {
        writeln!(out, "{}", export::json::stats(&results))?;
    } else {
        write!(out, "{}", export::text::stats(&results))?;
    }
    Ok(())
}

fn tag_list(r: &nines_core::run::Run) -> String {
    r.tags().iter().map(|t| nines_core::table::shown(stats::tag_name(t.as_deref())).into_owned()).collect::<Vec<_>>().join(", ")
}
