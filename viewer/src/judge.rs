//! The judge panels' data, plain Rust over the loaded runs (tested natively): compare (a
//! baseline against the other shown runs, nines-core's `compare`), sweep (IOPS and latency
//! against a parameter, or the latency curve: `sweep_table`, `curve`) and steady state (SNIA
//! PTS's rule and fio's criteria: `convergence`), and the tables and notes each panel shows of
//! them as a [`tree`](crate::tree) of nodes. The app (wasm32) caches these per state and draws
//! them with [`crate::judge_charts`].

use std::rc::Rc;

use nines_core::compare::{self, Change, TagComparison, Verdict};
use nines_core::convergence::{self, SteadyReport, Track as Tracked};
use nines_core::curve::{self, CurveTable};
use nines_core::quantile::Level;
use nines_core::run::Run;
use nines_core::series::Grouping;
use nines_core::spec::{RunCheck, Spec};
use nines_core::stats::{Options, RunStats};
use nines_core::steady::Criterion;
use nines_core::sweep_table::{self, SweepTable};
use nines_core::units::{format_ns, format_rate};

use crate::charts::{Scale, TraceStyle};
use crate::judge_charts::{ChangePoint, ChangeSeries, ConvSeries, ConvUnit, ConvWindow, CurveLine, CurvePt, SweepLine, SweepPanel, YUnit};
use crate::panels::{dir_key, directions_of, trace_style};
use crate::state::{DirMode, ViewState};
use crate::tree::{el, text, tx, Node};

/// What the judge panels read of the loaded runs, in the page's order. The page answers from
/// its model (a compact form's carried groups are fetched on demand); tests from runs in memory.
pub trait JudgeRuns {
    /// How many runs are loaded.
    fn count(&self) -> usize;
    /// Run `i` as loaded (for a compact form, one window per direction: the whole run).
    fn run(&self, i: usize) -> &Run;
    /// Run `i` with its windows (a compact form's carried groups); `None` while they are
    /// being fetched.
    fn windows(&self, i: usize) -> Option<Rc<Run>>;
    /// `nines stats` of run `i` over a time range (whole run: `None`); `None` while a compact
    /// form's groups for the range are being fetched.
    fn stats(&self, i: usize, range: Option<(f64, f64)>) -> Option<Rc<RunStats>>;
    /// The QoS spec checked on the whole of `run`, one of [`JudgeRuns::run`]'s.
    fn check(&self, run: &Run, spec: &Spec) -> RunCheck;
}

pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Same => "same",
        Verdict::Unknown => "unknown",
    }
}

pub fn pct_text(p: Option<f64>) -> String {
    p.map_or_else(String::new, |p| format!("{p:+.1}%"))
}

// ---------------------------------------------------------------------------------------
// Compare

pub struct CmpRow {
    pub run: usize,
    pub name: String,
    pub style: TraceStyle,
    pub tc: TagComparison,
    /// The levels (labels) with fewer than 100 I/Os beyond on either side.
    pub thin: Vec<String>,
}

pub struct CmpData {
    pub base_names: Vec<String>,
    pub rows: Vec<CmpRow>,
    pub levels: Vec<Level>,
    /// What the comparison covers (whole runs or the brushed time range).
    pub scope: String,
    pub note: Option<String>,
}

/// Position of a level on the change chart's x axis, in nines: p50 at 0.3, p99.9 at 3.
pub fn nines_x(l: &Level) -> f64 {
    nines_core::ccdf::nines_of((l.den - l.num).max(1) as f64 / l.den as f64)
}

