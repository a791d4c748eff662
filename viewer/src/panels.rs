//! What the page's panels show, computed natively from runs and the view state: which traces
//! (run x direction) are drawn and in which style, the charts' scales, the stats table and the
//! legend as [`crate::tree`] nodes. The wasm app ([`app`](crate)) gathers its inputs from the
//! loaded runs and mounts or draws what these return; everything here is unit-tested natively.

use std::collections::BTreeSet;

use nines_core::quantile::{LevelStat, Support};
use nines_core::run::Run;
use nines_core::series::Direction;
use nines_core::stats::{RunStats, TagStats};
use nines_core::units::{format_ns, format_ns_f, format_rate, group};
use nines_core::variability::variability;

use crate::charts::{Curve, HistTrace, RateLine, RuntimeLine, Scale, TraceStyle};
use crate::state::{DirMode, ViewState};
use crate::tree::{el, tx, Node};

/// One curve on the page: a run in one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub run: usize,
    pub dir: Direction,
    pub label: String,
    pub style: TraceStyle,
}

/// A direction's name on the page and in links: `all`, `read`, a scoped `probe/read`.
pub fn dir_key(d: &Direction) -> String {
    match d {
        Direction::All => "all".into(),
        Direction::Tag(t) => nines_core::stats::tag_name(t.as_deref()).to_string(),
    }
}

/// The directions of `run` a direction mode shows (none when the run has no such I/Os).
pub fn directions_of(run: &Run, mode: &DirMode) -> Vec<Direction> {
    let one = |t: &str| {
        if run.windows.iter().any(|w| w.tag.as_deref() == Some(t)) {
            vec![Direction::Tag(Some(t.to_string()))]
        } else {
            vec![]
        }
    };
    match mode {
        DirMode::All => vec![Direction::All],
        DirMode::Read => one("read"),
        DirMode::Write => one("write"),
        DirMode::Trim => one("trim"),
        DirMode::Scoped(t) => one(t),
        // every direction, scoped ones too (a merge's `host07/read`), not auxiliary measures
        DirMode::Overlay => run
            .tags()
            .into_iter()
            .filter(|t| t.as_deref().is_none_or(|t| nines_core::tag::Tag::parse(t).measure.is_none()))
            .map(Direction::Tag)
            .collect(),
    }
}

/// Style of the `d`-th direction of run `run`: one colour per run, or with directions
/// overlaid one colour per run and direction (three slots a run), so read and write stay
/// apart in every chart; a merge's scoped directions go on into the next slots.
pub fn trace_style(run: usize, d: usize, mode: &DirMode) -> TraceStyle {
    if *mode == DirMode::Overlay {
        TraceStyle::nth(run * 3 + d)
    } else {
        TraceStyle::nth(run)
    }
}

/// The traces the view shows of the loaded runs (in load order), hidden runs left out.
pub fn traces_of<'a>(runs: impl IntoIterator<Item = &'a Run>, st: &ViewState) -> Vec<Trace> {
    let mut out = Vec::new();
    for (i, r) in runs.into_iter().enumerate() {
        if st.hidden.contains(&i) {
            continue;
        }
        for (d, dir) in directions_of(r, &st.dir).into_iter().enumerate() {
            let style = trace_style(i, d, &st.dir);
            let base = if st.base.contains(&i) { " (baseline)" } else { "" };
            out.push(Trace { run: i, label: format!("{} {}{base}", r.name, dir_key(&dir)), dir, style });
        }
    }
    out
}

