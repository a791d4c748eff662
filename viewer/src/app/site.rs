//! A site's runs as its manifest lists them with their summaries (`nines site`), for the
//! trend and the legend; read by the loading of the manifest.

use nines_core::trend::Summary;

/// A run a site's manifest lists with its summary.
#[derive(Clone, Debug)]
pub(super) struct SiteRun {
    pub file: String,
    pub compact: Option<String>,
    pub name: String,
    pub summary: Summary,
}

/// The site's runs that have a summary in start order (runs without a start last, in manifest
/// order), for the trend.
pub(super) fn sorted(mut runs: Vec<SiteRun>) -> Vec<SiteRun> {
    nines_core::sort::sort_by(&mut runs, |a, b| match (a.summary.start, b.summary.start) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    runs
}
