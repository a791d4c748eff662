//! The charts, generic over plotters' `DrawingBackend`: the browser draws them on a canvas
//! (plotters-canvas), exports draw them on the SVG backend, and the unit tests draw them on the
//! SVG backend natively. They only lay out numbers that `nines-core` computed.
//!
//! Each draw function returns the [`Frame`] it used (plot rectangle in pixels and the data
//! ranges) so the page can map the mouse back to data coordinates.

use plotters::coord::Shift;

use crate::backend::{Backend, DashedLine, NativeDraw};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use nines_core::ccdf::{ccdf_steps, nines_ticks, CcdfPoint};
use nines_core::density::DensityBin;
use nines_core::units::format_ns;

/// Paul Tol's "muted" qualitative palette: distinguishable with the common colour-vision
/// deficiencies and on white. Combined with [`DASHES`] it gives 54 distinct styles.
pub const PALETTE: [RGBColor; 9] = [
    RGBColor(0x33, 0x22, 0x88),
    RGBColor(0x88, 0xCC, 0xEE),
    RGBColor(0x44, 0xAA, 0x99),
    RGBColor(0x11, 0x77, 0x33),
    RGBColor(0x99, 0x99, 0x33),
    RGBColor(0xDD, 0xCC, 0x77),
    RGBColor(0xCC, 0x66, 0x77),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0xAA, 0x44, 0x99),
];

/// Dash patterns (dash, gap) in pixels; `(0, 0)` is solid.
pub const DASHES: [(u32, u32); 6] = [(0, 0), (10, 4), (3, 3), (14, 4), (6, 6), (2, 6)];

/// How a trace (one run and direction) is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceStyle {
    pub color: RGBColor,
    pub dash: (u32, u32),
}

impl TraceStyle {
    /// The style of the `i`-th trace: colours first, then dash patterns.
    pub fn nth(i: usize) -> TraceStyle {
        TraceStyle { color: PALETTE[i % PALETTE.len()], dash: DASHES[(i / PALETTE.len()) % DASHES.len()] }
    }

    /// CSS colour, for the HTML legend.
    pub fn css(&self) -> String {
        let RGBColor(r, g, b) = self.color;
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    /// SVG `stroke-dasharray` value, for the HTML legend.
    pub fn dasharray(&self) -> String {
        if self.dash.0 == 0 {
            "none".into()
        } else {
            format!("{} {}", self.dash.0, self.dash.1)
        }
    }
}

/// A data axis: range and whether it is logarithmic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl Scale {
    pub(crate) fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).log10()
        } else {
            v
        }
    }
    fn inv(&self, t: f64) -> f64 {
        if self.log {
            10f64.powf(t)
        } else {
            t
        }
    }
    /// Position of `v` as a fraction of the axis (0 at `lo`).
    pub fn frac(&self, v: f64) -> f64 {
        (self.t(v) - self.t(self.lo)) / (self.t(self.hi) - self.t(self.lo))
    }
    /// The value at fraction `f` of the axis.
    pub fn at(&self, f: f64) -> f64 {
        self.inv(self.t(self.lo) + f * (self.t(self.hi) - self.t(self.lo)))
    }
}

/// Where a chart drew its data: the plot rectangle in pixels and the axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
    pub x: Scale,
    pub y: Scale,
}

impl Frame {
    /// Data x at pixel column `px` (clamped to the plot).
    pub fn x_at(&self, px: f64) -> f64 {
        self.x.at(((px - self.left as f64) / (self.right - self.left).max(1) as f64).clamp(0.0, 1.0))
    }
    /// Data y at pixel row `py` (clamped to the plot).
    pub fn y_at(&self, py: f64) -> f64 {
        self.y.at(((self.bottom as f64 - py) / (self.bottom - self.top).max(1) as f64).clamp(0.0, 1.0))
    }
    /// Pixel column of data x.
    pub fn px(&self, x: f64) -> f64 {
        self.left as f64 + self.x.frac(x) * (self.right - self.left) as f64
    }
    /// Is the pixel inside the plot rectangle?
    pub fn contains(&self, px: f64, py: f64) -> bool {
        px >= self.left as f64 && px <= self.right as f64 && py >= self.top as f64 && py <= self.bottom as f64
    }
}

/// Left label area shared by every chart, so that charts stacked on one page align their x axes.
pub const Y_LABEL_AREA: u32 = 92;
/// The charts' font (the family itself, not its name: plotters lowercases a name with the
/// Unicode tables, which the viewer's wasm would carry only for that).
pub(crate) const FONT: FontFamily<'static> = FontFamily::SansSerif;
pub(crate) const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
pub(crate) const GRID_STRONG: RGBColor = RGBColor(0xC8, 0xC8, 0xC8);
pub(crate) const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub(crate) const MUTED: RGBColor = RGBColor(0x66, 0x66, 0x66);

pub(crate) type DrawResult<T> = Result<T, String>;

pub(crate) fn e<E: std::fmt::Debug>(err: E) -> String {
    format!("{err:?}")
}

/// Cut a polyline to the rectangle of `x` and `y` (in the axes' own transforms, so log axes
/// clip correctly): plotters does not clip, and a zoomed view must not draw over the axes.
pub fn clip(points: &[(f64, f64)], x: &Scale, y: &Scale) -> Vec<Vec<(f64, f64)>> {
    let t: Vec<(f64, f64)> = points.iter().map(|&(a, b)| (x.t(a), y.t(b))).collect();
    clip_t(&t, x, y).into_iter().map(|part| part.into_iter().map(|(a, b)| (x.inv(a), y.inv(b))).collect()).collect()
}

