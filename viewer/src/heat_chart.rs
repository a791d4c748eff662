//! The latency heatmap chart: one row per trace (run and direction) on the runtime chart's x
//! axis, latency on a log axis in the bins nines-core's `heatmap` counts, each cell coloured by
//! the share of its column's I/Os on a viridis scale, the chosen levels of nines and the max of
//! every column drawn over it, and a legend of the scale and the lines. Like
//! [`crate::charts`] it only lays out numbers that nines-core computed, on any plotters
//! backend.

use plotters::coord::Shift;

use crate::backend::{Backend, Image, ImageElement, NativeDraw};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use nines_core::heatmap::Heatmap;

use crate::charts::{
    e, empty_note, frame_of, latency_ticks, plot, stroke, ticks, x_ticks, DrawResult, Frame, Metric, Scale, FONT, INK, MUTED,
};

/// Viridis (van der Walt and Smith, matplotlib's default map): perceptually uniform, readable
/// with the common colour-vision deficiencies and in grey. Its colours at 0, 1/8, ..., 1 (as
/// matplotlib's table gives them), interpolated linearly between.
pub const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 45, 123),
    (59, 82, 139),
    (44, 114, 142),
    (33, 145, 140),
    (40, 174, 128),
    (94, 201, 98),
    (173, 220, 48),
    (253, 231, 37),
];

/// The viridis colour at `t` (0 to 1, clamped).
pub fn viridis(t: f64) -> RGBColor {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (p as f64 + (q as f64 - p as f64) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The colour scale: shares of a column's I/Os from `lo` to 1, on a log scale (a stall's few
/// slow I/Os are a share of 10^-4, the mode of a column most of it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareScale {
    pub lo: f64,
}

impl ShareScale {
    /// The scale down to the decade at or below the smallest share (at least 10^-9).
    pub fn covering(min_share: f64) -> ShareScale {
        let d = if min_share > 0.0 { min_share.log10().floor().clamp(-9.0, -1.0) } else { -6.0 };
        ShareScale { lo: 10f64.powf(d) }
    }

    /// Position of a share on the scale, 0 at `lo`, 1 at 1.
    pub fn frac(&self, share: f64) -> f64 {
        let lo = self.lo.log10();
        (share.max(self.lo).log10() - lo) / -lo
    }

    /// The colour of a share: one of `STEPS` + 1 steps of viridis (as rectangles, cells of
    /// one colour are then one path: a few dozen fills a row instead of one a cell).
    pub fn color(&self, share: f64) -> RGBColor {
        viridis(self.step(share) as f64 / STEPS)
    }

    /// The step of a share's colour, 0 to `STEPS` (see [`ShareScale::palette`]).
    pub fn step(&self, share: f64) -> usize {
        (self.frac(share) * STEPS).round().clamp(0.0, STEPS) as usize
    }

    /// The colour of each step: `palette()[step(s)]` is `color(s)`.
    pub fn palette() -> Vec<RGBColor> {
        (0..=STEPS as usize).map(|i| viridis(i as f64 / STEPS)).collect()
    }

    /// The legend's ticks: every decade from `lo` to 1 (every other one past six).
    pub fn ticks(&self) -> Vec<(f64, String)> {
        let n = (-self.lo.log10()).round() as i32;
        let step = if n > 6 { 2 } else { 1 };
        (0..=n).rev().filter(|k| k % step == 0).map(|k| (10f64.powi(-k), share_label(10f64.powi(-k)))).collect()
    }
}

/// A share as the legend writes it: 100%, 1%, 0.01%, 1e-6.
pub fn share_label(s: f64) -> String {
    if s >= 1e-4 {
        let p = s * 100.0;
        let d = (-(p.log10().floor())).max(0.0) as usize;
        format!("{p:.d$}%")
    } else {
        format!("1e{}", s.log10().round() as i32)
    }
}

/// One row of the chart: a trace's heatmap.
#[derive(Clone, Debug)]
pub struct HeatRow<'a> {
    pub label: &'a str,
    pub map: &'a Heatmap,
}

