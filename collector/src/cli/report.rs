//! `nines report` and `nines site` flags.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Runs to put in the report: nines archives and every format `nines stats` reads.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The HTML file to write (replaced if it exists; `-` for stdout; a character device or
    /// FIFO is written into, never replaced).
    #[arg(short = 'o', long = "output", value_name = "REPORT.html", default_value = "report.html")]
    pub output: PathBuf,
    /// Title of the report [default: "nines report"].
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
    /// Notes to show under the title: a Markdown file (raw HTML in it is shown as text).
    #[arg(long, value_name = "NOTES.md")]
    pub notes: Option<PathBuf>,
    /// Only this tag (direction), e.g. `read`: the summary and the embedded runs keep only
    /// its windows.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// Baseline run(s): the page opens in compare mode with them as the baseline, and the
    /// static summary carries `nines compare`'s tables. A file not among FILE is added first.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub baseline: Vec<PathBuf>,
    /// The parameter the page's sweep plot starts with (as `nines sweep --param`).
    #[arg(long, value_name = "NAME")]
    pub sweep: Option<String>,
    /// The most the report file may weigh, e.g. `20MB`, `50MiB`. Each run travels in its
    /// compact form (every point of the runtime and rate charts exact, at any zoom) with its
    /// windows merged to the finest grouping that fits, and, while the file still fits, every
    /// recorded window beside (a brushed range is then exact at any window edge; otherwise it
    /// snaps to the groups); the summary says which. Without it: at most 20 MB for the file,
    /// groups of about 1 MB for each run-hour, and the windows while 20 MB allows.
    #[arg(long, value_name = "SIZE", conflicts_with = "full", value_parser = nines_core::units::parse_size)]
    pub max_size: Option<u64>,
    /// Carry histograms per this much time (rounded to whole windows), e.g. `10s`, `1m`,
    /// instead of the finest that fits (the recorded windows still travel beside them while
    /// the file fits; without them brushed ranges snap to the groups). With `--max-size` the
    /// file must still fit.
    #[arg(long, value_name = "DURATION", conflicts_with = "full", value_parser = nines_core::units::parse_duration_s)]
    pub group: Option<f64>,
    /// Carry every run's archive whole (as recorded; the page can hand it back) instead of
    /// its compact form, whatever the size.
    #[arg(long)]
    pub full: bool,
    /// A QoS spec (as `nines check --spec`): the report's header carries `nines check`'s
    /// verdict table, computed on the runs as recorded.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// A limit for every run (as `nines check --limit`; repeatable, added to the spec's).
    #[arg(long, value_name = "LIMIT")]
    pub limit: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct SiteArgs {
    /// Runs to add: nines archives and every format `nines stats` reads.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The site's directory; created if missing. Runs already listed in its manifest.json
    /// stay, the viewer's files are replaced by this version's.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Replace an `index.html`, `style.css` or viewer file in DIR that nines did not write.
    #[arg(long)]
    pub force: bool,
    /// The compact forms of the runs added carry histograms per this much time (whole
    /// windows), e.g. `10s`; without it, as `nines report` does by default. Each form also
    /// holds every recorded window, a group to a section: a brushed range that cuts a group
    /// stays exact at any window edge (the page fetches the windows of the two groups it
    /// cuts).
    #[arg(long, value_name = "DURATION", value_parser = nines_core::units::parse_duration_s)]
    pub group: Option<f64>,
}