/// Every shown run compared with the baseline (one by one, or as one set of repeats), over
/// whole runs or the brushed time range; a note says why there is nothing to compare.
pub fn compare_data(st: &ViewState, runs: &dyn JudgeRuns) -> CmpData {
    let n = runs.count();
    let levels = Options::default().levels;
    let base: Vec<usize> = st.base.iter().copied().filter(|&i| i < n).collect();
    let mut data = CmpData {
        base_names: base.iter().map(|&i| runs.run(i).name.clone()).collect(),
        rows: Vec::new(),
        levels,
        scope: String::new(),
        note: None,
    };
    if n < 2 {
        data.note = Some("Open a second run to compare: mark one as the baseline and every other shown run is compared with it.".into());
        return data;
    }
    if base.is_empty() {
        data.note = Some("Mark one run as the baseline (or several repeats: they are then compared by their run-to-run band); every other shown run is compared with it.".into());
        return data;
    }
    let time_sel = if st.x_ios { None } else { st.sel };
    data.scope = match time_sel {
        Some((a, b)) => format!("the brushed range {} to {}", crate::charts::format_seconds(a), crate::charts::format_seconds(b)),
        None if st.sel.is_some() => "whole runs (a range brushed on the I/O axis maps to different times in each run)".into(),
        None => "whole runs".into(),
    };
    let opts = Options { from: time_sel.map(|s| s.0), to: time_sel.map(|s| s.1), ..Options::default() };
    // the stats the table holds already (the same options: standard levels, this range)
    let range = time_sel;
    let stats = |idx: &[usize]| -> Option<Vec<Rc<RunStats>>> { idx.iter().map(|&i| runs.stats(i, range)).collect() };
    // compare's IOPS spread is over windows: a compact form's carried groups
    let held: Vec<Option<Rc<Run>>> = (0..n).map(|i| runs.windows(i)).collect();
    let waiting = held.iter().filter(|h| h.is_none()).count();
    if waiting > 0 {
        data.note = Some(format!("Loading the windows of {waiting} run{}.", if waiting == 1 { "" } else { "s" }));
        return data;
    }
    let held: Vec<Rc<Run>> = held.into_iter().flatten().collect();
    let base_runs: Vec<&Run> = base.iter().map(|&i| &*held[i]).collect();
    let Some(base_stats) = stats(&base) else { return data };
    let cands: Vec<usize> = (0..n).filter(|i| !base.contains(i) && !st.hidden.contains(i)).collect();
    // one by one, or (`cset`) all candidates as one set, compared by their band
    let groups: Vec<Vec<usize>> = if st.cset && cands.len() >= 2 { vec![cands] } else { cands.into_iter().map(|i| vec![i]).collect() };
    for g in groups {
        let cand_runs: Vec<&Run> = g.iter().map(|&i| &*held[i]).collect();
        let Some(cand_stats) = stats(&g) else { continue };
        let c = compare::compare_stats(&base_runs, &base_stats, &cand_runs, &cand_stats, &opts);
        let first = g[0];
        let name = match g.len() {
            1 => runs.run(first).name.clone(),
            n => format!("{n} runs: {}", cand_runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")),
        };
        for (d, dir) in directions_of(runs.run(first), &st.dir).iter().enumerate() {
            let key = dir_key(dir);
            if let Some(tc) = c.tags.iter().find(|t| t.tag == key) {
                let thin = base_stats
                    .iter()
                    .chain(&cand_stats)
                    .filter_map(|s| s.tags.get(&key))
                    .flat_map(|t| &t.levels)
                    .filter(|l| l.support == nines_core::quantile::Support::Thin)
                    .map(|l| l.label.clone())
                    .collect();
                data.rows.push(CmpRow { run: first, name: name.clone(), style: trace_style(first, d, &st.dir), tc: tc.clone(), thin });
            }
        }
    }
    if data.rows.is_empty() {
        data.note = Some("No other shown run shares a direction with the baseline: show another run, or choose another direction.".into());
    }
    data
}

pub struct ChangeChart {
    pub levels: Vec<(f64, String)>,
    pub bands: Vec<Vec<(f64, f64, f64)>>,
    pub series: Vec<ChangeSeries>,
    pub x: Scale,
    pub y: Scale,
}

pub fn change_chart(d: &CmpData) -> ChangeChart {
    let xs: Vec<f64> = d.levels.iter().map(nines_x).collect();
    // per direction: (tag, the baseline's interval per level)
    type Band = (String, Vec<(f64, f64, f64)>);
    let mut bands: Vec<Band> = Vec::new();
    let mut series = Vec::new();
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    let mut max_x: f64 = 1.0;
    for row in &d.rows {
        let mut points = Vec::new();
        for (c, &x) in row.tc.levels.iter().zip(&xs) {
            let Some(p) = c.change_pct else { continue };
            let interval = c.relative_pct(c.cand.interval);
            points.push(ChangePoint { x, pct: p, interval, verdict: c.verdict, thin: row.thin.contains(&c.label) });
            lo = lo.min(p);
            hi = hi.max(p);
            if let Some((a, z)) = interval {
                lo = lo.min(a);
                hi = hi.max(z);
            }
            max_x = max_x.max(x);
        }
        if !bands.iter().any(|(t, _)| *t == row.tc.tag) {
            let band: Vec<(f64, f64, f64)> =
                row.tc.levels.iter().zip(&xs).filter_map(|(c, &x)| c.relative_pct(c.base.interval).map(|(a, z)| (x, a, z))).collect();
            for &(_, a, z) in &band {
                lo = lo.min(a);
                hi = hi.max(z);
            }
            bands.push((row.tc.tag.clone(), band));
        }
        series.push(ChangeSeries { label: format!("{} {}", row.name, row.tc.tag), style: row.style, points });
    }
    let (lo, hi) = (lo.max(-100.0), hi.min(1000.0));
    let pad = ((hi - lo) * 0.1).max(2.0);
    ChangeChart {
        levels: d.levels.iter().zip(&xs).map(|(l, &x)| (x, l.label.clone())).collect(),
        bands: bands.into_iter().map(|b| b.1).collect(),
        series,
        x: Scale { lo: 0.0, hi: max_x + 0.5, log: false },
        y: Scale { lo: (lo - pad).max(-100.0), hi: hi + pad, log: false },
    }
}

pub fn side_text(label: &str, c: &Change, base: bool) -> String {
    let s = if base { &c.base } else { &c.cand };
    let f = |v: f64| if label == "IOPS" { format_rate(v) } else { format_ns(v.max(0.0).round() as u64) };
    let v = s.value.map_or("-".to_string(), f);
    let runs = if s.runs > 1 { format!(" (median of {} runs)", s.runs) } else { String::new() };
    match s.interval {
        Some((a, b)) => format!("{v}{runs}, {} {}–{}", if s.runs > 1 { "band" } else { "95% CI" }, f(a), f(b)),
        None => format!("{v}{runs}, interval unknown"),
    }
}

pub fn change_cell(c: &Change) -> Node {
    let why = match c.verdict {
        Verdict::Better | Verdict::Worse => "the intervals do not overlap: a real change",
        Verdict::Same => "the intervals overlap: within what the measurement allows",
        Verdict::Unknown => "too few I/Os (or runs) on a side to bound the interval: cannot tell",
    };
    let title = format!("{}\nbaseline {}\ncandidate {}\n{why}", c.label, side_text(&c.label, c, true), side_text(&c.label, c, false));
    let word = verdict_word(c.verdict);
    let up_is_more = c.label == "IOPS";
    let mark = match c.verdict {
        Verdict::Better if up_is_more => " ▲",
        Verdict::Worse if up_is_more => " ▼",
        Verdict::Better => " ▼",
        Verdict::Worse => " ▲",
        Verdict::Same => "",
        Verdict::Unknown => " ?",
    };
    let pct = c.change_pct.map_or(String::new(), |p| p.to_string());
    tx(
        "td",
        vec![
            ("class", format!("num v-{word}")),
            ("title", title),
            ("data-testid", "change".into()),
            ("data-col", c.label.clone()),
            ("data-verdict", word.into()),
            ("data-pct", pct),
        ],
        format!("{}{mark}", pct_text(c.change_pct)),
    )
}

pub fn compare_table(d: &CmpData) -> Vec<Node> {
    if let Some(n) = &d.note {
        return vec![tx("p", vec![("class", "hint".into()), ("data-testid", "compare-note".into())], n.clone())];
    }
    // levels some row has a value for
    let shown: Vec<usize> = (0..d.levels.len())
        .filter(|&i| d.rows.iter().any(|r| r.tc.levels.get(i).is_some_and(|c| c.base.value.is_some() || c.cand.value.is_some())))
        .collect();
    let mut tags: Vec<String> = Vec::new();
    for r in &d.rows {
        if !tags.contains(&r.tc.tag) {
            tags.push(r.tc.tag.clone());
        }
    }
    let measures = |tc: &TagComparison| -> Vec<Change> {
        let mut v = vec![tc.iops.clone(), tc.mean.clone()];
        v.extend(shown.iter().map(|&i| tc.levels[i].clone()));
        v
    };
    let mut head = vec![tx("th", vec![], "run"), tx("th", vec![], "dir"), tx("th", vec![], "IOPS"), tx("th", vec![], "mean")];
    head.extend(shown.iter().map(|&i| tx("th", vec![], d.levels[i].label.clone())));
    let base_rows: Vec<Node> = tags
        .iter()
        .filter_map(|t| d.rows.iter().find(|r| r.tc.tag == *t))
        .map(|r| {
            let mut cells = vec![
                tx("td", vec![("class", "name".into())], format!("baseline: {}", d.base_names.join(", "))),
                tx("td", vec![], r.tc.tag.clone()),
            ];
            for c in measures(&r.tc) {
                let f = |v: f64| if c.label == "IOPS" { format_rate(v) } else { format_ns(v.max(0.0).round() as u64) };
                let attrs = vec![
                    ("class", "num".into()),
                    ("title", side_text(&c.label, &c, true)),
                    ("data-testid", "base-value".into()),
                    ("data-col", c.label.clone()),
                ];
                cells.push(tx("td", attrs, c.base.value.map_or(String::new(), f)));
            }
            el("tr", vec![("class", "baseline".into()), ("data-testid", "compare-base-row".into()), ("data-dir", r.tc.tag.clone())], cells)
        })
        .collect();
    let rows: Vec<Node> = d
        .rows
        .iter()
        .map(|r| {
            let swatch = el("i", vec![("class", "sw".into()), ("style", format!("background:{}", r.style.css()))], vec![]);
            let mut cells =
                vec![el("td", vec![("class", "name".into())], vec![swatch, text(r.name.clone())]), tx("td", vec![], r.tc.tag.clone())];
            cells.extend(measures(&r.tc).iter().map(change_cell));
            el("tr", vec![("data-testid", "compare-row".into()), ("data-run", r.run.to_string()), ("data-dir", r.tc.tag.clone())], cells)
        })
        .collect();
    vec![
        el(
            "table",
            vec![("data-testid", "compare-table".into())],
            vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], base_rows), el("tbody", vec![], rows)],
        ),
        tx("p", vec![("class", "hint".into())], format!("Change of each candidate against the baseline over {}. ▼ faster / ▲ slower (IOPS: ▲ more) only where the intervals do not overlap; ? too few I/Os to tell. Hover a cell for both values and intervals.", d.scope)),
    ]
}