/// [`clip`] of points given and returned on the axes' transformed values (log10 on a log
/// axis), as the charts are built: each point is transformed once.
fn clip_t(points: &[(f64, f64)], x: &Scale, y: &Scale) -> Vec<Vec<(f64, f64)>> {
    let (x0, x1) = (x.t(x.lo), x.t(x.hi));
    let (y0, y1) = (y.t(y.lo), y.t(y.hi));
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur: Vec<(f64, f64)> = Vec::new();
    for w in points.windows(2) {
        let (ax, ay, bx, by) = (w[0].0, w[0].1, w[1].0, w[1].1);
        // Liang-Barsky
        let (dx, dy) = (bx - ax, by - ay);
        let mut t0: f64 = 0.0;
        let mut t1: f64 = 1.0;
        let mut ok = true;
        for (p, q) in [(-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)] {
            if p == 0.0 {
                if q < 0.0 {
                    ok = false;
                    break;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if !ok || t0 > t1 {
            if cur.len() > 1 {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
            continue;
        }
        let a = (ax + t0 * dx, ay + t0 * dy);
        let b = (ax + t1 * dx, ay + t1 * dy);
        if cur.is_empty() || t0 > 0.0 {
            if cur.len() > 1 {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
            cur.push(a);
        }
        cur.push(b);
        if t1 < 1.0 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if cur.len() > 1 {
        out.push(cur);
    }
    if let [p] = points {
        let inside = |v: f64, lo: f64, hi: f64| (0.0..=1.0).contains(&((v - lo) / (hi - lo)));
        if inside(p.0, x0, x1) && inside(p.1, y0, y1) {
            out.push(vec![*p]);
        }
    }
    out
}

/// Latency ticks for a log axis: 1-2-5 steps for short ranges, decades otherwise.
pub fn latency_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let decades = (hi / lo).log10();
    let mults: &[f64] = if decades <= 1.2 {
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
    } else if decades <= 3.5 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut out = Vec::new();
    let mut d = 10f64.powf(lo.max(1.0).log10().floor());
    while d <= hi {
        for m in mults {
            let v = d * m;
            if v >= lo && v <= hi {
                out.push((v, format_ns(v.round() as u64)));
            }
        }
        d *= 10.0;
    }
    out
}

/// Ticks for a linear axis: about `target` round values.
pub fn linear_ticks(lo: f64, hi: f64, target: usize, fmt: impl Fn(f64) -> String) -> Vec<(f64, String)> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![(lo, fmt(lo))];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + step * 1e-9 {
        out.push((v, fmt(v)));
        v += step;
    }
    out
}

/// Seconds as an axis label: `90 s`, `2:30`, `1:02:00`.
pub fn format_seconds(s: f64) -> String {
    if s.abs() < 120.0 {
        let r = (s * 10.0).round() / 10.0;
        if (r - r.round()).abs() < 1e-9 {
            format!("{} s", r.round())
        } else {
            format!("{r:.1} s")
        }
    } else {
        let t = s.round() as i64;
        if t >= 3600 {
            format!("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
        } else {
            format!("{}:{:02}", t / 60, t % 60)
        }
    }
}

/// A count as an axis label: `500k`, `1.5M`.
pub fn format_count(v: f64) -> String {
    let a = v.abs();
    let (x, unit) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{unit}")
}

pub(crate) fn plot<'a, DB: NativeDraw + 'a>(
    root: &'a DrawingArea<DB, Shift>,
    title: &str,
    x: Scale,
    y: Scale,
    x_desc: &str,
    y_desc: &str,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>>
where
    DB::ErrorType: 'static,
{
    // Both axes are built linear over the transformed values (log10 for log axes), so one
    // code path maps every chart and the mouse.
    let mut chart = ChartBuilder::on(root)
        .margin_top(8)
        .margin_right(18)
        .margin_left(6)
        .margin_bottom(4)
        .caption(title, (FONT, 15).into_font().color(&INK))
        .x_label_area_size(44)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x.t(x.lo)..x.t(x.hi), y.t(y.lo)..y.t(y.hi))
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FONT, 13).into_font().color(&MUTED))
        .axis_style(MUTED)
        .draw()
        .map_err(e)?;
    Ok(chart)
}

pub(crate) type Chart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

pub(crate) fn frame_of<DB: NativeDraw>(chart: &Chart<'_, DB>, x: Scale, y: Scale) -> Frame {
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    Frame { left: xr.start, right: xr.end, top: yr.start, bottom: yr.end, x, y }
}

/// Gridlines and labels at the given ticks (values in data units).
pub(crate) fn ticks<DB: NativeDraw>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    xt: &[(f64, String)],
    yt: &[(f64, String)],
    strong_y: bool,
) -> DrawResult<()> {
    let label = (FONT, 12).into_font().color(&INK);
    for (v, s) in xt {
        let fx = f.x.frac(*v);
        if !(-1e-9..=1.0 + 1e-9).contains(&fx) {
            continue;
        }
        let px = f.left + (fx * (f.right - f.left) as f64).round() as i32;
        root.draw(&PathElement::new(vec![(px, f.top), (px, f.bottom)], GRID)).map_err(e)?;
        root.draw(&PathElement::new(vec![(px, f.bottom), (px, f.bottom + 5)], MUTED)).map_err(e)?;
        root.draw(&Text::new(s.clone(), (px, f.bottom + 8), label.clone().pos(Pos::new(HPos::Center, VPos::Top)))).map_err(e)?;
    }
    for (v, s) in yt {
        let fy = f.y.frac(*v);
        if !(-1e-9..=1.0 + 1e-9).contains(&fy) {
            continue;
        }
        let py = f.bottom - (fy * (f.bottom - f.top) as f64).round() as i32;
        root.draw(&PathElement::new(vec![(f.left, py), (f.right, py)], if strong_y { GRID_STRONG } else { GRID })).map_err(e)?;
        root.draw(&PathElement::new(vec![(f.left - 5, py), (f.left, py)], MUTED)).map_err(e)?;
        root.draw(&Text::new(s.clone(), (f.left - 8, py), label.clone().pos(Pos::new(HPos::Right, VPos::Center)))).map_err(e)?;
    }
    Ok(())
}

/// The width of a trace's line with `traces` traces drawn: 2 pixels while there are few, 1
/// with many. Overlaid, thin lines keep more runs apart, and they are what a browser draws
/// fast: Chromium's software rasteriser (Skia) draws a line of one pixel as a hairline but
/// turns a wider one into a filled outline, which for 20 runs of 700-point jagged levels took
/// some 50 ms of every zoom step.
pub(crate) fn line_width(traces: usize) -> u32 {
    if traces <= 4 {
        2
    } else {
        1
    }
}

pub(crate) fn stroke<DB: NativeDraw>(
    chart: &mut Chart<'_, DB>,
    x: &Scale,
    y: &Scale,
    points: &[(f64, f64)],
    color: RGBColor,
    dash: (u32, u32),
    width: u32,
) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    let style = color.stroke_width(width);
    let (xr, _) = chart.plotting_area().get_pixel_range();
    let t: Vec<(f64, f64)> = m4(points, x, f64::from(xr.end - xr.start)).into_iter().map(|(a, b)| (a, y.t(b))).collect();
    for pts in clip_t(&t, x, y) {
        if dash.0 == 0 {
            chart.draw_series(LineSeries::new(pts, style)).map_err(e)?;
        } else {
            chart.draw_series(std::iter::once(DashedLine { points: pts, dash, style })).map_err(e)?;
        }
    }
    Ok(())
}

/// Of consecutive points in one pixel column, keep the first, the lowest, the highest and the
/// last, in their order: the line through them lights the same pixels of that column, and
/// joins the next column at the same point, as the line through all of them (the M4
/// aggregation: Jugel et al., "M4: A Visualization-Oriented Time Series Data Aggregation",
/// VLDB 2014). A run's 1-CDF has a step per bucket, thousands of points in a few hundred
/// columns. Returns the points kept, x transformed ([`Scale::t`]) and y as given, on a plot
/// `width` pixels wide.
fn m4(points: &[(f64, f64)], x: &Scale, width: f64) -> Vec<(f64, f64)> {
    // the column as plotters maps a value to a pixel (`RangedCoordf64::map`)
    let (t0, t1) = (x.t(x.lo), x.t(x.hi));
    let mut out = Vec::new();
    // One pass, each x transformed once (a stair-step path repeats each x: transformed once
    // for both). The column being read, and its first, lowest, highest and last point (index,
    // x transformed).
    let (mut last_x, mut last_t) = (f64::NAN, 0.0);
    let mut col = f64::NAN;
    let mut run = [(0, 0.0); 4];
    for (i, p) in points.iter().enumerate() {
        // (NaN at first: unequal to any x)
        if p.0 != last_x {
            (last_x, last_t) = (p.0, x.t(p.0));
        }
        let c = ((last_t - t0) / (t1 - t0) * width + 1e-3).floor();
        if c == col {
            if p.1 < points[run[1].0].1 {
                run[1] = (i, last_t);
            }
            if p.1 > points[run[2].0].1 {
                run[2] = (i, last_t);
            }
            run[3] = (i, last_t);
            continue;
        }
        if i > 0 {
            m4_flush(&mut out, points, &run);
        }
        (col, run) = (c, [(i, last_t); 4]);
    }
    if !points.is_empty() {
        m4_flush(&mut out, points, &run);
    }
    out
}

/// A column's first, lowest, highest and last point, in their order, each once.
fn m4_flush(out: &mut Vec<(f64, f64)>, points: &[(f64, f64)], run: &[(usize, f64); 4]) {
    let [first, lo, hi, last] = *run;
    let (a, b) = if lo.0 <= hi.0 { (lo, hi) } else { (hi, lo) };
    let mut prev = usize::MAX;
    for (k, t) in [first, a, b, last] {
        if k != prev {
            out.push((t, points[k].1));
            prev = k;
        }
    }
}

/// Shade a selected x range across the plot.
pub(crate) fn shade_x<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, a: f64, b: f64, color: RGBAColor) -> DrawResult<()> {
    let pa = f.px(a.min(b)).clamp(f.left as f64, f.right as f64) as i32;
    let pb = f.px(a.max(b)).clamp(f.left as f64, f.right as f64) as i32;
    if pb > pa {
        root.draw(&Rectangle::new([(pa, f.top), (pb, f.bottom)], color.filled())).map_err(e)?;
    }
    Ok(())
}

pub(crate) fn empty_note<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, msg: &str) -> DrawResult<()> {
    let (cx, cy) = ((f.left + f.right) / 2, (f.top + f.bottom) / 2);
    root.draw(&Text::new(msg.to_string(), (cx, cy), (FONT, 14).into_font().color(&MUTED).pos(Pos::new(HPos::Center, VPos::Center))))
        .map_err(e)
}

/// A curve of the 1-CDF chart: one run and direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: String,
    pub style: TraceStyle,
    /// The 1-CDF (`nines_core::ccdf::ccdf`), drawn as its stair-step path ([`Curve::steps`]).
    pub ccdf: std::rc::Rc<Vec<CcdfPoint>>,
}

impl Curve {
    /// The stair-step path (latency ns, share slower): `nines_core::ccdf::ccdf_steps`.
    pub fn steps(&self) -> impl Iterator<Item = (f64, f64)> + Clone + '_ {
        ccdf_steps(&self.ccdf)
    }

    /// Where the curve starts: the lowest latency, at share 1.
    pub fn first(&self) -> Option<(f64, f64)> {
        self.ccdf.first().map(|p| (p.value_ns as f64, p.share))
    }

    /// Where the curve ends: the max, at the share of the top bucket (1/N for a lone max).
    pub fn last(&self) -> Option<(f64, f64)> {
        self.ccdf.last().map(|p| (p.value_ns as f64, p.share))
    }
}

