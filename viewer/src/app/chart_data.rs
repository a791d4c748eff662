//! Each chart's data (owned), gathered from the loaded runs for the view: shared by the canvas
//! draws and the SVG exports. The scales and styles come from the native [`crate::panels`].

use std::rc::Rc;

use nines_core::bandwidth::mb_per_s;
use nines_core::ccdf::{ccdf, CcdfPoint};
use nines_core::density::log_density;
use nines_core::pyramid::Axis;
use nines_core::quantile::Support;
use nines_core::series::SeriesPoint;

use super::model::{runs, trace_data, TraceData, BINS_PER_DECADE};
use super::qos;
use super::traces::time_sel;
use super::traces::traces;
use crate::charts::{self, Curve, HistTrace, Metric, RateLine, RateSpec, RuntimeLine, RuntimeSpec, Scale};
use crate::panels::{self, cdf_ranges, Trace};
use crate::state::{Focus, RateMode, ViewState, MAX_STRIPS};
use crate::strips::{self, Strip};

pub(super) struct CdfData {
    pub(super) curves: Vec<Curve>,
    pub(super) hover: Vec<(String, String, Rc<Vec<CcdfPoint>>)>,
    /// The QoS spec's envelopes of the curves shown (each distinct one once).
    pub(super) envelopes: Vec<Vec<(f64, f64)>>,
    pub(super) x: Scale,
    pub(super) y: Scale,
    /// The whole latency range, down to the curves' minimum (the default view starts at the
    /// lowest p1).
    pub(super) full_x: Scale,
}

pub(super) fn cdf_data(st: &ViewState) -> CdfData {
    let mut curves = Vec::new();
    let mut hover = Vec::new();
    let mut envelopes: Vec<Vec<(f64, f64)>> = Vec::new();
    let spec = qos::parsed(st).and_then(Result::ok);
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        if let Some(spec) = &spec {
            let e = qos::envelope(spec, &td.loaded.run, &t.dir);
            if !e.is_empty() && !envelopes.contains(&e) {
                envelopes.push(e);
            }
        }
        let pts: Rc<Vec<CcdfPoint>> = match time_sel(st, &td) {
            Some((a, b)) => match td.merged(Some(a), Some(b)) {
                Some(h) => Rc::new(ccdf(&h)),
                None => continue,
            },
            None => td.ccdf.clone(),
        };
        if pts.is_empty() {
            continue;
        }
        curves.push(Curve { label: t.label.clone(), style: t.style, ccdf: pts.clone() });
        hover.push((t.label, t.style.css(), pts));
    }
    let (x, y) = cdf_ranges(st, &curves, &envelopes);
    let full_x = panels::cdf_full_x(&curves, &envelopes);
    CdfData { curves, hover, envelopes, x, y, full_x }
}

/// The focus run of the runtime and rate charts among the runs the legend shows. One level of
/// every run and the strips draw each run in its own colour: there a run is the focus only
/// when chosen (the legend's ◎), never by default.
pub(super) fn focus_of(st: &ViewState) -> Option<usize> {
    let n = runs().len();
    let shown: Vec<usize> = (0..n).filter(|i| !st.hidden.contains(i)).collect();
    match st.focus {
        Focus::Run(i) if st.one.is_some() || st.strips => (shown.contains(&i) && shown.len() > 1).then_some(i),
        _ if st.one.is_some() || st.strips => None,
        f => crate::state::focus_run(&shown, f),
    }
}

/// The runs of traces `ts`, each once, in order.
pub(super) fn runs_of(ts: &[Trace]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for t in ts {
        if out.last() != Some(&t.run) {
            out.push(t.run);
        }
    }
    out
}

/// The runs the strips draw, of those `shown`: the chosen ones that are shown (up to
/// [`MAX_STRIPS`]), or with none chosen the first.
pub(super) fn strip_runs(st: &ViewState, shown: &[usize]) -> Vec<usize> {
    let picked: Vec<usize> = shown.iter().copied().filter(|i| st.strip_runs.contains(i)).take(MAX_STRIPS).collect();
    if picked.is_empty() {
        shown.iter().copied().take(MAX_STRIPS).collect()
    } else {
        picked
    }
}