// ---------------------------------------------------------------------------------------
// Sweep

pub struct SweepData {
    pub params: Vec<String>,
    pub param: Option<String>,
    pub table: Option<Result<SweepTable, String>>,
    pub panels: Vec<SweepPanel>,
    pub has_cand: bool,
    /// Runs without the parameter found by itself, left out of the sweep.
    pub left_out: Vec<String>,
    /// The latency curve, when the panel shows one: its table (nines-core's, as `nines sweep
    /// --curve` prints it) and the lines drawn from it.
    pub curve: Option<CurveData>,
}

pub struct CurveData {
    pub table: CurveTable,
    pub lines: Vec<CurveLine>,
    /// The spec's first upper limit on latency: its value (ns) and text.
    pub limit: Option<(f64, String)>,
    /// The highest load meeting it, first set: (IOPS, value of the limit's measure).
    pub found: Option<(f64, f64)>,
    pub log_x: bool,
}

pub fn sweep_tag(dir: &DirMode) -> &str {
    match dir {
        DirMode::All | DirMode::Overlay => "all",
        DirMode::Read => "read",
        DirMode::Write => "write",
        DirMode::Trim => "trim",
        DirMode::Scoped(t) => t,
    }
}

/// The sweep of the shown runs over the chosen (or first found) parameter, baseline against
/// candidates when some runs are marked; or, when asked or when the runs carry curve marks,
/// the latency curve.
pub fn sweep_data(st: &ViewState, runs: &dyn JudgeRuns) -> SweepData {
    let n = runs.count();
    let visible: Vec<usize> = (0..n).filter(|i| !st.hidden.contains(i)).collect();
    let all: Vec<&Run> = visible.iter().map(|&i| runs.run(i)).collect();
    let params = sweep_table::param_names(&all);
    let param = st.sweep.clone().or_else(|| params.first().cloned());
    let mut d =
        SweepData { params, param: param.clone(), table: None, panels: Vec::new(), has_cand: false, left_out: Vec::new(), curve: None };
    let base_set: Vec<usize> = st.base.iter().copied().filter(|&i| i < n).collect();
    let (base, cand): (Vec<&Run>, Vec<&Run>) = if base_set.is_empty() {
        (all.clone(), Vec::new())
    } else {
        (base_set.iter().map(|&i| runs.run(i)).collect(), visible.iter().filter(|i| !base_set.contains(i)).map(|&i| runs.run(i)).collect())
    };
    if st.curve.unwrap_or_else(|| all.iter().any(|r| curve::Mark::of(r).is_some())) {
        d.curve = Some(curve_data(st, runs, base, cand));
        return d;
    }
    let Some(param) = param else { return d };
    // A parameter found by itself sweeps the runs that have it; one the user typed must be in
    // every run, or the error names the run that lacks it.
    let mut left_out = Vec::new();
    let (base, cand) = if st.sweep.is_none() {
        let has = |r: &&Run| sweep_table::param_value(r, &param).is_some();
        left_out.extend(base.iter().chain(cand.iter()).filter(|r| !has(r)).map(|r| r.name.clone()));
        (base.into_iter().filter(has).collect::<Vec<_>>(), cand.into_iter().filter(has).collect::<Vec<_>>())
    } else {
        (base, cand)
    };
    d.left_out = left_out;
    if base.is_empty() {
        return d;
    }
    let t = sweep_table::sweep(&base, &cand, &param, sweep_tag(&st.dir)).map_err(|e| e.to_string());
    if let Ok(t) = &t {
        d.has_cand = t.rows.iter().any(|r| r.cand.is_some());
        let mut configs: Vec<String> = Vec::new();
        for r in &t.rows {
            if !configs.contains(&r.config) {
                configs.push(r.config.clone());
            }
        }
        let titles = ["IOPS", "mean latency", "p99", "p99.99 (hollow: thin)"];
        for (j, title) in titles.iter().enumerate() {
            let mut lines = Vec::new();
            for (k, cfg) in configs.iter().enumerate() {
                let rows: Vec<_> = t.rows.iter().filter(|r| r.config == *cfg).collect();
                let name = if cfg.is_empty() { "runs".to_string() } else { cfg.clone() };
                let value = |p: &sweep_table::Point| -> (Option<f64>, bool) {
                    match j {
                        0 => (Some(p.iops), false),
                        1 => (Some(p.mean_ns), false),
                        2 => (p.p99_ns.map(|v| v as f64), false),
                        _ => (p.p99_99_ns.map(|v| v as f64), p.p99_99_thin),
                    }
                };
                let style = TraceStyle::nth(k);
                let pts = |side: &dyn Fn(&sweep_table::Row) -> Option<&sweep_table::Point>| {
                    rows.iter().filter_map(|r| side(r).map(|p| (r.param, value(p)))).map(|(x, (v, thin))| (x, v, thin)).collect::<Vec<_>>()
                };
                lines.push(SweepLine {
                    label: if d.has_cand { format!("{name} · baseline") } else { name.clone() },
                    style,
                    points: pts(&|r| Some(&r.base)),
                });
                if d.has_cand {
                    let dashed = TraceStyle { color: style.color, dash: (9, 5) };
                    lines.push(SweepLine { label: format!("{name} · candidate"), style: dashed, points: pts(&|r| r.cand.as_ref()) });
                }
            }
            d.panels.push(SweepPanel { title: title.to_string(), unit: if j == 0 { YUnit::Count } else { YUnit::Latency }, lines });
        }
    }
    d.table = Some(t);
    d
}