/// What the 1-CDF chart shows.
#[derive(Clone, Debug)]
pub struct CdfSpec<'a> {
    pub title: &'a str,
    pub curves: &'a [Curve],
    pub x: Scale,
    pub y: Scale,
    /// Latency under the mouse: a vertical rule.
    pub hover_x: Option<f64>,
    /// A box being dragged, in data coordinates.
    pub drag_box: Option<((f64, f64), (f64, f64))>,
    /// Draw a legend inside the plot (exports; the page has an HTML legend).
    pub legend: bool,
    /// QoS spec envelopes the curves must stay under: corners (latency ns, share slower) from
    /// `nines_core::spec::envelope`, one staircase each.
    pub envelopes: &'a [Vec<(f64, f64)>],
}

/// The colour of a QoS spec's limits (Paul Tol's vibrant red).
pub const LIMIT: RGBColor = RGBColor(0xCC, 0x33, 0x11);

/// The staircase through an envelope's corners on the chart's scales: down from the top at
/// the first limit, across to the next, and at the last either on to the right edge or, for a
/// max (share 0, off a log axis), down to the bottom.
pub fn envelope_path(corners: &[(f64, f64)], x: &Scale, y: &Scale) -> Vec<(f64, f64)> {
    let mut pts = Vec::with_capacity(corners.len() * 2 + 1);
    let mut share = y.hi;
    for &(lx, s) in corners {
        pts.push((lx, share));
        share = if s > 0.0 { s } else { y.lo };
        pts.push((lx, share));
    }
    if corners.last().is_some_and(|c| c.1 > 0.0) {
        pts.push((x.hi, share));
    }
    pts
}

/// Draw the 1-CDF overlay: x latency (log), y share of I/Os slower (log), labelled in nines.
pub fn draw_cdf<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &CdfSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, "latency (log)", "share of I/Os slower than x (log)")?;
    let f = frame_of(&chart, s.x, s.y);
    // ticks at the share slower (10%, 1%, 0.1%, ...), each named by its level of nines inside
    // the plot's left edge (p90, p99, p99.9, ...), so the axis cannot be read backwards
    let nines = nines_ticks(9);
    let yt: Vec<(f64, String)> = nines.iter().map(|t| (t.share, share_label(t.nines))).collect();
    ticks(root, &f, &latency_ticks(s.x.lo, s.x.hi), &yt, true)?;
    let small = (FONT, 11).into_font().color(&MUTED).pos(Pos::new(HPos::Left, VPos::Bottom));
    for t in nines.iter().filter(|t| (0.0..=1.0).contains(&s.y.frac(t.share))) {
        let level = format!("p{}", t.label.trim_end_matches('%'));
        root.draw(&Text::new(level, (f.left + 4, py_of(&f, t.share) - 2), small.clone())).map_err(e)?;
    }
    if s.curves.is_empty() {
        empty_note(root, &f, "no runs shown")?;
    }
    let width = line_width(s.curves.len());
    // one buffer for every curve's steps (a page of 100 runs draws hundreds of thousands)
    let mut steps = Vec::new();
    for c in s.curves {
        steps.clear();
        steps.extend(c.steps());
        stroke(&mut chart, &s.x, &s.y, &steps, c.style.color, c.style.dash, width)?;
        // mark the end of the curve: the max, at 1/N of its I/Os
        if let Some((vx, vy)) = c.last() {
            if s.x.frac(vx) >= 0.0 && s.x.frac(vx) <= 1.0 && s.y.frac(vy) >= 0.0 && s.y.frac(vy) <= 1.0 {
                chart.draw_series(std::iter::once(Circle::new((s.x.t(vx), s.y.t(vy)), 3, c.style.color.filled()))).map_err(e)?;
            }
        }
    }
    for env in s.envelopes {
        stroke(&mut chart, &s.x, &s.y, &envelope_path(env, &s.x, &s.y), LIMIT, (6, 3), 2)?;
        let corners = env.iter().filter(|c| c.1 > 0.0 && (0.0..=1.0).contains(&s.x.frac(c.0)) && (0.0..=1.0).contains(&s.y.frac(c.1)));
        chart
            .draw_series(
                corners.map(|&(cx, cy)| EmptyElement::at((s.x.t(cx), s.y.t(cy))) + Rectangle::new([(-3, -3), (3, 3)], LIMIT.filled())),
            )
            .map_err(e)?;
    }
    if let Some(hx) = s.hover_x {
        let px = f.px(hx) as i32;
        root.draw(&PathElement::new(vec![(px, f.top), (px, f.bottom)], MUTED.stroke_width(1))).map_err(e)?;
    }
    if let Some(((x0, y0), (x1, y1))) = s.drag_box {
        let (a, b) = ((f.px(x0) as i32, py_of(&f, y0)), (f.px(x1) as i32, py_of(&f, y1)));
        root.draw(&Rectangle::new([a, b], RGBAColor(0x33, 0x66, 0xCC, 0.15).filled())).map_err(e)?;
        root.draw(&Rectangle::new([a, b], RGBColor(0x33, 0x66, 0xCC).stroke_width(1))).map_err(e)?;
    }
    if s.legend {
        legend(root, &f, s.curves.iter().map(|c| (c.label.as_str(), c.style)))?;
    }
    Ok(f)
}

/// The share slower at `k` nines as a percentage: 10%, 1%, 0.1%, 0.01%, ...
pub fn share_label(k: u32) -> String {
    match k {
        0 => "100%".into(),
        1 => "10%".into(),
        2 => "1%".into(),
        _ => format!("0.{}1%", "0".repeat(k as usize - 3)),
    }
}

pub(crate) fn py_of(f: &Frame, y: f64) -> i32 {
    (f.bottom as f64 - f.y.frac(y) * (f.bottom - f.top) as f64) as i32
}

pub(crate) fn legend<'a, DB: NativeDraw>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    items: impl Iterator<Item = (&'a str, TraceStyle)>,
) -> DrawResult<()> {
    legend_at(root, f, items, false)
}

/// A legend box in the plot's top right corner, or top left with `left`.
pub(crate) fn legend_at<'a, DB: NativeDraw>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    items: impl Iterator<Item = (&'a str, TraceStyle)>,
    left: bool,
) -> DrawResult<()> {
    let items: Vec<(&str, TraceStyle)> = items.collect();
    let shown = items.len().min(24);
    if shown == 0 {
        return Ok(());
    }
    let w = 230;
    let h = 18 * shown as i32 + 8;
    let (x0, y0) = (if left { f.left + 8 } else { f.right - w - 8 }, f.top + 8);
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], WHITE.mix(0.85).filled())).map_err(e)?;
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], GRID_STRONG)).map_err(e)?;
    for (i, (label, st)) in items.iter().take(shown).enumerate() {
        let y = y0 + 13 + 18 * i as i32;
        let pts = vec![(x0 + 8, y), (x0 + 40, y)];
        if st.dash.0 == 0 {
            root.draw(&PathElement::new(pts, st.color.stroke_width(2))).map_err(e)?;
        } else {
            root.draw(&plotters::element::DashedPathElement::new(pts, st.dash.0 as i32, st.dash.1 as i32, st.color.stroke_width(2)))
                .map_err(e)?;
        }
        let text: String =
            if label.chars().count() > 30 { label.chars().take(29).chain(std::iter::once('…')).collect() } else { label.to_string() };
        root.draw(&Text::new(text, (x0 + 48, y), (FONT, 12).into_font().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    }
    Ok(())
}

/// The runtime chart's dash pattern of each level, 1 to 9 nines: one its own (3 and 4 nines,
/// the default levels, dashed and dotted), named in the chart's key.
const LEVEL_DASHES: [(u32, u32); 9] = [(14, 4), (10, 4), (6, 6), (2, 6), (3, 3), (8, 3), (4, 8), (1, 3), (12, 8)];

/// A metric of the runtime chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Median,
    /// Level of k nines.
    Nines(u32),
    Max,
}

impl Metric {
    /// Line style of the metric: the median thin, levels dashed by their nines, the max dotted.
    pub fn dash(&self) -> (u32, u32) {
        match self {
            Metric::Median => (0, 0),
            Metric::Nines(k) => LEVEL_DASHES[(*k as usize).saturating_sub(1) % LEVEL_DASHES.len()],
            Metric::Max => (0, 0),
        }
    }
    pub fn label(&self) -> String {
        match self {
            Metric::Median => "median".into(),
            Metric::Nines(k) => format!("{} ({k} nines)", &nines_core::quantile::Level::nines(*k).label),
            Metric::Max => "max".into(),
        }
    }
}

