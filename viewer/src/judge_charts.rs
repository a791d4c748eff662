//! The charts that judge runs: the change of each candidate
//! against the baseline per level of nines, the sweep plot (a parameter such as fio's
//! numjobs against IOPS and latency) and the SNIA PTS steady-state convergence plot (PTS 2.0.2, 3.3). Like [`crate::charts`] they only lay out numbers
//! that nines-core computed (`compare`, `sweep_table`, `convergence`), on any plotters backend.

use crate::backend::NativeDraw;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use nines_core::compare::Verdict;
use nines_core::units::format_ns;

use crate::charts::{
    e, empty_note, faded, format_count, frame_of, latency_ticks, legend, legend_at, linear_ticks, plot, stroke, ticks, DrawResult, Frame,
    Scale, TraceStyle, FONT, GRID_STRONG, INK, MUTED,
};

// ---------------------------------------------------------------------------------------
// Change against the baseline

/// A measure of one candidate against the baseline, at `x` (a level, in nines).
#[derive(Clone, Debug, PartialEq)]
pub struct ChangePoint {
    pub x: f64,
    /// (candidate - baseline) / baseline, percent.
    pub pct: f64,
    /// The candidate's interval, relative to the baseline value, percent.
    pub interval: Option<(f64, f64)>,
    pub verdict: Verdict,
    /// Fewer than 100 I/Os beyond the level on a side (`nines stats` marks it `*`).
    pub thin: bool,
}

/// One candidate run and direction.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeSeries {
    pub label: String,
    pub style: TraceStyle,
    pub points: Vec<ChangePoint>,
}

/// What the change chart shows.
#[derive(Clone, Debug)]
pub struct ChangeSpec<'a> {
    pub title: &'a str,
    /// The levels on the x axis: position in nines and label (`p99.9`).
    pub levels: &'a [(f64, String)],
    /// The baseline's own interval per level relative to its value, percent: (x, lo, hi).
    /// One band per direction; where the candidate's whisker leaves it, the change is real.
    pub bands: &'a [Vec<(f64, f64, f64)>],
    pub series: &'a [ChangeSeries],
    pub x: Scale,
    pub y: Scale,
    pub legend: bool,
}

fn pct_label(v: f64) -> String {
    if v == 0.0 {
        "0%".into()
    } else {
        format!("{v:+.0}%")
    }
}

/// The colour of a thin level's `*` (the stats table's amber).
const THIN_MARK: RGBColor = RGBColor(0xB3, 0x6B, 0x00);

/// A change off the chart's scale: a triangle at the edge it left by, pointing on, and its
/// value beside it ("+3201%"), a `*` after it for a thin level.
fn off_scale<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, x: f64, p: &ChangePoint, color: RGBColor) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    let px = f.px(x) as i32;
    let up = p.pct > f.y.hi;
    let (tip, base) = if up { (f.top, f.top + 9) } else { (f.bottom, f.bottom - 9) };
    root.draw(&Polygon::new(vec![(px, tip), (px - 6, base), (px + 6, base)], color.filled())).map_err(e)?;
    let label = format!("{}{}", pct_label(p.pct), if p.thin { " *" } else { "" });
    let (y, v) = if up { (f.top + 11, VPos::Top) } else { (f.bottom - 11, VPos::Bottom) };
    let style = (FONT, 12).into_font().color(&INK).pos(Pos::new(HPos::Left, v));
    root.draw(&Text::new(label, (px + 8, y - if up { 10 } else { -10 }), style)).map_err(e)?;
    Ok(())
}

