//! `nines check` flags.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug)]
#[command(after_help = "Exit status: 0 when every limit meets, 1 when a limit fails, 2 when none fails but one \
cannot tell (the 95% interval straddles the limit, or too few I/Os lie beyond the level), 3 when the spec or a run \
cannot be read.")]
pub struct CheckArgs {
    /// Runs to check: nines archives and every other format `nines stats` reads.
    #[arg(required = true, value_name = "RUN")]
    pub files: Vec<PathBuf>,
    /// A QoS spec file: one limit a line (`read p99.99 <= 1ms`), `#` comments, `[KEY=GLOB]`
    /// sections selecting runs by name, file or metadata (README.md, "Judging against a QoS
    /// spec").
    #[arg(long, value_name = "FILE", required_unless_present = "limit")]
    pub spec: Option<PathBuf>,
    /// A limit for every run, in the spec's syntax, e.g. `--limit 'read p99.99 <= 1ms'`
    /// (repeatable; added to the spec's).
    #[arg(long, value_name = "LIMIT")]
    pub limit: Vec<String>,
    /// Only windows starting at or after this time from the run's start (e.g. after a ramp).
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub from: Option<f64>,
    /// Only windows starting before this time from the run's start.
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub to: Option<f64>,
    /// Print JSON (documented in README.md) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn check_flags() {
        let cli = Cli::try_parse_from(["nines", "check", "a.hlog", "b.hlog", "--spec", "q.spec", "--limit", "read p99 <= 1ms", "--json"])
            .unwrap();
        let Cmd::Check(a) = cli.cmd else { panic!("not check") };
        assert_eq!((a.files.len(), a.limit.len(), a.json), (2, 1, true));
        assert!(Cli::try_parse_from(["nines", "check", "a.hlog"]).is_err(), "a spec or a limit is needed");
        assert!(Cli::try_parse_from(["nines", "check", "--limit", "read p99 <= 1ms"]).is_err(), "a run is needed");
        let cli = Cli::try_parse_from(["nines", "check", "a.hlog", "--limit", "read p99 <= 1ms", "--from", "30s"]).unwrap();
        let Cmd::Check(a) = cli.cmd else { panic!("not check") };
        assert_eq!(a.from, Some(30.0));
    }
}
