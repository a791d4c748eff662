//! `nines compare`, `nines sweep` and `nines steady`: did the change help, and can the
//! measurement be trusted. All arithmetic is in nines-core (compare, sweep_table, convergence).

use anyhow::{bail, Context, Result};
use nines_core::compare;
use nines_core::convergence;
use nines_core::export;
use nines_core::run::Run;
use nines_core::series::{Direction, Grouping};
use nines_core::stats::tag_name;
use nines_core::sweep_table;
use std::io::Write;

use crate::cli::judge::{CompareArgs, SteadyArgs, SweepArgs};
use crate::load::load_two_sets;

pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<()> {
    let opts = args.sel.options()?;
    let (base, cand) = load_two_sets(&args.base, &args.with)?;
    let c = compare::compare(&base, &cand, &opts);
    if c.tags.is_empty() {
        bail!(
            "the baseline and candidate runs have no direction in common{}",
            args.sel.tag.as_ref().map_or(String::new(), |t| format!(" named '{t}'"))
        );
    }
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        write!(out, "{}", export::text::comparison(&c))?;
    }
    Ok(())
}

pub fn sweep(args: &SweepArgs, out: &mut impl Write) -> Result<()> {
    let (base, cand) = load_two_sets(&args.base, &args.with)?;
    let t = sweep_table::sweep(&base, &cand, &args.param, &args.tag)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
    } else if args.csv {
        write!(out, "{}", export::csv::sweep(&t))?;
    } else {
        write!(out, "{}", export::text::sweep(&t))?;
    }
    Ok(())
}

fn direction(run: &Run, tag: Option<&str>) -> Result<Direction> {
    let Some(tag) = tag else { return Ok(Direction::All) };
    let tags = run.tags();
    match tags.iter().find(|t| tag_name(t.as_deref()) == tag) {
        Some(t) => Ok(Direction::Tag(t.clone())),
        None => bail!(
            "{}: no direction '{tag}' (tags: {})",
            run.source,
            tags.iter().map(|t| tag_name(t.as_deref()).to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

pub fn steady(args: &SteadyArgs, out: &mut impl Write) -> Result<()> {
    if args.rounds < 2 {
        bail!("--rounds {} is too few: the rule needs at least 2 rounds (the PTS uses 5)", args.rounds);
    }
    let (track, criteria) = (&args.track, &args.criteria);
    let round = match args.round {
        None => Grouping::Native,
        Some(s) if s > 0.0 && s.is_finite() => Grouping::Seconds(s),
        Some(s) => bail!("--round {s} must be a positive number of seconds"),
    };
    let run = crate::load::load_run(&args.file)?;
    let dir = direction(&run, args.tag.as_deref())?;
    let report =
        convergence::steady_report(&run, &dir, track, args.rounds, round, criteria).with_context(|| format!("{}", args.file.display()))?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", export::text::steady(&report))?;
    }
    Ok(())
}