/// The latency curve of the shown runs: the baseline (or every run) and the candidates as two
/// sets, one line per level and set; the QoS spec's first upper limit on latency as the
/// target.
pub fn curve_data(st: &ViewState, runs: &dyn JudgeRuns, base: Vec<&Run>, cand: Vec<&Run>) -> CurveData {
    let two = !cand.is_empty();
    let mut sets = vec![(if two { "baseline" } else { "runs" }.to_string(), base)];
    if two {
        sets.push(("candidate".to_string(), cand));
    }
    let limit = Spec::parse("spec", &st.spec)
        .ok()
        .and_then(|sp| sp.sections.into_iter().flat_map(|s| s.limits).find(|l| curve::target_limit(&l.text()).is_ok()));
    // as the QoS panel checks (a compact form by its own windows' counts)
    let check = |r: &Run, spec: &Spec| runs.check(r, spec);
    let table = curve::table_with(&sets, sweep_tag(&st.dir), &curve::default_levels(), st.sweep.as_deref(), limit.as_ref(), &check);
    let mut lines = Vec::new();
    for (k, set) in table.sets.iter().enumerate() {
        for (j, level) in table.levels.iter().enumerate() {
            let base = TraceStyle::nth(j);
            let style = if k == 0 { base } else { TraceStyle { color: base.color, dash: (9, 5) } };
            let points = set
                .points
                .iter()
                .filter_map(|p| {
                    let l = p.levels.get(j)?;
                    Some(CurvePt {
                        iops: p.iops.value?,
                        value: l.value?,
                        lower: l.lower,
                        upper: l.upper,
                        thin: l.beyond.is_some_and(|b| b < nines_core::quantile::RELIABLE_BEYOND),
                    })
                })
                .collect();
            lines.push(CurveLine { label: format!("{level} · {}", set.label), style, points });
        }
    }
    let found = table.sets.first().and_then(|s| {
        let p = &s.points[s.decision.as_ref()?.best?];
        Some((p.iops.value?, p.target.as_ref()?.value?))
    });
    CurveData { limit: limit.map(|l| (l.value, l.text())), table, lines, found, log_x: st.curve_log }
}

/// The curve's points as the chart draws them, for tests and tools: `label|iops|value|lower|upper`
/// per point (an empty field for a missing bound), `;` between points.
pub fn curve_points_attr(lines: &[CurveLine]) -> String {
    let b = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    lines
        .iter()
        .flat_map(|l| l.points.iter().map(move |p| format!("{}|{}|{}|{}|{}", l.label, p.iops, p.value, b(p.lower), b(p.upper))))
        .collect::<Vec<_>>()
        .join(";")
}

pub fn curve_table_view(c: &CurveData) -> Vec<Node> {
    let t = &c.table;
    let mut out = Vec::new();
    for set in &t.sets {
        let mut head: Vec<Node> = ["load", "run", "I/Os", "IOPS achieved [95%]"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
        head.extend(t.levels.iter().map(|l| tx("th", vec![], format!("{l} [95%]"))));
        let b = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let rows: Vec<Node> = set
            .points
            .iter()
            .map(|p| {
                let mut cells = vec![
                    tx("td", vec![], p.load_text(&t.load)),
                    tx("td", vec![("class", "name".into()), ("title", p.file.clone())], p.run.clone()),
                    tx("td", vec![("class", "num".into())], curve::count_text(p.count)),
                    tx("td", vec![("class", "num".into()), ("data-col", "iops".into())], p.iops.text(false)),
                ];
                cells.extend(p.levels.iter().map(|l| {
                    tx(
                        "td",
                        vec![
                            ("class", "num".into()),
                            ("data-col", l.label.clone()),
                            ("data-v", b(l.value)),
                            ("data-lo", b(l.lower)),
                            ("data-hi", b(l.upper)),
                        ],
                        l.text(true),
                    )
                }));
                el(
                    "tr",
                    vec![
                        ("data-testid", "curve-row".into()),
                        ("data-set", set.label.clone()),
                        ("data-run", p.run.clone()),
                        ("data-iops", b(p.iops.value)),
                        ("data-load", b(p.load)),
                    ],
                    cells,
                )
            })
            .collect();
        out.push(tx("p", vec![("class", "glabel".into())], format!("{} ({}), by {}", set.label, t.tag, t.load)));
        out.push(el(
            "table",
            vec![("data-testid", "curve-table".into())],
            vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], rows)],
        ));
        let said = curve::describe(set, &t.load);
        if !said.is_empty() {
            out.push(el("ul", vec![("data-testid", "curve-decision".into())], said.into_iter().map(|s| tx("li", vec![], s)).collect()));
        }
    }
    out.push(tx(
        "p",
        vec![("class", "hint".into())],
        format!(
            "Direction: {}. Each point is one run at its achieved IOPS; [lower, upper] is the 95% interval (? too few I/Os for the bound), * thin: fewer than 100 I/Os beyond the level.{}",
            t.tag,
            if c.limit.is_none() { " Give an upper limit on latency in the QoS spec (read p99.99 <= 1ms) to find the highest load meeting it." } else { "" }
        ),
    ));
    out
}

