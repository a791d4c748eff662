//! `nines compare`, `nines sweep` and `nines steady`: did the change help, and can the
//! measurement be trusted. All arithmetic is in nines-core (compare, sweep_table, convergence).

use anyhow::{bail, Context, Result};
use nines_core::compare;
use nines_core::convergence;
use nines_core::export;
use nines_core::run::Run;
use nines_core::series::{Direction, Grouping};
use nines_core::spec::Verdict;
use nines_core::stats::tag_name;
use nines_core::sweep_table;
use nines_core::workload_key::{self, WorkloadKey};
use std::io::Write;

use crate::cli::judge::{CompareArgs, FailOn, SteadyArgs, SweepArgs};
use crate::load::{load_two_sets, summarize_two_sets};

/// Print the comparison; the changes `--fail-on` fails on (`DIRECTION MEASURE +N%`), empty
/// without it.
pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<Vec<String>> {
    let opts = args.sel.options()?;
    // one run in memory at a time: what a comparison needs of each is its summary
    let summary = |r: &Run| (compare::Summary::of(r, nines_core::stats::run_stats(r, &opts)), WorkloadKey::of(&r.meta));
    let (base, cand) = summarize_two_sets(&args.base, &args.with, summary)?;
    let named = |set: Vec<(String, (compare::Summary, WorkloadKey))>| -> (Vec<compare::Summary>, Vec<WorkloadKey>) {
        set.into_iter()
            .map(|(name, (mut s, k))| {
                s.name = name;
                (s, k)
            })
            .unzip()
    };
    let ((base, base_keys), (cand, cand_keys)) = (named(base), named(cand));
    let mut c = compare::compare_summaries(&base, &cand, &opts);
    c.workload = workload_key::differences(&base_keys, &cand_keys);
    for d in &c.workload {
        let values = |v: &[String]| if v.is_empty() { "not stated".to_string() } else { v.join(", ") };
        let within = [("baseline", &d.baseline), ("candidate", &d.candidate)]
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(side, _)| format!("; the {side} runs are not repeats"))
            .collect::<String>();
        crate::diag!(
            "nines: compare: warning: the runs differ in workload: {} (baseline {}, candidate {}){within}; a change may be the workload's, not the system's",
            d.key,
            values(&d.baseline),
            values(&d.candidate)
        );
    }
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

/// Prints the sweep's table; with `--curve --limit`, the search's verdict (README, "Exit
/// status").
pub fn sweep(args: &SweepArgs, out: &mut impl Write) -> Result<Option<Verdict>> {
    let (base, cand) = load_two_sets(&args.base, &args.with)?;
    if args.curve {
        let label = |s: &str| if args.with.is_empty() { "runs".to_string() } else { s.to_string() };
        let mut sets = Vec::new();
        for (name, runs) in [(label("baseline"), &base), ("candidate".to_string(), &cand)] {
            sets.extend(curve_lines(&name, runs, args.param.as_deref()));
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
        return Ok(nines_core::curve::verdict(&t));
    }
    let param = args.param.as_deref().context("--param names the swept parameter")?;
    let t = sweep_table::sweep(&base, &cand, param, &args.tag)?;
    if !t.other_settings.is_empty() {
        crate::diag!(
            "nines: sweep: note: the runs differ in more than '{param}' ({}): a line for each of their workloads",
            t.other_settings.join(", ")
        );
    }
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
    } else if args.csv {
        write!(out, "{}", export::csv::sweep(&t))?;
    } else {
        write!(out, "{}", export::text::sweep(&t))?;
    }
    Ok(None)
}

/// A curve's lines of one set of runs: the runs of each workload but for the load (the
/// `param` named, else the queue depth, jobs and rate a curve varies), labelled by the
/// settings that split them, with a note on stderr when they do.
fn curve_lines<'a>(label: &str, runs: &'a [Run], param: Option<&str>) -> Vec<(String, Vec<&'a Run>)> {
    let load: Vec<&str> = match param {
        Some(p) => workload_key::setting_of(p).into_iter().collect(),
        None => vec!["qd", "jobs", "rate"],
    };
    let keys: Vec<WorkloadKey> = runs.iter().map(|r| WorkloadKey::of(&r.meta).without(&load)).collect();
    let other = workload_key::varying(&keys);
    let mut lines: Vec<(String, Vec<&Run>)> = Vec::new();
    for (r, k) in runs.iter().zip(&keys) {
        let name = if other.is_empty() { label.to_string() } else { format!("{label} ({})", k.describe(&other)) };
        match lines.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(r),
            None => lines.push((name, vec![r])),
        }
    }
    if !other.is_empty() {
        crate::diag!(
            "nines: sweep: note: the {} differ in more than the load ({}): a line for each of their {} workloads",
            if label == "runs" { "runs".to_string() } else { format!("{label} runs") },
            other.join(", "),
            lines.len()
        );
    }
    lines
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

/// Prints the steady-state report; its verdict is the PTS rule's over the last rounds: holds
/// (meets), does not hold (fails), too few rounds to judge (cannot tell).
pub fn steady(args: &SteadyArgs, out: &mut impl Write) -> Result<Verdict> {
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
    if let Some(w) = run.windows.iter().find(|w| run.is_partial(w)) {
        crate::diag!(
            "nines: steady: note: the window at {:.3} s is partial ({:.3} s of {} s, ending at the last I/O): it is no round",
            w.start_s,
            w.length_s,
            run.per_io_window_s().unwrap_or(0.0)
        );
    }
    let report =
        convergence::steady_report(&run, &dir, track, args.rounds, round, criteria).with_context(|| format!("{}", args.file.display()))?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", export::text::steady(&report))?;
    }
    Ok(match &report.last {
        Some(e) if e.holds => Verdict::Meets,
        Some(_) => Verdict::Fails,
        None => Verdict::CannotTell,
    })
}