/// The runtime chart's key of line styles, in the plot's top right (or `left`) corner: the median (thin
/// solid), each level drawn with its own dash pattern, and the max's squares (one a window,
/// not joined); faded where a level has under 100 I/Os beyond it.
pub(crate) fn metric_key<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, lines: &[RuntimeLine], left: bool) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    if let Some(m) = one_metric(lines) {
        return run_key(root, f, lines, m, left);
    }
    let metrics = metrics_of(lines.iter().filter(|l| !l.faint));
    if metrics.is_empty() {
        return Ok(());
    }
    let name = metric_name;
    let font = (FONT, 12).into_font();
    let style: TextStyle = font.clone().into();
    let w = metrics.iter().map(|m| root.estimate_text_size(&name(m), &style).map_or(90, |s| s.0 as i32)).max().unwrap_or(90) + 48;
    let (x0, y0) = (if left { f.left + 8 } else { f.right - w - 6 }, f.top + 6);
    let h = 8 + 16 * metrics.len() as i32;
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], RGBAColor(255, 255, 255, 0.85).filled())).map_err(e)?;
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], GRID.stroke_width(1))).map_err(e)?;
    for (i, m) in metrics.iter().enumerate() {
        let y = y0 + 12 + 16 * i as i32;
        let pts = vec![(x0 + 6, y), (x0 + 36, y)];
        match m {
            Metric::Max => root.draw(&Rectangle::new([(x0 + 19, y - 2), (x0 + 23, y + 2)], INK.filled())).map_err(e)?,
            Metric::Median => root.draw(&PathElement::new(pts, INK.stroke_width(1))).map_err(e)?,
            Metric::Nines(_) => {
                let (a, b) = m.dash();
                root.draw(&plotters::element::DashedPathElement::new(pts, a as i32, b as i32, INK.stroke_width(2))).map_err(e)?
            }
        }
        root.draw(&Text::new(name(m), (x0 + 42, y), font.clone().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    }
    Ok(())
}

/// The metrics `lines` draw, each once, in the order of the levels (median first, max last).
pub(crate) fn metrics_of<'a>(lines: impl Iterator<Item = &'a RuntimeLine>) -> Vec<Metric> {
    let mut metrics: Vec<Metric> = Vec::new();
    for l in lines {
        if !metrics.contains(&l.metric) {
            metrics.push(l.metric);
        }
    }
    let rank = |m: &Metric| match m {
        Metric::Median => 0,
        Metric::Nines(k) => *k,
        Metric::Max => 100,
    };
    metrics.sort_by_key(rank);
    metrics
}

/// The one metric every line of the chart draws, if they all draw the same: the runtime
/// chart's "one level, all runs" view (a normal view draws each run's median and max).
pub fn one_metric(lines: &[RuntimeLine]) -> Option<Metric> {
    let m = lines.first()?.metric;
    lines.iter().all(|l| l.metric == m).then_some(m)
}

/// A metric's name in the chart's keys.
pub(crate) fn metric_name(m: &Metric) -> String {
    match m {
        Metric::Median => "median".to_string(),
        Metric::Nines(k) => nines_core::quantile::Level::nines(*k).label,
        Metric::Max => "max (■ a window)".to_string(),
    }
}

/// The key of the "one level, all runs" view: which level (`p99.9 of each run`, in its dash),
/// then each trace in its colour and its direction's dash (at most 12 named, then how many
/// more); a run that is not the focus pale.
fn run_key<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, lines: &[RuntimeLine], m: Metric, left: bool) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    let head = match m {
        Metric::Max => "max of each run (■ a window)".to_string(),
        m => format!("{} of each run", metric_name(&m)),
    };
    let shown = lines.len().min(12);
    let more = (lines.len() > shown).then(|| format!("… and {} more", lines.len() - shown));
    let font = (FONT, 12).into_font();
    let style: TextStyle = font.clone().into();
    let width = |t: &str| root.estimate_text_size(t, &style).map_or(120, |s| s.0 as i32);
    let names = lines.iter().take(shown).map(|l| l.trace.as_str()).chain(more.as_deref());
    let w = names.map(|t| width(t) + 48).chain(std::iter::once(width(&head) + 14)).max().unwrap_or(160);
    let rows = shown + usize::from(more.is_some());
    let (x0, y0) = (if left { f.left + 8 } else { f.right - w - 6 }, f.top + 6);
    let h = 26 + 16 * rows as i32;
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], RGBAColor(255, 255, 255, 0.9).filled())).map_err(e)?;
    root.draw(&Rectangle::new([(x0, y0), (x0 + w, y0 + h)], GRID.stroke_width(1))).map_err(e)?;
    let bold = (FONT, 12).into_font().style(FontStyle::Bold);
    root.draw(&Text::new(head, (x0 + 7, y0 + 12), bold.color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    for (i, l) in lines.iter().take(shown).enumerate() {
        let y = y0 + 30 + 16 * i as i32;
        let pts = vec![(x0 + 6, y), (x0 + 36, y)];
        let c = if l.faint { faint(l.style.color) } else { l.style.color };
        match m {
            Metric::Max => root.draw(&Rectangle::new([(x0 + 18, y - 3), (x0 + 24, y + 3)], c.filled())).map_err(e)?,
            // a direction's dash (read solid, write dashed)
            _ if l.style.dash.0 > 0 => {
                let (a, b) = l.style.dash;
                root.draw(&plotters::element::DashedPathElement::new(pts, a as i32, b as i32, c.stroke_width(2))).map_err(e)?
            }
            _ => root.draw(&PathElement::new(pts, c.stroke_width(2))).map_err(e)?,
        }
        root.draw(&Text::new(l.trace.clone(), (x0 + 42, y), font.clone().color(&INK).pos(Pos::new(HPos::Left, VPos::Center))))
            .map_err(e)?;
    }
    if let Some(t) = more {
        let y = y0 + 30 + 16 * shown as i32;
        root.draw(&Text::new(t, (x0 + 42, y), font.color(&MUTED).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    }
    Ok(())
}

/// Why lines that have points draw none: no window holds enough I/Os for the level (a level
/// of k nines needs 10^k I/Os of a window to be measured at all).
pub(crate) fn unsupported<'a>(mut lines: impl Iterator<Item = &'a RuntimeLine>) -> Option<String> {
    let mut level = None;
    let none = lines.all(|l| {
        level = Some(l.metric);
        l.points.iter().all(|p| p.1.is_none())
    });
    match level.filter(|_| none)? {
        Metric::Nines(k) => Some(format!(
            "no window holds the {} I/Os {} needs",
            nines_core::units::group(10u64.saturating_pow(k)),
            nines_core::quantile::Level::nines(k).label
        )),
        _ => Some("no window holds an I/O".into()),
    }
}

/// One line of the runtime chart: a metric of one run and direction.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeLine {
    pub trace: String,
    pub style: TraceStyle,
    pub metric: Metric,
    /// (x, latency ns) per point, at window midpoints; `None` breaks the line (no support).
    pub points: Vec<(f64, Option<f64>)>,
    /// Per point: the level is thin (fewer than 100 I/Os beyond it in that window); drawn
    /// faded so that a trend carried by a handful of I/Os does not look like a measurement.
    pub thin: Vec<bool>,
    /// A QoS spec's limit on this metric (ns), drawn as a rule across the chart.
    pub limit: Option<f64>,
    /// Per point: its value breaks the limit (`nines_core::spec::Limit::broken_by`); ringed.
    pub broken: Vec<bool>,
    /// Not the focus run: drawn first, thin and pale, without its max squares and rings.
    pub faint: bool,
}

/// The colour of a run that is not the focus: paler than thin support, so the focus run's
/// faded segments still stand out from it.
pub fn faint(c: RGBColor) -> RGBColor {
    toward_white(c, 0.8)
}

/// `c` moved a share `k` of the way to white.
fn toward_white(c: RGBColor, k: f64) -> RGBColor {
    let f = |x: u8| (x as f64 + (255.0 - x as f64) * k).round() as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

/// A colour faded towards white (for thin support).
pub fn faded(c: RGBColor) -> RGBColor {
    toward_white(c, 0.62)
}

/// What the runtime QoS chart shows.
#[derive(Clone, Debug)]
pub struct RuntimeSpec<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub x_is_time: bool,
    pub lines: &'a [RuntimeLine],
    pub x: Scale,
    pub y: Scale,
    pub selection: Option<(f64, f64)>,
    pub legend: bool,
}

/// Ticks for a time axis in seconds: round seconds, then whole minutes and hours.
pub fn time_ticks(lo: f64, hi: f64, target: usize) -> Vec<(f64, String)> {
    let raw = (hi - lo) / target.max(1) as f64;
    if raw <= 30.0 {
        let mut t = linear_ticks(lo, hi, target, format_seconds);
        // below whole seconds, as many decimals as the step has (0.025 s steps read 0.025,
        // 0.05, 0.075, not 0 s, 0.1 s, 0.1 s)
        if let [(a, _), (b, _), ..] = t[..] {
            let step = b - a;
            if step < 1.0 && hi < 120.0 {
                let d = (0..=6).find(|&d| {
                    let x = step * 10f64.powi(d);
                    (x - x.round()).abs() < 1e-6 * x.max(1.0)
                });
                let d = d.unwrap_or(6) as usize;
                for (v, label) in &mut t {
                    *label = format!("{:.*} s", d, *v);
                }
            }
        }
        return t;
    }
    let step = [60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0, 86400.0]
        .into_iter()
        .find(|s| *s >= raw)
        .unwrap_or(86400.0 * (raw / 86400.0).ceil());
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + 1e-9 {
        out.push((v, format_seconds(v)));
        v += step;
    }
    out
}

pub(crate) fn x_ticks(x: &Scale, is_time: bool) -> Vec<(f64, String)> {
    if is_time {
        time_ticks(x.lo, x.hi, 8)
    } else {
        linear_ticks(x.lo, x.hi, 8, format_count)
    }
}

/// Draw runtime QoS: per window the median, the chosen levels and the max, log latency.
pub fn draw_runtime<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &RuntimeSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, s.x_desc, "latency (log)")?;
    let f = frame_of(&chart, s.x, s.y);
    if let Some((a, b)) = s.selection {
        shade_x(root, &f, a, b, RGBAColor(0xFF, 0xC8, 0x57, 0.25))?;
    }
    ticks(root, &f, &x_ticks(&s.x, s.x_is_time), &latency_ticks(s.y.lo, s.y.hi), false)?;
    if s.lines.is_empty() {
        empty_note(root, &f, "no runs shown")?;
    } else if let Some(note) = unsupported(s.lines.iter()) {
        empty_note(root, &f, &note)?;
    }
    // the traces drawn: each has one line per metric
    // distinct traces (a few lines each; collecting into a set would compile one more copy
    // of the standard sort)
    let traces = s.lines.iter().enumerate().filter(|(i, l)| !s.lines[..*i].iter().any(|m| m.trace == l.trace)).count();
    // one level of every run: one line a trace, drawn as wide as a few traces' levels
    let one = one_metric(s.lines);
    // (with a focus run, its one line drawn wide over the others' pale ones)
    let level_width = match one {
        Some(_) if s.lines.iter().any(|l| l.faint) => 2,
        Some(_) => line_width(traces / 2),
        None => line_width(traces),
    };
    let lines: Vec<&RuntimeLine> = s.lines.iter().collect();
    draw_lines(&mut chart, &s.x, &s.y, &lines, level_width)?;
    // the key top right, or left of an export's legend
    metric_key(root, &f, s.lines, s.legend)?;
    if s.legend {
        let items: Vec<(String, TraceStyle)> = s
            .lines
            .iter()
            .map(|l| (format!("{} {}", l.trace, l.metric.label()), TraceStyle { color: l.style.color, dash: l.metric.dash() }))
            .collect();
        legend(root, &f, items.iter().map(|(a, b)| (a.as_str(), *b)))?;
    }
    Ok(f)
}

