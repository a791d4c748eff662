//! The runtime QoS chart as small multiples: one strip per run, stacked, every strip on the
//! same time (or I/O) axis and the same log latency axis, so that runs are compared by
//! position, not by untangling overlaid lines (Tufte's small multiples, "Envisioning
//! Information", ch. 4). Each strip draws its run's lines as the overlaid chart does
//! ([`charts::draw_lines`]): the median thin, each level in its own dash, the max as squares.
//!
//! The chart returns one [`Frame`] spanning every strip (their plots share left and right
//! edges and the x scale), so that the mouse's gestures on the runtime chart (drag to zoom,
//! shift-drag to select, alt-drag to pan, the wheel, the time rule) work across the strips
//! unchanged; the strips' own frames are returned beside it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::backend::NativeDraw;
use crate::charts::{
    draw_lines, e, empty_note, frame_of, latency_ticks, line_width, metric_name, metrics_of, shade_x, ticks, unsupported, x_ticks,
    DrawResult, Frame, Metric, RuntimeSpec, FONT, GRID, INK, MUTED, Y_LABEL_AREA,
};

/// One strip: a run's name and the indices of its lines in the spec's lines.
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    pub label: String,
    pub lines: Vec<usize>,
}

/// Height of the title and key rows above the strips, pixels.
const HEAD: u32 = 44;
/// Below the last strip: its x axis labels and description.
const FOOT: u32 = 36;
/// The gap between two strips' plots.
const GAP: u32 = 8;

/// Height of one strip (plot and gap) for `n` strips: the five runs of a typical comparison
/// get about the height the overlaid chart has, twenty get a readable minimum each.
pub fn strip_height(n: usize) -> u32 {
    (600 / n.max(1) as u32).clamp(72, 140)
}

/// Height of the whole chart of `n` strips.
pub fn height(n: usize) -> u32 {
    HEAD + n.max(1) as u32 * strip_height(n) + FOOT
}

/// Latency ticks no closer than 16 pixels on a plot `px` high: a short strip keeps every
/// other decade rather than overprinting its labels. `below` another strip: none in the top
/// 8 pixels, where its label would meet the bottom label of the strip above.
fn sparse_ticks(f: &Frame, px: i32, below: bool) -> Vec<(f64, String)> {
    let all = latency_ticks(f.y.lo, f.y.hi);
    let mut out: Vec<(f64, String)> = Vec::new();
    for (v, s) in all {
        let at = f.y.frac(v) * px as f64;
        if below && at > px as f64 - 8.0 {
            continue;
        }
        if out.last().is_none_or(|(u, _)| at - f.y.frac(*u) * px as f64 >= 16.0) {
            out.push((v, s));
        }
    }
    out
}

/// Draw the runtime chart of `s` as one strip per entry of `strips`. Returns the frame over
/// every strip (for the mouse) and each strip's own.
pub fn draw_strips<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &RuntimeSpec, strips: &[Strip]) -> DrawResult<(Frame, Vec<Frame>)>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let (w, _) = root.dim_in_pixel();
    let sh = strip_height(strips.len());
    let n = strips.len();
    let mut frames = Vec::new();
    for (i, strip) in strips.iter().enumerate() {
        let last = i + 1 == n;
        let top = HEAD + i as u32 * sh;
        let area = root.clone().shrink((0, top), (w, sh + if last { FOOT } else { 0 }));
        let mut b = ChartBuilder::on(&area);
        b.margin_right(18).margin_left(6).y_label_area_size(Y_LABEL_AREA);
        if last {
            b.margin_bottom(4).x_label_area_size(FOOT + GAP - 4);
        } else {
            b.margin_bottom(GAP);
        }
        let mut chart = b.build_cartesian_2d(s.x.t(s.x.lo)..s.x.t(s.x.hi), s.y.t(s.y.lo)..s.y.t(s.y.hi)).map_err(e)?;
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh().x_labels(0).y_labels(0).axis_desc_style((FONT, 13).into_font().color(&MUTED)).axis_style(MUTED);
        if last {
            mesh.x_desc(s.x_desc);
        }
        if i == n / 2 {
            mesh.y_desc("latency (log)");
        }
        mesh.draw().map_err(e)?;
        let f = frame_of(&chart, s.x, s.y);
        if let Some((a, b)) = s.selection {
            shade_x(root, &f, a, b, RGBAColor(0xFF, 0xC8, 0x57, 0.25))?;
        }
        // every strip has the time gridlines, the last their labels
        let xt: Vec<(f64, String)> =
            x_ticks(&s.x, s.x_is_time).into_iter().map(|(v, l)| (v, if last { l } else { String::new() })).collect();
        ticks(root, &f, &xt, &sparse_ticks(&f, f.bottom - f.top, i > 0), false)?;
        let lines: Vec<&crate::charts::RuntimeLine> = strip.lines.iter().filter_map(|&j| s.lines.get(j)).collect();
        let traces = lines.iter().enumerate().filter(|(k, l)| !lines[..*k].iter().any(|m| m.trace == l.trace)).count();
        draw_lines(&mut chart, &s.x, &s.y, &lines, line_width(traces))?;
        if let Some(note) = unsupported(lines.iter().copied()) {
            empty_note(root, &f, &note)?;
        }
        strip_label(root, &f, &strip.label, lines.first().map(|l| l.style.color))?;
        frames.push(f);
    }
    let (Some(first), Some(last)) = (frames.first().copied(), frames.last().copied()) else {
        return Err("no strips".into());
    };
    head(root, &first, s)?;
    Ok((Frame { top: first.top, bottom: last.bottom, ..first }, frames))
}

