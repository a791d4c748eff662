//! `nines curve` flags: `nines run`'s (flattened) and the curve's own: the ladder or the
//! steps, the limit to search for, and the directory of the points.

use clap::{ArgGroup, Args};
use nines_core::curve::CurveError;
use nines_core::spec::Limit;
use nines_core::units::parse_duration_ns;

use super::run::RunArgs;

/// Queue depths or job counts, one point each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ladder(pub Vec<u32>);

/// Percentages of the maximum IOPS, one point each.
#[derive(Clone, Debug, PartialEq)]
pub struct Steps(pub Vec<f64>);

fn parse_qd_ladder(s: &str) -> Result<Ladder, CurveError> {
    nines_core::curve::parse_ladder(s, 65_536).map(Ladder)
}

fn parse_jobs_ladder(s: &str) -> Result<Ladder, CurveError> {
    nines_core::curve::parse_ladder(s, 1024).map(Ladder)
}

fn parse_steps(s: &str) -> Result<Steps, CurveError> {
    nines_core::curve::parse_steps(s).map(Steps)
}

fn parse_limit(s: &str) -> Result<Limit, CurveError> {
    nines_core::curve::target_limit(s)
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("curve_points").required(true).args(["qd_ladder", "jobs_ladder", "curve_steps"])))]
#[command(mut_arg("output", |a| a
    .value_name("DIR")
    .help("Directory the points' archives are written into, one per point (created if missing; one that holds files is refused without --into-existing, and no file in it is ever replaced)")))]
#[command(mut_arg("runtime_ns", |a| a.help("How long each point records, after --ramp (each point ramps again), e.g. 10s, 500ms [default: 10s unless --ios is given]")))]
pub struct CurveArgs {
    /// The workload, as `nines run` takes it (flags or a job file).
    #[command(flatten)]
    pub run: RunArgs,
    /// Run one point per queue depth: `1,2,4,8,16`, or `1..64` for the powers of two from 1
    /// to 64.
    #[arg(long, value_name = "LIST", value_parser = parse_qd_ladder, help_heading = "Curve")]
    pub qd_ladder: Option<Ladder>,
    /// Run one point per job count: `1,2,4,8`, or `1..16`.
    #[arg(long, value_name = "LIST", value_parser = parse_jobs_ladder, help_heading = "Curve")]
    pub jobs_ladder: Option<Ladder>,
    /// vdbench's curve: first a run at the maximum rate (the given --qd and --jobs, uncapped),
    /// then one rate-limited run (Poisson arrivals) per step at a share of that maximum: `10`
    /// for 10%, 20%, ... 100%, or percentages such as `10,50,70,80,90,100`.
    #[arg(long, value_name = "N|PCT,...", value_parser = parse_steps, help_heading = "Curve")]
    pub curve_steps: Option<Steps>,
    /// With --curve-steps: how long the maximum run records [default: --runtime].
    #[arg(long = "max-runtime", value_name = "DUR", value_parser = parse_duration_ns, help_heading = "Curve")]
    pub max_runtime_ns: Option<u64>,
    /// Find the highest load that meets this upper limit on latency, in `nines check`'s
    /// grammar, e.g. 'read p99.99 <= 1ms': its 95% interval must lie under the limit with at
    /// least 100 I/Os beyond the level. The curve stops at the first point that clearly fails
    /// (its whole interval above the limit) unless --all-points.
    #[arg(long, value_name = "LIMIT", value_parser = parse_limit, help_heading = "Curve")]
    pub limit: Option<Limit>,
    /// With --limit: run every point, even above one that fails.
    #[arg(long, requires = "limit", help_heading = "Curve")]
    pub all_points: bool,
    /// Direction the table shows: a tag, or `all` for every direction merged [default: the
    /// limit's direction, else all].
    #[arg(long, value_name = "TAG", help_heading = "Curve")]
    pub tag: Option<String>,
    /// Write into a directory that already holds files (never over one of them).
    #[arg(long, help_heading = "Curve")]
    pub into_existing: bool,
    /// Print the table as JSON (as `nines sweep --curve --json`) instead of text.
    #[arg(long, help_heading = "Curve")]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::{CommandFactory, Parser};

    fn parse(args: &[&str]) -> Result<super::CurveArgs, clap::Error> {
        let mut v = vec!["nines", "curve", "--target", "t.dat", "-o", "out"];
        v.extend_from_slice(args);
        Cli::try_parse_from(v).map(|c| match c.cmd {
            Cmd::Curve(a) => *a,
            _ => panic!("not curve"),
        })
    }

    #[test]
    fn curve_takes_run_flags_and_one_kind_of_points() {
        let a = parse(&["--qd-ladder", "1..8", "--rw", "randwrite", "--runtime", "1s", "--limit", "write p99<=2ms"]).unwrap();
        assert_eq!(a.qd_ladder.unwrap().0, [1, 2, 4, 8]);
        assert_eq!((a.run.rw, a.run.runtime_ns), (crate::cli::run::Rw::Randwrite, Some(1_000_000_000)));
        assert_eq!(a.limit.unwrap().value, 2e6);
        assert_eq!(a.run.output, std::path::PathBuf::from("out"));
        assert_eq!(parse(&["--curve-steps", "10", "--max-runtime", "2s"]).unwrap().curve_steps.unwrap().0.len(), 10);
        assert_eq!(parse(&["--jobs-ladder", "1,2"]).unwrap().jobs_ladder.unwrap().0, [1, 2]);
        // exactly one kind of points
        assert!(parse(&[]).is_err());
        assert!(parse(&["--qd-ladder", "1,2", "--curve-steps", "4"]).is_err());
        // bad values name the flag and say what was expected
        let e = parse(&["--qd-ladder", "1,x"]).unwrap_err().to_string();
        assert!(e.contains("--qd-ladder") && e.contains("whole number"), "{e}");
        let e = parse(&["--curve-steps", "4", "--limit", "read iops >= 5k"]).unwrap_err().to_string();
        assert!(e.contains("--limit") && e.contains("upper limit on latency"), "{e}");
        assert!(parse(&["--qd-ladder", "1,2", "--all-points"]).is_err(), "--all-points needs --limit");
        // the help says what -o is here
        let help = Cli::command().find_subcommand_mut("curve").unwrap().render_long_help().to_string();
        assert!(help.contains("-o, --output <DIR>") && help.contains("points' archives"), "{help}");
    }
}