pub fn sweep_table_view(d: &SweepData) -> Vec<Node> {
    let note = |id: &str, class: &str, s: String| vec![tx("p", vec![("class", class.into()), ("data-testid", id.to_string())], s)];
    let Some(param) = d.param.clone() else {
        return note("sweep-note", "hint", "No parameter to sweep: the shown runs carry none in their metadata that differs between them. Type one that their file names hold (numjobs-16.hlog) or label them with nines import --sweep.".into());
    };
    let t = match &d.table {
        None => return note("sweep-note", "hint", "No runs shown.".into()),
        Some(Err(e)) => return note("sweep-error", "error", e.clone()),
        Some(Ok(t)) => t,
    };
    let lat = |v: Option<u64>| v.map_or(String::new(), format_ns);
    let p9999 = |p: &sweep_table::Point| match p.p99_99_ns {
        Some(v) if p.p99_99_thin => format!("{}*", format_ns(v)),
        v => lat(v),
    };
    let num = |s: String| tx("td", vec![("class", "num".into())], s);
    let col = |c: &str, v: String, s: String| tx("td", vec![("class", "num".into()), ("data-col", c.to_string()), ("data-v", v)], s);
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let has_cand = d.has_cand;
    let rows: Vec<Node> = t
        .rows
        .iter()
        .map(|r| {
            let b = &r.base;
            let mut cells = vec![
                tx("td", vec![], if r.config.is_empty() { "-".to_string() } else { r.config.clone() }),
                num(format!("{}", r.param)),
                tx("td", vec![("class", "name".into()), ("title", b.run.clone())], b.run.clone()),
                col("iops", b.iops.to_string(), format_rate(b.iops)),
                col("mean", b.mean_ns.to_string(), format_ns(b.mean_ns.round() as u64)),
                col("p99", opt(b.p99_ns), lat(b.p99_ns)),
                col("p99.99", opt(b.p99_99_ns), p9999(b)),
            ];
            if has_cand {
                let c = r.cand.as_ref();
                let ch = r.change.as_ref();
                cells.extend([
                    num(c.map_or(String::new(), |c| format_rate(c.iops))),
                    num(c.map_or(String::new(), |c| format_ns(c.mean_ns.round() as u64))),
                    num(c.map_or(String::new(), |c| lat(c.p99_ns))),
                    num(c.map_or(String::new(), p9999)),
                    col("iops_pct", String::new(), pct_text(ch.and_then(|c| c.iops_pct))),
                    col("mean_pct", String::new(), pct_text(ch.and_then(|c| c.mean_pct))),
                    col("p99_pct", String::new(), pct_text(ch.and_then(|c| c.p99_pct))),
                    col("p99_99_pct", String::new(), pct_text(ch.and_then(|c| c.p99_99_pct))),
                ]);
            }
            el(
                "tr",
                vec![("data-testid", "sweep-row".into()), ("data-param", r.param.to_string()), ("data-config", r.config.clone())],
                cells,
            )
        })
        .collect();
    let mut head: Vec<Node> =
        ["configuration", param.as_str(), "run", "IOPS", "mean", "p99", "p99.99"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
    if has_cand {
        head.extend(
            ["cand. IOPS", "cand. mean", "cand. p99", "cand. p99.99", "IOPS Δ", "mean Δ", "p99 Δ", "p99.99 Δ"]
                .iter()
                .map(|h| tx("th", vec![], h.to_string())),
        );
    }
    let left =
        if d.left_out.is_empty() { String::new() } else { format!(" Left out, no {param} in their metadata: {}.", d.left_out.join(", ")) };
    let hint = format!(
        "Direction: {}. * thin: fewer than 100 I/Os beyond p99.99.{left} {}",
        t.tag,
        if has_cand {
            "Baseline runs are the marked ones; candidates the other shown runs, paired by configuration and parameter value. Δ: candidate against baseline."
        } else {
            "Mark baseline runs in Compare to pair candidates with them."
        }
    );
    vec![
        el(
            "table",
            vec![("data-testid", "sweep-table".into())],
            vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], rows)],
        ),
        tx("p", vec![("class", "hint".into())], hint),
    ]
}

// ---------------------------------------------------------------------------------------
// Steady state

pub struct SsSeries {
    pub label: String,
    pub style: TraceStyle,
    pub report: Result<SteadyReport, String>,
}

pub struct SsData {
    pub run: Option<(usize, String)>,
    pub unit: ConvUnit,
    pub track: String,
    pub series: Vec<SsSeries>,
    pub note: Option<String>,
}

/// The fio-style criteria shown beside the PTS rule (`nines steady`'s defaults).
pub const CRITERIA: [&str; 2] = ["iops:10%", "iops_slope:0.1%"];

/// SNIA PTS's steady-state rule and fio's criteria over the chosen run's rounds, per shown
/// direction.
pub fn steady_data(st: &ViewState, runs: &dyn JudgeRuns) -> SsData {
    let n = runs.count();
    let ss = &st.steady;
    let track: Result<Tracked, convergence::TrackError> = ss.track.parse();
    let unit = match &track {
        Ok(Tracked::Iops) => ConvUnit::Iops,
        Ok(Tracked::Bw) => ConvUnit::Mbps,
        _ => ConvUnit::Latency,
    };
    let mut d = SsData { run: None, unit, track: track.as_ref().map(|t| t.label()).unwrap_or_default(), series: Vec::new(), note: None };
    let Some(i) = (ss.run < n).then_some(ss.run).or((n > 0).then_some(0)) else {
        d.note = Some("No runs loaded.".into());
        return d;
    };
    // steady state is judged window by window: a compact form's carried groups
    let Some(held) = runs.windows(i) else {
        d.note = Some(format!("Loading the windows of {}.", runs.run(i).name));
        return d;
    };
    let r = &*held;
    d.run = Some((i, r.name.clone()));
    let track = match track {
        Ok(t) => t,
        Err(e) => {
            d.note = Some(e.to_string());
            return d;
        }
    };
    let criteria: Vec<Criterion> = CRITERIA.iter().filter_map(|c| c.parse().ok()).collect();
    let round = ss.round_s.map_or(Grouping::Native, Grouping::Seconds);
    let dirs = directions_of(r, &st.dir);
    if dirs.is_empty() {
        d.note = Some(format!("{} has no {} direction.", r.name, st.dir.label()));
    }
    for (k, dir) in dirs.iter().enumerate() {
        let report = convergence::steady_report(r, dir, &track, ss.rounds, round, &criteria).map_err(|e| e.to_string());
        d.series.push(SsSeries { label: format!("{} {}", r.name, dir_key(dir)), style: trace_style(i, k, &st.dir), report });
    }
    d
}

pub fn conv_series(d: &SsData) -> Vec<ConvSeries> {
    d.series
        .iter()
        .filter_map(|s| {
            let r = s.report.as_ref().ok()?;
            let n = r.rounds.len();
            let window = r.last.as_ref().map(|p| ConvWindow {
                first: (n - r.window + 1) as f64,
                last: n as f64,
                average: p.average,
                fit: p.fitted_ends(r.window),
                holds: p.holds,
            });
            Some(ConvSeries {
                label: s.label.clone(),
                style: s.style,
                points: r.rounds.iter().enumerate().map(|(i, q)| ((i + 1) as f64, q.value)).collect(),
                window,
                first_steady: r.first_steady_after.map(|v| v as f64),
            })
        })
        .collect()
}