/// A strip's run name in its top left corner, after a swatch of the run's colour.
fn strip_label<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, label: &str, color: Option<RGBColor>) -> DrawResult<()> {
    let font = (FONT, 12).into_font().style(FontStyle::Bold);
    let style: TextStyle = font.clone().into();
    let tw = root.estimate_text_size(label, &style).map_or(120, |s| s.0 as i32);
    let (x0, y0) = (f.left + 6, f.top + 4);
    root.draw(&Rectangle::new([(x0, y0), (x0 + tw + 26, y0 + 18)], RGBAColor(255, 255, 255, 0.9).filled())).map_err(e)?;
    root.draw(&Rectangle::new([(x0, y0), (x0 + tw + 26, y0 + 18)], GRID.stroke_width(1))).map_err(e)?;
    if let Some(c) = color {
        root.draw(&Rectangle::new([(x0 + 5, y0 + 4), (x0 + 15, y0 + 14)], c.filled())).map_err(e)?;
    }
    root.draw(&Text::new(label.to_string(), (x0 + 20, y0 + 9), font.color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)
}

/// The title row: what the chart is, and a key of the metrics drawn in a row on the right.
fn head<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, s: &RuntimeSpec) -> DrawResult<()> {
    let title = format!("{}: one strip per run, every strip on the same axes", s.title);
    root.draw(&Text::new(title, (f.left, 12), (FONT, 15).into_font().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    let metrics = metrics_of(s.lines.iter());
    // one metric of every run: drawn solid, named as such
    let one = metrics.len() == 1;
    let font = (FONT, 12).into_font();
    let style: TextStyle = font.clone().into();
    let items: Vec<(Metric, String, i32)> = metrics
        .into_iter()
        .map(|m| {
            let name = if one { format!("{} of each run", metric_name(&m)) } else { metric_name(&m) };
            let w = root.estimate_text_size(&name, &style).map_or(80, |s| s.0 as i32) + 42;
            (m, name, w)
        })
        .collect();
    let (mut x, y) = (f.right - items.iter().map(|i| i.2).sum::<i32>(), 32);
    for (m, name, w) in items {
        let pts = vec![(x, y), (x + 26, y)];
        match m {
            Metric::Max => root.draw(&Rectangle::new([(x + 11, y - 2), (x + 15, y + 2)], INK.filled())).map_err(e)?,
            Metric::Median => root.draw(&PathElement::new(pts, INK.stroke_width(1))).map_err(e)?,
            Metric::Nines(_) if one => root.draw(&PathElement::new(pts, INK.stroke_width(2))).map_err(e)?,
            Metric::Nines(_) => {
                let (a, b) = m.dash();
                root.draw(&plotters::element::DashedPathElement::new(pts, a as i32, b as i32, INK.stroke_width(2))).map_err(e)?
            }
        }
        root.draw(&Text::new(name, (x + 31, y), font.clone().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
        x += w;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::{to_svg, RuntimeLine, Scale, TraceStyle};

    fn line(trace: &str, n: usize, metric: Metric) -> RuntimeLine {
        RuntimeLine {
            trace: trace.into(),
            style: TraceStyle::nth(n),
            metric,
            points: vec![(0.5, Some(2e5 * (n + 1) as f64)), (1.5, Some(3e5)), (2.5, Some(2.5e5))],
            thin: vec![],
            limit: None,
            broken: vec![],
            faint: false,
        }
    }

    #[test]
    fn strips_stack_on_shared_axes_each_named_by_its_run() {
        let names = ["alpha all", "bravo all", "charlie all", "delta all", "echo all"];
        let lines: Vec<RuntimeLine> =
            names.iter().enumerate().flat_map(|(i, t)| [Metric::Median, Metric::Nines(3), Metric::Max].map(|m| line(t, i, m))).collect();
        let strips: Vec<Strip> =
            names.iter().enumerate().map(|(i, t)| Strip { label: t.to_string(), lines: vec![3 * i, 3 * i + 1, 3 * i + 2] }).collect();
        let spec = RuntimeSpec {
            title: "Runtime QoS",
            x_desc: "time since start",
            x_is_time: true,
            lines: &lines,
            x: Scale { lo: 0.0, hi: 3.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: Some((1.0, 2.0)),
            legend: false,
        };
        let mut frames = Vec::new();
        let (svg, all) = to_svg(900, height(5), |r| {
            let (f, fs) = draw_strips(r, &spec, &strips)?;
            frames = fs;
            Ok(f)
        })
        .unwrap();
        assert_eq!(frames.len(), 5);
        // the same x and y scales and plot edges, equal heights, stacked downwards
        for w in frames.windows(2) {
            assert_eq!((w[0].left, w[0].right, w[0].x, w[0].y), (w[1].left, w[1].right, w[1].x, w[1].y));
            assert_eq!(w[0].bottom - w[0].top, w[1].bottom - w[1].top);
            assert!(w[1].top > w[0].bottom);
        }
        assert_eq!((all.top, all.bottom), (frames[0].top, frames[4].bottom));
        for t in names.iter().chain(&["median", "p99.9", "max (■ a window)", "one strip per run, every strip on the same axes"]) {
            assert!(svg.contains(t), "missing {t}");
        }
        // one x axis description, one y
        assert_eq!(svg.matches("time since start").count(), 1);
        assert_eq!(svg.matches("latency (log)").count(), 1);
        assert_eq!(strip_height(1), 140);
        assert_eq!(strip_height(20), 72);
        assert!(draw_strips_empty_is_an_error());
    }

    fn draw_strips_empty_is_an_error() -> bool {
        let spec = RuntimeSpec {
            title: "t",
            x_desc: "x",
            x_is_time: true,
            lines: &[],
            x: Scale { lo: 0.0, hi: 1.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: None,
            legend: false,
        };
        to_svg(400, 200, |r| draw_strips(r, &spec, &[]).map(|x| x.0)).is_err()
    }
}