pub(super) struct RuntimeData {
    /// The run drawn strong (`state::focus_run`), the others faint.
    pub(super) focus: Option<usize>,
    pub(super) lines: Vec<RuntimeLine>,
    pub(super) rates: Vec<RateLine>,
    pub(super) rate_note: Option<String>,
    pub(super) x: Scale,
    pub(super) y: Scale,
    pub(super) ry: Scale,
    /// One strip a run (its lines), for the small multiples.
    pub(super) strips: Vec<Strip>,
    /// With strips: every run shown, drawn or not (past [`MAX_STRIPS`]).
    pub(super) strip_pool: Vec<usize>,
}

impl RuntimeData {
    /// The runtime chart as the page draws it (`legend: false`) or an export writes it.
    pub(super) fn runtime_spec<'a>(&'a self, st: &ViewState, legend: bool) -> RuntimeSpec<'a> {
        RuntimeSpec {
            title: "Runtime QoS",
            x_desc: x_desc(st),
            x_is_time: !st.x_ios,
            lines: &self.lines,
            x: self.x,
            y: self.y,
            selection: st.sel,
            legend,
        }
    }

    /// Draw the runtime chart as the view asks: overlaid, or one strip per run. Returns the
    /// frame the mouse maps through and, for strips, each strip's.
    pub(super) fn draw_runtime<DB: crate::backend::NativeDraw>(
        &self,
        root: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        st: &ViewState,
        legend: bool,
    ) -> Result<(charts::Frame, Vec<charts::Frame>), String>
    where
        DB::ErrorType: 'static,
    {
        let spec = self.runtime_spec(st, legend);
        if self.strips_shown(st) {
            strips::draw_strips(root, &spec, &self.strips)
        } else {
            charts::draw_runtime(root, &spec).map(|f| (f, Vec::new()))
        }
    }

    fn strips_shown(&self, st: &ViewState) -> bool {
        st.strips && !self.strips.is_empty()
    }

    /// The runtime chart's height: the overlaid chart's, or as many strips as runs.
    pub(super) fn runtime_height(&self, st: &ViewState) -> u32 {
        if self.strips_shown(st) {
            strips::height(self.strips.len())
        } else {
            360
        }
    }

    /// Draw the rate chart as the view asks: overlaid, or one strip per run on the runtime
    /// strips' x axis.
    pub(super) fn draw_rate<DB: crate::backend::NativeDraw>(
        &self,
        root: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        st: &ViewState,
        legend: bool,
    ) -> Result<charts::Frame, String>
    where
        DB::ErrorType: 'static,
    {
        let spec = self.rate_spec(st, legend);
        if self.strips_shown(st) {
            strips::draw_rate_strips(root, &spec, &self.strips)
        } else {
            charts::draw_rate(root, &spec)
        }
    }

    /// The rate chart's height: the overlaid chart's, or as many strips as the runtime's.
    pub(super) fn rate_height(&self, st: &ViewState) -> u32 {
        if self.strips_shown(st) {
            strips::rate_height(self.strips.len())
        } else {
            230
        }
    }

    /// The rate chart (IOPS or MB/s per window) on the runtime chart's x axis.
    pub(super) fn rate_spec<'a>(&'a self, st: &ViewState, legend: bool) -> RateSpec<'a> {
        let (title, y_desc) = match st.rate {
            RateMode::Iops => ("IOPS per window", "IOPS"),
            RateMode::Mbps => ("MB/s per window", "MB/s (10^6 B/s)"),
        };
        RateSpec {
            title,
            x_desc: x_desc(st),
            y_desc,
            x_is_time: !st.x_ios,
            lines: &self.rates,
            x: self.x,
            y: self.ry,
            selection: st.sel,
            note: self.rate_note.as_deref(),
            legend,
        }
    }
}

fn x_desc(st: &ViewState) -> &'static str {
    if st.x_ios {
        "I/Os completed"
    } else {
        "time since start"
    }
}

