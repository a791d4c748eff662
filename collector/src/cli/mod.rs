//! The command line: every subcommand's flags in one place, typed at the edge (sizes in
//! bytes, durations in ns or seconds, counts), with the flag tests right under the flags.
//!
//! This module depends on nothing else of the collector but `run::config` (the run's
//! configuration, which the run flags build, and the enums they take as values), and
//! otherwise only on clap, std and nines-core's types and parsers; the command modules take
//! their arguments from here:
//!
//! ```text
//! cli          Cli, Cmd, StatsArgs                -> stats_cmd
//! cli::selection Selection (--tag, --from, --to)  -> stats_cmd, judge_cmd
//! cli::run     RunArgs, Given (-> RunConfig)      -> run_cmd, run
//! cli::curve   CurveArgs (RunArgs flattened)      -> curve_cmd
//! cli::demo    DemoArgs (and the RunArgs it runs) -> demo
//! cli::import  ImportArgs                         -> import_cmd
//! cli::judge   CompareArgs, SweepArgs, SteadyArgs -> judge_cmd
//! cli::check   CheckArgs                          -> check_cmd
//! cli::merge   MergeArgs                          -> merge_cmd
//! cli::meta    parse_meta, user_meta (--meta)     -> cli::run, cli::import, import_cmd
//! cli::pts     PtsArgs                            -> pts_cmd
//! cli::export  ExportArgs                         -> export_cmd
//! cli::report  ReportArgs, SiteArgs               -> report, report::site
//! cli::view    ViewArgs, ServeFlags               -> view (and run --live)
//! cli          CompletionsArgs, ManArgs           -> generate
//! ```

pub mod check;
pub mod curve;
pub mod demo;
pub mod export;
pub mod import;
pub mod judge;
pub mod merge;
pub mod meta;
pub mod pts;
pub mod report;
pub mod run;
pub mod selection;
pub mod view;