/// What the heatmap chart shows.
#[derive(Clone, Debug)]
pub struct HeatSpec<'a> {
    pub x_desc: &'a str,
    pub x_is_time: bool,
    pub rows: &'a [HeatRow<'a>],
    /// The runtime chart's x range.
    pub x: Scale,
    /// Latency (log), shared by the rows.
    pub y: Scale,
    pub shares: ShareScale,
    /// The levels (in nines) each column carries, in its `levels` order.
    pub nines: &'a [u32],
    pub selection: Option<(f64, f64)>,
}

/// Height of the legend strip under the rows, in pixels.
pub const LEGEND_H: u32 = 44;

/// The latency range the rows need: their bins, and the levels and max drawn over them.
pub fn latency_scale(maps: &[&Heatmap]) -> Scale {
    let mut lo = f64::INFINITY;
    let mut hi: f64 = 0.0;
    for m in maps {
        if let Some((a, b)) = m.bin_range() {
            lo = lo.min(m.edges(a).0);
            hi = hi.max(m.edges(b).1);
        }
        for c in &m.columns {
            for v in c.levels.iter().flatten().chain(c.max_ns.as_ref()) {
                lo = lo.min(*v as f64);
                hi = hi.max(*v as f64);
            }
        }
    }
    if hi > 0.0 && lo.is_finite() {
        Scale { lo: (lo / 1.25).max(1.0), hi: hi * 1.25, log: true }
    } else {
        Scale { lo: 1e3, hi: 1e7, log: true }
    }
}

/// Draw the heatmap rows and the legend; the frames of the rows, top first.
pub fn draw_heatmap<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &HeatSpec) -> DrawResult<Vec<Frame>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let (w, h) = root.dim_in_pixel();
    let (area, strip) = root.split_vertically(h.saturating_sub(LEGEND_H));
    let mut frames = Vec::new();
    if s.rows.is_empty() {
        let chart = plot(&area, "Latency heatmap", s.x, s.y, s.x_desc, "latency (log)")?;
        let f = frame_of(&chart, s.x, s.y);
        empty_note(&area, &f, "no runs shown")?;
        frames.push(f);
    }
    let rows = area.split_evenly((s.rows.len().max(1), 1));
    for (row, r) in s.rows.iter().zip(&rows) {
        let title = format!("Latency heatmap: {}", r_label(row.label));
        let mut chart = plot(r, &title, s.x, s.y, s.x_desc, "latency (log)")?;
        // frames are in the root's pixels: cells, ticks and marks are drawn on the root
        let f = frame_of(&chart, s.x, s.y);
        draw_cells(root, &f, row.map, s.shares)?;
        ticks(root, &f, &x_ticks(&s.x, s.x_is_time), &latency_ticks(s.y.lo, s.y.hi), false)?;
        draw_lines(&mut chart, s, row.map)?;
        if let Some((a, b)) = s.selection {
            for v in [a, b] {
                let px = f.px(v);
                if px >= f.left as f64 && px <= f.right as f64 {
                    let px = px.round() as i32;
                    root.draw(&PathElement::new(vec![(px, f.top), (px, f.bottom)], SELECTION.stroke_width(2))).map_err(e)?;
                }
            }
            let (pa, pb) = (f.px(a.min(b)).max(f.left as f64) as i32, f.px(a.max(b)).min(f.right as f64) as i32);
            if pb > pa {
                root.draw(&Rectangle::new([(pa, f.top - 4), (pb, f.top)], SELECTION.filled())).map_err(e)?;
            }
        }
        if row.map.columns.iter().all(|c| c.count == 0) {
            empty_note(root, &f, "no I/Os in this range")?;
        }
        frames.push(f);
    }
    let left = frames.first().map_or(100, |f| f.left);
    draw_legend(&strip, left, w as i32, s)?;
    Ok(frames)
}

/// The brushed range's edges (the runtime chart's selection colour, opaque).
const SELECTION: RGBColor = RGBColor(0xE6, 0x9F, 0x00);

fn r_label(label: &str) -> String {
    if label.chars().count() > 60 {
        label.chars().take(59).chain(std::iter::once('…')).collect()
    } else {
        label.to_string()
    }
}

/// Steps of the colour scale past its lowest colour.
const STEPS: f64 = 64.0;

