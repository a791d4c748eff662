//! `nines merge` flags.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Runs to merge (one per host or device): nines archives and every format `nines stats`
    /// reads, each stating its start time.
    #[arg(required = true, num_args = 2.., value_name = "RUN")]
    pub files: Vec<PathBuf>,
    /// The merged archive to write (.hlog; `-` for stdout; a character device or FIFO is
    /// written into, never replaced).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// The scope each run's own tags are kept in (`LABEL/read`), one per RUN in order
    /// [default: each run's host name (its name where runs of one host are merged), else its
    /// name; characters other than A-Z a-z 0-9 _ . : - become _].
    #[arg(long, value_name = "LABEL")]
    pub label: Vec<String>,
    /// Name of the merged run [default: OUT's file name without extension; "merge" for
    /// stdout].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The largest offset between runs' windows taken as the same window [default: the
    /// worst maximum clock error the runs state, at least 1ms].
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub tolerance: Option<f64>,
    /// Merge runs whose windows do not line up onto common windows of this length (at least
    /// the longest window): each window goes whole to the one holding its midpoint.
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub regrid: Option<f64>,
    /// About how much memory the sums across runs may take, in MB (besides one run's own):
    /// past it, the merge sums its common windows a band at a time, reading every run again
    /// per band. The output is the same whatever the budget; 0 sums one common window a time.
    #[arg(long, value_name = "MB", default_value_t = 64.0)]
    pub memory_mb: f64,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    pub force: bool,
}