pub use selection::{EmptyRange, Selection};

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "nines", version = env!("NINES_VERSION_LINE"), about = "Storage latency QoS: collect, analyse and report levels of nines.", max_term_width = 80)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Print per-direction statistics (count, IOPS, levels of nines, max) of runs.
    Stats(StatsArgs),
    /// Drive I/O on a file or block device and record per-window latency histograms.
    Run(Box<run::RunArgs>),
    /// Run one workload at increasing load (a queue-depth or job ladder, or vdbench's
    /// percentages of the maximum rate), an archive per point, and find the highest load
    /// meeting a latency limit.
    Curve(Box<curve::CurveArgs>),
    /// Collect about 10 s of 4k randrw 70/30 on a temporary file, then print the stats table.
    Demo(demo::DemoArgs),
    /// Import fio json+ results, fio histogram and latency logs, other HdrHistogram logs or
    /// latency lists into a nines archive.
    Import(import::ImportArgs),
    /// Compare baseline runs with candidate runs per direction and level, and say whether
    /// each change is larger than the measurement allows.
    Compare(judge::CompareArgs),
    /// Tabulate a parameter sweep (IOPS, mean, p99, p99.99 per value), with the candidate's
    /// change against the baseline; with --curve, achieved IOPS and levels with their 95%
    /// intervals per point of a latency curve.
    Sweep(judge::SweepArgs),
    /// Check steady state as the SNIA PTS defines it, with fio-style criteria alongside.
    Steady(judge::SteadyArgs),
    /// Run a SNIA PTS test (iops, lat, tp) end to end: purge, precondition, rounds until
    /// steady state; one archive, each cell a scope of its own.
    Pts(Box<pts::PtsArgs>),
    /// Judge runs against a QoS spec (`read p99.99 <= 1ms`, ...): per limit the value, its
    /// 95% interval and meets, fails or cannot tell; the exit status says which.
    Check(check::CheckArgs),
    /// Merge runs of several hosts or devices into one archive: windows matched by wall-clock
    /// time and summed exactly, each run's own tags kept in its scope as LABEL/TAG.
    ///
    /// The merged metadata lists every run (file, name, host, start, clock errors, offset),
    /// states the workload when every run ran the same one, and keeps the `user` keys of
    /// --meta (`nines run --meta`, `nines import --meta`) that every run gives with the same
    /// value; a key the runs disagree on, or that one of them lacks, is left out.
    Merge(merge::MergeArgs),
    /// Export runs as Parquet tables (runs, windows, buckets) for DuckDB, Spark SQL and other
    /// query engines, and the windows table as CSV.
    Export(export::ExportArgs),
    /// Write one self-contained HTML report (viewer, runs, title, notes and a static
    /// summary) that opens offline from a file and makes no network request.
    Report(report::ReportArgs),
    /// Write a static site (viewer, runs/ and manifest.json) for any static web host; adds
    /// runs to an existing site directory.
    Site(report::SiteArgs),
    /// Open runs in the browser through a local server (127.0.0.1, a secret URL), and with
    /// --follow watch a run being written; /metrics gives counters and the last window's
    /// levels to Prometheus.
    View(view::ViewArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) to standard
    /// output, e.g. `nines completions bash > /etc/bash_completion.d/nines`.
    Completions(CompletionsArgs),
    /// Print a manual page as roff to standard output: nines(1), or with a subcommand's name
    /// its own page, nines-SUBCOMMAND(1) with every flag (`nines man run > nines-run.1`).
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print; without it, nines(1).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Runs to read: nines archives, HdrHistogram interval logs and other supported formats.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub sel: Selection,
    /// The levels to print instead of the default p50, p90, p99 and 3 to 9 nines, e.g.
    /// `p95,p99.5,p99.99` (a percent, with or without `p`; comma-separated or repeated;
    /// printed in increasing order).
    #[arg(long, value_name = "LEVELS", value_delimiter = ',', value_parser = nines_core::quantile::parse_level)]
    pub levels: Vec<nines_core::quantile::Level>,
    /// Also compute each level on every recorded window and print its spread over the
    /// windows (min, p50, p90, p99, max of the per-window values), windows too thin for a
    /// level counted apart.
    #[arg(long)]
    pub windows: bool,
    /// With --windows: a limit on a level in every window, `p99.99=2ms` (every direction) or
    /// a spec's `read p99.99 <= 2ms`; adds the share of windows and of I/Os beyond it
    /// (repeatable or comma-separated).
    #[arg(long, value_name = "LIMIT", requires = "windows", value_delimiter = ',', value_parser = nines_core::window_levels::parse_window_limit)]
    pub limit: Vec<nines_core::window_levels::WindowLimit>,
    /// Also print what the device and the host did beside the windows (the runs'
    /// `#[context]` lines): each number's mean and max, and the device I/Os nines did not issue.
    #[arg(long)]
    pub context: bool,
    /// Print JSON (documented in README.md) instead of tables.
    #[arg(long)]
    pub json: bool,
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
        // levels: a list, or the flag repeated
        let cli = Cli::try_parse_from(["nines", "stats", "a.hlog", "--levels", "p99.99,95", "--levels", "p99.5"]).unwrap();
        let Cmd::Stats(a) = cli.cmd else { panic!("not stats") };
        assert_eq!(a.levels.iter().map(|l| l.label.as_str()).collect::<Vec<_>>(), ["p99.99", "p95", "p99.5"]);
        let cli =
            Cli::try_parse_from(["nines", "stats", "a.hlog", "--windows", "--limit", "p99=1ms,p99.99=2ms", "--limit", "read p99 < 3ms"])
                .unwrap();
        let Cmd::Stats(a) = cli.cmd else { panic!("not stats") };
        assert!(a.windows);
        assert_eq!(a.limit.iter().map(|l| l.value_ns).collect::<Vec<_>>(), [1_000_000, 2_000_000, 3_000_000]);
        assert!(Cli::try_parse_from(["nines", "stats", "a.hlog", "--limit", "p99=1ms"]).is_err(), "--limit needs --windows");
        for bad in ["p101", "foo", "", "p99,,p95"] {
            let e = Cli::try_parse_from(["nines", "stats", "a.hlog", "--levels", bad]).unwrap_err().to_string();
            assert!(e.contains("--levels") && e.contains("is not a level"), "{bad:?}: {e}");
        }
        let empty = Selection { tag: None, from: Some(5.0), to: Some(2.0) };
        assert_eq!(empty.options().unwrap_err().to_string(), "--to 2 must be later than --from 5");
    }
}
