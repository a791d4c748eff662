//! `nines compare`, `nines sweep` and `nines steady`: did the change help, and can the
//! measurement be trusted. All arithmetic is in nines-core (compare, sweep_table, convergence).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use nines_core::compare;
use nines_core::convergence::{self, Track};
use nines_core::export;
use nines_core::run::Run;
use nines_core::series::{Direction, Grouping};
use nines_core::stats::tag_name;
use nines_core::steady::Criterion;
use nines_core::sweep_table;

use crate::load::load_runs;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline runs (one run, or several repeats compared by their run-to-run band).
    #[arg(required = true, value_name = "BASE")]
    pub base: Vec<PathBuf>,
    /// Candidate runs.
    #[arg(long = "with", required = true, num_args = 1.., value_name = "CAND")]
    pub with: Vec<PathBuf>,
    #[command(flatten)]
    pub sel: crate::cli::Selection,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Baseline runs of the sweep, one per parameter value (and configuration).
    #[arg(required = true, value_name = "RUN")]
    pub base: Vec<PathBuf>,
    /// Candidate runs of the same sweep, paired with the baseline by parameter value and
    /// configuration.
    #[arg(long = "with", num_args = 1.., value_name = "CAND")]
    pub with: Vec<PathBuf>,
    /// The swept parameter: a key of the runs' `param` or `workload` metadata (as `nines
    /// import --sweep` and `nines run` write them), or a name in the file names
    /// (`numjobs-16.hlog`, `fio-16-jobs/fio.json`).
    #[arg(long, value_name = "NAME")]
    pub param: String,
    /// Direction to tabulate: a tag, or `all` for every direction merged.
    #[arg(long, default_value = "all", value_name = "TAG")]
    pub tag: String,
    /// Print JSON instead of tables.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of tables (latencies in ns, changes in percent).
    #[arg(long)]
    pub csv: bool,
}

#[derive(Args, Debug)]
pub struct SteadyArgs {
    /// The run to check.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// What to track per round: iops, bw (MB/s), mean, or a level such as p99 or p99.99.
    #[arg(long, default_value = "iops", value_name = "WHAT")]
    pub track: String,
    /// Rounds in the measurement window (the SNIA PTS uses 5).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub rounds: usize,
    /// Length of a round in seconds; by default each recorded window is a round.
    #[arg(long, value_name = "SEC")]
    pub round: Option<f64>,
    /// Direction (tag) to check; by default every direction merged.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// fio-style criteria to evaluate over the same window (repeatable), e.g. `iops:10%`,
    /// `iops_slope:0.1%`, `lat:5%`, `bw:20000000`.
    #[arg(long = "criterion", value_name = "CRITERION", default_values_t = ["iops:10%".to_string(), "iops_slope:0.1%".to_string()])]
    pub criteria: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<()> {
    let opts = args.sel.options()?;
    let base = load_runs(&args.base)?;
    let cand = load_runs(&args.with)?;
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
    let base = load_runs(&args.base)?;
    let cand = load_runs(&args.with)?;
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
    let track: Track = args.track.parse().map_err(anyhow::Error::msg).context("--track")?;
    let criteria: Vec<Criterion> =
        args.criteria.iter().map(|c| c.parse::<Criterion>().with_context(|| format!("--criterion {c}"))).collect::<Result<_>>()?;
    let round = match args.round {
        None => Grouping::Native,
        Some(s) if s > 0.0 && s.is_finite() => Grouping::Seconds(s),
        Some(s) => bail!("--round {s} must be a positive number of seconds"),
    };
    let run = crate::load::load_run(&args.file)?;
    let dir = direction(&run, args.tag.as_deref())?;
    let report = convergence::steady_report(&run, &dir, &track, args.rounds, round, &criteria)
        .with_context(|| format!("{}", args.file.display()))?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", export::text::steady(&report))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn compare_flags() {
        let cli = Cli::try_parse_from(["nines", "compare", "a.hlog", "b.hlog", "--with", "c.hlog", "d.hlog", "--tag", "read"]).unwrap();
        let Cmd::Compare(a) = cli.cmd else { panic!() };
        assert_eq!((a.base.len(), a.with.len()), (2, 2));
        assert!(Cli::try_parse_from(["nines", "compare", "a.hlog"]).is_err(), "--with is required");
    }

    #[test]
    fn sweep_and_steady_flags() {
        let cli = Cli::try_parse_from(["nines", "sweep", "a", "b", "--param", "numjobs", "--csv"]).unwrap();
        let Cmd::Sweep(a) = cli.cmd else { panic!() };
        assert_eq!((a.param.as_str(), a.tag.as_str(), a.csv), ("numjobs", "all", true));
        assert!(Cli::try_parse_from(["nines", "sweep", "a", "--param", "x", "--csv", "--json"]).is_err());
        let cli = Cli::try_parse_from(["nines", "steady", "r.hlog"]).unwrap();
        let Cmd::Steady(s) = cli.cmd else { panic!() };
        assert_eq!((s.track.as_str(), s.rounds), ("iops", 5));
        assert_eq!(s.criteria, ["iops:10%", "iops_slope:0.1%"]);
    }
}