// long: the steady-state panel's markup, one node tree top to bottom; split, its parts would
// each need the whole SsData and read out of order
pub fn steady_view(d: &SsData) -> Vec<Node> {
    if let Some(n) = &d.note {
        return vec![tx("p", vec![("class", "hint".into()), ("data-testid", "steady-note".into())], n.clone())];
    }
    let unit = d.unit;
    let fmt = move |v: f64| unit.format(v);
    let mut out = Vec::new();
    for s in &d.series {
        let r = match &s.report {
            Err(e) => {
                out.push(el(
                    "p",
                    vec![("class", "error".into()), ("data-testid", "steady-error".into())],
                    vec![tx("b", vec![], s.label.clone()), text(format!(": {e}"))],
                ));
                continue;
            }
            Ok(r) => r,
        };
        let n = r.rounds.len();
        let first = n - r.window;
        match &r.last {
            None => out.push(tx(
                "p",
                vec![("data-testid", "steady-summary".into()), ("data-holds", "unknown".into())],
                format!(
                    "{}: the last {} rounds have a round without a value (no I/O, or none beyond the level): the rule cannot be applied.",
                    s.label, r.window
                ),
            )),
            Some(p) => {
                let ok = |b: bool| if b { "✓" } else { "✗" };
                let verdict = if p.holds {
                    format!("steady state holds over rounds {}–{}", first + 1, n)
                } else {
                    format!("not steady over rounds {}–{}", first + 1, n)
                };
                let first_held = match r.first_steady_after {
                    Some(k) => format!("The PTS rule first held after round {k}."),
                    None => "The PTS rule never held in this run.".into(),
                };
                let detail = format!(
                    " · average {} · range {} = {:.1}% of the average (limit 20%) {} · fitted line's change {} = {:.1}% (limit 10%) {} · {first_held}",
                    fmt(p.average),
                    fmt(p.range),
                    p.range / p.average * 100.0,
                    ok(p.range_ok),
                    fmt(p.excursion),
                    p.excursion / p.average * 100.0,
                    ok(p.slope_ok)
                );
                let attrs = vec![
                    ("data-testid", "steady-summary".into()),
                    ("data-holds", p.holds.to_string()),
                    ("data-average", p.average.to_string()),
                    ("data-range", p.range.to_string()),
                    ("data-excursion", p.excursion.to_string()),
                    ("data-first", r.first_steady_after.map_or(String::new(), |v| v.to_string())),
                ];
                let class = if p.holds { "v-better" } else { "v-worse" };
                // the headline names the rule it judges by, and fio's criteria beside it
                let mut head = vec![tx("b", vec![("class", class.into())], format!("{}: SNIA PTS: {verdict}", s.label))];
                if let Some(fio) = fio_summary(&r.criteria) {
                    let class = if fio.0 { "v-better" } else { "v-worse" };
                    head.push(text(" · ".to_string()));
                    head.push(tx("b", vec![("class", class.into()), ("data-testid", "steady-fio-summary".into())], fio.1));
                }
                head.push(text(detail));
                out.push(el("p", attrs, head));
            }
        }
        let avg = r.last.as_ref().map(|p| p.average);
        let num = |s: String| tx("td", vec![("class", "num".into())], s);
        let rows: Vec<Node> = r.rounds[first..]
            .iter()
            .enumerate()
            .map(|(j, q)| {
                let dev = match (q.value, avg) {
                    (Some(v), Some(a)) if a > 0.0 => format!("{:+.1}%", (v / a - 1.0) * 100.0),
                    _ => String::new(),
                };
                let attrs = vec![
                    ("data-testid", "steady-window-row".into()),
                    ("data-round", (first + j + 1).to_string()),
                    ("data-value", q.value.map_or(String::new(), |v| v.to_string())),
                ];
                el(
                    "tr",
                    attrs,
                    vec![
                        num((first + j + 1).to_string()),
                        num(crate::charts::format_seconds(q.start_s)),
                        num(format!("{:.3} s", q.length_s)),
                        num(nines_core::units::group(q.count)),
                        num(q.value.map_or("-".to_string(), fmt)),
                        num(dev),
                    ],
                )
            })
            .collect();
        let head: Vec<Node> =
            ["round", "start", "length", "I/Os", r.track.as_str(), "vs average"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
        out.push(el(
            "table",
            vec![("data-testid", "steady-window".into())],
            vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], rows)],
        ));
        let crit: Vec<Node> = r
            .criteria
            .iter()
            .map(|c| {
                let last = match &c.last {
                    Some(e) => format!(
                        "{} over the window: {} (mean {:.1}) {}",
                        if e.holds { "holds" } else { "does not hold" },
                        criterion_reason(&c.criterion, e),
                        e.mean,
                        if e.holds { "✓" } else { "✗" }
                    ),
                    None => "cannot be evaluated over the window".into(),
                };
                let first = c.first_steady_after.map_or("never held".to_string(), |k| format!("first held after round {k}"));
                let attrs = vec![
                    ("data-testid", "steady-criterion".into()),
                    ("data-criterion", c.criterion.clone()),
                    ("data-holds", c.last.as_ref().map_or(String::new(), |e| e.holds.to_string())),
                    ("data-first", c.first_steady_after.map_or(String::new(), |v| v.to_string())),
                ];
                tx("li", attrs, format!("fio {}: {last}; {first}", c.criterion))
            })
            .collect();
        out.push(el("ul", vec![("class", "criteria".into())], crit));
    }
    vec![el("div", vec![("class", "steady-report".into())], out)]
}

/// What a fio criterion measured against its limit (fio's steadystate: a deviation test holds
/// while every sample is within the limit of the mean, a slope test while the least-squares
/// slope is under it; a percent limit is of the mean): "largest deviation 14.2% of the mean
/// ≥ limit 10%".
pub fn criterion_reason(criterion: &str, e: &nines_core::steady::Evaluation) -> String {
    use nines_core::steady::{Limit, Test};
    let Ok(c) = criterion.parse::<Criterion>() else { return format!("{:.3}", e.criterion) };
    let (value, limit) = match c.limit {
        Limit::Percent(l) => (format!("{:.3}% of the mean", e.criterion.abs()), format!("{l}%")),
        Limit::Absolute(l) => (format!("{:.3}", e.criterion.abs()), format!("{l}")),
    };
    let what = match c.test {
        Test::Deviation => "largest deviation",
        Test::Slope => "slope per second",
    };
    format!("{what} {value} {} limit {limit}", if e.holds { "<" } else { "≥" })
}

/// fio's criteria over the window in one phrase, and whether all hold: "fio's criteria: do
/// not hold (iops: largest deviation 14.2% of the mean ≥ limit 10%)". `None` without any
/// evaluated criterion.
pub fn fio_summary(criteria: &[convergence::CriterionResult]) -> Option<(bool, String)> {
    let evaluated: Vec<_> = criteria.iter().filter_map(|c| c.last.as_ref().map(|e| (c, e))).collect();
    if evaluated.is_empty() {
        return None;
    }
    let failing: Vec<String> = evaluated
        .iter()
        .filter(|(_, e)| !e.holds)
        .map(|(c, e)| format!("{}: {}", c.criterion, criterion_reason(&c.criterion, e)))
        .collect();
    let names = if evaluated.len() == 1 { "fio's criterion" } else { "fio's criteria" };
    let verb = |one: &str, many: &str| if evaluated.len() == 1 { one.to_string() } else { many.to_string() };
    Some(if failing.is_empty() {
        (true, format!("{names}: {}", verb("holds", "hold")))
    } else {
        (false, format!("{names}: {} ({})", verb("does not hold", "do not hold"), failing.join("; ")))
    })
}

/// Why a judge panel has nothing to draw, said on its tools line.
pub struct Fold {
    pub testid: &'static str,
    pub class: &'static str,
    pub text: String,
    /// Fewer runs than the panel works with: its controls have nothing to choose from either.
    pub few: bool,
}