/// Draw each candidate's change per level of nines against the baseline (at 0%): the grey
/// band is the baseline's 95% interval (or its runs' band), whiskers the candidate's. A filled
/// marker is a change larger than both intervals allow; hollow is within the noise; a square
/// is a level with too few I/Os on a side to tell.
pub fn draw_change<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &ChangeSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, "level of nines", "latency change vs baseline")?;
    let f = frame_of(&chart, s.x, s.y);
    let clamp_y = |v: f64| v.clamp(s.y.lo, s.y.hi);
    for band in s.bands {
        if band.is_empty() {
            continue;
        }
        let mut poly: Vec<(f64, f64)> = band.iter().map(|&(x, _, hi)| (x, clamp_y(hi))).collect();
        poly.extend(band.iter().rev().map(|&(x, lo, _)| (x, clamp_y(lo))));
        chart.draw_series(std::iter::once(Polygon::new(poly, RGBAColor(0, 0, 0, 0.09).filled()))).map_err(e)?;
    }
    ticks(root, &f, s.levels, &linear_ticks(s.y.lo, s.y.hi, 6, pct_label), false)?;
    // no change
    let py0 = crate::charts::py_of(&f, 0.0);
    if py0 >= f.top && py0 <= f.bottom {
        root.draw(&PathElement::new(vec![(f.left, py0), (f.right, py0)], GRID_STRONG.stroke_width(2))).map_err(e)?;
    }
    if s.series.is_empty() {
        empty_note(root, &f, "mark a run as baseline and show another run to compare")?;
    }
    let n = s.series.len() as f64;
    // side by side at each level, so whiskers of several candidates do not cover each other
    let spread = if n > 1.0 { (0.5 / n).min(0.12) } else { 0.0 };
    for (i, c) in s.series.iter().enumerate() {
        let dx = (i as f64 - (n - 1.0) / 2.0) * spread;
        let line: Vec<(f64, f64)> = c.points.iter().map(|p| (p.x + dx, p.pct)).collect();
        stroke(&mut chart, &s.x, &s.y, &line, c.style.color, c.style.dash, 2)?;
        for p in &c.points {
            let x = p.x + dx;
            if let Some((lo, hi)) = p.interval {
                let (a, b) = (clamp_y(lo), clamp_y(hi));
                let px = f.px(x) as i32;
                let (ya, yb) = (crate::charts::py_of(&f, a), crate::charts::py_of(&f, b));
                let col = if p.verdict == Verdict::Unknown { faded(c.style.color) } else { c.style.color };
                root.draw(&PathElement::new(vec![(px, ya), (px, yb)], col.stroke_width(1))).map_err(e)?;
                for y in [ya, yb] {
                    root.draw(&PathElement::new(vec![(px - 3, y), (px + 3, y)], col.stroke_width(1))).map_err(e)?;
                }
            }
            if p.pct < s.y.lo || p.pct > s.y.hi {
                off_scale(root, &f, x, p, c.style.color)?;
                continue;
            }
            let at = (x, p.pct);
            if p.thin {
                let (px, py) = (f.px(x) as i32, crate::charts::py_of(&f, p.pct));
                let amber = (FONT, 15).into_font().color(&THIN_MARK).pos(Pos::new(HPos::Left, VPos::Bottom));
                root.draw(&Text::new("*", (px + 5, py - 1), amber)).map_err(e)?;
            }
            match p.verdict {
                Verdict::Better | Verdict::Worse => {
                    chart.draw_series(std::iter::once(Circle::new(at, 5, c.style.color.filled()))).map_err(e)?;
                }
                Verdict::Same => {
                    chart.draw_series(std::iter::once(Circle::new(at, 5, WHITE.filled()))).map_err(e)?;
                    chart.draw_series(std::iter::once(Circle::new(at, 5, c.style.color.stroke_width(2)))).map_err(e)?;
                }
                Verdict::Unknown => {
                    let (px, py) = (f.px(x) as i32, crate::charts::py_of(&f, p.pct));
                    root.draw(&Rectangle::new([(px - 4, py - 4), (px + 4, py + 4)], WHITE.filled())).map_err(e)?;
                    root.draw(&Rectangle::new([(px - 4, py - 4), (px + 4, py + 4)], faded(c.style.color).stroke_width(2))).map_err(e)?;
                }
            }
        }
    }
    // the key at the bottom, on a white backing: the top edge carries the off-scale marks
    let key = (FONT, 12).into_font();
    let text = "● real change   ○ within the intervals   □ too few I/Os to tell   * thin: under 100 I/Os beyond   ▲ off the scale   grey: baseline interval   below 0: faster";
    let (w, h) = root.estimate_text_size(text, &TextStyle::from(key.clone())).unwrap_or((700, 14));
    let (x0, y1) = (f.left + 6, f.bottom - 4);
    root.draw(&Rectangle::new([(x0, y1 - h as i32 - 4), (x0 + w as i32 + 6, y1)], RGBAColor(255, 255, 255, 0.85).filled())).map_err(e)?;
    root.draw(&Text::new(text, (x0 + 3, y1 - 2), key.color(&MUTED).pos(Pos::new(HPos::Left, VPos::Bottom)))).map_err(e)?;
    if s.legend {
        legend(root, &f, s.series.iter().map(|c| (c.label.as_str(), c.style)))?;
    }
    Ok(f)
}

// ---------------------------------------------------------------------------------------
// Sweep

/// One configuration (and side) of a sweep: a value per parameter value.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepLine {
    pub label: String,
    pub style: TraceStyle,
    /// (parameter value, value, thin): thin points are drawn hollow.
    pub points: Vec<(f64, Option<f64>, bool)>,
}

/// How a sweep panel's y values read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YUnit {
    /// A rate, from zero.
    Count,
    /// Latency in ns, log axis.
    Latency,
}

/// One measure of the sweep (IOPS, mean, p99, p99.99).
#[derive(Clone, Debug)]
pub struct SweepPanel {
    pub title: String,
    pub unit: YUnit,
    pub lines: Vec<SweepLine>,
}

/// What the sweep plot shows: a 2 x 2 grid of measures against the parameter (log x).
#[derive(Clone, Debug)]
pub struct SweepSpec<'a> {
    pub param: &'a str,
    pub panels: &'a [SweepPanel],
    pub legend: bool,
}

fn sweep_y(p: &SweepPanel) -> Scale {
    let vals: Vec<f64> = p.lines.iter().flat_map(|l| l.points.iter().filter_map(|q| q.1)).filter(|v| v.is_finite()).collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(0.0, f64::max);
    match p.unit {
        YUnit::Count => Scale { lo: 0.0, hi: if hi > 0.0 { hi * 1.15 } else { 1.0 }, log: false },
        YUnit::Latency if hi > 0.0 && lo.is_finite() => Scale { lo: (lo / 1.6).max(1.0), hi: hi * 1.6, log: true },
        YUnit::Latency => Scale { lo: 1e3, hi: 1e7, log: true },
    }
}

/// The x axis of a sweep: log over the parameter values, with a tick at each value.
pub fn sweep_x(values: &[f64]) -> (Scale, Vec<(f64, String)>) {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite() && *x > 0.0).collect();
    nines_core::sort::sort_by_f64(&mut v, |&x| x);
    v.dedup();
    let (lo, hi) = match (v.first(), v.last()) {
        (Some(&a), Some(&b)) if b > a => (a / 1.25, b * 1.25),
        (Some(&a), _) => (a / 2.0, a * 2.0),
        _ => (1.0, 10.0),
    };
    let labels = v.iter().map(|&x| (x, if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x}") })).collect();
    (Scale { lo, hi, log: true }, labels)
}