/// The cells: one rectangle per non-empty bin of each column, clipped to the plot. Where the
/// backend draws images ([`NativeDraw::image`], the page's canvas), they are one image of a
/// pixel per column pixel and bin, stretched over the bins' rows (the bins are equally tall on
/// the log latency axis); else (SVG) rectangles drawn colour by colour.
fn draw_cells<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, m: &Heatmap, shares: ShareScale) -> DrawResult<()> {
    let (l, r) = (f.left as f64, f.right as f64);
    let py = |v: f64| f.bottom as f64 - f.y.frac(v) * (f.bottom - f.top) as f64;
    let k0 = m.columns.iter().map(|c| c.first_bin).min().unwrap_or(0);
    let k1 = m.columns.iter().map(|c| c.first_bin + c.bins.len() as i64).max().unwrap_or(0);
    // each column's pixels: whole, at least one wide, so adjacent columns leave no seam
    let spans: Vec<(&nines_core::heatmap::Column, i32, i32)> = m
        .columns
        .iter()
        .filter(|c| c.count > 0)
        .filter_map(|c| {
            let (a, b) = (f.px(c.x0).max(l), f.px(c.x1).min(r));
            (b > a).then(|| (c, a.floor() as i32, (b.ceil() as i32).max(a.floor() as i32 + 1)))
        })
        .collect();
    if spans.is_empty() {
        return Ok(());
    }
    if f.y.log && f.right > f.left && k1 > k0 {
        let (w, h) = ((f.right - f.left) as usize, (k1 - k0) as usize);
        let mut rgba = vec![0u8; w * h * 4];
        let palette = ShareScale::palette();
        for &(c, pa, pb) in &spans {
            let (xa, xb) = ((pa - f.left).max(0) as usize, ((pb - f.left).max(0) as usize).min(w));
            for (k, n) in c.cells() {
                let RGBColor(cr, cg, cb) = palette[shares.step(n as f64 / c.count as f64)];
                let row = (k1 - 1 - k) as usize * w;
                for px in rgba[(row + xa) * 4..(row + xb) * 4].chunks_exact_mut(4) {
                    px.copy_from_slice(&[cr, cg, cb, 255]);
                }
            }
        }
        // the image's top row is bin k1 - 1, its bottom row bin k0
        let (top, bottom) = (py(m.edges(k1 - 1).1), py(m.edges(k0).0));
        let image = ImageElement {
            image: Image { width: w as u32, height: h as u32, rgba },
            dest: (0.0, top - f.top as f64, w as f64, bottom - top),
            clip: [(f.left, f.top), (f.right, f.bottom)],
            drawn: std::cell::Cell::new(false),
        };
        root.draw(&image).map_err(e)?;
        if image.drawn.get() {
            return Ok(());
        }
    }
    // each bin's rows of pixels, computed once a draw (its edges are powers of ten and each
    // costs three logarithms), not once a cell
    let mut rows: Vec<Option<Option<(i32, i32)>>> = vec![None; (k1 - k0).max(0) as usize];
    let mut row = |k: i64| {
        *rows[(k - k0) as usize].get_or_insert_with(|| {
            let (lo, hi) = m.edges(k);
            let (ya, yb) = (py(hi).max(f.top as f64), py(lo).min(f.bottom as f64));
            (yb > ya).then(|| (ya.floor() as i32, (yb.ceil() as i32).max(ya.floor() as i32 + 1)))
        })
    };
    // (colour as r, g, b; the rectangle's corners in pixels), drawn colour by colour: the
    // canvas backend joins consecutive fills of one colour into one path
    type Cell = ((u8, u8, u8), [(i32, i32); 2]);
    let mut cells: Vec<Cell> = Vec::new();
    for &(c, pa, pb) in &spans {
        for (k, n) in c.cells() {
            let Some((ta, tb)) = row(k) else { continue };
            let RGBColor(cr, cg, cb) = shares.color(n as f64 / c.count as f64);
            cells.push(((cr, cg, cb), [(pa, ta), (pb, tb)]));
        }
    }
    cells.sort_unstable_by_key(|c| c.0);
    for ((cr, cg, cb), rect) in cells {
        root.draw(&Rectangle::new(rect, RGBColor(cr, cg, cb).filled())).map_err(e)?;
    }
    Ok(())
}