pub(super) fn runtime_extent(st: &ViewState, ts: &[Trace]) -> Option<(f64, f64)> {
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for t in ts {
        if let Some((a, b)) = trace_data(t.run, &t.dir).and_then(|td| td.extent(axis)) {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    (hi > lo).then_some((lo, hi))
}

/// About one point per two pixels of plot.
fn max_points(width_px: u32) -> usize {
    ((width_px.saturating_sub(charts::Y_LABEL_AREA + 30)) / 2).max(10) as usize
}

/// After the runtime chart is drawn: decode the next finer level of every shown trace's
/// compact form when the browser is idle, so that a zoom-in step finds its points ready
/// instead of inflating 20 runs' levels while the wheel turns. One level a trace: the
/// levels are read as the user goes, never all at once (a day's run holds 17 levels).
pub(super) fn read_ahead(st: &ViewState, width_px: u32) {
    let ts = traces(st);
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let Some(full) = runtime_extent(st, &ts) else { return };
    let (x0, x1) = st.zoom.unwrap_or(full);
    let todo: Vec<(std::rc::Rc<TraceData>, u32)> = ts
        .iter()
        .filter_map(|t| trace_data(t.run, &t.dir))
        .filter_map(|td| {
            let (k, _) = td.view_keys(axis, x0, x1, max_points(width_px));
            (k > 0).then_some((td, k - 1))
        })
        .collect();
    if !todo.is_empty() {
        leptos::prelude::request_idle_callback(move || {
            for (td, k) in &todo {
                td.read_ahead(*k);
            }
        });
    }
}

pub(super) fn runtime_data(st: &ViewState, width_px: u32) -> RuntimeData {
    let mut ts = traces(st);
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let full = runtime_extent(st, &ts).unwrap_or((0.0, 1.0));
    // strips: at most MAX_STRIPS runs drawn (the chosen ones), each on the whole runs' x axis
    let strip_pool = if st.strips { runs_of(&ts) } else { Vec::new() };
    if st.strips {
        let drawn = strip_runs(st, &strip_pool);
        ts.retain(|t| drawn.contains(&t.run));
    }
    let (x0, x1) = st.zoom.unwrap_or(full);
    let max_points = max_points(width_px);
    let mut lines = Vec::new();
    let mut rates = Vec::new();
    let mut missing_bs = false;
    let spec = qos::parsed(st).and_then(Result::ok);
    let focus = focus_of(st);
    // the levels computed: the one drawn alone, or those chosen
    let levels = match st.one {
        Some(Metric::Nines(k)) => vec![k],
        Some(_) => Vec::new(),
        None => st.levels.clone(),
    };
    let mut strips: Vec<Strip> = Vec::new();
    for t in &ts {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        // strips: the focus run's strip is marked, no run faint
        let faint = !st.strips && focus.is_some_and(|f| f != t.run);
        let (k, range) = td.view_keys(axis, x0, x1, max_points);
        let mut cache = td.points.borrow_mut();
        if cache.0 != levels {
            cache.1.clear();
            cache.0 = levels.clone();
        }
        for i in range.clone() {
            cache.1.get_or_insert_with(k as usize, i, || td.point(k, i, &levels));
        }
        // borrowed from the cache, not cloned: each point holds a list of levels
        let cached = &cache.1;
        let pts: Vec<&(SeriesPoint, u64)> = range.filter_map(|i| cached.get(k as usize, i).and_then(Option::as_ref)).collect();
        let xs: Vec<f64> = pts
            .iter()
            .map(|(p, before)| match axis {
                Axis::Time => p.start_s + p.length_s / 2.0,
                Axis::Ios => *before as f64 + p.count as f64 / 2.0,
            })
            .collect();
        let pts: Vec<&SeriesPoint> = pts.into_iter().map(|(p, _)| p).collect();
        let first_line = lines.len();
        let mut push = |metric: Metric, vals: Vec<Option<u64>>, thin: Vec<bool>| {
            if st.one.is_some_and(|m| m != metric) {
                return;
            }
            let limit = spec.as_ref().and_then(|s| qos::runtime_limit(s, &td.loaded.run, &t.dir, metric));
            let broken = match limit {
                Some(l) => vals.iter().map(|v| v.is_some_and(|v| l.broken_by(v as f64))).collect(),
                None => Vec::new(),
            };
            lines.push(RuntimeLine {
                trace: t.label.clone(),
                style: t.style,
                metric,
                points: xs.iter().zip(vals).map(|(&x, v)| (x, v.map(|v| v as f64))).collect(),
                thin,
                limit: limit.map(|l| l.value),
                broken,
                faint,
            });
        };
        push(Metric::Median, pts.iter().map(|p| p.p50_ns).collect(), Vec::new());
        for (i, k) in levels.iter().enumerate() {
            push(
                Metric::Nines(*k),
                pts.iter().map(|p| p.levels[i].0).collect(),
                pts.iter().map(|p| p.levels[i].1 == Support::Thin).collect(),
            );
        }
        push(Metric::Max, pts.iter().map(|p| p.max_ns).collect(), Vec::new());
        // a run's traces (its directions) share its strip
        let ours = first_line..lines.len();
        add_to_strip(&mut strips, t, &td.loaded.run.name, ours, rates.len(), focus == Some(t.run));
        let scale = match st.rate {
            RateMode::Iops => Some(1.0),
            RateMode::Mbps => td.bytes_per_io.map(|b| mb_per_s(1.0, b)),
        };
        // (a faint run's bands are not drawn)
        let steady = scale.filter(|_| !faint).map(|k| panels::steady_bands(td.steady(), st.x_ios, k)).unwrap_or_default();
        // a per-I/O import's partial last window has no rate ([`nines_core::run::Run::is_partial`])
        let run = &td.loaded.run;
        let rated = || xs.iter().zip(&pts).filter(|(_, p)| !run.is_partial_length(p.length_s));
        let rate: Vec<(f64, f64)> = match st.rate {
            RateMode::Iops => rated().map(|(&x, p)| (x, p.iops)).collect(),
            RateMode::Mbps => match td.bytes_per_io {
                Some(bpi) => rated().map(|(&x, p)| (x, mb_per_s(p.iops, bpi))).collect(),
                None => {
                    missing_bs = true;
                    Vec::new()
                }
            },
        };
        rates.push(RateLine { label: t.label.clone(), style: t.style, points: rate, steady, faint });
    }
    let (y, ry) = (panels::runtime_y(&lines), panels::rate_y(&rates));
    RuntimeData {
        focus,
        lines,
        rates,
        rate_note: missing_bs.then(|| "MB/s needs the block size, which this run's metadata does not give".to_string()),
        x: Scale { lo: x0, hi: x1, log: false },
        y,
        ry,
        strips,
        strip_pool,
    }
}

/// The lines `ours` (and rate line `rate`) of trace `t` join its run's strip (a run's
/// directions share one), or start the next strip.
fn add_to_strip(strips: &mut Vec<Strip>, t: &Trace, name: &str, ours: std::ops::Range<usize>, rate: usize, focus: bool) {
    let dir = (panels::dir_key(&t.dir), t.style);
    match strips.last_mut() {
        Some(strip) if strip.run == t.run => {
            strip.lines.extend(ours);
            strip.rates.push(rate);
            strip.dirs.push(dir);
        }
        _ => strips.push(Strip { run: t.run, label: name.to_string(), dirs: vec![dir], lines: ours.collect(), rates: vec![rate], focus }),
    }
}

pub(super) struct HistData {
    pub(super) traces: Vec<HistTrace>,
    pub(super) x: Scale,
    pub(super) y: Scale,
}

pub(super) fn hist_data(st: &ViewState, x: Scale) -> HistData {
    let mut out = Vec::new();
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let bins = match time_sel(st, &td) {
            Some((a, b)) => match td.merged(Some(a), Some(b)) {
                Some(h) => log_density(&h, BINS_PER_DECADE),
                None => continue,
            },
            None => td.density.clone(),
        };
        out.push(HistTrace { label: t.label, style: t.style, bins });
    }
    let y = panels::hist_y(&out);
    HistData { traces: out, x, y }
}