/// Draw the sweep: IOPS, mean, p99 and p99.99 against the parameter, one line per
/// configuration (the candidate dashed in its baseline's colour).
pub fn draw_sweep<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &SweepSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    if s.panels.is_empty() {
        let (x, xt) = sweep_x(&[]);
        let y = Scale { lo: 0.0, hi: 1.0, log: false };
        let chart = plot(root, "Sweep", x, y, s.param, "")?;
        let f = frame_of(&chart, x, y);
        ticks(root, &f, &xt, &[], false)?;
        empty_note(root, &f, "no sweep to show: choose a parameter the runs differ in")?;
        return Ok(f);
    }
    let xs: Vec<f64> = s.panels.iter().flat_map(|p| p.lines.iter().flat_map(|l| l.points.iter().map(|q| q.0))).collect();
    let (x, xt) = sweep_x(&xs);
    let areas = root.split_evenly((2, 2));
    let mut first = None;
    let x_desc = format!("{} (log)", s.param);
    for (area, p) in areas.iter().zip(s.panels) {
        let y = sweep_y(p);
        let y_desc = match p.unit {
            YUnit::Count => "",
            YUnit::Latency => "latency (log)",
        };
        let mut chart = plot(area, &p.title, x, y, &x_desc, y_desc)?;
        // the plot's pixels are the backend's; drawing on a sub-area is relative to its corner
        let fa = frame_of(&chart, x, y);
        let (ox, oy) = area.get_base_pixel();
        let f = Frame { left: fa.left - ox, right: fa.right - ox, top: fa.top - oy, bottom: fa.bottom - oy, ..fa };
        let yt = match p.unit {
            YUnit::Count => linear_ticks(y.lo, y.hi, 5, format_count),
            YUnit::Latency => latency_ticks(y.lo, y.hi),
        };
        ticks(area, &f, &xt, &yt, false)?;
        if p.lines.iter().all(|l| l.points.is_empty()) {
            empty_note(area, &f, "no runs")?;
        }
        for l in &p.lines {
            // a line per stretch of values (a missing level breaks it)
            let mut part: Vec<(f64, f64)> = Vec::new();
            for q in &l.points {
                match q.1 {
                    Some(v) => part.push((q.0, v)),
                    None => {
                        stroke(&mut chart, &x, &y, &part, l.style.color, l.style.dash, 2)?;
                        part.clear();
                    }
                }
            }
            stroke(&mut chart, &x, &y, &part, l.style.color, l.style.dash, 2)?;
            for q in &l.points {
                let Some(v) = q.1 else { continue };
                if y.frac(v) < 0.0 || y.frac(v) > 1.0 {
                    continue;
                }
                let at = (x.t(q.0), y.t(v));
                if q.2 {
                    chart.draw_series(std::iter::once(Circle::new(at, 4, WHITE.filled()))).map_err(e)?;
                    chart.draw_series(std::iter::once(Circle::new(at, 4, l.style.color.stroke_width(2)))).map_err(e)?;
                } else {
                    chart.draw_series(std::iter::once(Circle::new(at, 4, l.style.color.filled()))).map_err(e)?;
                }
            }
        }
        // every panel rises to the right with the parameter, mostly: the legend goes left, in
        // the first panel (the page) or in each (exports)
        if s.legend || first.is_none() {
            legend_at(area, &f, p.lines.iter().map(|l| (l.label.as_str(), l.style)), true)?;
        }
        first.get_or_insert(fa);
    }
    first.ok_or_else(|| "no sweep panels".to_string())
}

// ---------------------------------------------------------------------------------------
// Steady state

/// The SNIA PTS measurement window of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvWindow {
    /// First and last round of the window (round numbers, from 1).
    pub first: f64,
    pub last: f64,
    pub average: f64,
    /// The least-squares line's value at the first and the last round.
    pub fit: (f64, f64),
    /// Both PTS limits hold.
    pub holds: bool,
}

/// One run and direction: the tracked value per round.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvSeries {
    pub label: String,
    pub style: TraceStyle,
    /// (round number from 1, value); `None` where the round has no value.
    pub points: Vec<(f64, Option<f64>)>,
    pub window: Option<ConvWindow>,
    /// Round after which the PTS rule first held.
    pub first_steady: Option<f64>,
}

/// How the tracked value reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvUnit {
    Iops,
    Mbps,
    Latency,
}

impl ConvUnit {
    pub fn format(&self, v: f64) -> String {
        match self {
            ConvUnit::Iops => format_count(v),
            ConvUnit::Mbps => format!("{v:.1}"),
            ConvUnit::Latency => format_ns(v.max(0.0).round() as u64),
        }
    }
}

/// What the convergence plot shows.
#[derive(Clone, Debug)]
pub struct ConvSpec<'a> {
    pub title: &'a str,
    pub y_desc: &'a str,
    pub unit: ConvUnit,
    pub series: &'a [ConvSeries],
    pub x: Scale,
    pub y: Scale,
    pub legend: bool,
}

/// The y range of a convergence plot: the values and every window's limits.
pub fn conv_y(series: &[ConvSeries]) -> Scale {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for s in series {
        for v in s.points.iter().filter_map(|p| p.1) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if let Some(w) = &s.window {
            lo = lo.min(0.9 * w.average);
            hi = hi.max(1.1 * w.average);
        }
    }
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        let m = if hi.is_finite() { hi.abs().max(1.0) } else { 1.0 };
        return Scale { lo: 0.0, hi: 2.0 * m, log: false };
    }
    let pad = (hi - lo) * 0.12;
    // and a strip above the values and limits for the labels ("PTS first held after ...")
    Scale { lo: (lo - pad).max(0.0), hi: hi + pad + (hi - lo) * 0.2, log: false }
}

/// A label's box in pixels: left, top, right, bottom.
pub type LabelBox = (i32, i32, i32, i32);

/// A label to place: its size (width, height) and the top-left corners it may take, best first.
pub type LabelSpots = ((i32, i32), Vec<(i32, i32)>);

fn overlaps(a: &LabelBox, b: &LabelBox) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Place labels of size (w, h) without overlapping those placed before them: each at the
/// first of its candidate boxes' top-left corners that is free and inside `bounds`, or left
/// out (`None`). Returns each label's box.
pub fn place_labels(bounds: LabelBox, labels: &[LabelSpots]) -> Vec<Option<LabelBox>> {
    let mut placed: Vec<LabelBox> = Vec::new();
    labels
        .iter()
        .map(|&((w, h), ref at)| {
            let b = at.iter().map(|&(x, y)| (x, y, x + w, y + h)).find(|b| {
                b.0 >= bounds.0 && b.1 >= bounds.1 && b.2 <= bounds.2 && b.3 <= bounds.3 && !placed.iter().any(|p| overlaps(p, b))
            })?;
            placed.push(b);
            Some(b)
        })
        .collect()
}

