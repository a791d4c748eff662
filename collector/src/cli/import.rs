//! `nines import` flags.

use std::path::PathBuf;

use clap::Args;
use nines_core::import::Unit;

use super::meta::parse_meta;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Files to import: fio json+ output, fio histogram logs (NAME_clat_hist.N.log), fio
    /// latency logs (NAME_clat.N.log, _lat., _slat.), HdrHistogram interval logs, latency
    /// lists (one per line or CSV). The format of each is detected. Several files become one
    /// run (e.g. every job's log of one fio run), unless --sweep is given.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Archive to write (.hlog; `-` for stdout; a character device or FIFO is written into,
    /// never replaced). With --sweep, a directory that gets one archive per run.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Unit of the latencies in plain lists: ns, us, ms or s. Required for lists; fio
    /// files and HdrHistogram logs say their own unit.
    #[arg(long, value_name = "UNIT", value_parser = parse_unit)]
    pub unit: Option<Unit>,
    /// Window length for per-I/O latency logs and lists with times, e.g. 1s, 500ms, 10s.
    #[arg(long, value_name = "DUR", default_value = "1s", value_parser = parse_window_s)]
    pub window: f64,
    /// The files are steps of a parameter sweep (e.g. fio numjobs 1..1024): each file, and
    /// each JSON document in a file, becomes its own run named by the parameters that
    /// differ, written to OUT/<name>.hlog.
    #[arg(long)]
    pub sweep: bool,
    /// Name of the run (default: the first file's name without extension).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Overwrite output files that exist.
    #[arg(long)]
    pub force: bool,
    /// A key of your own kept in the archive's metadata (under `user`), as `nines run
    /// --meta` keeps it, e.g. `--meta build=1234 --meta kernel=6.8`; a site's trend can
    /// order its runs by one. Added to the `user` keys the imported file has (a nines
    /// archive's); a key given here replaces the file's key of that name. With --sweep,
    /// every run gets them.
    #[arg(long = "meta", value_name = "KEY=VALUE", value_parser = parse_meta)]
    pub meta: Vec<(String, String)>,
}

fn parse_unit(s: &str) -> std::result::Result<Unit, String> {
    Unit::parse(s).ok_or_else(|| format!("unit {s:?} is not one of ns, us, ms, s"))
}

/// A window length in seconds: a duration (`1s`, `500ms`, `2.5s`, `1m`; a bare number is
/// seconds) of at least 1ms, fio's time resolution.
pub fn parse_window_s(s: &str) -> std::result::Result<f64, String> {
    let ns = nines_core::units::parse_duration_ns(s).map_err(|e| e.to_string())?;
    if ns < 1_000_000 {
        return Err(format!("duration {s:?} is shorter than 1ms, fio's time resolution"));
    }
    Ok(ns as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn windows_are_durations_of_at_least_1ms() {
        assert_eq!(parse_window_s("1s"), Ok(1.0));
        assert_eq!(parse_window_s("500ms"), Ok(0.5));
        assert_eq!(parse_window_s("2"), Ok(2.0));
        assert_eq!(parse_window_s("1m"), Ok(60.0));
        assert_eq!(parse_window_s("100ms"), Ok(0.1));
        assert!(parse_window_s("10us").is_err());
        assert!(parse_window_s("x").is_err());
        assert!(parse_window_s("3 parsecs").is_err());
    }

    #[test]
    fn import_flags() {
        let cli = Cli::try_parse_from(["nines", "import", "a.log", "-o", "a.hlog", "--window", "250ms", "--unit", "us"]).unwrap();
        let Cmd::Import(a) = cli.cmd else { panic!("not import") };
        assert_eq!((a.window, a.unit), (0.25, Some(Unit::Us)));
        assert!(Cli::try_parse_from(["nines", "import", "a.log", "-o", "a.hlog", "--unit", "parsec"]).is_err());
        let cli =
            Cli::try_parse_from(["nines", "import", "a.json", "-o", "a.hlog", "--meta", "build=42", "--meta", "kernel=6.8=rc1"]).unwrap();
        let Cmd::Import(a) = cli.cmd else { panic!("not import") };
        assert_eq!(a.meta, [("build".to_string(), "42".to_string()), ("kernel".to_string(), "6.8=rc1".to_string())]);
        for bad in ["build", "=1", " =1"] {
            assert!(Cli::try_parse_from(["nines", "import", "a.json", "-o", "a.hlog", "--meta", bad]).is_err(), "{bad}");
        }
    }
}