/// The scoped directions (`probe/read`, not measures such as `probe/read.svc`) of the runs, in
/// the order they first appear.
pub fn scoped_directions<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        for t in r.tags().into_iter().flatten() {
            if matches!(DirMode::from_key(&t), Some(DirMode::Scoped(_))) && !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// Which rows of `nines stats` the table shows in a direction mode.
pub fn shown_tag(dir: &DirMode, tag: &str) -> bool {
    match dir {
        DirMode::All => tag == "all",
        DirMode::Read => tag == "read",
        DirMode::Write => tag == "write",
        DirMode::Trim => tag == "trim",
        DirMode::Overlay => tag != "all",
        DirMode::Scoped(t) => tag == t,
    }
}

// ---------------------------------------------------------------------------------------
// Scales

/// The 1-CDF's axes: the view's zoom, else the curves' range (and the spec's limits beside
/// them) down to the level of nines below the smallest share drawn.
pub fn cdf_ranges(st: &ViewState, curves: &[Curve], envelopes: &[Vec<(f64, f64)>]) -> (Scale, Scale) {
    if let Some((x0, x1, y0, y1)) = st.cdf {
        return (Scale { lo: x0, hi: x1, log: true }, Scale { lo: y0, hi: y1, log: true });
    }
    // the curves, and the spec's limits beside them
    let limits = || envelopes.iter().flatten().map(|c| c.0).filter(|&v| v >= 1.0);
    let lo = curves.iter().filter_map(|c| c.points.first().map(|p| p.0)).chain(limits()).fold(f64::INFINITY, f64::min);
    let hi = curves.iter().filter_map(|c| c.points.last().map(|p| p.0)).chain(limits()).fold(0.0, f64::max);
    let min_share = curves.iter().filter_map(|c| c.points.last().map(|p| p.1)).fold(1.0, f64::min);
    let (lo, hi) = if lo.is_finite() && hi > 0.0 { (lo / 1.3, hi * 1.3) } else { (1e3, 1e7) };
    // down to the level of nines below the smallest 1/N, at least 3 nines
    let k = (-min_share.log10()).ceil().clamp(3.0, 12.0);
    // a little room above share 1 so curves do not run along the frame
    (Scale { lo: lo.max(1.0), hi, log: true }, Scale { lo: 10f64.powf(-k), hi: 1.6, log: true })
}

/// The latency histogram's density axis: whole decades around the non-empty bins' densities.
pub fn hist_y(traces: &[HistTrace]) -> Scale {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for b in traces.iter().flat_map(|t| &t.bins).filter(|b| b.count > 0) {
        lo = lo.min(b.density);
        hi = hi.max(b.density);
    }
    if hi > 0.0 {
        Scale { lo: 10f64.powf((lo / 1.5).log10().floor()), hi: 10f64.powf((hi * 1.5).log10().ceil()), log: true }
    } else {
        Scale { lo: 1e-6, hi: 10.0, log: true }
    }
}

/// The runtime chart's latency axis: the lines' values with room on both sides (log).
pub fn runtime_y(lines: &[RuntimeLine]) -> Scale {
    let (mut ymin, mut ymax) = (f64::INFINITY, 0.0f64);
    for v in lines.iter().flat_map(|l| &l.points).filter_map(|p| p.1) {
        ymin = ymin.min(v);
        ymax = ymax.max(v);
    }
    let (lo, hi) = if ymax > 0.0 { ((ymin / 1.5).max(1.0), ymax * 1.5) } else { (1e3, 1e7) };
    Scale { lo, hi, log: true }
}

/// The rate chart's axis: from zero to a little above the highest rate.
pub fn rate_y(rates: &[RateLine]) -> Scale {
    let rmax = rates.iter().flat_map(|l| &l.points).fold(0.0f64, |m, p| m.max(p.1));
    Scale { lo: 0.0, hi: if rmax > 0.0 { rmax * 1.12 } else { 1.0 }, log: false }
}

/// The steady-state bands of the rate chart: each SNIA PTS steady region (start s, end s,
/// I/Os before, I/Os after, average IOPS) as (x from, x to, 90% and 110% of its average
/// rate), the rate in units of `per_iops` (1 for IOPS).
pub fn steady_bands(steady: &[(f64, f64, f64, f64, f64)], x_ios: bool, per_iops: f64) -> Vec<(f64, f64, f64, f64)> {
    steady
        .iter()
        .map(|&(t0, t1, i0, i1, avg)| {
            let (a, b) = if x_ios { (i0, i1) } else { (t0, t1) };
            (a, b, 0.9 * avg * per_iops, 1.1 * avg * per_iops)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The stats table

/// A table row group: run index, name, file, and the stats of the directions shown.
pub type TableRow = (usize, String, String, Vec<(String, TagStats)>);

/// A run's row group of the table: the directions `dir` shows.
pub fn table_row(run: usize, s: &RunStats, dir: &DirMode) -> TableRow {
    (run, s.name.clone(), s.file.clone(), s.tags.iter().filter(|(tag, _)| shown_tag(dir, tag)).cloned().collect())
}

/// The hover text of a level's value: its 95% confidence interval.
pub fn ci_title(ci: Option<(u64, u64)>, beyond: u64) -> String {
    match ci {
        Some((a, b)) => format!("95% CI {} – {} ({} I/Os beyond)", format_ns(a), format_ns(b), group(beyond)),
        None => format!("95% CI not bounded: too few I/Os beyond ({})", group(beyond)),
    }
}

/// A level's cell: text, class and hover text (thin values starred, none beyond blank).
pub fn level_cell(l: &LevelStat) -> (String, &'static str, String) {
    // the same cell text as `nines stats` (ranges at a coarser source's precision)
    let val = |v: u64| nines_core::precision::level_cell(l).unwrap_or_else(|| format_ns(v));
    match (l.support, l.value_ns) {
        (Support::Reliable, Some(v)) => (val(v), "num", ci_title(l.ci95_ns, l.beyond)),
        (Support::Thin, Some(v)) => (
            format!("{}*", val(v)),
            "num thin",
            format!("thin: only {} I/Os beyond this level. {}", group(l.beyond), ci_title(l.ci95_ns, l.beyond)),
        ),
        _ => (String::new(), "num none", "no I/O beyond this level: its value would only repeat the max".to_string()),
    }
}

/// The stats table: `nines stats` columns per run and direction, then run-to-run variability.
pub fn stats_table(table: &[TableRow]) -> Vec<Node> {
    let labels: Vec<String> = nines_core::quantile::standard_levels().into_iter().map(|l| l.label).collect();
    // As `nines stats`: level columns up to the last one any shown row has a value in.
    let shown = (0..labels.len())
        .rev()
        .find(|&i| table.iter().any(|(_, _, _, rows)| rows.iter().any(|(_, s)| s.levels.get(i).is_some_and(|l| l.value_ns.is_some()))))
        .map_or(0, |i| i + 1);
    let ncols = 8 + shown;
    let cell = |class: &str, col: &str, ns: String, text: String| {
        tx("td", vec![("class", class.into()), ("data-testid", "cell".into()), ("data-col", col.into()), ("data-ns", ns)], text)
    };
    let mut body = Vec::new();
    for (i, name, file, rows) in table {
        for (tag, s) in rows {
            let mut cells = vec![
                tx("td", vec![("class", "name".into()), ("title", file.clone())], name.clone()),
                tx("td", vec![], tag.clone()),
                cell("num", "count", s.count.to_string(), group(s.count)),
                cell("num", "iops", format!("{}", s.iops), format_rate(s.iops)),
                cell("num", "min", s.min_ns.to_string(), format_ns(s.min_ns)),
                cell("num", "mean", format!("{}", s.mean_ns), format_ns_f(s.mean_ns)),
                cell("num", "stdev", format!("{}", s.stdev_ns), format_ns_f(s.stdev_ns)),
            ];
            for l in &s.levels[..shown.min(s.levels.len())] {
                let (text, class, title) = level_cell(l);
                let attrs = vec![
                    ("class", class.to_string()),
                    ("title", title),
                    ("data-testid", "cell".into()),
                    ("data-col", l.label.clone()),
                    ("data-ns", l.value_ns.map_or(String::new(), |v| v.to_string())),
                    ("data-support", format!("{:?}", l.support).to_ascii_lowercase()),
                    ("data-beyond", l.beyond.to_string()),
                ];
                cells.push(tx("td", attrs, text));
            }
            cells.push(cell("num max", "max", s.max_ns.to_string(), format_ns(s.max_ns)));
            body.push(el(
                "tr",
                vec![
                    ("data-testid", "stats-row".into()),
                    ("data-run", i.to_string()),
                    ("data-dir", tag.clone()),
                    ("data-file", file.clone()),
                ],
                cells,
            ));
        }
    }
    // run-to-run variability per direction shown, with two or more runs
    let mut var_rows = Vec::new();
    if table.len() >= 2 {
        let mut dirs: Vec<String> = Vec::new();
        for (_, _, _, rows) in table {
            for (t, _) in rows {
                if !dirs.contains(t) {
                    dirs.push(t.clone());
                }
            }
        }
        for d in dirs {
            let refs: Vec<&TagStats> =
                table.iter().filter_map(|(_, _, _, rows)| rows.iter().find(|(t, _)| *t == d).map(|(_, s)| s)).collect();
            if refs.len() < 2 {
                continue;
            }
            let mut cells = vec![
                tx("td", vec![("class", "name".into())], format!("{} runs", refs.len())),
                tx("td", vec![], d.clone()),
                tx("td", vec![("colspan", "5".into()), ("class", "hint".into())], "spread (max − min) / median across runs"),
            ];
            for lv in variability(&refs).into_iter().take(shown) {
                let title = match (lv.min_ns, lv.median_ns, lv.max_ns) {
                    (Some(a), Some(m), Some(b)) => {
                        format!("{} runs: min {}, median {}, max {}", lv.runs, format_ns(a), format_ns(m), format_ns(b))
                    }
                    _ => "no run has this level".into(),
                };
                let txt = if lv.runs >= 2 { lv.spread_pct.map_or(String::new(), |p| format!("{p:.1}%")) } else { String::new() };
                cells.push(tx(
                    "td",
                    vec![("class", "num".into()), ("title", title), ("data-testid", "spread".into()), ("data-col", lv.label)],
                    txt,
                ));
            }
            cells.push(el("td", vec![], vec![]));
            var_rows.push(el("tr", vec![("data-testid", "variability-row".into()), ("data-dir", d.clone())], cells));
        }
    }
    let mut head: Vec<Node> =
        ["run", "dir", "count", "IOPS", "min", "mean", "stdev"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
    head.extend(labels[..shown].iter().map(|l| tx("th", vec![], l.clone())));
    head.push(tx("th", vec![], "max"));
    let mut parts = vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], body)];
    if !var_rows.is_empty() {
        let mut v = vec![el("tr", vec![], vec![tx("th", vec![("colspan", ncols.to_string())], "Run-to-run variability")])];
        v.extend(var_rows);
        parts.push(el("tbody", vec![("class", "variability".into())], v));
    }
    vec![el("table", vec![("data-testid", "stats-table".into())], parts)]
}

// ---------------------------------------------------------------------------------------
// The legend

/// A loaded run as the legend shows it.
pub struct LegendRun<'a> {
    pub run: &'a Run,
    /// The file it was loaded from.
    pub file: &'a str,
    /// For a compact form: what a carried histogram covers, and how many windows a group holds.
    pub compact: Option<(&'a str, usize)>,
}

/// The legend: show/hide buttons, the focus toggle, one button per run (its swatches, each
/// direction's with directions overlaid), and what runs in compact form carry. With no runs, a
/// line that says where they come from (`site`: the runs of a site's trend).
pub fn legend(runs: &[LegendRun], hidden: &BTreeSet<usize>, dir: &DirMode, focus: Option<usize>, site: usize) -> Vec<Node> {
    if runs.is_empty() {
        // a large site opens on its trend alone: say where its runs are
        let text = if site > 0 {
            format!("This site holds {site} runs: its trend is below, and a click on a point opens that run. Or open or drop run files.")
        } else {
            "No runs loaded. Open or drop nines archives (.hlog), HdrHistogram interval logs or other supported files.".to_string()
        };
        return vec![tx("p", vec![("class", "empty".into()), ("data-testid", "no-runs".into())], text)];
    }
    let overlay = *dir == DirMode::Overlay;
    let mut items = vec![
        tx("button", vec![("data-testid", "show-all".into()), ("data-act", "show-all".into())], "show all"),
        tx("button", vec![("data-testid", "hide-all".into()), ("data-act", "hide-all".into())], "hide all"),
    ];
    if runs.len() > 1 {
        let (label, title) = match focus {
            Some(_) => ("all alike", "draw every run alike on the runtime and rate charts"),
            None => ("focus one", "draw one run strong on the runtime and rate charts and the others faint (◎ on a run picks it)"),
        };
        items.push(tx(
            "button",
            vec![("data-testid", "focus-toggle".into()), ("data-act", "focus-toggle".into()), ("title", title.into())],
            label,
        ));
    }
    for (i, r) in runs.iter().enumerate() {
        let warns: Vec<String> = r.run.warnings.iter().map(|w| w.to_string()).collect();
        let swatches: Vec<(TraceStyle, Option<String>)> = if overlay {
            directions_of(r.run, &DirMode::Overlay)
                .iter()
                .enumerate()
                .map(|(d, dir)| (trace_style(i, d, &DirMode::Overlay), Some(dir_key(dir))))
                .collect()
        } else {
            vec![(TraceStyle::nth(i), None)]
        };
        let title = format!(
            "{}, {:.0} s{}{}",
            r.file,
            r.run.duration_s(),
            r.compact.map(|(text, _)| format!("\ncompact form: histograms of {text}")).unwrap_or_default(),
            if warns.is_empty() { String::new() } else { format!("\n{}", warns.join("\n")) }
        );
        let mut kids = vec![tx("span", vec![("class", "rname".into())], r.run.name.clone())];
        for (sty, dn) in swatches {
            let line = el(
                "line",
                vec![
                    ("x1", "1".into()),
                    ("y1", "5".into()),
                    ("x2", "33".into()),
                    ("y2", "5".into()),
                    ("stroke", sty.css()),
                    ("stroke-width", "2.5".into()),
                    ("stroke-dasharray", sty.dasharray()),
                ],
                vec![],
            );
            kids.push(el("svg", vec![("width", "34".into()), ("height", "10".into()), ("aria-hidden", "true".into())], vec![line]));
            if let Some(d) = dn {
                kids.push(tx("span", vec![("class", "dirname".into())], d));
            }
        }
        if runs.len() > 1 {
            let on = focus == Some(i);
            kids.push(tx(
                "span",
                vec![
                    ("class", if on { "focus on" } else { "focus" }.into()),
                    ("data-testid", "focus-run".into()),
                    ("data-act", "focus".into()),
                    ("data-run", i.to_string()),
                    ("title", if on { "the focus run (click: every run alike)" } else { "focus on this run: the others faint" }.into()),
                ],
                if on { "◉" } else { "◎" },
            ));
        }
        if !warns.is_empty() {
            kids.push(tx("span", vec![("class", "warn".into())], " ⚠"));
        }
        let class = if hidden.contains(&i) { "run off" } else { "run" };
        items.push(el(
            "button",
            vec![
                ("class", class.into()),
                ("data-testid", "legend-run".into()),
                ("data-act", "run".into()),
                ("data-run", i.to_string()),
                ("title", title),
            ],
            kids,
        ));
    }
    let carried = carried_notes(runs);
    let mut nodes = vec![el("div", vec![("class", "legend".into())], items)];
    if !carried.is_empty() {
        nodes.push(tx(
            "p",
            vec![("class", "carries".into()), ("data-testid", "carries".into())],
            format!("Compact form (every runtime and rate point exact at any zoom). {}.", carried.join(". ")),
        ));
    }
    nodes
}

/// What each run in compact form carries: the charts' points are exact at any zoom;
/// histograms (1-CDF, latency histogram, table of a brushed range) are of groups. Runs that
/// carry the same are named together (a site of 100 runs says it once).
pub fn carried_notes(runs: &[LegendRun]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for r in runs {
        let Some((text, group)) = r.compact else { continue };
        let brush = if group > 1 { "; a brushed range counts the groups that start in it" } else { "" };
        let what = format!("histograms of {text}{brush}");
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, names)) => names.push(r.run.name.clone()),
            None => groups.push((what, vec![r.run.name.clone()])),
        }
    }
    groups
        .into_iter()
        .map(|(what, names)| match names.len() {
            1..=3 => format!("{}: {what}", names.join(", ")),
            n if n == runs.len() => format!("all {n} runs: {what}"),
            n => format!("{n} runs ({}, ...): {what}", names[..2].join(", ")),
        })
        .collect()
}