/// The steady-state chart's labels, none over another: "PTS first held after round N" in the
/// strip at the top (`conv_y` leaves it free), then each limit's name just above its line at
/// the window's left edge, else just below it, on a white backing so the line under it does
/// not cross the text; the three names as one ("average ±10%") where the lines run too close.
fn conv_labels<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, c: &ConvSeries, py: &dyn Fn(f64) -> i32) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    let small = (FONT, 12).into_font();
    let style: TextStyle = small.clone().into();
    let size = |t: &str| root.estimate_text_size(t, &style).map(|(w, h)| (w as i32 + 4, h as i32 + 2)).unwrap_or((t.len() as i32 * 7, 16));
    let mut labels: Vec<(String, RGBColor, LabelSpots)> = Vec::new();
    if let Some(r) = c.first_steady.map(|r| (r, f.px(r) as i32)).filter(|r| r.1 >= f.left && r.1 <= f.right) {
        let t = format!("PTS first held after round {:.0}", r.0);
        let (w, h) = size(&t);
        labels.push((t, INK, ((w, h), vec![(r.1 + 4, f.top + 2), (r.1 - 4 - w, f.top + 2), (f.left + 4, f.top + 2)])));
    }
    if let Some(w) = &c.window {
        let pa = f.px(w.first - 0.5).max(f.left as f64) as i32;
        let (up, avg, down) = (py(w.average * 1.1), py(w.average), py(w.average * 0.9));
        let names: Vec<(&str, i32, RGBColor)> = if avg - up < 16 || down - avg < 16 {
            vec![("average ±10%", up, INK)]
        } else {
            vec![("average +10%", up, MUTED), ("average", avg, INK), ("average −10%", down, MUTED)]
        };
        for (t, y, col) in names {
            let (w, h) = size(t);
            labels.push((t.to_string(), col, ((w, h), vec![(pa + 2, y - 1 - h), (pa + 2, y + 2)])));
        }
    }
    let spots: Vec<LabelSpots> = labels.iter().map(|l| l.2.clone()).collect();
    for (l, b) in labels.iter().zip(place_labels((f.left, f.top, f.right, f.bottom), &spots)) {
        let Some(b) = b else { continue };
        root.draw(&Rectangle::new([(b.0, b.1), (b.2, b.3)], RGBAColor(255, 255, 255, 0.85).filled())).map_err(e)?;
        root.draw(&Text::new(l.0.clone(), (b.0 + 2, b.1 + 1), small.clone().color(&l.1).pos(Pos::new(HPos::Left, VPos::Top))))
            .map_err(e)?;
    }
    Ok(())
}

