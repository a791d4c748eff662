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
    /// The run's own keys (`nines run --meta KEY=VALUE`, the manifest entry's `user`).
    pub user: Vec<(String, String)>,
}

/// A manifest entry's `user` keys as text (a value that is not a string: its JSON).
pub(super) fn user_keys(v: Option<&serde_json::Value>) -> Vec<(String, String)> {
    let Some(o) = v.and_then(serde_json::Value::as_object) else { return Vec::new() };
    o.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect()
}

/// The user keys the site's runs carry, in the order first met (the trend's order choices).
pub(super) fn order_keys(runs: &[SiteRun]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in runs.iter().flat_map(|r| &r.user) {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    keys
}

/// The positions of `runs` (in start order) as a trend ordered by the user key `key` draws
/// them: by its value, as numbers when every run's value is one, else as text; runs without
/// it last; ties and `None` (time) in start order.
pub(super) fn ordered(runs: &[SiteRun], key: Option<&str>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    let Some(key) = key else { return order };
    let value = |i: usize| runs[i].user.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let numeric = (0..runs.len()).filter_map(value).all(|v| v.trim().parse::<f64>().is_ok());
    let num = |v: &str| v.trim().parse::<f64>().unwrap_or(f64::NAN);
    nines_core::sort::sort_by(&mut order, |&a, &b| match (value(a), value(b)) {
        (Some(x), Some(y)) if numeric => num(x).total_cmp(&num(y)),
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    order
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