/// The lines of the runtime chart on `chart`: those of runs that are not the focus first,
/// underneath it, pale and without their max squares; then each metric of the others (the
/// levels dashed, faded where thin, the max as squares); a spec's limits ruled, the points
/// beyond them ringed.
pub(crate) fn draw_lines<DB: NativeDraw>(
    chart: &mut Chart<'_, DB>,
    sx: &Scale,
    sy: &Scale,
    lines: &[&RuntimeLine],
    level_width: u32,
) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    // one metric of every run: a run by its colour, its directions by their dashes (the
    // trace's style: read solid, write dashed; the key names each)
    let one = lines.first().is_some_and(|a| lines.iter().all(|l| l.metric == a.metric));
    let dash = |l: &RuntimeLine| if one { l.style.dash } else { l.metric.dash() };
    // runs that are not the focus first, underneath it
    for l in lines.iter().copied().filter(|l| l.faint).chain(lines.iter().copied().filter(|l| !l.faint)) {
        if l.faint {
            if l.metric != Metric::Max {
                let pts: Vec<(f64, f64)> = l.points.iter().filter_map(|&(x, y)| y.map(|y| (x, y))).collect();
                stroke(chart, sx, sy, &pts, faint(l.style.color), dash(l), 1)?;
            }
            continue;
        }
        match l.metric {
            Metric::Max => {
                let color = l.style.color;
                let pts: Vec<(f64, f64)> = l
                    .points
                    .iter()
                    .filter_map(|&(x, y)| y.map(|y| (x, y)))
                    .filter(|&(x, y)| (0.0..=1.0).contains(&sx.frac(x)) && (0.0..=1.0).contains(&sy.frac(y)))
                    .map(|(x, y)| (sx.t(x), sy.t(y)))
                    .collect();
                // small filled squares: one fill per point, cheap on a canvas for 20 runs
                chart
                    .draw_series(pts.into_iter().map(|p| EmptyElement::at(p) + Rectangle::new([(-2, -2), (2, 2)], color.filled())))
                    .map_err(e)?;
            }
            m => {
                let width = if m == Metric::Median { 1 } else { level_width };
                // segments of equal support; a change of support shares its boundary point
                let mut run: Vec<(f64, f64)> = Vec::new();
                let mut run_thin = false;
                for (i, &(x, y)) in l.points.iter().enumerate() {
                    let thin = l.thin.get(i).copied().unwrap_or(false);
                    match y {
                        Some(y) => {
                            if !run.is_empty() && thin != run_thin {
                                let color = if run_thin { faded(l.style.color) } else { l.style.color };
                                stroke(chart, sx, sy, &run, color, dash(l), width)?;
                                let last = *run.last().unwrap();
                                run.clear();
                                run.push(last);
                            }
                            run_thin = thin;
                            run.push((x, y));
                        }
                        None => {
                            let color = if run_thin { faded(l.style.color) } else { l.style.color };
                            stroke(chart, sx, sy, &run, color, dash(l), width)?;
                            run.clear();
                        }
                    }
                }
                let color = if run_thin { faded(l.style.color) } else { l.style.color };
                stroke(chart, sx, sy, &run, color, dash(l), width)?;
            }
        }
    }
    // a spec's limits: a rule at each, a ring on every point beyond it
    for l in lines.iter().copied().filter(|l| !l.faint) {
        if let Some(v) = l.limit.filter(|v| (0.0..=1.0).contains(&sy.frac(*v))) {
            stroke(chart, sx, sy, &[(sx.lo, v), (sx.hi, v)], LIMIT, (6, 3), 1)?;
        }
        let rings = l.points.iter().zip(&l.broken).filter(|(_, b)| **b).filter_map(|(&(x, y), _)| Some((x, y?)));
        let rings = rings.filter(|&(x, y)| (0.0..=1.0).contains(&sx.frac(x)) && (0.0..=1.0).contains(&sy.frac(y)));
        chart.draw_series(rings.map(|(x, y)| Circle::new((sx.t(x), sy.t(y)), 5, LIMIT.stroke_width(2)))).map_err(e)?;
    }
    Ok(())
}

/// One line of the rate chart.
#[derive(Clone, Debug, PartialEq)]
pub struct RateLine {
    pub label: String,
    pub style: TraceStyle,
    /// (x at window midpoint, rate).
    pub points: Vec<(f64, f64)>,
    /// Steady-state bands `(x0, x1, lo, hi)` where nines-core finds the SNIA PTS rule holds.
    pub steady: Vec<(f64, f64, f64, f64)>,
    /// Not the focus run: drawn first and pale, without its steady-state bands.
    pub faint: bool,
}

/// What the IOPS / MB/s chart shows.
#[derive(Clone, Debug)]
pub struct RateSpec<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub x_is_time: bool,
    pub lines: &'a [RateLine],
    pub x: Scale,
    pub y: Scale,
    pub selection: Option<(f64, f64)>,
    pub note: Option<&'a str>,
    pub legend: bool,
}

