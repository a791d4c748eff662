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
    draw_lines, e, empty_note, format_count, frame_of, latency_ticks, line_width, linear_ticks, metric_name, metrics_of, one_metric, py_of,
    shade_x, stroke, ticks, unsupported, x_ticks, Chart, DrawResult, Frame, Metric, RateSpec, RuntimeSpec, Scale, TraceStyle, FONT, GRID,
    INK, MUTED, Y_LABEL_AREA,
};

/// One strip: a run's name, its directions (each with its trace's style), the indices of its
/// lines in the runtime spec's lines and of its traces in the rate spec's, and whether it is
/// the focus run (marked).
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    /// The run (its index among the loaded runs).
    pub run: usize,
    pub label: String,
    pub dirs: Vec<(String, TraceStyle)>,
    pub lines: Vec<usize>,
    pub rates: Vec<usize>,
    pub focus: bool,
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

/// Height of one rate strip for `n` strips: lower than the latency strips (a rate is read for
/// its level and its dips, not its tail).
fn rate_strip_height(n: usize) -> u32 {
    (360 / n.max(1) as u32).clamp(56, 100)
}

/// Height of the rate chart of `n` strips.
pub fn rate_height(n: usize) -> u32 {
    HEAD + n.max(1) as u32 * rate_strip_height(n) + FOOT
}

/// Of the y ticks `all`, those no closer than 16 pixels on a plot `px` high: a short strip
/// keeps every other label rather than overprinting them. `below` another strip: none in the
/// top 8 pixels, where its label would meet the bottom label of the strip above.
fn sparse_ticks(f: &Frame, all: Vec<(f64, String)>, px: i32, below: bool) -> Vec<(f64, String)> {
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

/// What the strips of one chart share: the axes, their descriptions, the selection, and the
/// y ticks of a strip's frame.
struct Layout<'a> {
    x: Scale,
    y: Scale,
    x_is_time: bool,
    x_desc: &'a str,
    y_desc: &'a str,
    selection: Option<(f64, f64)>,
    y_ticks: fn(&Frame) -> Vec<(f64, String)>,
    /// One strip's height, plot and gap.
    sh: u32,
}

/// What draws strip `i`'s data on its chart, given its frame.
type DrawStrip<'a, DB> = dyn FnMut(usize, &mut Chart<'_, DB>, &Frame) -> DrawResult<()> + 'a;

/// Lay out `n` strips on `root`, each with its axes, gridlines, the selection shaded, then
/// `each` drawing strip `i`'s data. Returns each strip's frame.
fn each_strip<DB: NativeDraw>(
    root: &DrawingArea<DB, Shift>,
    l: &Layout,
    n: usize,
    // (dyn: one copy of the layout a backend, not one a chart too)
    each: &mut DrawStrip<'_, DB>,
) -> DrawResult<Vec<Frame>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let (w, _) = root.dim_in_pixel();
    let mut frames = Vec::new();
    for i in 0..n {
        let last = i + 1 == n;
        let top = HEAD + i as u32 * l.sh;
        let area = root.clone().shrink((0, top), (w, l.sh + if last { FOOT } else { 0 }));
        let mut b = ChartBuilder::on(&area);
        b.margin_right(18).margin_left(6).y_label_area_size(Y_LABEL_AREA);
        if last {
            b.margin_bottom(4).x_label_area_size(FOOT + GAP - 4);
        } else {
            b.margin_bottom(GAP);
        }
        let mut chart = b.build_cartesian_2d(l.x.t(l.x.lo)..l.x.t(l.x.hi), l.y.t(l.y.lo)..l.y.t(l.y.hi)).map_err(e)?;
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh().x_labels(0).y_labels(0).axis_desc_style((FONT, 13).into_font().color(&MUTED)).axis_style(MUTED);
        if last {
            mesh.x_desc(l.x_desc);
        }
        if i == n / 2 {
            mesh.y_desc(l.y_desc);
        }
        mesh.draw().map_err(e)?;
        let f = frame_of(&chart, l.x, l.y);
        if let Some((a, b)) = l.selection {
            shade_x(root, &f, a, b, RGBAColor(0xFF, 0xC8, 0x57, 0.25))?;
        }
        // every strip has the time gridlines, the last their labels
        let xt: Vec<(f64, String)> =
            x_ticks(&l.x, l.x_is_time).into_iter().map(|(v, s)| (v, if last { s } else { String::new() })).collect();
        ticks(root, &f, &xt, &sparse_ticks(&f, (l.y_ticks)(&f), f.bottom - f.top, i > 0), false)?;
        each(i, &mut chart, &f)?;
        frames.push(f);
    }
    Ok(frames)
}

/// The frame over every strip (their plots share left and right edges and the x scale).
fn whole(frames: &[Frame]) -> DrawResult<Frame> {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else {
        return Err("no strips".into());
    };
    Ok(Frame { top: first.top, bottom: last.bottom, ..*first })
}