/// The levels and the max of each column, over the cells: black on a white halo, so they read
/// on both ends of the scale; levels dashed by their nines (as on the runtime chart), the max
/// solid.
fn draw_lines<DB: NativeDraw>(chart: &mut crate::charts::Chart<'_, DB>, s: &HeatSpec, m: &Heatmap) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    let mid = |c: &nines_core::heatmap::Column| (c.x0 + c.x1) / 2.0;
    let mut lines: Vec<(Metric, Vec<Point>)> = s
        .nines
        .iter()
        .enumerate()
        .map(|(i, k)| (Metric::Nines(*k), m.columns.iter().map(|c| (mid(c), c.levels.get(i).copied().flatten())).collect()))
        .collect();
    lines.push((Metric::Max, m.columns.iter().map(|c| (mid(c), c.max_ns)).collect()));
    for (metric, pts) in lines {
        // runs of points with a value
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (x, v) in pts {
            match v {
                Some(v) => runs.last_mut().expect("one run").push((x, v as f64)),
                None => runs.push(Vec::new()),
            }
        }
        for run in runs.iter().filter(|r| !r.is_empty()) {
            // a lone point is a short tick
            let run = if run.len() == 1 { vec![(run[0].0 - 1e-9, run[0].1), (run[0].0 + 1e-9, run[0].1)] } else { run.clone() };
            stroke(chart, &s.x, &s.y, &run, WHITE, (0, 0), 3)?;
            stroke(chart, &s.x, &s.y, &run, BLACK, line_dash(metric), 1)?;
        }
    }
    Ok(())
}

/// A line's point: x and the value, `None` where it breaks.
type Point = (f64, Option<u64>);

fn line_dash(m: Metric) -> (u32, u32) {
    match m {
        Metric::Max => (0, 0),
        m => m.dash(),
    }
}

