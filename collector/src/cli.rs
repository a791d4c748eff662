//! The command line: one clap definition for every subcommand.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "nines", version, about = "Storage latency QoS: collect, analyse and report levels of nines.", max_term_width = 80)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Print per-direction statistics (count, IOPS, levels of nines, max) of runs.
    Stats(StatsArgs),
    /// Drive I/O on a file or block device and record per-window latency histograms.
    Run(Box<crate::run::RunArgs>),
    /// Collect about 10 s of 4k randrw 70/30 on a temporary file, then print the stats table.
    Demo(crate::demo::DemoArgs),
    /// Import fio json+ results, fio histogram and latency logs, other HdrHistogram logs or
    /// latency lists into a nines archive.
    Import(crate::import_cmd::ImportArgs),
    /// Compare baseline runs with candidate runs per direction and level, and say whether
    /// each change is larger than the measurement allows.
    Compare(crate::judge_cmd::CompareArgs),
    /// Tabulate a parameter sweep (IOPS, mean, p99, p99.99 per value), with the candidate's
    /// change against the baseline.
    Sweep(crate::judge_cmd::SweepArgs),
    /// Check steady state as the SNIA PTS defines it, with fio-style criteria alongside.
    Steady(crate::judge_cmd::SteadyArgs),
    /// Write one self-contained HTML report (viewer, runs, title, notes and a static
    /// summary) that opens offline from a file and makes no network request.
    Report(crate::report::ReportArgs),
    /// Write a static site (viewer, runs/ and manifest.json) for any static web host; adds
    /// runs to an existing site directory.
    Site(crate::report::site::SiteArgs),
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Runs to read: nines archives, HdrHistogram interval logs and other supported formats.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub sel: Selection,
    /// Print JSON (documented in README.md) instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Which part of the runs a command looks at (`stats`, `compare`).
#[derive(Args, Debug)]
pub struct Selection {
    /// Only this tag (direction), e.g. `read`; the `all` row is then left out.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// Only windows starting at or after this time from the run's start, e.g. 10s, 1m (a
    /// bare number is seconds).
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub from: Option<f64>,
    /// Only windows starting before this time from the run's start, e.g. 20s, 2m (a bare
    /// number is seconds).
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub to: Option<f64>,
}

impl Selection {
    /// The stats options for this selection; an empty range is an error.
    pub fn options(&self) -> anyhow::Result<nines_core::stats::Options> {
        if let (Some(a), Some(b)) = (self.from, self.to) {
            if b <= a {
                anyhow::bail!("--to {b} must be later than --from {a}");
            }
        }
        Ok(nines_core::stats::Options { tag: self.tag.clone(), from: self.from, to: self.to, ..Default::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn stats_flags() {
        let cli = Cli::try_parse_from(["nines", "stats", "a.hlog", "b.hlog", "--tag", "read", "--from", "1.5", "--json"]).unwrap();
        let Cmd::Stats(a) = cli.cmd else { panic!("not stats") };
        assert_eq!(a.files.len(), 2);
        assert_eq!(a.sel.tag.as_deref(), Some("read"));
        assert_eq!(a.sel.from, Some(1.5));
        assert!(a.json);
        assert!(Cli::try_parse_from(["nines", "stats"]).is_err());
        // durations, as `run --window` takes them; a bare number is still seconds
        let cli = Cli::try_parse_from(["nines", "stats", "a.hlog", "--from", "500ms", "--to", "2m"]).unwrap();
        let Cmd::Stats(a) = cli.cmd else { panic!("not stats") };
        assert_eq!((a.sel.from, a.sel.to), (Some(0.5), Some(120.0)));
        assert!(Cli::try_parse_from(["nines", "stats", "a.hlog", "--from", "soon"]).is_err());
    }
}