/// Draw the runtime chart of `s` as one strip per entry of `strips`. Returns the frame over
/// every strip (for the mouse) and each strip's own.
pub fn draw_strips<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &RuntimeSpec, strips: &[Strip]) -> DrawResult<(Frame, Vec<Frame>)>
where
    DB::ErrorType: 'static,
{
    let layout = Layout {
        x: s.x,
        y: s.y,
        x_is_time: s.x_is_time,
        x_desc: s.x_desc,
        y_desc: "latency (log)",
        selection: s.selection,
        y_ticks: |f| latency_ticks(f.y.lo, f.y.hi),
        sh: strip_height(strips.len()),
    };
    // one metric of every run: a run's directions told apart by their dashes
    let by_dash = one_metric(s.lines).is_some();
    let frames = each_strip(root, &layout, strips.len(), &mut |i, chart, f| {
        let strip = &strips[i];
        let lines: Vec<&crate::charts::RuntimeLine> = strip.lines.iter().filter_map(|&j| s.lines.get(j)).collect();
        let traces = lines.iter().enumerate().filter(|(k, l)| !lines[..*k].iter().any(|m| m.trace == l.trace)).count();
        draw_lines(chart, &s.x, &s.y, &lines, line_width(traces))?;
        if let Some(note) = unsupported(lines.iter().copied()) {
            empty_note(root, f, &note)?;
        }
        strip_label(root, f, strip, by_dash)
    })?;
    let all = whole(&frames)?;
    head(root, &all, s)?;
    Ok((all, frames))
}