/// Draw the tracked value per round with, over the measurement window, its average, the
/// PTS range limit (average +- 10%, a range of 20%) and the least-squares line, shaded green
/// where the rule holds and red where it does not.
pub fn draw_convergence<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &ConvSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, "round", s.y_desc)?;
    let f = frame_of(&chart, s.x, s.y);
    let py = |v: f64| crate::charts::py_of(&f, v.clamp(s.y.lo, s.y.hi));
    for c in s.series {
        if let Some(w) = &c.window {
            let (pa, pb) = (f.px(w.first - 0.5).max(f.left as f64) as i32, f.px(w.last + 0.5).min(f.right as f64) as i32);
            let shade = if w.holds { RGBAColor(0x11, 0x77, 0x33, 0.08) } else { RGBAColor(0xCC, 0x33, 0x11, 0.08) };
            root.draw(&Rectangle::new([(pa, f.top), (pb, f.bottom)], shade.filled())).map_err(e)?;
        }
    }
    let round_fmt = |v: f64| if v.fract() == 0.0 { format!("{v:.0}") } else { String::new() };
    let xt: Vec<(f64, String)> = linear_ticks(s.x.lo.max(1.0), s.x.hi, 12, round_fmt).into_iter().filter(|t| !t.1.is_empty()).collect();
    let unit = s.unit;
    ticks(root, &f, &xt, &linear_ticks(s.y.lo, s.y.hi, 6, move |v| unit.format(v)), false)?;
    if s.series.is_empty() {
        empty_note(root, &f, "no run to check")?;
    }
    for c in s.series {
        if let Some(w) = &c.window {
            let (pa, pb) = (f.px(w.first - 0.5).max(f.left as f64) as i32, f.px(w.last + 0.5).min(f.right as f64) as i32);
            let avg = py(w.average);
            root.draw(&PathElement::new(vec![(pa, avg), (pb, avg)], INK.stroke_width(1))).map_err(e)?;
            for k in [1.1, 0.9] {
                let y = py(w.average * k);
                root.draw(&plotters::element::DashedPathElement::new(vec![(pa, y), (pb, y)], 6, 4, MUTED.stroke_width(1))).map_err(e)?;
            }
            // the fitted line, thick, in the series' colour
            let fit = vec![(f.px(w.first) as i32, py(w.fit.0)), (f.px(w.last) as i32, py(w.fit.1))];
            root.draw(&PathElement::new(fit, c.style.color.mix(0.55).stroke_width(4))).map_err(e)?;
        }
        if let Some(r) = c.first_steady {
            let px = f.px(r) as i32;
            if px >= f.left && px <= f.right {
                root.draw(&plotters::element::DashedPathElement::new(
                    vec![(px, f.top), (px, f.bottom)],
                    2,
                    4,
                    c.style.color.stroke_width(1),
                ))
                .map_err(e)?;
            }
        }
        let mut part: Vec<(f64, f64)> = Vec::new();
        for p in &c.points {
            match p.1 {
                Some(v) => part.push((p.0, v)),
                None => {
                    stroke(&mut chart, &s.x, &s.y, &part, c.style.color, c.style.dash, 1)?;
                    part.clear();
                }
            }
        }
        stroke(&mut chart, &s.x, &s.y, &part, c.style.color, c.style.dash, 1)?;
        // markers while they stay apart
        if c.points.len() <= 200 {
            for p in &c.points {
                if let Some(v) = p.1 {
                    if s.x.frac(p.0) >= 0.0 && s.x.frac(p.0) <= 1.0 && s.y.frac(v) >= 0.0 && s.y.frac(v) <= 1.0 {
                        chart.draw_series(std::iter::once(Circle::new((p.0, v), 3, c.style.color.filled()))).map_err(e)?;
                    }
                }
            }
        }
    }
    // labels last, over the lines
    for c in s.series {
        conv_labels(root, &f, c, &py)?;
    }
    if s.legend {
        // the measurement window is at the right: the legend goes left
        legend_at(root, &f, s.series.iter().map(|c| (c.label.as_str(), c.style)), true)?;
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::to_svg;

    #[test]
    fn change_chart_marks_verdicts() {
        let levels: Vec<(f64, String)> = vec![(0.301, "p50".into()), (2.0, "p99".into()), (4.0, "p99.99".into())];
        let series = vec![ChangeSeries {
            label: "cand read".into(),
            style: TraceStyle::nth(1),
            points: vec![
                ChangePoint { x: 0.301, pct: -30.0, interval: Some((-33.0, -27.0)), verdict: Verdict::Better, thin: false },
                ChangePoint { x: 2.0, pct: 2.0, interval: Some((-5.0, 9.0)), verdict: Verdict::Same, thin: false },
                ChangePoint { x: 3.0, pct: 60.0, interval: Some((40.0, 90.0)), verdict: Verdict::Worse, thin: true },
                ChangePoint { x: 4.0, pct: 3201.0, interval: None, verdict: Verdict::Unknown, thin: true },
            ],
        }];
        let bands = vec![vec![(0.301, -2.0, 2.0), (2.0, -6.0, 6.0), (4.0, -20.0, 40.0)]];
        let spec = ChangeSpec {
            title: "change",
            levels: &levels,
            bands: &bands,
            series: &series,
            x: Scale { lo: 0.0, hi: 4.5, log: false },
            y: Scale { lo: -40.0, hi: 100.0, log: false },
            legend: true,
        };
        let (svg, f) = to_svg(900, 320, |r| draw_change(r, &spec)).unwrap();
        assert!(svg.contains("p99.99") && svg.contains("+50%") && svg.contains("cand read"), "ticks and legend");
        assert!(svg.contains("<polygon"), "baseline band");
        assert!(svg.contains("<circle"), "markers");
        // the change off the top: a mark at the edge with its value, thin marked as nines stats does
        assert!(svg.contains("+3201% *"), "off-scale value");
        assert_eq!(svg.matches("<polygon").count(), 2, "baseline band and the off-scale mark");
        let stars = svg.split("<text").filter(|t| t.split('>').nth(1).is_some_and(|b| b.trim_start().starts_with('*'))).count();
        assert_eq!(stars, 1, "one thin level on the scale is starred");
        assert!(f.px(2.0) > f.px(0.301));
    }

    #[test]
    fn sweep_plot_has_four_panels_on_a_log_parameter_axis() {
        let line = |i: usize, k: f64| SweepLine {
            label: format!("config {i}"),
            style: TraceStyle::nth(i),
            points: vec![(1.0, Some(100.0 * k), false), (4.0, Some(350.0 * k), false), (16.0, None, false)],
        };
        let panels: Vec<SweepPanel> = ["IOPS", "mean", "p99", "p99.99"]
            .iter()
            .enumerate()
            .map(|(j, t)| SweepPanel {
                title: t.to_string(),
                unit: if j == 0 { YUnit::Count } else { YUnit::Latency },
                lines: vec![line(0, 1e3), line(1, 2e3)],
            })
            .collect();
        let (svg, _) = to_svg(1000, 600, |r| draw_sweep(r, &SweepSpec { param: "numjobs", panels: &panels, legend: true })).unwrap();
        for t in ["IOPS", "mean", "p99.99", "numjobs (log)", "16\n</text>"] {
            assert!(svg.contains(t), "{t} missing");
        }
        let (_, f) = to_svg(1000, 600, |r| draw_sweep(r, &SweepSpec { param: "qd", panels: &[], legend: false })).unwrap();
        assert!(f.right > f.left, "an empty sweep draws its note");
        let (x, ticks) = sweep_x(&[16.0, 1.0, 4.0, 4.0]);
        assert!(x.log && x.lo < 1.0 && x.hi > 16.0);
        assert_eq!(ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(), ["1", "4", "16"]);
    }

    #[test]
    fn convergence_plot_shows_the_window_and_its_limits() {
        let pts: Vec<(f64, Option<f64>)> = (1..=10).map(|r| (r as f64, Some(1000.0 + 20.0 * r as f64))).collect();
        let series = vec![ConvSeries {
            label: "run all".into(),
            style: TraceStyle::nth(0),
            points: pts,
            window: Some(ConvWindow { first: 6.0, last: 10.0, average: 1160.0, fit: (1120.0, 1200.0), holds: true }),
            first_steady: Some(5.0),
        }];
        let y = conv_y(&series);
        assert!(y.lo <= 0.9 * 1160.0 && y.hi >= 1.1 * 1160.0, "{y:?}");
        let spec = ConvSpec {
            title: "steady",
            y_desc: "IOPS",
            unit: ConvUnit::Iops,
            series: &series,
            x: Scale { lo: 0.5, hi: 10.5, log: false },
            y,
            legend: false,
        };
        let (svg, _) = to_svg(900, 320, |r| draw_convergence(r, &spec)).unwrap();
        for t in ["average +10%", "average", "PTS first held after round 5", "1.2k"] {
            assert!(svg.contains(t), "{t} missing");
        }
        // no label over another: the first-held label sits in the strip above the limits
        let bounds = (0, 0, 900, 320);
        let at =
            place_labels(bounds, &[((200, 16), vec![(300, 10)]), ((100, 16), vec![(290, 20), (290, 40)]), ((100, 16), vec![(290, 38)])]);
        assert_eq!(at, [Some((300, 10, 500, 26)), Some((290, 40, 390, 56)), None]);
        let texts: Vec<(i32, i32, usize)> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| {
                let num = |k: &str| t.split(&format!(" {k}=\"")).nth(1)?.split('"').next()?.parse::<f64>().ok();
                let body = t.split('>').nth(1)?.split('<').next()?.trim();
                if body.starts_with("average") || body.starts_with("PTS") {
                    Some((num("x")? as i32, num("y")? as i32, body.chars().count()))
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(texts.len(), 4, "{texts:?}");
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                let (ra, rb) = ((a.0, a.1, a.0 + a.2 as i32 * 6, a.1 + 13), (b.0, b.1, b.0 + b.2 as i32 * 6, b.1 + 13));
                assert!(!overlaps(&ra, &rb), "labels overlap: {a:?} {b:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Trend across runs

/// One run on the trend chart: its position, the level's value and 95% interval (ns), and
/// its change against the run it is compared with (`nines_core::trend::points`).
#[derive(Clone, Debug, PartialEq)]
pub struct TrendMark {
    pub x: f64,
    pub value: f64,
    pub interval: Option<(f64, f64)>,
    pub verdict: Option<Verdict>,
    /// The pinned baseline.
    pub baseline: bool,
}

/// What the trend chart shows.
#[derive(Clone, Debug)]
pub struct TrendSpec<'a> {
    pub title: &'a str,
    pub y_desc: &'a str,
    pub marks: &'a [TrendMark],
    pub x: Scale,
    pub y: Scale,
    /// Each run's name on the x axis, in its order ([`trend_labels`]): a tick is a run.
    pub x_names: &'a [String],
    /// What orders the runs on x (`runs in start order`).
    pub x_desc: &'a str,
}

/// The runs of a trend named on its x axis: each run's start date, or its time of day when
/// every run started on one day, or (a run that states no start) its name.
pub fn trend_labels<'n>(runs: impl Iterator<Item = (Option<f64>, &'n str)>) -> Vec<String> {
    let runs: Vec<(Option<String>, &str)> = runs.map(|(t, name)| (t.map(nines_core::units::iso_date), name)).collect();
    let mut days = runs.iter().filter_map(|(d, _)| Some(&d.as_ref()?[..10]));
    let first = days.next();
    let one_day = days.all(|d| Some(d) == first);
    runs.iter()
        .map(|(d, name)| match d {
            Some(d) if one_day => d[11..16].to_string(),
            Some(d) => d[..10].to_string(),
            None if name.chars().count() > 14 => format!("{}…", name.chars().take(13).collect::<String>()),
            None => name.to_string(),
        })
        .collect()
}

/// At most about `target` of `n` runs to name on an axis: every 1st, 2nd, 5th, 10th, ... run
/// from the first, so a tick always falls on a run (never between two).
fn run_ticks(n: usize, target: usize) -> impl Iterator<Item = usize> {
    let raw = n.div_ceil(target.max(1)).max(1);
    let step = (0..).flat_map(|k| [1, 2, 5].map(|m| m * 10usize.pow(k))).find(|&s| s >= raw).unwrap_or(raw);
    (0..n).step_by(step)
}

/// Colour of a change's verdict: worse red, better green, within noise blue, unknown grey.
pub fn verdict_color(v: Option<Verdict>) -> RGBColor {
    match v {
        Some(Verdict::Worse) => RGBColor(0xCC, 0x33, 0x11),
        Some(Verdict::Better) => RGBColor(0x22, 0x88, 0x33),
        Some(Verdict::Same) | None => RGBColor(0x33, 0x66, 0xCC),
        Some(Verdict::Unknown) => MUTED,
    }
}

/// Draw a level across runs: a whisker for each run's interval, a dot for its value (filled
/// red where it is worse than the run before beyond noise, green where better, hollow where
/// too few I/Os tell), the baseline ringed, and the values joined in run order.
pub fn draw_trend<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &TrendSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let mut chart = plot(root, s.title, s.x, s.y, s.x_desc, s.y_desc)?;
    let f = frame_of(&chart, s.x, s.y);
    let x_ticks: Vec<(f64, String)> = run_ticks(s.x_names.len(), 8).map(|i| (i as f64, s.x_names[i].clone())).collect();
    ticks(root, &f, &x_ticks, &latency_ticks(s.y.lo, s.y.hi), false)?;
    if s.marks.is_empty() {
        empty_note(root, &f, "no run has this level")?;
        return Ok(f);
    }
    let clamp = |v: f64| v.clamp(s.y.lo, s.y.hi);
    let line: Vec<(f64, f64)> = s.marks.iter().map(|m| (m.x, m.value)).collect();
    stroke(&mut chart, &s.x, &s.y, &line, RGBColor(0xBB, 0xBB, 0xBB), (0, 0), 1)?;
    chart
        .draw_series(s.marks.iter().filter_map(|m| {
            let (lo, hi) = m.interval?;
            Some(PathElement::new(vec![(s.x.t(m.x), s.y.t(clamp(lo))), (s.x.t(m.x), s.y.t(clamp(hi)))], verdict_color(m.verdict).mix(0.5)))
        }))
        .map_err(e)?;
    // one call per style: a thousand runs stay a handful of canvas paths
    for filled in [true, false] {
        let dots = s.marks.iter().filter(|m| (m.verdict != Some(Verdict::Unknown)) == filled);
        chart
            .draw_series(dots.map(|m| {
                let c = verdict_color(m.verdict);
                Circle::new((s.x.t(m.x), s.y.t(clamp(m.value))), 3, if filled { c.filled() } else { c.stroke_width(1) })
            }))
            .map_err(e)?;
    }
    chart
        .draw_series(
            s.marks.iter().filter(|m| m.baseline).map(|m| Circle::new((s.x.t(m.x), s.y.t(clamp(m.value))), 7, INK.stroke_width(2))),
        )
        .map_err(e)?;
    Ok(f)
}

#[cfg(test)]
mod trend_tests {
    use super::*;
    use crate::charts::to_svg;

    #[test]
    fn a_trend_names_its_runs_by_date_time_of_day_or_name_a_tick_a_run() {
        let day = 1_764_547_200.0; // 2025-12-01T00:00:00Z
        let names =
            trend_labels([(Some(day + 3_600.0), "a"), (Some(day + 86_400.0 + 60.0), "b"), (None, "a run without a start")].into_iter());
        assert_eq!(names, ["2025-12-01", "2025-12-02", "a run without…"]);
        let names = trend_labels([(Some(day + 3_600.0), "a"), (Some(day + 7_260.0), "b")].into_iter());
        assert_eq!(names, ["01:00", "02:01"]);
        assert_eq!(run_ticks(3, 8).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(run_ticks(30, 8).collect::<Vec<_>>(), [0, 5, 10, 15, 20, 25]);
        assert_eq!(run_ticks(1000, 8).collect::<Vec<_>>(), [0, 200, 400, 600, 800]);
        assert_eq!(run_ticks(0, 8).count(), 0);
    }

    #[test]
    fn worse_runs_are_red_better_green_and_the_baseline_ringed() {
        let m = |x: f64, value: f64, verdict: Option<Verdict>| TrendMark {
            x,
            value,
            interval: Some((value * 0.9, value * 1.1)),
            verdict,
            baseline: x == 0.0,
        };
        let marks = [
            m(0.0, 1e5, None),
            m(1.0, 1.02e5, Some(Verdict::Same)),
            m(2.0, 3e5, Some(Verdict::Worse)),
            m(3.0, 1e5, Some(Verdict::Better)),
            m(4.0, 1e5, Some(Verdict::Unknown)),
        ];
        let spec = TrendSpec {
            title: "p99.99 of read",
            y_desc: "p99.99",
            marks: &marks,
            x: Scale { lo: -0.5, hi: 4.5, log: false },
            y: Scale { lo: 5e4, hi: 1e6, log: true },
            x_names: &["12-01", "12-02", "12-03", "12-04", "12-05"].map(String::from),
            x_desc: "runs in start order",
        };
        let (svg, _) = to_svg(800, 300, |r| draw_trend(r, &spec)).unwrap();
        let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        // five dots and the baseline's ring
        assert_eq!(svg.matches("<circle").count(), 6);
        for v in [Some(Verdict::Worse), Some(Verdict::Better), Some(Verdict::Same), Some(Verdict::Unknown)] {
            assert!(svg.contains(&hex(verdict_color(v))), "{v:?}");
        }
        assert!(svg.contains("p99.99 of read"));
        let none = to_svg(800, 300, |r| draw_trend(r, &TrendSpec { marks: &[], ..spec.clone() })).unwrap().0;
        assert!(none.contains("no run has this level"));
    }
}

// ---------------------------------------------------------------------------------------
// Latency curve

/// One point of a latency curve: a run's achieved IOPS, its level and the level's 95%
/// interval (a bound `None` where the run has too few I/Os for it).
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePt {
    pub iops: f64,
    pub value: f64,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// Fewer than 100 I/Os beyond the level: drawn hollow.
    pub thin: bool,
}

/// One level of one set of runs (`p99.99 · baseline`).
#[derive(Clone, Debug, PartialEq)]
pub struct CurveLine {
    pub label: String,
    pub style: TraceStyle,
    /// By increasing load.
    pub points: Vec<CurvePt>,
}

/// What the curve chart shows.
#[derive(Clone, Debug)]
pub struct CurveSpec<'a> {
    pub title: &'a str,
    pub lines: &'a [CurveLine],
    /// An upper limit on latency (ns) drawn across, with its text.
    pub limit: Option<(f64, &'a str)>,
    /// The answer of a search for the highest load under the limit: (IOPS, latency) ringed.
    pub found: Option<(f64, f64)>,
    pub x: Scale,
    pub y: Scale,
    pub legend: bool,
}

/// The axes of a curve chart: achieved IOPS (from 0, or log) and latency (log) over every
/// point, interval and the limit.
pub fn curve_scales(lines: &[CurveLine], limit: Option<f64>, log_x: bool) -> (Scale, Scale) {
    let pts = || lines.iter().flat_map(|l| &l.points);
    let xs: Vec<f64> = pts().map(|p| p.iops).filter(|v| v.is_finite() && *v > 0.0).collect();
    let ys: Vec<f64> =
        pts().flat_map(|p| [Some(p.value), p.lower, p.upper]).flatten().chain(limit).filter(|v| v.is_finite() && *v > 0.0).collect();
    let (xlo, xhi) = (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(0.0, f64::max));
    let x = match (log_x, xhi > 0.0) {
        (_, false) => Scale { lo: 0.0, hi: 1.0, log: false },
        (false, true) => Scale { lo: 0.0, hi: xhi * 1.08, log: false },
        (true, true) => Scale { lo: xlo / 1.3, hi: xhi * 1.3, log: true },
    };
    let (ylo, yhi) = (ys.iter().copied().fold(f64::INFINITY, f64::min), ys.iter().copied().fold(0.0, f64::max));
    let y = if yhi > 0.0 { Scale { lo: (ylo / 1.6).max(1.0), hi: yhi * 1.6, log: true } } else { Scale { lo: 1e3, hi: 1e7, log: true } };
    (x, y)
}

/// Log ticks at 1, 2 and 5 of each decade for a rate axis.
fn log_count_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    let mut d = 10f64.powf(lo.max(1e-9).log10().floor());
    while d <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = d * m;
            if v >= lo && v <= hi {
                out.push((v, format_count(v)));
            }
        }
        d *= 10.0;
    }
    out
}