/// Draw IOPS or MB/s per window on the runtime chart's x axis.
pub fn draw_rate<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &RateSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, s.x_desc, s.y_desc)?;
    let f = frame_of(&chart, s.x, s.y);
    if let Some((a, b)) = s.selection {
        shade_x(root, &f, a, b, RGBAColor(0xFF, 0xC8, 0x57, 0.25))?;
    }
    // bands of many runs overlap: keep their sum light
    let band_alpha = (0.16 / s.lines.len().max(1) as f64).max(0.025);
    for l in s.lines.iter().filter(|l| !l.faint) {
        for &(x0, x1, lo, hi) in &l.steady {
            let c = l.style.color;
            let (pa, pb) = (f.px(x0).clamp(f.left as f64, f.right as f64) as i32, f.px(x1).clamp(f.left as f64, f.right as f64) as i32);
            let (ya, yb) = (py_of(&f, hi.min(s.y.hi)), py_of(&f, lo.max(s.y.lo)));
            root.draw(&Rectangle::new([(pa, ya), (pb, yb)], RGBAColor(c.0, c.1, c.2, band_alpha).filled())).map_err(e)?;
        }
    }
    ticks(root, &f, &x_ticks(&s.x, s.x_is_time), &linear_ticks(s.y.lo, s.y.hi, 5, format_count), false)?;
    for l in s.lines.iter().filter(|l| l.faint) {
        stroke(&mut chart, &s.x, &s.y, &l.points, faint(l.style.color), l.style.dash, 1)?;
    }
    for l in s.lines.iter().filter(|l| !l.faint) {
        stroke(&mut chart, &s.x, &s.y, &l.points, l.style.color, l.style.dash, 1)?;
    }
    if let Some(n) = s.note {
        empty_note(root, &f, n)?;
    }
    if s.legend {
        legend(root, &f, s.lines.iter().map(|l| (l.label.as_str(), l.style)))?;
    }
    Ok(f)
}

/// One trace of the latency histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct HistTrace {
    pub label: String,
    pub style: TraceStyle,
    /// Log-spaced bins from `nines_core::density::log_density`.
    pub bins: Vec<DensityBin>,
}

/// What the latency histogram shows.
#[derive(Clone, Debug)]
pub struct HistSpec<'a> {
    pub title: &'a str,
    pub traces: &'a [HistTrace],
    /// Shared with the 1-CDF chart's x axis.
    pub x: Scale,
    pub y: Scale,
    pub legend: bool,
}

/// Draw the latency histogram: share of I/Os per decade of latency on log-log axes, as step
/// outlines (filled when there is one trace) so that modes and stair-steps show.
pub fn draw_hist<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &HistSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, "latency (log)", "share of I/Os per decade (log)")?;
    let f = frame_of(&chart, s.x, s.y);
    let mut yt = Vec::new();
    let mut d = 10f64.powf(s.y.lo.log10().ceil());
    while d <= s.y.hi * 1.000001 {
        yt.push((d, format!("{}", Sci(d))));
        d *= 10.0;
    }
    ticks(root, &f, &latency_ticks(s.x.lo, s.x.hi), &yt, false)?;
    if s.traces.is_empty() {
        empty_note(root, &f, "no runs shown")?;
    }
    for t in s.traces {
        let floor = s.y.lo;
        if s.traces.len() == 1 {
            let c = t.style.color;
            for b in t.bins.iter().filter(|b| b.count > 0) {
                let (x0, x1) = (b.lo_ns.max(s.x.lo), b.hi_ns.min(s.x.hi));
                if x1 <= x0 {
                    continue;
                }
                let top = b.density.min(s.y.hi);
                if top <= floor {
                    continue;
                }
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(s.x.t(x0), s.y.t(floor)), (s.x.t(x1), s.y.t(top))],
                        RGBAColor(c.0, c.1, c.2, 0.35).filled(),
                    )))
                    .map_err(e)?;
            }
        }
        let mut path = Vec::with_capacity(t.bins.len() * 2);
        for b in &t.bins {
            let y = if b.count == 0 { floor } else { b.density.max(floor) };
            path.push((b.lo_ns, y));
            path.push((b.hi_ns, y));
        }
        stroke(
            &mut chart,
            &s.x,
            &s.y,
            &path,
            t.style.color,
            t.style.dash,
            if s.traces.len() == 1 { 1 } else { line_width(s.traces.len()) },
        )?;
    }
    if s.legend {
        legend(root, &f, s.traces.iter().map(|t| (t.label.as_str(), t.style)))?;
    }
    Ok(f)
}

/// A power of ten as `1e-3`, `0.1`, `1`, `10`.
struct Sci(f64);

impl std::fmt::Display for Sci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = self.0.log10().round() as i32;
        match k {
            -1 => f.write_str("0.1"),
            0 => f.write_str("1"),
            1 => f.write_str("10"),
            _ => write!(f, "1e{k}"),
        }
    }
}

