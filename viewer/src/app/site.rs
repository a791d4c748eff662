//! A site's runs as its manifest lists them with their summaries (`nines site`), for the
//! trend and the legend; read by the loading of the manifest.

use std::cell::RefCell;

use nines_core::trend::Summary;

/// A run a site's manifest lists with its summary.
#[derive(Clone, Debug)]
pub(super) struct SiteRun {
    pub file: String,
    pub compact: Option<String>,
    pub name: String,
    pub summary: Summary,
}

// Filled from the manifest before the app (and the page's `model::Runs`) exists: the runs are
// requested while the page is built. Read only afterwards.
thread_local! {
    /// The site's runs that have a summary, in start order (runs without a start last, in
    /// manifest order).
    pub(super) static SITE: RefCell<Vec<SiteRun>> = const { RefCell::new(Vec::new()) };
}

/// Keep the site's runs for the trend, in start order.
pub(super) fn set_site(mut runs: Vec<SiteRun>) {
    nines_core::sort::sort_by(&mut runs, |a, b| match (a.summary.start, b.summary.start) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    SITE.with(|s| *s.borrow_mut() = runs);
}
