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

use crate::cli::judge::{CompareArgs, FailOn, SteadyArgs, SweepArgs};
use crate::load::{load_two_sets, summarize_two_sets};

/// Print the comparison; the changes `--fail-on` fails on (`DIRECTION MEASURE +N%`), empty
/// without it.
pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<Vec<String>> {
    let opts = args.sel.options()?;
    // one run in memory at a time: what a comparison needs of each is its summary
    let summary = |r: &Run| compare::Summary::of(r, nines_core::stats::run_stats(r, &opts));
    let (base, cand) = summarize_two_sets(&args.base, &args.with, summary)?;
    let named = |set: Vec<(String, compare::Summary)>| -> Vec<compare::Summary> {
        set.into_iter()
            .map(|(name, mut s)| {
                s.name = name;
                s
            })
            .collect()
    };
    let c = compare::compare_summaries(&named(base), &named(cand), &opts);
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
    let Some(fail_on) = args.fail_on else { return Ok(Vec::new()) };
    let failing = |v: compare::Verdict| match fail_on {
        FailOn::Worse => v == compare::Verdict::Worse,
        FailOn::Change => matches!(v, compare::Verdict::Worse | compare::Verdict::Better),
    };
    Ok(c.tags
        .iter()
        .flat_map(|t| [&t.iops, &t.mean].into_iter().chain(&t.levels).map(move |ch| (t, ch)))
        .filter(|(_, ch)| failing(ch.verdict))
        .map(|(t, ch)| {
            let pct = ch.change_pct.map(|p| format!(" {p:+.1}%")).unwrap_or_default();
            format!("{} {}{pct} ({})", t.tag, ch.label, if ch.verdict == compare::Verdict::Worse { "worse" } else { "better" })
        })
        .collect())
}

pub fn sweep(args: &SweepArgs, out: &mut impl Write) -> Result<()> {
    let (base, cand) = load_two_sets(&args.base, &args.with)?;
    if args.curve {
        let label = |s: &str| if args.with.is_empty() { "runs".to_string() } else { s.to_string() };
        let mut sets = vec![(label("baseline"), base.iter().collect::<Vec<_>>())];
        if !cand.is_empty() {
            sets.push(("candidate".to_string(), cand.iter().collect()));
        }
        let t =
            nines_core::curve::table(&sets, &args.tag, &nines_core::curve::default_levels(), args.param.as_deref(), args.limit.as_ref());
        if let Some(p) = t.sets.iter().flat_map(|s| &s.points).find(|p| p.count == 0) {
            bail!("{}: no I/O in a '{}' direction (--tag names a tag of the runs, or all)", p.file, args.tag);
        }
        if args.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
        } else {
            write!(out, "{}", export::text::curve(&t))?;
        }
        return Ok(());
    }
    let param = args.param.as_deref().context("--param names the swept parameter")?;
    let t = sweep_table::sweep(&base, &cand, param, &args.tag)?;
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