/// The legend strip: the colour scale with its ticks, then the lines.
fn draw_legend<DB: NativeDraw>(strip: &DrawingArea<DB, Shift>, left: i32, width: i32, s: &HeatSpec) -> DrawResult<()> {
    let text = (FONT, 12).into_font().color(&INK);
    let muted = (FONT, 12).into_font().color(&MUTED);
    // row 1: the low end's label, the bar, 100%, then the lines' key; row 2: what the colour is
    let (x0, y0, bar_w, bar_h) = (left + 46, 6, 200, 12);
    let yc = y0 + bar_h / 2;
    strip
        .draw(&Text::new(
            "colour: share of the column's I/Os in the bin, log scale (white: none)",
            (left, y0 + 30),
            muted.pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(e)?;
    let steps = 50;
    for i in 0..steps {
        let a = x0 + bar_w * i / steps;
        let b = x0 + bar_w * (i + 1) / steps;
        let c = viridis((i as f64 + 0.5) / steps as f64);
        strip.draw(&Rectangle::new([(a, y0), (b, y0 + bar_h)], c.filled())).map_err(e)?;
    }
    strip.draw(&Rectangle::new([(x0, y0), (x0 + bar_w, y0 + bar_h)], MUTED)).map_err(e)?;
    for (v, _) in s.shares.ticks() {
        let px = x0 + (s.shares.frac(v) * bar_w as f64).round() as i32;
        strip.draw(&PathElement::new(vec![(px, y0 + bar_h), (px, y0 + bar_h + 3)], MUTED)).map_err(e)?;
    }
    strip.draw(&Text::new(share_label(s.shares.lo), (x0 - 6, yc), text.clone().pos(Pos::new(HPos::Right, VPos::Center)))).map_err(e)?;
    strip.draw(&Text::new(share_label(1.0), (x0 + bar_w + 6, yc), text.clone().pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    let mut x = x0 + bar_w + 56;
    let mut items: Vec<(String, Metric)> =
        s.nines.iter().map(|k| (nines_core::quantile::Level::nines(*k).label, Metric::Nines(*k))).collect();
    items.push(("max".into(), Metric::Max));
    for (label, m) in items {
        let w = 40 + 7 * label.chars().count() as i32;
        if x + w > width {
            break;
        }
        let pts = vec![(x, yc), (x + 28, yc)];
        strip.draw(&PathElement::new(pts.clone(), WHITE.stroke_width(3))).map_err(e)?;
        let (d0, d1) = line_dash(m);
        if d0 == 0 {
            strip.draw(&PathElement::new(pts, BLACK.stroke_width(1))).map_err(e)?;
        } else {
            strip.draw(&plotters::element::DashedPathElement::new(pts, d0 as i32, d1 as i32, BLACK.stroke_width(1))).map_err(e)?;
        }
        strip.draw(&Text::new(label, (x + 33, yc), text.clone().pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
        x += w + 10;
    }
    Ok(())
}

/// Draw the chart into an SVG string (the export, tests).
pub fn to_svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<Backend<'_>, Shift>) -> DrawResult<Vec<Frame>>,
) -> DrawResult<(String, Vec<Frame>)> {
    crate::backend::svg(width, height, draw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::heatmap::{heatmap, Column};
    use nines_core::hist::{Hist, Layout};
    use nines_core::pyramid::{Axis, Pyramid};
    use nines_core::run::{Run, Window};
    use nines_core::series::Direction;

    /// 20 one-second windows of reads near 100 us; window 12 holds 3 I/Os of 2 s (a stall).
    fn stalled() -> Run {
        let l = Layout::default_ns();
        let windows = (0..20)
            .map(|s| {
                let mut h = Hist::from_values(l, (0..5_000u64).map(|i| 80_000 + (i * 37) % 60_000));
                if s == 12 {
                    h = h.merge(&Hist::from_values(l, [2_000_000_000, 2_010_000_000, 1_995_000_000]));
                }
                Window { start_s: s as f64, length_s: 1.0, tag: Some("read".into()), hist: h }
            })
            .collect();
        Run { name: "stall".into(), windows, ..Run::default() }
    }

    #[test]
    fn viridis_runs_from_dark_violet_to_yellow_and_lightens_steadily() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        // luminance (Rec. 709) rises with the scale: darker is always fewer I/Os
        let lum = |c: RGBColor| 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
        let ls: Vec<f64> = (0..=100).map(|i| lum(viridis(i as f64 / 100.0))).collect();
        assert!(ls.windows(2).all(|w| w[1] >= w[0] - 0.5), "{ls:?}");
        assert!(ls[100] - ls[0] > 150.0);
    }

    #[test]
    fn the_share_scale_is_logarithmic_down_to_the_smallest_share() {
        let s = ShareScale::covering(3.2e-5);
        assert_eq!(s.lo, 1e-5);
        assert!((s.frac(1.0) - 1.0).abs() < 1e-12 && s.frac(1e-5).abs() < 1e-12);
        assert!((s.frac(1e-3) - 0.4).abs() < 1e-12);
        assert_eq!(s.frac(1e-9), 0.0, "below the scale: its bottom colour");
        assert_eq!(s.color(1.0), viridis(1.0));
        let labels: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["1e-5", "0.01%", "0.1%", "1%", "10%", "100%"]);
        assert_eq!(ShareScale::covering(0.0).lo, 1e-6);
        assert_eq!(ShareScale::covering(0.5).lo, 0.1);
        assert_eq!(ShareScale::covering(1e-12).ticks().len(), 5, "every other decade past six");
        assert_eq!(share_label(0.0005), "0.05%");
    }

    #[test]
    fn the_stalled_column_is_drawn_in_the_two_second_bins_with_legend_and_lines() {
        let r = stalled();
        let d = Direction::Tag(Some("read".into()));
        let m = heatmap(&r, &Pyramid::new(&r, &d), Axis::Time, (0.0, 20.0), 100, 40, &[3]);
        let rows = [HeatRow { label: "stall read", map: &m }];
        let y = latency_scale(&[&m]);
        assert!(y.lo < 80_000.0 && y.hi > 2_010_000_000.0);
        let spec = HeatSpec {
            x_desc: "time since start",
            x_is_time: true,
            rows: &rows,
            x: Scale { lo: 0.0, hi: 20.0, log: false },
            y,
            shares: ShareScale::covering(m.min_share()),
            nines: &[3],
            selection: Some((5.0, 8.0)),
        };
        let (svg, frames) = to_svg(900, 340, |root| draw_heatmap(root, &spec)).unwrap();
        let f = frames[0];
        // the cells of the stall: 3 of 5,003 I/Os, the scale's bottom decade, at 12..13 s and
        // at 2 s of latency
        let stall = m.columns.iter().find(|c| c.start_s == 12.0).unwrap();
        let slow: Vec<(i64, u64)> = stall.cells().filter(|&(k, _)| m.edges(k).0 > 1e9).collect();
        assert_eq!(slow.iter().map(|c| c.1).sum::<u64>(), 3);
        let color = spec.shares.color(2.0 / 5_003.0);
        let hex = format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2);
        let (px0, py) =
            (f.px(12.0).floor() as i32, (f.bottom as f64 - f.y.frac(m.edges(slow[0].0).1) * (f.bottom - f.top) as f64).floor() as i32);
        let want = format!("<rect x=\"{px0}\" y=\"{py}\"");
        assert!(svg.contains(&want), "no stall cell at {want}");
        assert!(svg.contains(&hex), "no cell coloured {hex}");
        // the legend: the scale's ends, its text, the lines' key
        for label in ["0.01%", "100%", "in the bin, log scale (white: none)", "p99.9", "max", "1.00s"] {
            assert!(svg.contains(label), "missing {label}");
        }
        // a column per window, a cell per non-empty bin, the bar's 60 steps and the frame
        let cells: usize = m.columns.iter().map(|c| c.cells().count()).sum();
        assert_eq!(m.columns.len(), 20);
        assert!(svg.matches("<rect").count() >= cells + 50, "{} rects for {cells} cells", svg.matches("<rect").count());
        // the levels and max are drawn black over white halos
        assert!(svg.contains("stroke=\"#000000\"") && svg.contains("stroke=\"#FFFFFF\""));
    }

    #[test]
    fn several_rows_share_the_x_axis_and_an_empty_chart_says_so() {
        let r = stalled();
        let d = Direction::Tag(Some("read".into()));
        let m = heatmap(&r, &Pyramid::new(&r, &d), Axis::Time, (0.0, 20.0), 100, 40, &[3, 4]);
        let empty = Heatmap {
            bins_per_decade: 40,
            columns: vec![Column {
                x0: 0.0,
                x1: 20.0,
                start_s: 0.0,
                end_s: 20.0,
                count: 0,
                first_bin: 0,
                bins: vec![],
                levels: vec![None, None],
                max_ns: None,
            }],
        };
        let rows = [HeatRow { label: "a read", map: &m }, HeatRow { label: "a write", map: &m }, HeatRow { label: "b write", map: &empty }];
        let spec = HeatSpec {
            x_desc: "I/Os completed",
            x_is_time: false,
            rows: &rows,
            x: Scale { lo: 0.0, hi: 20.0, log: false },
            y: latency_scale(&[&m, &empty]),
            shares: ShareScale::covering(m.min_share()),
            nines: &[3, 4],
            selection: None,
        };
        let (svg, frames) = to_svg(900, 800, |root| draw_heatmap(root, &spec)).unwrap();
        assert_eq!(frames.len(), 3);
        assert_eq!((frames[0].left, frames[0].right), (frames[1].left, frames[1].right));
        assert!(frames[0].bottom < frames[1].top && frames[1].bottom < frames[2].top);
        assert!(svg.contains("Latency heatmap: a read") && svg.contains("Latency heatmap: b write"));
        assert!(svg.contains("no I/Os in this range") && svg.contains("p99.99"));
        // each row's cells lie in its own plot: as many in the second as in the first
        let cells_in = |f: &Frame| {
            svg.split("<rect x=\"")
                .skip(1)
                .filter_map(|r| {
                    let x: i32 = r.split('"').next()?.parse().ok()?;
                    let y: i32 = r.split("y=\"").nth(1)?.split('"').next()?.parse().ok()?;
                    (x >= f.left && x < f.right && y >= f.top && y < f.bottom).then_some(())
                })
                .count()
        };
        let want: usize = m.columns.iter().map(|c| c.cells().count()).sum();
        assert!(
            cells_in(&frames[0]) >= want && cells_in(&frames[1]) == cells_in(&frames[0]),
            "{} {} {want}",
            cells_in(&frames[0]),
            cells_in(&frames[1])
        );
        assert_eq!(cells_in(&frames[2]), 0);
        let none = HeatSpec { rows: &[], ..spec };
        let (svg, frames) = to_svg(900, 300, |root| draw_heatmap(root, &none)).unwrap();
        assert_eq!(frames.len(), 1);
        assert!(svg.contains("no runs shown"));
    }
}
