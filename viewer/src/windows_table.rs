//! The per-window levels table: how often the tail is bad, not only how bad. Each level of
//! the stats table computed on every recorded window of a run and direction, and the spread of
//! those values (min, p50, p90, p99, max of, say, the per-second p99s), with the share of
//! windows and of I/Os beyond each limit of the QoS spec: the numbers of `nines stats
//! --windows --limit` ([`nines_core::window_levels`]), laid out as [`crate::tree`] nodes.

use nines_core::units::{format_ns, format_rate, group, share_text};
use nines_core::window_levels::{LimitShare, WindowLevel, WindowLevels};

use crate::tree::{el, tx, Node};

/// One run's per-window levels: its index and name, each shown direction's spread, and what
/// the page could not compute exactly from what it holds of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowsRun {
    pub run: usize,
    pub name: String,
    pub rows: Vec<(String, WindowLevels)>,
    /// The I/Os beyond a limit are not known exactly (a compact form's range whose edges are
    /// not on its groups' edges): the reason, shown in place of the count.
    pub ios_unknown: Option<String>,
    /// Notes: levels left out and why.
    pub notes: Vec<String>,
}

fn opt(v: Option<u64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// The table: per run, direction and level (those some window supports or a limit bounds),
/// one row per limit on it.
pub fn windows_table(runs: &[WindowsRun]) -> Vec<Node> {
    let any_limit = runs.iter().any(|r| r.rows.iter().any(|(_, w)| w.levels.iter().any(|l| !l.limits.is_empty())));
    let mut head = vec!["run", "dir", "level", "windows", "thin", "too few", "min", "p50", "p90", "p99", "max"];
    if any_limit {
        head.extend(["limit", "windows beyond", "I/Os beyond", "IOPS met"]);
    }
    let mut body = Vec::new();
    for r in runs {
        for (tag, w) in &r.rows {
            for l in w.levels.iter().filter(|l| l.supported > 0 || !l.limits.is_empty()) {
                if l.limits.is_empty() {
                    body.push(level_row(r, tag, l, None, any_limit));
                }
                for lim in &l.limits {
                    body.push(level_row(r, tag, l, Some(lim), any_limit));
                }
            }
        }
    }
    let mut out = vec![el(
        "table",
        vec![("class", "stats windows".into())],
        vec![el("thead", vec![], vec![el("tr", vec![], head.iter().map(|h| tx("th", vec![], *h)).collect())]), el("tbody", vec![], body)],
    )];
    let notes: Vec<String> = runs.iter().flat_map(|r| r.notes.iter().map(move |n| format!("{}: {n}", r.name))).collect();
    if !notes.is_empty() {
        out.push(el(
            "ul",
            vec![("class", "hint".into()), ("data-testid", "windows-notes".into())],
            notes.into_iter().map(|n| tx("li", vec![], n)).collect(),
        ));
    }
    out
}

/// One row: a level's spread over the windows, and one limit on it when given.
fn level_row(r: &WindowsRun, tag: &str, l: &WindowLevel, lim: Option<&LimitShare>, any_limit: bool) -> Node {
    let mark = if l.thin > 0 { "*" } else { "" };
    let ns = |v: Option<u64>| tx("td", vec![("class", "num".into())], v.map_or(String::new(), |v| format!("{}{mark}", format_ns(v))));
    let num = |n: usize| tx("td", vec![("class", "num".into())], group(n as u64));
    let spread = [l.min_ns, l.p50_ns, l.p90_ns, l.p99_ns, l.max_ns];
    let mut cells = vec![
        tx("td", vec![("class", "name".into())], r.name.clone()),
        tx("td", vec![], tag.to_string()),
        tx("td", vec![], l.label.clone()),
        num(l.supported),
        num(l.thin),
        num(l.too_few),
    ];
    cells.extend(spread.iter().map(|&v| ns(v)));
    let v = [l.supported as u64, l.thin as u64, l.too_few as u64].into_iter().map(|n| n.to_string()).chain(spread.iter().map(|&v| opt(v)));
    let mut attrs = vec![
        ("data-testid", "window-row".into()),
        ("data-run", r.run.to_string()),
        ("data-dir", tag.to_string()),
        ("data-level", l.label.clone()),
        ("data-v", v.collect::<Vec<_>>().join(",")),
    ];
    if let Some(lim) = lim {
        let beyond = match &r.ios_unknown {
            None => tx(
                "td",
                vec![("class", "num".into())],
                format!("{} of {} ({})", group(lim.ios_beyond), group(lim.ios), share_text(lim.ios_beyond_share)),
            ),
            Some(why) => tx("td", vec![("class", "num".into()), ("title", why.clone())], "not known"),
        };
        let broke = lim.windows_beyond > 0 || (r.ios_unknown.is_none() && lim.ios_beyond > 0);
        cells.extend([
            tx("td", vec![("class", if broke { "ns-v-fails" } else { "ns-v-meets" }.into())], lim.limit.clone()),
            tx(
                "td",
                vec![("class", "num".into())],
                format!("{} of {} ({})", group(lim.windows_beyond as u64), group(l.supported as u64), share_text(lim.windows_beyond_share)),
            ),
            beyond,
            tx("td", vec![("class", "num".into())], lim.iops_met.map_or("-".into(), format_rate)),
        ]);
        let ios = if r.ios_unknown.is_none() { lim.ios_beyond.to_string() } else { String::new() };
        let iops = lim.iops_met.map_or(String::new(), |v| v.to_string());
        attrs.push(("data-limit", format!("{}|{}|{}|{}|{}", lim.limit, lim.windows_beyond, ios, lim.ios, iops)));
    } else if any_limit {
        cells.push(tx("td", vec![("colspan", "4".into())], ""));
    }
    el("tr", attrs, cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::hist::{Hist, Layout};
    use nines_core::quantile::Level;
    use nines_core::window_levels::{parse_window_limit, window_levels};

    #[test]
    fn rows_per_level_and_limit() {
        let l = Layout::default_ns();
        let ws = [Hist::from_values(l, 1..=1000), Hist::from_values(l, 1..=10)];
        let refs: Vec<(&Hist, f64)> = ws.iter().map(|h| (h, 1.0)).collect();
        let limits = [parse_window_limit("p99=500ns").unwrap(), parse_window_limit("read p99 <= 2us").unwrap()];
        let w = window_levels("read", &refs, &[Level::nines(2), Level::nines(4)], &limits, None);
        let run =
            WindowsRun { run: 3, name: "a".into(), rows: vec![("read".into(), w)], ios_unknown: None, notes: vec!["p95: left out".into()] };
        let page = el("div", vec![], windows_table(&[run]));
        let rows = page.by_testid("window-row");
        // p99 with two limits; p99.99 no window supports and no limit bounds: left out
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].attr("data-level"), Some("p99"));
        // p99 of 1..=1000 is 990 (10 beyond: thin); of 1..=10 none beyond: too few
        assert_eq!(rows[0].attr("data-v"), Some("1,1,1,990,990,990,990,990"));
        assert_eq!(rows[0].attr("data-limit"), Some("<= 500ns|1|500|1010|"));
        assert_eq!(rows[1].attr("data-limit"), Some("<= 2.00us|0|0|1010|1000"));
        assert!(rows[0].text().contains("1 of 1 (100%)"), "{}", rows[0].text());
        assert_eq!(page.by_testid("windows-notes")[0].text(), "a: p95: left out");
    }
}