/// Draw the latency curve: each level of each set of runs against the achieved IOPS, a
/// whisker per run for its 95% interval (open-ended, to the plot's edge, where a bound is
/// missing), hollow markers for thin levels, the limit across and the answer ringed.
pub fn draw_curve<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &CurveSpec) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let x_desc = if s.x.log { "achieved IOPS (log)" } else { "achieved IOPS" };
    let mut chart = plot(root, s.title, s.x, s.y, x_desc, "latency (log)")?;
    let f = frame_of(&chart, s.x, s.y);
    let xt = if s.x.log { log_count_ticks(s.x.lo, s.x.hi) } else { linear_ticks(s.x.lo, s.x.hi, 8, format_count) };
    ticks(root, &f, &xt, &latency_ticks(s.y.lo, s.y.hi), false)?;
    if s.lines.iter().all(|l| l.points.is_empty()) {
        empty_note(root, &f, "no run of a curve to show")?;
        return Ok(f);
    }
    if let Some((v, text)) = s.limit {
        if s.y.frac(v) >= 0.0 && s.y.frac(v) <= 1.0 {
            let py = crate::charts::py_of(&f, v);
            root.draw(&plotters::element::DashedPathElement::new(
                vec![(f.left, py), (f.right, py)],
                8,
                4,
                crate::charts::LIMIT.stroke_width(2),
            ))
            .map_err(e)?;
            root.draw(&Text::new(
                text.to_string(),
                (f.right - 6, py - 3),
                (FONT, 12).into_font().color(&crate::charts::LIMIT).pos(Pos::new(HPos::Right, VPos::Bottom)),
            ))
            .map_err(e)?;
        }
    }
    let inside_x = |v: f64| (0.0..=1.0).contains(&s.x.frac(v));
    for l in s.lines {
        let line: Vec<(f64, f64)> = l.points.iter().map(|p| (p.iops, p.value)).collect();
        stroke(&mut chart, &s.x, &s.y, &line, l.style.color, l.style.dash, 2)?;
        for p in l.points.iter().filter(|p| inside_x(p.iops)) {
            let px = f.px(p.iops) as i32;
            let (a, b) = (p.lower.unwrap_or(s.y.lo).clamp(s.y.lo, s.y.hi), p.upper.unwrap_or(s.y.hi).clamp(s.y.lo, s.y.hi));
            let (ya, yb) = (crate::charts::py_of(&f, a), crate::charts::py_of(&f, b));
            let col = l.style.color.mix(0.8);
            // an open end (no bound) is drawn faint, to the plot's edge
            let mid = crate::charts::py_of(&f, p.value.clamp(s.y.lo, s.y.hi));
            for (end, known) in [(ya, p.lower.is_some()), (yb, p.upper.is_some())] {
                let c = if known { col } else { l.style.color.mix(0.25) };
                root.draw(&PathElement::new(vec![(px, mid), (px, end)], c.stroke_width(1))).map_err(e)?;
            }
            for (y, known) in [(ya, p.lower.is_some()), (yb, p.upper.is_some())] {
                if known {
                    root.draw(&PathElement::new(vec![(px - 4, y), (px + 4, y)], col.stroke_width(1))).map_err(e)?;
                }
            }
            if s.y.frac(p.value) < 0.0 || s.y.frac(p.value) > 1.0 {
                continue;
            }
            let at = (s.x.t(p.iops), s.y.t(p.value));
            if p.thin {
                chart.draw_series(std::iter::once(Circle::new(at, 4, WHITE.filled()))).map_err(e)?;
                chart.draw_series(std::iter::once(Circle::new(at, 4, l.style.color.stroke_width(2)))).map_err(e)?;
            } else {
                chart.draw_series(std::iter::once(Circle::new(at, 4, l.style.color.filled()))).map_err(e)?;
            }
        }
    }
    if let Some((x, y)) = s.found {
        if inside_x(x) && (0.0..=1.0).contains(&s.y.frac(y)) {
            chart.draw_series(std::iter::once(Circle::new((s.x.t(x), s.y.t(y)), 9, INK.stroke_width(2)))).map_err(e)?;
        }
    }
    // the key under the legend, in the top left, which a curve rising to the right leaves empty
    let below = if s.legend { 18 * s.lines.len().min(24) as i32 + 8 + 8 } else { 0 };
    let key = (FONT, 12).into_font().color(&MUTED);
    root.draw(&Text::new(
        "a point per run; whisker: its 95% interval (faint: no bound, too few I/Os); hollow: thin",
        (f.left + 8, f.top + 8 + below),
        key.pos(Pos::new(HPos::Left, VPos::Top)),
    ))
    .map_err(e)?;
    if s.legend {
        // latency rises to the right: the legend goes left
        legend_at(root, &f, s.lines.iter().map(|l| (l.label.as_str(), l.style)), true)?;
    }
    Ok(f)
}