/// What the sweep panel says when it has no sweep to draw.
pub fn sweep_fold(d: &SweepData, shown_runs: usize) -> Fold {
    let note = |testid, text: String, few| Fold { testid, class: "fold-note", text, few };
    match (&d.param, &d.table) {
        (None, _) if shown_runs < 2 => note(
            "sweep-note",
            "Open runs that differ in one parameter (qd, numjobs, bs: in their metadata or file names) to plot IOPS and latency against it."
                .into(),
            true,
        ),
        (None, _) => note(
            "sweep-note",
            "No parameter to sweep: the shown runs carry none in their metadata that differs between them. Type one that their file names hold (numjobs-16.hlog) or label them with nines import --sweep.".into(),
            false,
        ),
        (Some(_), Some(Err(e))) => Fold { testid: "sweep-error", class: "fold-note error", text: e.clone(), few: false },
        (Some(p), _) => note("sweep-note", format!("No shown run has a value of {p} to sweep over."), false),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use nines_core::hist::{Hist, Layout};
    use nines_core::run::Window;
    use nines_core::stats::run_stats;

    use super::*;

    /// `windows` one-second windows of each tag; window `s` holds `ios(s)` I/Os spread evenly
    /// over `lo_us` to 10 x `lo_us`.
    fn run(name: &str, tags: &[&str], windows: usize, lo_us: u64, ios: impl Fn(usize) -> u64) -> Run {
        let l = Layout::default_ns();
        let lo = lo_us * 1000;
        let mut out = Vec::new();
        for s in 0..windows {
            for t in tags {
                let n = ios(s);
                out.push(Window {
                    start_s: s as f64,
                    length_s: 1.0,
                    tag: Some(t.to_string()),
                    hist: Hist::from_values(l, (0..n).map(|i| lo + (i * 7919) % (9 * lo))),
                });
            }
        }
        Run { name: name.into(), source: format!("{name}.hlog"), windows: out, ..Run::default() }
    }

    type Range = Option<(f64, f64)>;

    /// Runs in memory, as the page holds archives: each its own windows; `pending` runs have
    /// their windows still on the way. Records the ranges stats were asked for.
    struct Held {
        runs: Vec<Rc<Run>>,
        pending: Vec<usize>,
        asked: RefCell<Vec<(usize, Range)>>,
    }

    impl Held {
        fn new(runs: Vec<Run>) -> Held {
            Held { runs: runs.into_iter().map(Rc::new).collect(), pending: Vec::new(), asked: RefCell::default() }
        }
    }

    impl JudgeRuns for Held {
        fn count(&self) -> usize {
            self.runs.len()
        }
        fn run(&self, i: usize) -> &Run {
            &self.runs[i]
        }
        fn windows(&self, i: usize) -> Option<Rc<Run>> {
            (!self.pending.contains(&i)).then(|| self.runs[i].clone())
        }
        fn stats(&self, i: usize, range: Option<(f64, f64)>) -> Option<Rc<RunStats>> {
            self.asked.borrow_mut().push((i, range));
            let opts = Options { from: range.map(|r| r.0), to: range.map(|r| r.1), ..Options::default() };
            Some(Rc::new(run_stats(&self.runs[i], &opts)))
        }
        fn check(&self, run: &Run, spec: &Spec) -> RunCheck {
            curve::whole_run(run, spec)
        }
    }

    fn state(f: impl FnOnce(&mut ViewState)) -> ViewState {
        let mut st = ViewState { dir: DirMode::Read, ..ViewState::default() };
        f(&mut st);
        st
    }

    fn html(nodes: &[Node]) -> String {
        Node::html(nodes)
    }

    #[test]
    fn compare_says_what_it_needs_before_it_has_a_baseline_and_a_candidate() {
        let one = Held::new(vec![run("a", &["read"], 10, 100, |_| 1000)]);
        let d = compare_data(&state(|_| {}), &one);
        assert!(d.rows.is_empty());
        assert!(d.note.as_deref().unwrap().starts_with("Open a second run"), "{:?}", d.note);

        let two = Held::new(vec![run("a", &["read"], 10, 100, |_| 1000), run("b", &["read"], 10, 100, |_| 1000)]);
        let d = compare_data(&state(|_| {}), &two);
        assert!(d.note.as_deref().unwrap().starts_with("Mark one run as the baseline"), "{:?}", d.note);
        assert!(html(&compare_table(&d)).contains(r#"data-testid="compare-note""#));

        let mut waiting = Held::new(vec![run("a", &["read"], 10, 100, |_| 1000), run("b", &["read"], 10, 100, |_| 1000)]);
        waiting.pending = vec![1];
        let d = compare_data(
            &state(|s| {
                s.base.insert(0);
            }),
            &waiting,
        );
        assert_eq!(d.note.as_deref(), Some("Loading the windows of 1 run."));
    }

    #[test]
    fn compare_rows_are_nines_cores_comparison_of_the_shown_runs_with_the_baseline() {
        // b is three times slower at every level, c is a's twin, d is hidden
        let held = Held::new(vec![
            run("a", &["read", "write"], 10, 100, |_| 2000),
            run("b", &["read", "write"], 10, 300, |_| 2000),
            run("c", &["read", "write"], 10, 100, |_| 2000),
            run("d", &["read", "write"], 10, 900, |_| 2000),
        ]);
        let st = state(|s| {
            s.base.insert(0);
            s.hidden.insert(3);
        });
        let d = compare_data(&st, &held);
        assert_eq!(d.note, None);
        assert_eq!(d.base_names, vec!["a"]);
        assert_eq!(d.scope, "whole runs");
        // one row per candidate and shown direction (read only), the hidden run left out
        assert_eq!(d.rows.iter().map(|r| (r.run, r.tc.tag.as_str())).collect::<Vec<_>>(), vec![(1, "read"), (2, "read")]);
        let opts = Options::default();
        let stats = |i: usize| vec![Rc::new(run_stats(&held.runs[i], &opts))];
        for row in &d.rows {
            let want = compare::compare_stats(&[&*held.runs[0]], &stats(0), &[&*held.runs[row.run]], &stats(row.run), &opts);
            let want = want.tags.into_iter().find(|t| t.tag == "read").unwrap();
            assert_eq!(format!("{:?}", row.tc), format!("{want:?}"));
        }
        let slower = &d.rows[0].tc;
        let median = slower.levels.iter().find(|c| c.label == "p50").unwrap();
        assert_eq!(median.verdict, Verdict::Worse);
        assert!((median.change_pct.unwrap() - 200.0).abs() < 2.0, "{:?}", median.change_pct);
        let twin = &d.rows[1].tc;
        assert!(twin.levels.iter().all(|c| c.verdict != Verdict::Worse && c.verdict != Verdict::Better));

        let page = html(&compare_table(&d));
        assert_eq!(page.matches(r#"data-testid="compare-row""#).count(), 2);
        assert!(page.contains(r#"data-col="p50" data-verdict="worse""#), "{page}");
        assert!(page.contains("baseline: a"));

        // the change chart's y axis holds every change and interval it draws
        let ch = change_chart(&d);
        for s in &ch.series {
            for p in &s.points {
                assert!(ch.y.lo <= p.pct && p.pct <= ch.y.hi, "{} outside {:?}", p.pct, ch.y);
            }
        }
        assert_eq!(ch.levels.len(), d.levels.len());
    }

    #[test]
    fn compare_over_a_brushed_time_range_asks_for_that_range_and_says_so() {
        let held = Held::new(vec![run("a", &["read"], 10, 100, |_| 500), run("b", &["read"], 10, 100, |_| 500)]);
        let d = compare_data(
            &state(|s| {
                s.base.insert(0);
                s.sel = Some((2.0, 6.0));
            }),
            &held,
        );
        assert!(d.scope.starts_with("the brushed range"), "{}", d.scope);
        assert!(held.asked.borrow().iter().all(|&(_, r)| r == Some((2.0, 6.0))));
        // on the I/O axis a range is not a time range: whole runs, and the page says why
        held.asked.borrow_mut().clear();
        let d = compare_data(
            &state(|s| {
                s.base.insert(0);
                s.sel = Some((2.0, 6.0));
                s.x_ios = true;
            }),
            &held,
        );
        assert!(d.scope.starts_with("whole runs (a range brushed on the I/O axis"), "{}", d.scope);
        assert!(held.asked.borrow().iter().all(|&(_, r)| r.is_none()));
    }

    fn with_param(mut r: Run, k: &str, v: u64) -> Run {
        r.meta.param.insert(k.into(), v.into());
        r
    }

    #[test]
    fn a_sweep_is_nines_cores_table_over_the_runs_parameter_with_one_line_per_panel() {
        // IOPS grows with the queue depth, and so does latency
        let held = Held::new(vec![
            with_param(run("qd1", &["read"], 5, 100, |_| 1000), "qd", 1),
            with_param(run("qd4", &["read"], 5, 200, |_| 3000), "qd", 4),
            with_param(run("qd16", &["read"], 5, 400, |_| 6000), "qd", 16),
            run("other", &["read"], 5, 100, |_| 1000),
        ]);
        let d = sweep_data(&state(|s| s.curve = Some(false)), &held);
        assert_eq!(d.params, vec!["qd"]);
        assert_eq!(d.param.as_deref(), Some("qd"));
        assert_eq!(d.left_out, vec!["other"]);
        assert!(!d.has_cand);
        let Some(Ok(t)) = &d.table else { panic!("no sweep table: {:?}", d.table.as_ref().map(|t| t.as_ref().err())) };
        let runs: Vec<&Run> = held.runs[..3].iter().map(|r| &**r).collect();
        let want = sweep_table::sweep::<&Run, &Run>(&runs, &[], "qd", "read").unwrap();
        assert_eq!(format!("{t:?}"), format!("{want:?}"));
        assert_eq!(d.panels.iter().map(|p| p.title.as_str()).collect::<Vec<_>>(), ["IOPS", "mean latency", "p99", "p99.99 (hollow: thin)"]);
        let iops: Vec<(f64, Option<f64>)> = d.panels[0].lines[0].points.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(iops, vec![(1.0, Some(1000.0)), (4.0, Some(3000.0)), (16.0, Some(6000.0))]);

        let page = html(&sweep_table_view(&d));
        assert_eq!(page.matches(r#"data-testid="sweep-row""#).count(), 3);
        assert!(page.contains("Left out, no qd in their metadata: other."), "{page}");

        // a parameter no run has folds the panel and says so
        let none = Held::new(vec![run("a", &["read"], 5, 100, |_| 10), run("b", &["read"], 5, 100, |_| 10)]);
        let d = sweep_data(&state(|s| s.curve = Some(false)), &none);
        assert_eq!(d.param, None);
        let f = sweep_fold(&d, 2);
        assert!(f.text.starts_with("No parameter to sweep"), "{}", f.text);
        assert!(!f.few);
        assert!(sweep_fold(&d, 1).few);
    }

    #[test]
    fn steady_state_holds_on_a_flat_run_fails_on_a_ramp_and_waits_for_windows() {
        let held = Held::new(vec![
            run("flat", &["read"], 20, 100, |_| 1000),
            // IOPS doubling over the last rounds: range far beyond 20% of the average
            run("ramp", &["read"], 20, 100, |s| 1000 + 200 * s as u64),
        ]);
        let flat = steady_data(&state(|_| {}), &held);
        assert_eq!(flat.note, None);
        assert_eq!(flat.run, Some((0, "flat".into())));
        assert_eq!(flat.track, "IOPS");
        let r = flat.series[0].report.as_ref().unwrap();
        assert!(r.last.as_ref().unwrap().holds);
        let page = html(&steady_view(&flat));
        assert!(page.contains(r#"data-holds="true""#), "{page}");
        assert_eq!(page.matches(r#"data-testid="steady-window-row""#).count(), 5);
        let conv = conv_series(&flat);
        assert_eq!(conv[0].points.len(), 20);
        assert_eq!(conv[0].window.as_ref().map(|w| (w.first, w.last)), Some((16.0, 20.0)));

        // the headline names the PTS rule, and fio's criteria beside it
        assert!(page.contains("flat read: SNIA PTS: steady state holds over rounds 16–20"), "{page}");
        assert!(page.contains("fio&#39;s criteria: hold") || page.contains("fio's criteria: hold"), "{page}");

        let ramp = steady_data(&state(|s| s.steady.run = 1), &held);
        assert!(!ramp.series[0].report.as_ref().unwrap().last.as_ref().unwrap().holds);
        let page = html(&steady_view(&ramp));
        assert!(page.contains(r#"data-holds="false""#));
        assert!(page.contains("ramp read: SNIA PTS: not steady over rounds 16–20"), "{page}");
        // each criterion that does not hold says what it measured against its limit
        assert!(page.contains("criteria: do not hold (iops_slope:0.1%: slope per second 4.545% of the mean ≥ limit 0.1%)"), "{page}");
        assert!(page.contains("does not hold over the window: slope per second 4.545% of the mean ≥ limit 0.1%"), "{page}");
        assert!(page.contains("holds over the window: largest deviation 9.091% of the mean &lt; limit 10%"), "{page}");

        let bad = steady_data(&state(|s| s.steady.track = "p42x".into()), &held);
        assert!(bad.note.is_some() && bad.series.is_empty());

        let mut waiting = Held::new(vec![run("flat", &["read"], 20, 100, |_| 1000)]);
        waiting.pending = vec![0];
        let d = steady_data(&state(|_| {}), &waiting);
        assert_eq!(d.note.as_deref(), Some("Loading the windows of flat."));
        assert!(html(&steady_view(&d)).contains(r#"data-testid="steady-note""#));
    }
}