/// Draw the rate chart of `s` as one strip per entry of `strips`, on the runtime strips' x
/// axis and one rate axis for all: each run's rate, a direction in its dash, the SNIA PTS
/// steady state shaded. Returns the frame over every strip.
pub fn draw_rate_strips<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, s: &RateSpec, strips: &[Strip]) -> DrawResult<Frame>
where
    DB::ErrorType: 'static,
{
    let layout = Layout {
        x: s.x,
        y: s.y,
        x_is_time: s.x_is_time,
        x_desc: s.x_desc,
        y_desc: s.y_desc,
        selection: s.selection,
        y_ticks: |f| linear_ticks(f.y.lo, f.y.hi, 3, format_count),
        sh: rate_strip_height(strips.len()),
    };
    let frames = each_strip(root, &layout, strips.len(), &mut |i, chart, f| {
        let strip = &strips[i];
        for l in strip.rates.iter().filter_map(|&j| s.lines.get(j)) {
            let c = l.style.color;
            for &(x0, x1, lo, hi) in &l.steady {
                let (pa, pb) = (f.px(x0).clamp(f.left as f64, f.right as f64) as i32, f.px(x1).clamp(f.left as f64, f.right as f64) as i32);
                let (ya, yb) = (py_of(f, hi.min(s.y.hi)), py_of(f, lo.max(s.y.lo)));
                root.draw(&Rectangle::new([(pa, ya), (pb, yb)], RGBAColor(c.0, c.1, c.2, 0.12).filled())).map_err(e)?;
            }
            stroke(chart, &s.x, &s.y, &l.points, c, l.style.dash, 1)?;
        }
        strip_label(root, f, strip, true)
    })?;
    let all = whole(&frames)?;
    let title = format!("{}: one strip per run, every strip on the same axes", s.title);
    root.draw(&Text::new(title, (all.left, 12), (FONT, 15).into_font().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    if let Some(n) = s.note {
        empty_note(root, &all, n)?;
    }
    Ok(all)
}

/// A strip's run name in its top left corner, after a swatch of the run's colour; a run of
/// several directions names each after its swatch (in its dash when `by_dash`: one level of
/// every run, and the rates, tell a run's directions apart by dash). The focus run's strip is
/// framed in its colour and says so.
fn strip_label<DB: NativeDraw>(root: &DrawingArea<DB, Shift>, f: &Frame, strip: &Strip, by_dash: bool) -> DrawResult<()> {
    let font = (FONT, 12).into_font().style(FontStyle::Bold);
    let style: TextStyle = font.clone().into();
    let plain = (FONT, 12).into_font();
    let width = |t: &str| root.estimate_text_size(t, &style).map_or(8 * t.len() as i32, |s| s.0 as i32);
    let label = if strip.focus { format!("{} (focus)", strip.label) } else { strip.label.clone() };
    let many = strip.dirs.len() > 1;
    let keys: i32 = if many { strip.dirs.iter().map(|(d, _)| width(d) + 34).sum() } else { 0 };
    let (x0, y0) = (f.left + 6, f.top + 4);
    let x1 = x0 + width(&label) + if many { 12 + keys } else { 26 };
    root.draw(&Rectangle::new([(x0, y0), (x1, y0 + 18)], RGBAColor(255, 255, 255, 0.9).filled())).map_err(e)?;
    root.draw(&Rectangle::new([(x0, y0), (x1, y0 + 18)], GRID.stroke_width(1))).map_err(e)?;
    let color = strip.dirs.first().map(|d| d.1.color);
    if strip.focus {
        if let Some(c) = color {
            root.draw(&Rectangle::new([(f.left, f.top), (f.right, f.bottom)], c.stroke_width(3))).map_err(e)?;
        }
    }
    let text_x = if many { x0 + 6 } else { x0 + 20 };
    if let (false, Some(c)) = (many, color) {
        root.draw(&Rectangle::new([(x0 + 5, y0 + 4), (x0 + 15, y0 + 14)], c.filled())).map_err(e)?;
    }
    root.draw(&Text::new(label.clone(), (text_x, y0 + 9), font.color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
    if many {
        let mut x = text_x + width(&label) + 8;
        let y = y0 + 9;
        for (d, st) in &strip.dirs {
            let pts = vec![(x, y), (x + 22, y)];
            let line = st.color.stroke_width(2);
            if by_dash && st.dash.0 > 0 {
                root.draw(&plotters::element::DashedPathElement::new(pts, st.dash.0 as i32, st.dash.1 as i32, line)).map_err(e)?;
            } else {
                root.draw(&PathElement::new(pts, line)).map_err(e)?;
            }
            root.draw(&Text::new(d.clone(), (x + 26, y), plain.clone().color(&INK).pos(Pos::new(HPos::Left, VPos::Center)))).map_err(e)?;
            x += width(d) + 34;
        }
    }
    Ok(())
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
    use crate::charts::{to_svg, RuntimeLine, TraceStyle};

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
        let strips: Vec<Strip> = names
            .iter()
            .enumerate()
            .map(|(i, t)| Strip {
                run: i,
                label: t.to_string(),
                dirs: vec![("all".into(), TraceStyle::nth(i))],
                lines: vec![3 * i, 3 * i + 1, 3 * i + 2],
                rates: vec![],
                focus: false,
            })
            .collect();
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

    #[test]
    fn rate_strips_share_the_runtime_strips_x_axis_and_the_focus_strip_is_named() {
        use crate::charts::RateLine;
        let rates: Vec<RateLine> = (0..4)
            .map(|i| RateLine {
                label: format!("r{} {}", i / 2, if i % 2 == 0 { "read" } else { "write" }),
                style: crate::panels::trace_style(i / 2, i % 2, &crate::state::DirMode::Overlay),
                points: vec![(0.5, 1000.0), (1.5, 1200.0), (2.5, 900.0)],
                steady: vec![(0.0, 3.0, 800.0, 1300.0)],
                faint: false,
            })
            .collect();
        let strips: Vec<Strip> = (0..2)
            .map(|r| Strip {
                run: r,
                label: format!("r{r}"),
                dirs: vec![("read".into(), rates[2 * r].style), ("write".into(), rates[2 * r + 1].style)],
                lines: vec![],
                rates: vec![2 * r, 2 * r + 1],
                focus: r == 1,
            })
            .collect();
        let spec = RateSpec {
            title: "IOPS per window",
            x_desc: "time since start",
            y_desc: "IOPS",
            x_is_time: true,
            lines: &rates,
            x: Scale { lo: 0.0, hi: 3.0, log: false },
            y: Scale { lo: 0.0, hi: 1500.0, log: false },
            selection: None,
            note: None,
            legend: false,
        };
        let (svg, f) = to_svg(900, rate_height(2), |r| draw_rate_strips(r, &spec, &strips)).unwrap();
        let (_, rt) = to_svg(900, height(2), |r| {
            let lines = [line("r0 read", 0, Metric::Median)];
            let s = RuntimeSpec { lines: &lines, x: spec.x, y: Scale { lo: 1e4, hi: 1e7, log: true }, ..runtime_spec() };
            draw_strips(r, &s, &[Strip { lines: vec![0], rates: vec![], ..strips[0].clone() }]).map(|x| x.0)
        })
        .unwrap();
        assert_eq!((f.left, f.right, f.x), (rt.left, rt.right, rt.x), "the runtime strips' x axis");
        for t in ["r0", "r1 (focus)", "read", "write", "IOPS per window: one strip per run"] {
            assert!(svg.contains(t), "missing {t}");
        }
    }

    fn runtime_spec() -> RuntimeSpec<'static> {
        RuntimeSpec {
            title: "t",
            x_desc: "x",
            x_is_time: true,
            lines: &[],
            x: Scale { lo: 0.0, hi: 1.0, log: false },
            y: Scale { lo: 1e4, hi: 1e7, log: true },
            selection: None,
            legend: false,
        }
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
