//! `nines compare`, `nines sweep` and `nines steady` flags.

use std::path::PathBuf;

use clap::Args;
use nines_core::convergence::Track;
use nines_core::steady::Criterion;

fn parse_track(s: &str) -> Result<Track, nines_core::convergence::TrackError> {
    s.parse()
}

fn parse_criterion(s: &str) -> Result<Criterion, String> {
    s.parse().map_err(|e: nines_core::steady::CriterionError| e.to_string())
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline runs (one run, or several repeats compared by their run-to-run band).
    #[arg(required = true, value_name = "BASE")]
    pub base: Vec<PathBuf>,
    /// Candidate runs.
    #[arg(long = "with", required = true, num_args = 1.., value_name = "CAND")]
    pub with: Vec<PathBuf>,
    #[command(flatten)]
    pub sel: super::selection::Selection,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Exit with status 1 when a change is worse beyond noise (IOPS, mean or a level whose
    /// intervals do not overlap), for a nightly job that gates on "no regression"; errors
    /// then exit with 3.
    #[arg(long, value_name = "WHAT", value_enum)]
    pub fail_on: Option<FailOn>,
}

/// What makes `nines compare --fail-on` fail.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// A change worse beyond noise.
    Worse,
    /// Any change beyond noise, better or worse (the candidate should match the baseline).
    Change,
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
    /// With --curve: the load column, for runs without curve metadata.
    #[arg(long, value_name = "NAME", required_unless_present = "curve")]
    pub param: Option<String>,
    /// Direction to tabulate: a tag, or `all` for every direction merged.
    #[arg(long, default_value = "all", value_name = "TAG")]
    pub tag: String,
    /// Print JSON instead of tables.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of tables (latencies in ns, changes in percent).
    #[arg(long)]
    pub csv: bool,
    /// The latency curve (`nines curve`'s table): per run, by load, the achieved IOPS and
    /// p50, p99, p99.9, p99.99 with their 95% intervals; baseline and candidates as two curves.
    #[arg(long, conflicts_with = "csv")]
    pub curve: bool,
    /// With --curve: the highest load meeting this upper limit on latency, e.g.
    /// 'read p99.99 <= 1ms', as `nines curve --limit` finds it.
    #[arg(long, value_name = "LIMIT", requires = "curve", value_parser = parse_limit)]
    pub limit: Option<nines_core::spec::Limit>,
}

fn parse_limit(s: &str) -> Result<nines_core::spec::Limit, nines_core::curve::CurveError> {
    nines_core::curve::target_limit(s)
}

#[derive(Args, Debug)]
pub struct SteadyArgs {
    /// The run to check.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// What to track per round: iops, bw (MB/s), mean, or a level such as p99 or p99.99.
    #[arg(long, default_value = "iops", value_name = "WHAT", value_parser = parse_track)]
    pub track: Track,
    /// Rounds in the measurement window (the SNIA PTS uses 5).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub rounds: usize,
    /// Length of a round, e.g. 10s, 1m (a bare number is seconds); by default each recorded
    /// window is a round.
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub round: Option<f64>,
    /// Direction (tag) to check; by default every direction merged.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// fio-style criteria to evaluate over the same window (repeatable), e.g. `iops:10%`,
    /// `iops_slope:0.1%`, `lat:5%`, `bw:20000000`.
    #[arg(long = "criterion", value_name = "CRITERION", default_values = ["iops:10%", "iops_slope:0.1%"], value_parser = parse_criterion)]
    pub criteria: Vec<Criterion>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
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
        assert_eq!((a.param.as_deref(), a.tag.as_str(), a.csv), (Some("numjobs"), "all", true));
        assert!(Cli::try_parse_from(["nines", "sweep", "a", "--param", "x", "--csv", "--json"]).is_err());
        assert!(Cli::try_parse_from(["nines", "sweep", "a"]).is_err(), "--param or --curve");
        let Cmd::Sweep(c) = Cli::try_parse_from(["nines", "sweep", "a", "--curve", "--json", "--limit", "read p99<=1ms"]).unwrap().cmd
        else {
            panic!()
        };
        assert!(c.curve && c.json && c.param.is_none() && c.limit.is_some());
        assert!(Cli::try_parse_from(["nines", "sweep", "a", "--param", "x", "--limit", "read p99<=1ms"]).is_err(), "--limit needs --curve");
        assert!(Cli::try_parse_from(["nines", "sweep", "a", "--curve", "--csv"]).is_err());
        let cli = Cli::try_parse_from(["nines", "steady", "r.hlog"]).unwrap();
        let Cmd::Steady(s) = cli.cmd else { panic!() };
        assert_eq!((s.track, s.rounds), ("iops".parse().unwrap(), 5));
        assert_eq!(s.criteria, ["iops:10%".parse::<nines_core::steady::Criterion>().unwrap(), "iops_slope:0.1%".parse().unwrap()]);
        // bad values are refused by the parser, naming the flag
        for (flag, bad) in [("--track", "p101"), ("--criterion", "iops:ten")] {
            let e = Cli::try_parse_from(["nines", "steady", "r.hlog", flag, bad]).unwrap_err().to_string();
            assert!(e.contains(flag) && e.contains(bad), "{e}");
        }
        assert_eq!(s.round, None);
        for (given, secs) in [("30", 30.0), ("30s", 30.0), ("1m", 60.0), ("500ms", 0.5)] {
            let Cmd::Steady(s) = Cli::try_parse_from(["nines", "steady", "r.hlog", "--round", given]).unwrap().cmd else { panic!() };
            assert_eq!(s.round, Some(secs), "--round {given}");
        }
    }
}
