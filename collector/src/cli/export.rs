//! `nines export` flags.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("to").required(true).multiple(true).args(["parquet", "csv"])))]
pub struct ExportArgs {
    /// Runs to export: nines archives and every format `nines stats` reads.
    #[arg(required = true, value_name = "RUN")]
    pub files: Vec<PathBuf>,
    /// Add the runs to the Parquet dataset in this directory (created if missing): tables
    /// runs/, windows/ and buckets/, one file per run each, named by the run's id (a hash
    /// of its content). A run already there with the same rows is left as it is (any number
    /// of exports may add runs at once); a table file of its id with other rows is an error
    /// unless --force.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<PathBuf>,
    /// Also write the windows table of every run to this CSV file (`-` for stdout; a
    /// character device or FIFO is written into, never replaced).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// With --parquet: write the levels of nines as engines read them into this directory
    /// (created if missing): levels.duckdb.sql, the DuckDB table macro
    /// `nines_levels(dataset [, runs := [...]])`, and levels.spark.sql, the Spark SQL view
    /// `nines_levels` over this dataset. An existing file with other content is replaced only
    /// with --force.
    #[arg(long, value_name = "DIR", requires = "parquet")]
    pub sql: Option<PathBuf>,
    /// Replace the CSV file if it exists, and table files of a run's id holding other rows.
    #[arg(long)]
    pub force: bool,
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn export_flags() {
        let cli = Cli::try_parse_from(["nines", "export", "a.hlog", "b.hlog", "--parquet", "ds"]).unwrap();
        let Cmd::Export(a) = cli.cmd else { panic!("not export") };
        assert_eq!((a.files.len(), a.parquet.as_deref(), a.csv.as_deref()), (2, Some("ds".as_ref()), None));
        let cli = Cli::try_parse_from(["nines", "export", "a.hlog", "--csv", "w.csv"]).unwrap();
        let Cmd::Export(a) = cli.cmd else { panic!("not export") };
        assert_eq!(a.csv.as_deref(), Some("w.csv".as_ref()));
        // somewhere to write is required, and a run
        assert!(Cli::try_parse_from(["nines", "export", "a.hlog"]).is_err());
        assert!(Cli::try_parse_from(["nines", "export", "--parquet", "ds"]).is_err());
    }
}