#[cfg(test)]
mod curve_tests {
    use super::*;
    use crate::charts::to_svg;

    fn lines() -> Vec<CurveLine> {
        let pt = |iops: f64, v: f64, upper: Option<f64>, thin: bool| CurvePt { iops, value: v, lower: Some(v * 0.9), upper, thin };
        vec![
            CurveLine {
                label: "p50 · runs".into(),
                style: TraceStyle::nth(0),
                points: vec![pt(10_000.0, 9e4, Some(1e5), false), pt(40_000.0, 2e5, Some(2.2e5), false)],
            },
            CurveLine {
                label: "p99.99 · runs".into(),
                style: TraceStyle::nth(3),
                points: vec![pt(10_000.0, 4e5, Some(5e5), false), pt(40_000.0, 3e6, None, true)],
            },
        ]
    }

    #[test]
    fn curve_scales_cover_points_intervals_and_the_limit() {
        let l = lines();
        let (x, y) = curve_scales(&l, Some(5e6), false);
        assert_eq!((x.lo, x.log), (0.0, false));
        assert!(x.hi > 40_000.0 && y.log && y.lo < 9e4 * 0.9 && y.hi > 5e6, "{x:?} {y:?}");
        let (xl, _) = curve_scales(&l, None, true);
        assert!(xl.log && xl.lo < 10_000.0 && xl.hi > 40_000.0);
        assert_eq!(log_count_ticks(5_000.0, 60_000.0).iter().map(|t| t.0).collect::<Vec<_>>(), [5e3, 1e4, 2e4, 5e4]);
        let (x0, y0) = curve_scales(&[], None, true);
        assert!(!x0.log && y0.log, "no points: a default frame");
    }

    #[test]
    fn curve_chart_draws_a_whisker_and_marker_per_run_and_level() {
        let l = lines();
        let (x, y) = curve_scales(&l, Some(1e6), true);
        let spec = CurveSpec {
            title: "Latency curve",
            lines: &l,
            limit: Some((1e6, "read p99.99 <= 1ms")),
            found: Some((10_000.0, 4e5)),
            x,
            y,
            legend: true,
        };
        let (svg, f) = to_svg(900, 420, |r| draw_curve(r, &spec)).unwrap();
        for t in ["Latency curve", "achieved IOPS (log)", "read p99.99 &lt;= 1ms", "p99.99 · runs", "10k", "1ms"] {
            assert!(svg.contains(t), "{t} missing");
        }
        // four markers (one hollow: two circles), the ring of the answer, the legend's lines
        assert_eq!(svg.matches("<circle").count(), 4 + 1 + 1);
        assert!(f.px(40_000.0) > f.px(10_000.0));
        let (svg, _) = to_svg(900, 420, |r| draw_curve(r, &CurveSpec { lines: &[], limit: None, found: None, ..spec.clone() })).unwrap();
        assert!(svg.contains("no run of a curve to show"));
    }
}
