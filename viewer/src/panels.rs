//! What the page's panels show, computed natively from runs and the view state: which traces
//! (run x direction) are drawn and in which style, the charts' scales, the stats table and the
//! legend as [`crate::tree`] nodes. The wasm app ([`app`](crate)) gathers its inputs from the
//! loaded runs and mounts or draws what these return; everything here is unit-tested natively.

use crate::index_set::IndexSet;

use nines_core::quantile::{Level, LevelStat, Support};
use nines_core::run::Run;
use nines_core::series::Direction;
use nines_core::stats::{RunStats, TagStats};
use nines_core::units::{format_ns, format_ns_f, format_rate, group};
use nines_core::variability::variability;
use nines_core::workload_key::WorkloadKey;

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

/// Style of the `d`-th direction of run `run`: a run keeps its colour in every direction mode
/// and every panel; with directions overlaid each direction of a run has its own dash pattern
/// (read solid, write dashed, ...), so read and write stay apart in every chart; a merge's
/// scoped directions go on into the next patterns.
pub fn trace_style(run: usize, d: usize, mode: &DirMode) -> TraceStyle {
    let base = TraceStyle::nth(run);
    if *mode == DirMode::Overlay {
        // runs 9 on (colours come round again) start three patterns on
        let first = run / crate::charts::PALETTE.len() * 3;
        TraceStyle { dash: crate::charts::DASHES[(first + d) % crate::charts::DASHES.len()], ..base }
    } else {
        base
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

/// The 1-CDF's axes: the view's zoom, else the default view: latency from the lowest p1 of the
/// curves (rounded down to a 1-2-5 step, so one fast outlier does not stretch the axis over
/// decades; [`cdf_full_x`] reaches the minimum), up to the max (and the spec's limits beside
/// them); shares down to the level of nines below the smallest share drawn.
pub fn cdf_ranges(st: &ViewState, curves: &[Curve], envelopes: &[Vec<(f64, f64)>]) -> (Scale, Scale) {
    if let Some((x0, x1, y0, y1)) = st.cdf {
        return (Scale { lo: x0, hi: x1, log: true }, Scale { lo: y0, hi: y1, log: true });
    }
    let full = cdf_full_x(curves, envelopes);
    // the lowest p1: of each curve the highest latency at least 99% of its I/Os reach
    let p1 = curves
        .iter()
        .filter_map(|c| c.ccdf.iter().take_while(|p| p.share >= 0.99).last().map(|p| p.value_ns as f64))
        .chain(envelopes.iter().flatten().map(|c| c.0).filter(|&v| v >= 1.0))
        .fold(f64::INFINITY, f64::min);
    let lo = if p1.is_finite() { floor_125(p1 / 1.05).clamp(full.lo, full.hi / 1.5) } else { full.lo };
    let min_share = curves.iter().filter_map(|c| c.last().map(|p| p.1)).fold(1.0, f64::min);
    // down to the level of nines below the smallest 1/N, at least 3 nines
    let k = (-min_share.log10()).ceil().clamp(3.0, 12.0);
    // a little room above share 1 so curves do not run along the frame
    (Scale { lo, ..full }, Scale { lo: 10f64.powf(-k), hi: 1.6, log: true })
}

/// The 1-CDF's whole latency range: from the curves' minimum to their max (and the spec's
/// limits), with a little room on both sides.
pub fn cdf_full_x(curves: &[Curve], envelopes: &[Vec<(f64, f64)>]) -> Scale {
    let limits = || envelopes.iter().flatten().map(|c| c.0).filter(|&v| v >= 1.0);
    let lo = curves.iter().filter_map(|c| c.first().map(|p| p.0)).chain(limits()).fold(f64::INFINITY, f64::min);
    let hi = curves.iter().filter_map(|c| c.last().map(|p| p.0)).chain(limits()).fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > 0.0 { (lo / 1.3, hi * 1.3) } else { (1e3, 1e7) };
    Scale { lo: lo.max(1.0), hi, log: true }
}

/// The largest 1, 2 or 5 times a power of ten at or below `v` (> 0).
pub fn floor_125(v: f64) -> f64 {
    let d = 10f64.powf(v.log10().floor());
    // a hair of slack so 200 stays 200 through the logarithm's rounding
    [5.0, 2.0, 1.0].into_iter().map(|m| m * d).find(|&s| s <= v * (1.0 + 1e-9)).unwrap_or(d)
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

/// A level's `td` (`testid` `cell` for a standard level, `custom-cell` for a custom one).
fn level_td(l: &LevelStat, testid: &str) -> Node {
    let (text, class, title) = level_cell(l);
    let attrs = vec![
        ("class", class.to_string()),
        ("title", title),
        ("data-testid", testid.into()),
        ("data-col", l.label.clone()),
        ("data-ns", l.value_ns.map_or(String::new(), |v| v.to_string())),
        ("data-support", format!("{:?}", l.support).to_ascii_lowercase()),
        ("data-beyond", l.beyond.to_string()),
    ];
    tx("td", attrs, text)
}

/// The stats table: `nines stats` columns per run and direction, then run-to-run variability.
/// `custom`: the levels each row's stats carry after the standard ones, as columns after the
/// max (`nines stats --levels`). All runs taken as repeats of one workload: see
/// [`stats_table_by_workload`].
pub fn stats_table(table: &[TableRow], custom: &[Level]) -> Vec<Node> {
    stats_table_by_workload(table, custom, &[])
}

/// [`stats_table`] with each row group's workload key (`keys[i]` of `table[i]`; fewer keys:
/// the runs without one state nothing): run-to-run variability per workload, runs of
/// different workloads not taken as repeats ([`crate::workload::groups`]).
pub fn stats_table_by_workload(table: &[TableRow], custom: &[Level], keys: &[WorkloadKey]) -> Vec<Node> {
    let labels: Vec<String> = nines_core::quantile::standard_levels().into_iter().map(|l| l.label).collect();
    // As `nines stats`: level columns up to the last one any shown row has a value in.
    let shown = (0..labels.len())
        .rev()
        .find(|&i| table.iter().any(|(_, _, _, rows)| rows.iter().any(|(_, s)| s.levels.get(i).is_some_and(|l| l.value_ns.is_some()))))
        .map_or(0, |i| i + 1);
    let ncols = 8 + shown + custom.len();
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
            cells.extend(s.levels[..shown.min(s.levels.len())].iter().map(|l| level_td(l, "cell")));
            cells.push(cell("num max", "max", s.max_ns.to_string(), format_ns(s.max_ns)));
            // the custom levels, each shown (blank: none beyond), after the max
            cells.extend(s.levels.iter().skip(labels.len()).map(|l| level_td(l, "custom-cell")));
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
    let var_rows = variability_rows(table, keys, shown, labels.len(), ncols);
    let mut head: Vec<Node> =
        ["run", "dir", "count", "IOPS", "min", "mean", "stdev"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
    head.extend(labels[..shown].iter().map(|l| tx("th", vec![], l.clone())));
    head.push(tx("th", vec![], "max"));
    head.extend(
        custom.iter().map(|l| tx("th", vec![("class", "custom".into()), ("title", "a level of the levels field".into())], l.label.clone())),
    );
    let mut parts = vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], body)];
    if !var_rows.is_empty() {
        let mut v = vec![el("tr", vec![], vec![tx("th", vec![("colspan", ncols.to_string())], "Run-to-run variability")])];
        v.extend(var_rows);
        parts.push(el("tbody", vec![("class", "variability".into())], v));
    }
    vec![el("table", vec![("data-testid", "stats-table".into())], parts)]
}

/// The run-to-run variability rows: a hint when the runs are of more than one workload, then
/// per workload group and direction with two or more runs, the spread of each level shown
/// (`shown` standard ones of `nstd`, the max's blank cell, the custom ones) across its runs.
fn variability_rows(table: &[TableRow], keys: &[WorkloadKey], shown: usize, nstd: usize, ncols: usize) -> Vec<Node> {
    let mut var_rows = Vec::new();
    let keys: Vec<WorkloadKey> = (0..table.len()).map(|i| keys.get(i).cloned().unwrap_or_default()).collect();
    let (groups, varying) = crate::workload::groups(&keys);
    if groups.len() > 1 {
        let text = format!(
            "These runs differ in {}: runs of different workloads are not compared as repeats, each workload has its own rows.",
            varying.join(", ")
        );
        let td = tx("td", vec![("colspan", ncols.to_string()), ("class", "hint".into())], text);
        var_rows.push(el("tr", vec![("data-testid", "workload-hint".into())], vec![td]));
    }
    for g in &groups {
        let members: Vec<&TableRow> = g.members.iter().map(|&m| &table[m]).collect();
        let mut dirs: Vec<String> = Vec::new();
        for (_, _, _, rows) in &members {
            for (t, _) in rows {
                if !dirs.contains(t) {
                    dirs.push(t.clone());
                }
            }
        }
        for d in dirs {
            let with: Vec<(usize, &TagStats)> =
                members.iter().filter_map(|(i, _, _, rows)| rows.iter().find(|(t, _)| *t == d).map(|(_, s)| (*i, s))).collect();
            if with.len() < 2 {
                continue;
            }
            let refs: Vec<&TagStats> = with.iter().map(|(_, s)| *s).collect();
            let name = if g.label.is_empty() { format!("{} runs", refs.len()) } else { format!("{} runs · {}", refs.len(), g.label) };
            let run_ids = with.iter().map(|(i, _)| i.to_string()).collect::<Vec<_>>().join(",");
            let mut cells = vec![
                tx("td", vec![("class", "name".into()), ("title", name.clone())], name),
                tx("td", vec![], d.clone()),
                tx("td", vec![("colspan", "5".into()), ("class", "hint".into())], "spread (max − min) / median across runs"),
            ];
            cells.extend(spread_cells(&refs, shown, nstd));
            let attrs = vec![
                ("data-testid", "variability-row".into()),
                ("data-dir", d.clone()),
                ("data-group", g.label.clone()),
                ("data-runs", run_ids),
            ];
            var_rows.push(el("tr", attrs, cells));
        }
    }
    var_rows
}

/// A variability row's level cells: the spread of each standard level shown, the max's blank
/// cell, then the custom levels.
fn spread_cells(refs: &[&TagStats], shown: usize, nstd: usize) -> Vec<Node> {
    let mut cells = Vec::new();
    let var = variability(refs);
    let (nvar, nstd) = (var.len(), nstd.min(var.len()));
    for (i, lv) in var.into_iter().enumerate().filter(|&(i, _)| i < shown || i >= nstd) {
        if i == nstd {
            cells.push(el("td", vec![], vec![]));
        }
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
    if nstd == nvar {
        cells.push(el("td", vec![], vec![]));
    }
    cells
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
pub fn legend(runs: &[LegendRun], hidden: &IndexSet, dir: &DirMode, focus: Option<usize>, site: usize) -> Vec<Node> {
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

/// A range dragged on the x axis snapped to the nearest window starts, given each window's
/// (start, end) on that axis: `nines stats --from A --to B` takes the windows that start in
/// `[A, B)`, so window starts (and the end of the last window) are the only edges at which the
/// page's range and the windows it uses agree; runs whose windows lie on other grids take the
/// windows that start in it, as nines stats does. Where the last end and a start differ by
/// rounding, the start is the edge. A range narrower than half a window becomes the window
/// under its middle. None without windows.
pub fn snap_range(windows: &[(f64, f64)], a: f64, b: f64) -> Option<(f64, f64)> {
    let mut edges: Vec<f64> = windows.iter().map(|w| w.0).collect();
    if let Some(end) = windows.iter().map(|w| w.1).reduce(f64::max) {
        let tol = 1e-9 * end.abs().max(1.0);
        if !edges.iter().any(|&s| (s - end).abs() <= tol) {
            edges.push(end);
        }
    }
    let nearest = |x: f64| edges.iter().copied().min_by(|p, q| (p - x).abs().total_cmp(&(q - x).abs()));
    let (lo, hi) = (nearest(a.min(b))?, nearest(a.max(b))?);
    if hi > lo {
        return Some((lo, hi));
    }
    let mid = (a + b) / 2.0;
    let dist = |w: &(f64, f64)| if w.0 <= mid && mid < w.1 { 0.0 } else { ((w.0 + w.1) / 2.0 - mid).abs() };
    windows.iter().min_by(|p, q| dist(p).total_cmp(&dist(q))).map(|w| (w.0, w.1)).filter(|w| w.1 > w.0)
}

/// What a selection holds, for its banner: the windows (or carried groups) that start in the
/// range, counted once per run, and the I/Os of the traces shown in them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Held {
    pub runs: usize,
    pub windows: usize,
    pub ios: u64,
}

impl Held {
    /// Add one trace's windows, as (start in seconds, I/Os), that start in `[from, to)`;
    /// `new_run` when it is the first trace of its run.
    pub fn add(&mut self, windows: impl Iterator<Item = (f64, u64)>, from: f64, to: f64, new_run: bool) {
        let (mut n, mut ios) = (0, 0);
        for (_, count) in windows.filter(|w| w.0 >= from && w.0 < to) {
            n += 1;
            ios += count;
        }
        if new_run {
            self.runs += 1;
            self.windows += n;
        }
        self.ios += ios;
    }

    /// "4 windows, 7,999 I/Os" or "12 windows of 3 runs, 23,997 I/Os".
    pub fn text(&self) -> String {
        let w = if self.windows == 1 { "window" } else { "windows" };
        let of = if self.runs > 1 { format!(" of {} runs", self.runs) } else { String::new() };
        format!("{} {w}{of}, {} I/Os", group(self.windows as u64), group(self.ios))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dragged_range_snaps_to_the_nearest_window_edges() {
        let w: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, i as f64 + 1.0)).collect();
        assert_eq!(snap_range(&w, 1.9, 5.5), Some((2.0, 5.0)));
        assert_eq!(snap_range(&w, 5.6, 1.9), Some((2.0, 6.0)));
        // narrower than half a window: the window under its middle
        assert_eq!(snap_range(&w, 3.2, 3.4), Some((3.0, 4.0)));
        // beyond the last window: its end
        assert_eq!(snap_range(&w, 8.4, 12.0), Some((8.0, 10.0)));
        assert_eq!(snap_range(&[], 1.0, 2.0), None);
        // an end one ulp past the next start snaps to that start, so the window is left out
        let w = [(0.1, 0.1 + 0.2), (0.3, 0.4)];
        // (0.1 + 0.2 is 0.30000000000000004, one ulp past 0.3)
        assert_eq!(snap_range(&w, 0.05, 0.31), Some((0.1, 0.3)));
        // runs on other grids: the edges are window starts (and the last end), never the end
        // of one run's window inside another's (nines stats would take that window whole)
        let w = [(1.0, 2.001), (2.0, 2.1), (2.1, 2.2)];
        assert_eq!(snap_range(&w, 1.0, 2.0015), Some((1.0, 2.0)));
        assert_eq!(snap_range(&w, 1.0, 2.19), Some((1.0, 2.2)));
    }

    #[test]
    fn a_selection_counts_the_windows_that_start_in_it_once_a_run() {
        let mut h = Held::default();
        let read = [(0.0, 10), (1.0, 11), (2.0, 12)];
        let write = [(0.0, 1), (1.0, 2), (2.0, 3)];
        h.add(read.into_iter(), 1.0, 3.0, true);
        h.add(write.into_iter(), 1.0, 3.0, false);
        assert_eq!(h, Held { runs: 1, windows: 2, ios: 28 });
        assert_eq!(h.text(), "2 windows, 28 I/Os");
        h.add(read.into_iter(), 0.5, 1.5, true);
        assert_eq!(h.text(), "3 windows of 2 runs, 39 I/Os");
    }
    use crate::charts::{Metric, DASHES};
    use nines_core::density::DensityBin;
    use nines_core::hist::{Hist, Layout};
    use nines_core::run::{Warning, Window};
    use nines_core::stats::{run_stats, Options};

    /// Ten one-second windows of each tag, `n` I/Os a window spread over 100 us to 1 ms.
    fn run(name: &str, tags: &[&str], n: u64) -> Run {
        let l = Layout::default_ns();
        let windows = (0..10)
            .flat_map(|s| {
                tags.iter().map(move |t| Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: Some(t.to_string()),
                    hist: Hist::from_values(l, (0..n).map(|i| 100_000 + (i * 7919) % 900_000)),
                })
            })
            .collect();
        Run { name: name.into(), windows, ..Run::default() }
    }

    fn tag(t: &str) -> Direction {
        Direction::Tag(Some(t.into()))
    }

    fn view(dir: DirMode) -> ViewState {
        ViewState { dir, ..ViewState::default() }
    }

    #[test]
    fn a_direction_mode_shows_the_runs_directions_it_names_and_overlay_leaves_measures_out() {
        let r = run("a", &["read", "write", "read.svc", "probe/read"], 10);
        assert_eq!(directions_of(&r, &DirMode::All), vec![Direction::All]);
        assert_eq!(directions_of(&r, &DirMode::Read), vec![tag("read")]);
        assert_eq!(directions_of(&r, &DirMode::Write), vec![tag("write")]);
        assert_eq!(directions_of(&r, &DirMode::Trim), vec![]);
        assert_eq!(directions_of(&r, &DirMode::Scoped("probe/read".into())), vec![tag("probe/read")]);
        assert_eq!(directions_of(&r, &DirMode::Scoped("host1/read".into())), vec![]);
        assert_eq!(directions_of(&r, &DirMode::Overlay), vec![tag("read"), tag("write"), tag("probe/read")]);
        assert_eq!(scoped_directions([&r, &run("b", &["host1/write", "probe/read"], 10)]), vec!["probe/read", "host1/write"]);
    }

    #[test]
    fn traces_skip_hidden_runs_name_baselines_and_a_run_keeps_its_colour_in_every_direction_mode() {
        let (a, b, c) = (run("a", &["read", "write"], 10), run("b", &["read"], 10), run("c", &["read", "write"], 10));
        let mut st = view(DirMode::Overlay);
        st.hidden.insert(1);
        st.base.insert(2);
        let ts = traces_of([&a, &b, &c], &st);
        let got: Vec<(usize, &str, TraceStyle)> = ts.iter().map(|t| (t.run, t.label.as_str(), t.style)).collect();
        assert_eq!(
            got,
            vec![
                (0, "a read", TraceStyle::nth(0)),
                (0, "a write", TraceStyle { dash: DASHES[1], ..TraceStyle::nth(0) }),
                (2, "c read (baseline)", TraceStyle::nth(2)),
                (2, "c write (baseline)", TraceStyle { dash: DASHES[1], ..TraceStyle::nth(2) }),
            ]
        );
        // each run's colour is the same in every direction mode; overlaid directions differ by dash
        for mode in [DirMode::All, DirMode::Read, DirMode::Write, DirMode::Overlay] {
            for run in [0, 4, 8, 9, 30] {
                for d in 0..3 {
                    assert_eq!(trace_style(run, d, &mode).color, TraceStyle::nth(run).color, "{mode:?} run {run}");
                }
            }
        }
        let styles: Vec<TraceStyle> = (0..18).flat_map(|r| (0..3).map(move |d| trace_style(r, d, &DirMode::Overlay))).collect();
        for i in 0..styles.len() {
            assert!(!styles[..i].contains(&styles[i]), "overlay style {i} repeats");
        }
        // merged: one trace a run, a colour a run
        let ts = traces_of([&a, &b, &c], &view(DirMode::All));
        assert_eq!(
            ts.iter().map(|t| (t.label.as_str(), t.style)).collect::<Vec<_>>(),
            vec![("a all", TraceStyle::nth(0)), ("b all", TraceStyle::nth(1)), ("c all", TraceStyle::nth(2)),]
        );
    }

    #[test]
    fn the_stats_table_rows_are_the_directions_shown_and_variability_needs_two_runs() {
        let runs = [run("a", &["read", "write"], 200), run("b", &["read", "write"], 400)];
        let stats: Vec<RunStats> = runs.iter().map(|r| run_stats(r, &Options::default())).collect();
        let rows_of = |dir: DirMode, n: usize| -> Vec<Node> {
            let table: Vec<TableRow> = stats.iter().take(n).enumerate().map(|(i, s)| table_row(i, s, &dir)).collect();
            stats_table(&table, &[])
        };
        let t = &rows_of(DirMode::Overlay, 2)[0];
        let rows = t.by_testid("stats-row");
        let dirs: Vec<(&str, &str)> = rows.iter().map(|r| (r.attr("data-run").unwrap(), r.attr("data-dir").unwrap())).collect();
        assert_eq!(dirs, vec![("0", "read"), ("0", "write"), ("1", "read"), ("1", "write")]);
        let var = t.by_testid("variability-row");
        assert_eq!(var.iter().map(|r| r.attr("data-dir").unwrap()).collect::<Vec<_>>(), vec!["read", "write"]);
        // the count cell says each run's I/Os: 10 windows of 200 and of 400
        let count = |r: &Node| r.by_testid("cell").into_iter().find(|c| c.attr("data-col") == Some("count")).unwrap().text();
        assert_eq!((count(rows[0]), count(rows[2])), ("2,000".to_string(), "4,000".to_string()));
        // the level columns stop at the last level a row has a value at: 2,000 and 4,000 I/Os
        // have none beyond 4 nines
        let head: Vec<String> = match t {
            Node::El { children, .. } => match &children[0] {
                Node::El { children, .. } => match &children[0] {
                    Node::El { children, .. } => children.iter().map(Node::text).collect(),
                    Node::Text(_) => vec![],
                },
                Node::Text(_) => vec![],
            },
            Node::Text(_) => vec![],
        };
        assert_eq!(head, ["run", "dir", "count", "IOPS", "min", "mean", "stdev", "p50", "p90", "p99", "p99.9", "max"]);
        assert!(rows.iter().all(|r| r.by_testid("cell").len() == head.len() - 2));
        // one run: no variability; merged: the `all` rows only
        let one = &rows_of(DirMode::All, 1)[0];
        assert!(one.by_testid("variability-row").is_empty());
        assert_eq!(one.by_testid("stats-row").iter().map(|r| r.attr("data-dir").unwrap()).collect::<Vec<_>>(), vec!["all"]);
    }

    #[test]
    fn custom_levels_are_columns_after_the_max_with_their_support() {
        let runs = [run("a", &["read", "write"], 200), run("b", &["read", "write"], 400)];
        let custom = crate::state::parse_levels("p95, p99.5, p99.99").unwrap();
        let stats: Vec<RunStats> = runs
            .iter()
            .map(|r| {
                let mut o = Options::default();
                o.levels.extend_from_slice(&custom);
                run_stats(r, &o)
            })
            .collect();
        let table: Vec<TableRow> = stats.iter().enumerate().map(|(i, s)| table_row(i, s, &DirMode::Overlay)).collect();
        let t = &stats_table(&table, &custom)[0];
        for (r, row) in t.by_testid("stats-row").into_iter().enumerate() {
            let cells = row.by_testid("custom-cell");
            assert_eq!(cells.iter().map(|c| c.attr("data-col").unwrap()).collect::<Vec<_>>(), ["p95", "p99.5", "p99.99"]);
            // as `nines stats --levels` computes them, none beyond left blank
            let alone = run_stats(&runs[r / 2], &Options { levels: custom.clone(), ..Options::default() });
            let tag = row.attr("data-dir").unwrap();
            for (c, l) in cells.iter().zip(&alone.tags.get(tag).unwrap().levels) {
                assert_eq!(c.attr("data-ns").unwrap(), l.value_ns.map_or(String::new(), |v| v.to_string()));
                assert_eq!(c.attr("data-support").unwrap(), format!("{:?}", l.support).to_ascii_lowercase());
                assert_eq!(c.text(), level_cell(l).0);
            }
        }
        // variability rows: a cell a standard level shown, the max's blank, a cell a custom level
        for v in t.by_testid("variability-row") {
            let cols: Vec<&str> = v.by_testid("spread").iter().map(|c| c.attr("data-col").unwrap()).collect();
            assert_eq!(cols, ["p50", "p90", "p99", "p99.9", "p95", "p99.5", "p99.99"]);
        }
    }

    #[test]
    fn a_level_cell_stars_thin_values_and_leaves_levels_with_none_beyond_blank() {
        let s = run_stats(&run("a", &["read"], 20), &Options::default());
        let levels = &s.tags.get("all").unwrap().levels;
        let thin = levels.iter().find(|l| l.support == Support::Thin && l.value_ns.is_some()).unwrap();
        let (text, class, title) = level_cell(thin);
        assert!(text.ends_with('*') && class == "num thin" && title.starts_with("thin: only"), "{text} {class} {title}");
        let none = levels.iter().find(|l| l.value_ns.is_none()).unwrap();
        assert_eq!(level_cell(none).0, "");
        assert_eq!(level_cell(none).1, "num none");
        assert_eq!(ci_title(None, 3), "95% CI not bounded: too few I/Os beyond (3)");
    }

    #[test]
    fn table_rows_keep_the_directions_the_mode_shows() {
        let s = run_stats(&run("a", &["read", "write", "probe/read"], 20), &Options::default());
        let tags = |dir: DirMode| table_row(0, &s, &dir).3.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        assert_eq!(tags(DirMode::All), vec!["all"]);
        assert_eq!(tags(DirMode::Write), vec!["write"]);
        assert!(!tags(DirMode::Overlay).contains(&"all".to_string()));
        assert_eq!(tags(DirMode::Scoped("probe/read".into())), vec!["probe/read"]);
    }

    /// A curve from its first and last points (all `cdf_ranges` reads).
    fn curve(points: Vec<(f64, f64)>) -> Curve {
        let ccdf = std::rc::Rc::new(points.iter().map(|&(x, share)| nines_core::ccdf::CcdfPoint { value_ns: x as u64, share }).collect());
        Curve { label: String::new(), style: TraceStyle::nth(0), ccdf }
    }

    #[test]
    fn the_cdf_starts_at_the_lowest_p1_and_reaches_the_nines_below_the_smallest_share() {
        let st = ViewState::default();
        // one 150 ns outlier (as a fio import has shown) before a bulk from 80 us
        let c = [
            curve(vec![(150.0, 1.0), (80_000.0, 0.9999), (120_000.0, 0.5), (900_000.0, 2e-5)]),
            curve(vec![(100_000.0, 1.0), (110_000.0, 0.98), (300_000.0, 1e-3)]),
        ];
        let (x, y) = cdf_ranges(&st, &c, &[]);
        // the lowest p1 is 80 us: the axis starts at the 1-2-5 step below it, not at 150 ns
        assert_eq!(x.lo, 50_000.0, "{x:?}");
        assert!((x.hi - 900_000.0 * 1.3).abs() < 1e-6, "{x:?}");
        // 2e-5 is between 4 and 5 nines: down to 5
        assert!((y.lo - 1e-5).abs() < 1e-18 && y.hi == 1.6, "{y:?}");
        // the whole range (a zoom-out) reaches the minimum
        let full = cdf_full_x(&c, &[]);
        assert!((full.lo - 150.0 / 1.3).abs() < 1e-9 && full.hi == x.hi, "{full:?}");
        // a spec limit left of the curves widens the axis; shares above 3 nines still show 3
        let (x, y) = cdf_ranges(&st, &c[1..], &[vec![(500.0, 1e-2), (2_000_000.0, 1e-4)]]);
        assert!((x.lo - 500.0 / 1.3).abs() < 1e-9, "{x:?}");
        assert!((x.hi - 2_000_000.0 * 1.3).abs() < 1e-6, "{x:?}");
        assert!((y.lo - 1e-3).abs() < 1e-15, "{y:?}");
        // a zoomed view keeps its box
        let z = ViewState { cdf: Some((10.0, 20.0, 1e-4, 0.5)), ..ViewState::default() };
        let (x, y) = cdf_ranges(&z, &c, &[]);
        assert_eq!((x.lo, x.hi, y.lo, y.hi), (10.0, 20.0, 1e-4, 0.5));
        assert_eq!([floor_125(7.0), floor_125(200.0), floor_125(0.3), floor_125(19_999.0)], [5.0, 200.0, 0.2, 10_000.0]);
    }

    #[test]
    fn scales_follow_the_data_and_fall_back_when_there_is_none() {
        let bin = |count, density| DensityBin { lo_ns: 1.0, hi_ns: 2.0, count, density };
        let h = [HistTrace { label: String::new(), style: TraceStyle::nth(0), bins: vec![bin(0, 1e-9), bin(3, 0.02), bin(9, 3.0)] }];
        let y = hist_y(&h);
        // whole decades around 0.02 / 1.5 and 3 * 1.5; the empty bin does not count
        assert!((y.lo - 1e-2).abs() < 1e-15 && (y.hi - 10.0).abs() < 1e-12, "{y:?}");
        assert_eq!((hist_y(&[]).lo, hist_y(&[]).hi), (1e-6, 10.0));

        let line = |points| RuntimeLine {
            trace: String::new(),
            style: TraceStyle::nth(0),
            metric: Metric::Median,
            points,
            thin: vec![],
            limit: None,
            broken: vec![],
            faint: false,
        };
        let y = runtime_y(&[line(vec![(0.0, Some(3_000.0)), (1.0, None)]), line(vec![(0.0, Some(900_000.0))])]);
        assert_eq!((y.lo, y.hi), (2_000.0, 1_350_000.0));
        assert_eq!((runtime_y(&[line(vec![(0.0, None)])]).lo, runtime_y(&[]).hi), (1e3, 1e7));

        let rate = |points| RateLine { label: String::new(), style: TraceStyle::nth(0), points, steady: vec![], faint: false };
        assert!((rate_y(&[rate(vec![(0.0, 100.0), (1.0, 250.0)]), rate(vec![])]).hi - 280.0).abs() < 1e-9);
        assert_eq!(rate_y(&[]).hi, 1.0);
    }

    #[test]
    fn steady_bands_span_the_region_on_the_x_axis_shown_at_ten_percent_around_its_average() {
        let regions = [(2.0, 7.0, 1_000.0, 6_000.0, 1_000.0)];
        assert_eq!(steady_bands(&regions, false, 1.0), vec![(2.0, 7.0, 900.0, 1_100.0)]);
        // by I/Os, in MB/s of 4 KiB I/Os
        let mb = 4096.0 / 1e6;
        let b = steady_bands(&regions, true, mb);
        assert_eq!((b[0].0, b[0].1), (1_000.0, 6_000.0));
        assert!((b[0].2 - 900.0 * mb).abs() < 1e-12 && (b[0].3 - 1_100.0 * mb).abs() < 1e-12);
    }

    #[test]
    fn the_legend_marks_hidden_runs_offers_focus_with_two_runs_and_names_what_compact_forms_carry() {
        let mut a = run("a", &["read", "write"], 10);
        a.warnings.push(Warning { line: Some(3), message: "a gap".into() });
        let b = run("b", &["read"], 10);
        let runs =
            [LegendRun { run: &a, file: "a.hlog", compact: Some(("1 min", 60)) }, LegendRun { run: &b, file: "b.hlog", compact: None }];
        let hidden: IndexSet = [1].into();
        let nodes = legend(&runs, &hidden, &DirMode::Overlay, Some(0), 0);
        let page = el("div", vec![], nodes);
        let buttons = page.by_testid("legend-run");
        assert_eq!(buttons.iter().map(|b| b.attr("class").unwrap()).collect::<Vec<_>>(), vec!["run", "run off"]);
        assert!(buttons[0].attr("title").unwrap().contains("a gap"), "{:?}", buttons[0].attr("title"));
        // overlaid: a swatch and name for each direction of a run
        assert!(buttons[0].text().contains("read") && buttons[0].text().contains("write"));
        let focus: Vec<&str> = page.by_testid("focus-run").iter().map(|n| n.attr("class").unwrap()).collect();
        assert_eq!(focus, vec!["focus on", "focus"]);
        assert_eq!(page.by_testid("focus-toggle")[0].text(), "all alike");
        let carries = page.by_testid("carries")[0].text();
        assert!(carries.contains("a: histograms of 1 min; a brushed range counts"), "{carries}");
        // one run: no focus controls
        let one = el("div", vec![], legend(&runs[1..], &IndexSet::new(), &DirMode::All, None, 0));
        assert!(one.by_testid("focus-toggle").is_empty() && one.by_testid("focus-run").is_empty());
        // none: where runs come from
        let site = el("div", vec![], legend(&[], &IndexSet::new(), &DirMode::All, None, 250));
        assert!(site.by_testid("no-runs")[0].text().starts_with("This site holds 250 runs"));
    }

    #[test]
    fn runs_carrying_the_same_are_named_together() {
        let rs: Vec<Run> = (0..5).map(|i| run(&format!("r{i}"), &["read"], 1)).collect();
        let same =
            |n: usize| -> Vec<LegendRun> { rs[..n].iter().map(|r| LegendRun { run: r, file: "", compact: Some(("10 s", 1)) }).collect() };
        assert_eq!(carried_notes(&same(2)), vec!["r0, r1: histograms of 10 s"]);
        assert_eq!(carried_notes(&same(5)), vec!["all 5 runs: histograms of 10 s"]);
        let mut mixed = same(5);
        mixed[4].compact = None;
        assert_eq!(carried_notes(&mixed), vec!["4 runs (r0, r1, ...): histograms of 10 s"]);
    }

    #[test]
    fn variability_puts_only_repeats_of_one_workload_together() {
        use crate::workload::tests::key;
        // QD1 randrw, QD16 randrw, an O_SYNC randwrite and a repeat of the QD16 run, each
        // slower than the one before
        let scaled = |name: &str, tags: &[&str], k: u64| {
            let mut r = run(name, tags, 300);
            for w in &mut r.windows {
                let l = Layout::default_ns();
                w.hist = Hist::from_values(l, (0..300u64).map(|i| k * (100_000 + (i * 7919) % 900_000)));
            }
            r
        };
        let runs = [
            scaled("qd1", &["read", "write"], 1),
            scaled("qd16", &["read", "write"], 2),
            scaled("sync", &["write"], 3),
            scaled("qd16b", &["read", "write"], 5),
        ];
        let keys = [key("randrw", 1, false), key("randrw", 16, false), key("randwrite", 1, true), key("randrw", 16, false)];
        let stats: Vec<RunStats> = runs.iter().map(|r| run_stats(r, &Options::default())).collect();
        let table: Vec<TableRow> = stats.iter().enumerate().map(|(i, s)| table_row(i, s, &DirMode::Overlay)).collect();
        let t = &stats_table_by_workload(&table, &[], &keys)[0];
        let hint = t.by_testid("workload-hint");
        assert_eq!(hint.len(), 1);
        assert!(hint[0].text().starts_with("These runs differ in rw, qd, sync: "), "{}", hint[0].text());
        let var = t.by_testid("variability-row");
        let got: Vec<(&str, &str, &str)> =
            var.iter().map(|r| (r.attr("data-group").unwrap(), r.attr("data-dir").unwrap(), r.attr("data-runs").unwrap())).collect();
        let g = "rw=randrw qd=16 sync=false";
        assert_eq!(got, vec![(g, "read", "1,3"), (g, "write", "1,3")]);
        assert_eq!(var[0].text().split("read").next().unwrap(), format!("2 runs · {g}"));
        // each spread as nines_core::variability computes it over the group's two runs alone
        for r in &var {
            let d = r.attr("data-dir").unwrap();
            let refs = [stats[1].tags.get(d).unwrap(), stats[3].tags.get(d).unwrap()];
            let want = variability(&refs);
            for c in r.by_testid("spread") {
                let lv = want.iter().find(|l| Some(l.label.as_str()) == c.attr("data-col")).unwrap();
                assert_eq!(c.text(), lv.spread_pct.map_or(String::new(), |p| format!("{p:.1}%")));
            }
            assert!(r.by_testid("spread").iter().any(|c| !c.text().is_empty()));
        }
        // the same runs without keys: one workload, one spread over all of them, no hint
        let t = &stats_table(&table, &[])[0];
        assert!(t.by_testid("workload-hint").is_empty());
        let var = t.by_testid("variability-row");
        assert_eq!(var.iter().map(|r| r.attr("data-runs").unwrap()).collect::<Vec<_>>(), ["0,1,3", "0,1,2,3"]);
        assert!(var[0].text().starts_with("3 runs"));
        assert_eq!(var[0].attr("data-group"), Some(""));
    }
}