/// Draw a chart into an SVG string (exports, tests).
pub fn to_svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<Backend<'_>, Shift>) -> DrawResult<Frame>,
) -> DrawResult<(String, Frame)> {
    crate::backend::svg(width, height, draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::ccdf::ccdf;
    use nines_core::density::log_density;
    use nines_core::hist::{Hist, Layout};

    fn curve(i: usize, shift: u64) -> Curve {
        let h = Hist::from_values(Layout::default_ns(), (0..100_000u64).map(|v| 20_000 + shift + (v * v) / 50_000));
        Curve { label: format!("run {i} read"), style: TraceStyle::nth(i), ccdf: ccdf(&h).into() }
    }

    #[test]
    fn styles_are_distinct_for_fifty_traces() {
        let styles: Vec<TraceStyle> = (0..54).map(TraceStyle::nth).collect();
        for i in 0..styles.len() {
            for j in 0..i {
                assert_ne!(styles[i], styles[j], "{i} {j}");
            }
        }
        assert_eq!(TraceStyle::nth(0).css(), "#332288");
        assert_eq!(TraceStyle::nth(9).dasharray(), "10 4");
    }

    #[test]
    fn frame_maps_pixels_both_ways() {
        let f = Frame {
            left: 100,
            right: 1100,
            top: 10,
            bottom: 410,
            x: Scale { lo: 1e3, hi: 1e7, log: true },
            y: Scale { lo: 1e-6, hi: 1.0, log: true },
        };
        assert!((f.x_at(100.0) - 1e3).abs() < 1e-6);
        assert!((f.x_at(600.0) - 1e5).abs() < 1e-3);
        assert!((f.y_at(10.0) - 1.0).abs() < 1e-12);
        assert!((f.y_at(210.0) - 1e-3).abs() < 1e-12);
        assert!((f.px(1e5) - 600.0).abs() < 1e-9);
        assert!(f.contains(500.0, 200.0) && !f.contains(50.0, 200.0));
    }

    #[test]
    fn m4_keeps_each_columns_ends_and_extremes() {
        // a 1-CDF of thousands of steps, and a jagged line going both ways within columns
        let x = Scale { lo: 1e4, hi: 1e7, log: true };
        let col = |t: f64| ((t - 4.0) / 3.0 * 300.0 + 1e-3).floor() as i32;
        let jag: Vec<(f64, f64)> = (0..5_000).map(|i| (1e4 + i as f64 * 50.0, ((i * 7919) % 1000) as f64)).collect();
        for pts in [curve(0, 0).steps().collect::<Vec<_>>(), jag] {
            let kept = m4(&pts, &x, 300.0);
            assert!(kept.len() < pts.len() / 2, "{} of {}", kept.len(), pts.len());
            // a subsequence of the points, x transformed
            let mut it = pts.iter().map(|&(a, b)| (x.t(a), b));
            assert!(kept.iter().all(|k| it.any(|p| p == *k)));
            // per column: the same first and last point, lowest and highest y, at most 4 kept
            let cols = |v: &[(f64, f64)]| {
                let mut m: std::collections::BTreeMap<i32, Vec<(f64, f64)>> = Default::default();
                v.iter().for_each(|&p| m.entry(col(p.0)).or_default().push(p));
                m
            };
            let (all, few) = (cols(&pts.iter().map(|&(a, b)| (x.t(a), b)).collect::<Vec<_>>()), cols(&kept));
            assert_eq!(all.len(), few.len());
            for ((c, a), (_, k)) in all.iter().zip(&few) {
                assert!(k.len() <= 4, "column {c}: {k:?}");
                assert_eq!((a[0], a[a.len() - 1]), (k[0], k[k.len() - 1]), "column {c}");
                let ext = |v: &[(f64, f64)]| v.iter().fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p.1), h.max(p.1)));
                assert_eq!(ext(a), ext(k), "column {c}");
            }
        }
        assert!(m4(&[], &x, 300.0).is_empty());
        assert_eq!(m4(&[(1e5, 0.5)], &x, 300.0), vec![(5.0, 0.5)]);
    }

    #[test]
    fn clipping_cuts_at_the_border() {
        let x = Scale { lo: 0.0, hi: 10.0, log: false };
        let y = Scale { lo: 1.0, hi: 100.0, log: true };
        let parts = clip(&[(-5.0, 10.0), (5.0, 10.0), (5.0, 1000.0), (8.0, 1000.0), (8.0, 10.0), (9.0, 10.0)], &x, &y);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(parts[0][0], (0.0, 10.0));
        assert!((parts[0].last().unwrap().1 - 100.0).abs() < 1e-9);
        assert!((parts[1][0].1 - 100.0).abs() < 1e-9);
        assert_eq!(*parts[1].last().unwrap(), (9.0, 10.0));
        assert!(clip(&[(20.0, 10.0), (30.0, 10.0)], &x, &y).is_empty());
    }

    #[test]
    fn ticks_read_like_an_engineer_writes_them() {
        let t = latency_ticks(1e3, 1e7);
        let labels: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(labels, ["1.00us", "10.0us", "100us", "1.00ms", "10.0ms"]);
        assert_eq!(latency_ticks(2e4, 3e5).len(), 8, "{:?}", latency_ticks(2e4, 3e5));
        let lt = time_ticks(0.0, 3600.0, 8);
        assert_eq!(lt[1].1, "10:00");
        // a run of a fifth of a second: every label distinct, none rounded to another
        let short: Vec<String> = time_ticks(0.0, 0.2, 8).into_iter().map(|(_, l)| l).collect();
        assert_eq!(short, ["0.000 s", "0.025 s", "0.050 s", "0.075 s", "0.100 s", "0.125 s", "0.150 s", "0.175 s", "0.200 s"]);
        let half: Vec<String> = time_ticks(0.0, 3.0, 8).into_iter().map(|(_, l)| l).collect();
        assert_eq!(half, ["0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s", "2.5 s", "3.0 s"]);
        assert_eq!(time_ticks(0.0, 60.0, 8)[1].1, "10 s");
        assert_eq!(format_seconds(30.0), "30 s");
        assert_eq!(format_seconds(3725.0), "1:02:05");
        assert_eq!(format_count(1_500_000.0), "1.5M");
        assert_eq!(format_count(250.0), "250");
    }

    #[test]
    fn cdf_svg_has_nines_gridlines_curves_and_end_markers() {
        let curves: Vec<Curve> = (0..3).map(|i| curve(i, i as u64 * 5_000)).collect();
        let spec = CdfSpec {
            title: "1-CDF",
            curves: &curves,
            x: Scale { lo: 1e4, hi: 1e6, log: true },
            y: Scale { lo: 1e-6, hi: 1.0, log: true },
            hover_x: Some(5e4),
            drag_box: None,
            legend: true,
            envelopes: &[],
        };
        let (svg, f) = to_svg(900, 500, |root| draw_cdf(root, &spec)).unwrap();
        // ticks at the share slower, each named by its level of nines
        for label in ["10%", "\n1%", "0.1%", "0.0001%", "p90", "p99", "p99.9", "p99.9999", "run 2 read", "10.0us", "100us", "1.00ms"] {
            assert!(svg.contains(label), "missing {label}");
        }
        assert!(svg.contains("share of I/Os slower than x"));
        assert!(!svg.contains("90%") && !svg.contains("99%"), "a tick reads as a level, not a share");
        assert!(!svg.contains("0.00001%") && !svg.contains("p99.99999"), "a level below the axis is labelled");
        assert_eq!([share_label(1), share_label(2), share_label(3), share_label(7)], ["10%", "1%", "0.1%", "0.00001%"]);
        // each curve ends at 1/N: its end marker sits at y = 1e-5 (100,000 I/Os)
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(f.left as u32 >= Y_LABEL_AREA && f.right > f.left);
        let stroke_of = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        assert!(svg.contains(&stroke_of(PALETTE[2])), "third curve colour");
    }

    #[test]
    fn a_spec_envelope_is_a_staircase_through_its_corners() {
        let (x, y) = (Scale { lo: 1e4, hi: 1e8, log: true }, Scale { lo: 1e-6, hi: 1.6, log: true });
        // p99 <= 500us, p99.99 <= 1ms, max <= 50ms: down at each limit, across between them,
        // and down to the bottom at the max
        let corners = [(5e5, 0.01), (1e6, 1e-4), (5e7, 0.0)];
        assert_eq!(envelope_path(&corners, &x, &y), vec![(5e5, 1.6), (5e5, 0.01), (1e6, 0.01), (1e6, 1e-4), (5e7, 1e-4), (5e7, 1e-6)]);
        // without a max the last step runs to the right edge
        assert_eq!(envelope_path(&corners[..1], &x, &y), vec![(5e5, 1.6), (5e5, 0.01), (1e8, 0.01)]);
        assert!(envelope_path(&[], &x, &y).is_empty());
        let curves = [curve(0, 0)];
        let limit = |envelopes: &[Vec<(f64, f64)>]| {
            let spec = CdfSpec { title: "1-CDF", curves: &curves, x, y, hover_x: None, drag_box: None, legend: false, envelopes };
            to_svg(900, 500, |root| draw_cdf(root, &spec)).unwrap().0
        };
        let (with, without) = (limit(&[corners.to_vec()]), limit(&[]));
        let red = "#CC3311";
        assert!(!without.contains(red));
        // the staircase, and a square on each corner inside the plot (the max's is at share 0)
        assert!(with.matches(red).count() >= 3, "{}", with.matches(red).count());
        assert_eq!(with.matches("<rect").count() - without.matches("<rect").count(), 2);
    }

    #[test]
    fn a_focus_run_is_drawn_over_faint_others() {
        let line = |trace: &str, n: usize, metric: Metric, faint: bool| RuntimeLine {
            trace: trace.into(),
            style: TraceStyle::nth(n),
            metric,
            points: vec![(0.5, Some(2e5 * (n + 1) as f64)), (1.5, Some(3e5)), (2.5, Some(2.5e5))],
            thin: vec![],
            limit: Some(2.6e5),
            broken: vec![false, true, false],
            faint,
        };
        let lines = [
            line("focus read", 0, Metric::Nines(4), false),
            line("focus read", 0, Metric::Max, false),
            line("other read", 1, Metric::Nines(4), true),
            line("other read", 1, Metric::Max, true),
        ];
        let spec = RuntimeSpec {
            title: "runtime",
            x_desc: "time",
            x_is_time: true,
            lines: &lines,
            x: Scale { lo: 0.0, hi: 3.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: None,
            legend: false,
        };
        let svg = to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap().0;
        let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        let (strong, pale) = (hex(TraceStyle::nth(0).color), hex(faint(TraceStyle::nth(1).color)));
        // the other run is pale, never in its own colour, and drawn before (under) the focus
        assert!(!svg.contains(&hex(TraceStyle::nth(1).color)));
        let (at_pale, at_strong) = (svg.find(&pale).expect("no faint line"), svg.find(&strong).expect("no focus line"));
        assert!(at_pale < at_strong);
        // limit rings only for the focus run: one on each of its two lines, none on the other's
        assert_eq!(svg.matches("<circle").count(), 2);
        let rate = [RateLine {
            label: "other".into(),
            style: TraceStyle::nth(1),
            points: vec![(0.5, 10.0), (1.5, 12.0)],
            steady: vec![(0.0, 2.0, 9.0, 13.0)],
            faint: true,
        }];
        let rs = RateSpec {
            title: "IOPS",
            x_desc: "time",
            y_desc: "IOPS",
            x_is_time: true,
            lines: &rate,
            x: Scale { lo: 0.0, hi: 3.0, log: false },
            y: Scale { lo: 0.0, hi: 20.0, log: false },
            selection: None,
            note: None,
            legend: false,
        };
        let svg = to_svg(900, 300, |r| draw_rate(r, &rs)).unwrap().0;
        assert!(svg.contains(&pale) && !svg.contains(&hex(TraceStyle::nth(1).color)));
    }

    #[test]
    fn windows_beyond_a_limit_are_ringed_and_the_limit_ruled() {
        let line = |limit: Option<f64>, broken: Vec<bool>| RuntimeLine {
            trace: "a read".into(),
            style: TraceStyle::nth(0),
            metric: Metric::Nines(4),
            points: vec![(0.5, Some(2e5)), (1.5, Some(3e6)), (2.5, Some(2.5e5)), (3.5, Some(4e6))],
            thin: vec![],
            limit,
            broken,
            faint: false,
        };
        let draw = |l: RuntimeLine| {
            let lines = [l];
            let spec = RuntimeSpec {
                title: "runtime",
                x_desc: "time",
                x_is_time: true,
                lines: &lines,
                x: Scale { lo: 0.0, hi: 4.0, log: false },
                y: Scale { lo: 1e4, hi: 1e7, log: true },
                selection: None,
                legend: false,
            };
            to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap().0
        };
        let plain = draw(line(None, vec![]));
        let judged = draw(line(Some(1e6), vec![false, true, false, true]));
        assert!(!plain.contains("#CC3311") && plain.matches("<circle").count() == 0);
        assert_eq!(judged.matches("<circle").count(), 2, "one ring per window beyond the limit");
        assert!(judged.contains("#CC3311"));
    }

    #[test]
    fn the_runtime_key_names_each_level_by_its_own_dash_and_the_max_squares() {
        let line = |metric| RuntimeLine {
            trace: "a read".into(),
            style: TraceStyle::nth(0),
            metric,
            points: vec![(0.5, Some(2e5)), (1.5, Some(3e5))],
            thin: vec![],
            limit: None,
            broken: vec![],
            faint: false,
        };
        let lines: Vec<RuntimeLine> = [Metric::Max, Metric::Nines(4), Metric::Median, Metric::Nines(3)].into_iter().map(line).collect();
        let spec = RuntimeSpec {
            title: "runtime",
            x_desc: "time",
            x_is_time: true,
            lines: &lines,
            x: Scale { lo: 0.0, hi: 2.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: None,
            legend: false,
        };
        let (svg, _) = to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap();
        let texts: Vec<&str> = svg.split("<text").skip(1).filter_map(|t| Some(t.split('>').nth(1)?.split('<').next()?.trim())).collect();
        // in order of the levels, whatever order the lines come in
        let key: Vec<&str> = texts.iter().copied().filter(|t| ["median", "p99.9", "p99.99", "max (■ a window)"].contains(t)).collect();
        assert_eq!(key, ["median", "p99.9", "p99.99", "max (■ a window)"], "{texts:?}");
        // every level has a dash pattern of its own
        let dashes: Vec<(u32, u32)> = (1..=9).map(|k| Metric::Nines(k).dash()).collect();
        for i in 0..dashes.len() {
            assert!(dashes[i].0 > 0 && !dashes[..i].contains(&dashes[i]), "level {} repeats a pattern", i + 1);
        }
    }

    #[test]
    fn one_level_of_every_run_is_keyed_by_the_level_and_each_run_in_its_colour() {
        let runs = ["alpha all", "bravo all", "charlie all"];
        let lines: Vec<RuntimeLine> = runs
            .iter()
            .enumerate()
            .map(|(i, t)| RuntimeLine {
                trace: t.to_string(),
                style: TraceStyle::nth(i),
                metric: Metric::Nines(3),
                points: vec![(0.5, Some(2e5 * (i + 1) as f64)), (1.5, Some(3e5))],
                thin: vec![],
                limit: None,
                broken: vec![],
                faint: false,
            })
            .collect();
        assert_eq!(one_metric(&lines), Some(Metric::Nines(3)));
        let spec = RuntimeSpec {
            title: "runtime",
            x_desc: "time",
            x_is_time: true,
            lines: &lines,
            x: Scale { lo: 0.0, hi: 2.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: None,
            legend: false,
        };
        let (svg, _) = to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap();
        assert!(svg.contains("p99.9 of each run"));
        for (i, t) in runs.iter().enumerate() {
            assert!(svg.contains(t), "{t} not in the key");
            // one metric: solid lines, one polyline for the run and one in the key (a dashed
            // line is a polyline a dash)
            let RGBColor(r, g, b) = TraceStyle::nth(i).color;
            let c = format!("#{r:02X}{g:02X}{b:02X}");
            assert_eq!(svg.split("<polyline").skip(1).filter(|p| p.split("/>").next().is_some_and(|el| el.contains(&c))).count(), 2, "{t}");
        }
        assert_eq!(one_metric(&[]), None);
        // a level no window can measure says so, instead of an empty chart
        assert_eq!(unsupported(lines.iter()), None);
        let empty: Vec<RuntimeLine> =
            lines.iter().map(|l| RuntimeLine { metric: Metric::Nines(4), points: vec![(0.5, None)], ..l.clone() }).collect();
        assert_eq!(unsupported(empty.iter()).as_deref(), Some("no window holds the 10,000 I/Os p99.99 needs"));
        let spec = RuntimeSpec { lines: &empty, ..spec };
        assert!(to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap().0.contains("no window holds the 10,000 I/Os p99.99 needs"));
    }

    #[test]
    fn runtime_and_rate_and_hist_draw() {
        let lines = vec![
            RuntimeLine {
                trace: "a read".into(),
                style: TraceStyle::nth(0),
                metric: Metric::Nines(3),
                points: vec![(0.5, Some(2e5)), (1.5, None), (2.5, Some(3e5)), (3.5, Some(2.5e5))],
                thin: vec![false, false, false, true],
                limit: None,
                broken: vec![],
                faint: false,
            },
            RuntimeLine {
                trace: "a read".into(),
                style: TraceStyle::nth(0),
                metric: Metric::Max,
                points: vec![(0.5, Some(9e5)), (1.5, Some(1e6))],
                thin: vec![],
                limit: None,
                broken: vec![],
                faint: false,
            },
        ];
        let spec = RuntimeSpec {
            title: "runtime",
            x_desc: "time",
            x_is_time: true,
            lines: &lines,
            x: Scale { lo: 0.0, hi: 4.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: Some((1.0, 2.0)),
            legend: true,
        };
        let (svg, _) = to_svg(900, 300, |r| draw_runtime(r, &spec)).unwrap();
        let stroke_of = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        assert!(svg.contains("p99.9 (3 nines)"));
        // the thin last segment is drawn faded
        let RGBColor(r, g, b) = faded(TraceStyle::nth(0).color);
        assert!(svg.contains(&format!("#{r:02X}{g:02X}{b:02X}")), "no faded segment");
        // the level is dashed: plotters draws a dashed line as one short polyline a dash, so the
        // trace's colour strokes many more polylines than its solid runs would give (5)
        let ours = [stroke_of(TraceStyle::nth(0).color), stroke_of(faded(TraceStyle::nth(0).color))];
        let strokes = svg
            .split("<polyline")
            .skip(1)
            .filter(|p| ours.iter().any(|c| p.split("/>").next().is_some_and(|el| el.contains(c.as_str()))))
            .count();
        assert!(strokes >= 10, "{strokes} polylines in the trace's colours: the level is not dashed");
        let rl = vec![RateLine {
            label: "a read".into(),
            style: TraceStyle::nth(1),
            points: vec![(0.5, 1000.0), (1.5, 1100.0)],
            steady: vec![(0.0, 2.0, 950.0, 1150.0)],
            faint: false,
        }];
        let rs = RateSpec {
            title: "IOPS",
            x_desc: "time",
            y_desc: "IOPS",
            x_is_time: true,
            lines: &rl,
            x: Scale { lo: 0.0, hi: 4.0, log: false },
            y: Scale { lo: 0.0, hi: 1200.0, log: false },
            selection: None,
            note: None,
            legend: false,
        };
        let (svg, f2) = to_svg(900, 220, |r| draw_rate(r, &rs)).unwrap();
        // every tick of the y axis (0, 250, ..., 1k) is labelled
        let y_ticks = linear_ticks(0.0, 1200.0, 5, format_count);
        assert_eq!(y_ticks.len(), 5, "{y_ticks:?}");
        // the text nodes of the SVG, trimmed
        let texts: Vec<&str> = svg.split("<text").skip(1).filter_map(|t| Some(t.split_once('>')?.1.split('<').next()?.trim())).collect();
        for (_, label) in &y_ticks {
            assert!(texts.contains(&label.as_str()), "rate tick {label} missing from {texts:?}");
        }
        let h = Hist::from_values(Layout::default_ns(), (0..50_000u64).map(|v| if v % 10 == 0 { 900_000 + v } else { 80_000 + v % 977 }));
        let tr = vec![HistTrace { label: "a".into(), style: TraceStyle::nth(0), bins: log_density(&h, 40) }];
        let hs = HistSpec {
            title: "histogram",
            traces: &tr,
            x: Scale { lo: 1e4, hi: 1e7, log: true },
            y: Scale { lo: 1e-5, hi: 100.0, log: true },
            legend: false,
        };
        let (svg, f3) = to_svg(900, 260, |r| draw_hist(r, &hs)).unwrap();
        assert!(svg.contains("1e-3") && svg.contains("<rect"));
        // charts stacked on the page share the plot's left edge
        assert_eq!(f2.left, f3.left);
    }
}
