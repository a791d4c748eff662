//! A SNIA PTS archive's part of a report's header (shown with and without the viewer): the
//! test conditions with every deviation named, the convergence of each tracked result over the
//! rounds, the steady-state window (its values, average, the 90% and 110% lines and the fitted
//! line), the window table and the results table over the window with the levels of nines
//! (PTS 2.0.2's report shows averages and a maximum only); for wsat its IOPS against time and
//! against bytes written with the regions found, for qos the response-time histogram's levels.
//!
//! The charts are SVG written here rather than by plotters: natively plotters lays out text
//! with a font library and the host's fonts (its `ttf` feature), which a report must not
//! depend on; a browser lays out the `<text>` of inline SVG itself. They are small line charts
//! of tens to a few thousand points.

use std::fmt::Write as _;

use nines_core::quantile::Support;
use nines_core::run::Run;
use nines_core::stats::{self, TagStats};
use nines_core::units::{format_ns, format_ns_f, format_rate, format_size, group};
use serde_json::Value;

use super::html::esc;

/// The section for a run written by `nines pts`, or `None` for any other run.
pub fn section(run: &Run) -> Option<String> {
    let m = &run.meta.pts;
    let test = m.get("test")?.as_str()?;
    let p = m.get("params").cloned().unwrap_or(Value::Null);
    let round_s = p["round_time_s"].as_f64().unwrap_or(60.0);
    let mut h = String::new();
    let wsat = m.get("wsat");
    let verdict = match wsat {
        Some(w) => format!("ended by {}", w["ended_by"].as_str().unwrap_or("")),
        None => m.get("verdict").and_then(Value::as_str).unwrap_or("").to_string(),
    };
    let steady = m.get("steady").and_then(Value::as_bool).unwrap_or(false);
    let _ = writeln!(
        h,
        "<section class=\"ns-pts\" data-testid=\"report-pts\" data-test=\"{}\" data-steady=\"{steady}\">\n<h2>SNIA PTS {} ({}) of {}: {}</h2>",
        esc(test),
        esc(test),
        esc(m.get("profile").and_then(Value::as_str).unwrap_or("")),
        esc(&run.name),
        esc(&verdict)
    );
    conditions(&mut h, m, &p);
    let deviations: Vec<&str> = m.get("deviations").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    if deviations.is_empty() {
        h.push_str("<p class=\"ns-meta\" data-testid=\"pts-deviations\">No deviation from the specification.</p>\n");
    } else {
        h.push_str("<h3>Deviations from the specification</h3>\n<ul class=\"ns-deviations\" data-testid=\"pts-deviations\">\n");
        for d in &deviations {
            let _ = writeln!(h, "<li>{}</li>", esc(d));
        }
        h.push_str("</ul>\n");
    }
    match wsat {
        Some(w) => wsat_part(&mut h, w),
        None => rounds_part(&mut h, run, m, round_s),
    }
    if let Some(q) = m.get("qos") {
        let from = q["from_s"].as_f64().unwrap_or(0.0);
        let opts = stats::Options { tag: Some("qos/write".into()), from: Some(from), ..Default::default() };
        let s = stats::run_stats(run, &opts);
        let _ = writeln!(
            h,
            "<h3>Response-time histogram: {} s of 4 KiB random writes after round {}</h3>",
            q["seconds"].as_f64().unwrap_or(0.0),
            q["after_round"].as_u64().unwrap_or(0)
        );
        results_table(&mut h, &s.tags.0, &|_| Some(4096));
    }
    h.push_str("</section>\n");
    Some(h)
}

/// The test conditions: what ran, on what, how it was purged and preconditioned.
fn conditions(h: &mut String, m: &serde_json::Map<String, Value>, p: &Value) {
    let dev = m.get("device").cloned().unwrap_or(Value::Null);
    let s = |v: &Value| v.as_str().map(str::to_string).or_else(|| v.as_f64().map(|f| f.to_string())).unwrap_or_default();
    let device =
        ["model", "serial", "firmware_rev", "wwid"].iter().map(|k| s(&dev[*k])).filter(|x| !x.is_empty()).collect::<Vec<_>>().join(", ");
    let mut rows: Vec<(&str, String)> = vec![
        ("specification", s(&m.get("specification").cloned().unwrap_or(Value::Null))),
        ("target", format!("{}{}", s(&dev["path"]), if device.is_empty() { String::new() } else { format!(" ({device})") })),
        ("capacity", dev["capacity_bytes"].as_u64().map(format_size).unwrap_or_default()),
        (
            "active range",
            format!(
                "{}% ({})",
                s(&p["active_range_pct"]),
                m.get("active_range_bytes").and_then(Value::as_u64).map(format_size).unwrap_or_default()
            ),
        ),
        (
            "outstanding I/O",
            format!("{} thread{} x QD{}", s(&p["threads"]), if p["threads"].as_u64() == Some(1) { "" } else { "s" }, s(&p["qd"])),
        ),
        (
            "rounds",
            format!("{} s each, at most {}, steady state over {}", s(&p["round_time_s"]), s(&p["max_rounds"]), s(&p["window_rounds"])),
        ),
        ("purge", s(&m.get("purge").map(|x| x["done"].clone()).unwrap_or(Value::Null))),
    ];
    if let Some(pre) = m.get("precondition").filter(|x| !x.is_null()) {
        rows.push((
            "preconditioning",
            format!(
                "{} x the capacity in 128 KiB sequential writes: {} written",
                s(&pre["passes"]),
                pre["bytes_written"].as_u64().map(format_size).unwrap_or_default()
            ),
        ));
    }
    h.push_str("<table class=\"ns-runs\" data-testid=\"pts-conditions\">\n");
    for (k, v) in rows {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    }
    h.push_str("</table>\n");
}

/// The rounds of iops, tp, lat and qos: convergence, the window and the results over it.
fn rounds_part(h: &mut String, run: &Run, m: &serde_json::Map<String, Value>, round_s: f64) {
    let rounds: Vec<Vec<f64>> = m
        .get("rounds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| r["tracked"].as_array().into_iter().flatten().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect())
        .collect();
    let tracked: Vec<(String, String)> = m
        .get("tracked")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| (t["cell"].as_str().unwrap_or("").to_string(), t["measure"].as_str().unwrap_or("").to_string()))
        .collect();
    let window = m
        .get("window")
        .filter(|w| !w.is_null())
        .map(|w| (w["first_round"].as_u64().unwrap_or(1) as usize, w["last_round"].as_u64().unwrap_or(0) as usize));
    let fmt = |measure: &str, v: f64| -> String {
        match measure {
            x if x.contains("IOPS") => format_rate(v),
            x if x.contains("MB/s") => format!("{v:.1}"),
            _ => format_ns_f(v),
        }
    };
    for (k, (cell, measure)) in tracked.iter().enumerate() {
        let series: Vec<(f64, f64)> =
            rounds.iter().enumerate().map(|(r, v)| ((r + 1) as f64, v.get(k).copied().unwrap_or(f64::NAN))).collect();
        let _ = writeln!(h, "<h3>Convergence: {} ({})</h3>", esc(cell), esc(measure));
        let shade = window.map(|(f, e)| (f as f64 - 0.5, e as f64 + 0.5));
        h.push_str(&chart(
            &format!("{cell}: {measure} per round"),
            "round",
            &[Line { name: measure, color: "#2b5fb4", points: series.clone(), dash: false, marks: true }],
            shade,
            &|v| fmt(measure, v),
        ));
        if let Some((f, e)) = window {
            let pts: Vec<(f64, f64)> = series[f - 1..e.min(series.len())].to_vec();
            let values: Vec<f64> = pts.iter().map(|p| p.1).collect();
            if let Some(ev) = nines_core::steady::pts(&values) {
                let x0 = pts.first().map_or(0.0, |p| p.0);
                let x1 = pts.last().map_or(0.0, |p| p.0);
                let xm = (x0 + x1) / 2.0;
                let flat = |y: f64| vec![(x0, y), (x1, y)];
                let _ = writeln!(h, "<h3>Steady-state window: rounds {f}..{e}</h3>");
                h.push_str(&chart(
                    &format!("{cell}: the measurement window"),
                    "round",
                    &[
                        Line { name: measure, color: "#2b5fb4", points: pts.clone(), dash: false, marks: true },
                        Line { name: "average", color: "#222", points: flat(ev.average), dash: false, marks: false },
                        Line { name: "110% of average", color: "#b33", points: flat(1.1 * ev.average), dash: true, marks: false },
                        Line { name: "90% of average", color: "#b33", points: flat(0.9 * ev.average), dash: true, marks: false },
                        Line {
                            name: "least-squares line",
                            color: "#2a8",
                            points: vec![(x0, ev.average + ev.slope * (x0 - xm)), (x1, ev.average + ev.slope * (x1 - xm))],
                            dash: false,
                            marks: false,
                        },
                    ],
                    None,
                    &|v| fmt(measure, v),
                ));
                let _ = writeln!(
                    h,
                    "<table class=\"ns-check\" data-testid=\"pts-window\"><tr><th>tracked result</th><th>average</th><th>range</th><th>fitted line's excursion</th><th>verdict</th></tr>\n<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}% (limit 20%)</td><td class=\"num\">{:.1}% (limit 10%)</td><td class=\"ns-v-{}\">{}</td></tr></table>",
                    esc(cell),
                    esc(&fmt(measure, ev.average)),
                    100.0 * ev.range / ev.average,
                    100.0 * ev.excursion / ev.average,
                    if ev.holds { "meets" } else { "fails" },
                    if ev.holds { "holds" } else { "does not hold" }
                );
            }
        }
    }
    if let Some((f, e)) = window {
        let opts = stats::Options {
            from: Some(((f as f64 - 1.5) * round_s).max(0.0)),
            to: Some((e as f64 - 0.5) * round_s),
            ..Default::default()
        };
        let s = stats::run_stats(run, &opts);
        let rows: Vec<(String, TagStats)> = s.tags.0.into_iter().filter(|(t, _)| t != "qos/write").collect();
        let _ = writeln!(h, "<h3>Results over rounds {f}..{e}: every cell, every level</h3>");
        results_table(h, &rows, &|tag| block_size(run, tag));
    }
}

/// The results table: per cell and direction IOPS, MB/s, mean and the levels of nines, thin
/// ones marked, as `nines stats` computes them.
fn results_table(h: &mut String, rows: &[(String, TagStats)], bs: &dyn Fn(&str) -> Option<u64>) {
    let labels = ["p99", "p99.9", "p99.99", "p99.999", "p99.9999"];
    h.push_str(
        "<table class=\"ns-stats\" data-testid=\"pts-results\">\n<tr><th>cell/dir</th><th>I/Os</th><th>IOPS</th><th>MB/s</th><th>mean</th>",
    );
    for l in labels {
        let _ = write!(h, "<th>{l}</th>");
    }
    h.push_str("<th>max</th></tr>\n");
    for (tag, s) in rows {
        let mbs = bs(tag).map(|b| format!("{:.1}", s.iops * b as f64 / 1e6)).unwrap_or_default();
        let _ = write!(
            h,
            "<tr data-testid=\"pts-row\" data-dir=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            esc(tag),
            esc(tag),
            group(s.count),
            format_rate(s.iops),
            mbs,
            if s.count > 0 { format_ns_f(s.mean_ns) } else { "-".into() }
        );
        for l in labels {
            match s.levels.iter().find(|x| x.label == l) {
                Some(x) if x.value_ns.is_some() => {
                    let v = format_ns(x.value_ns.unwrap_or(0));
                    if x.support == Support::Thin {
                        let _ = write!(
                            h,
                            "<td class=\"num ns-thin\" title=\"thin: only {} I/Os beyond this level\">{}*</td>",
                            group(x.beyond),
                            esc(&v)
                        );
                    } else {
                        let _ = write!(h, "<td class=\"num\">{}</td>", esc(&v));
                    }
                }
                _ => h.push_str("<td></td>"),
            }
        }
        let _ = writeln!(h, "<td class=\"num\">{}</td></tr>", if s.count > 0 { format_ns(s.max_ns) } else { "-".into() });
    }
    h.push_str("</table>\n<p class=\"ns-note\">* thin: fewer than 100 I/Os lie beyond the level. Blank: no I/O lies beyond it.</p>\n");
}

/// A cell's block size, from the workload its first round recorded.
fn block_size(run: &Run, tag: &str) -> Option<u64> {
    let scope = tag.rsplit_once('/')?.0;
    let job = run.meta.jobs.iter().find(|j| j.scope.as_deref() == Some(scope))?;
    match job.bs_bytes.as_slice() {
        [(b, _)] => Some(*b),
        _ => None,
    }
}

/// wsat: IOPS against time and against bytes written, the regions marked, and their table.
fn wsat_part(h: &mut String, w: &Value) {
    let points: Vec<(f64, f64, f64)> = w["points"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let end = p["start_s"].as_f64().unwrap_or(0.0) + p["seconds"].as_f64().unwrap_or(0.0);
            (end, p["written_bytes"].as_f64().unwrap_or(0.0), p["iops"].as_f64().unwrap_or(f64::NAN))
        })
        .collect();
    let regions = &w["regions"];
    let span = |v: &Value| {
        v.as_array().filter(|a| a.len() == 2).map(|a| (a[0].as_u64().unwrap_or(0) as usize, a[1].as_u64().unwrap_or(0) as usize))
    };
    let steady = span(&regions["steady"]);
    let iops_fmt = |v: f64| format_rate(v);
    for (x_label, pick) in [("time (s)", 0usize), ("bytes written (GB)", 1)] {
        let pts: Vec<(f64, f64)> = points.iter().map(|p| (if pick == 0 { p.0 } else { p.1 / 1e9 }, p.2)).collect();
        let shade = steady.filter(|(a, e)| a < e && *e <= pts.len()).map(|(a, e)| (if a == 0 { 0.0 } else { pts[a - 1].0 }, pts[e - 1].0));
        let _ = writeln!(h, "<h3>IOPS against {}</h3>", if pick == 0 { "time" } else { "bytes written" });
        h.push_str(&chart(
            &format!("4 KiB random writes: IOPS per round against {x_label}"),
            x_label,
            &[Line { name: "IOPS", color: "#2b5fb4", points: pts, dash: false, marks: points.len() <= 120 }],
            shade,
            &iops_fmt,
        ));
    }
    h.push_str("<table class=\"ns-check\" data-testid=\"pts-regions\"><tr><th>region</th><th>rounds</th><th>average IOPS</th></tr>\n");
    let avg = |(a, e): (usize, usize)| {
        let v: Vec<f64> = points[a.min(points.len())..e.min(points.len())].iter().map(|p| p.2).collect();
        if v.is_empty() {
            String::new()
        } else {
            format_rate(v.iter().sum::<f64>() / v.len() as f64)
        }
    };
    for (name, key) in [("fresh out of the box", "fresh"), ("transition", "transition"), ("steady state", "steady")] {
        if let Some(s) = span(&regions[key]).filter(|(a, e)| a < e) {
            let _ = writeln!(h, "<tr><td>{name}</td><td class=\"num\">{}..{}</td><td class=\"num\">{}</td></tr>", s.0 + 1, s.1, avg(s));
        }
    }
    if let Some(l) = regions["lost_at"].as_u64() {
        let l = l as usize;
        let _ = writeln!(
            h,
            "<tr><td>steady state lost</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            l + 1,
            points.get(l).map(|p| format_rate(p.2)).unwrap_or_default()
        );
    }
    if steady.is_none() {
        h.push_str("<tr><td>steady state</td><td colspan=\"2\">not reached</td></tr>\n");
    }
    let _ = writeln!(
        h,
        "</table>\n<p class=\"ns-note\">{:.2} GB written ({:.2} x the capacity) of the {} goal.</p>",
        w["written_bytes"].as_f64().unwrap_or(0.0) / 1e9,
        w["capacity_writes"].as_f64().unwrap_or(0.0),
        format_size(w["goal_bytes"].as_u64().unwrap_or(0))
    );
}

/// One line of a chart.
struct Line<'a> {
    name: &'a str,
    color: &'a str,
    points: Vec<(f64, f64)>,
    dash: bool,
    marks: bool,
}

/// A line chart as inline SVG: y from 0 (rates and latencies are read against zero), x over
/// the points, a shaded x range, a legend, ticks at 1, 2 or 5 times a power of ten.
fn chart(title: &str, x_label: &str, lines: &[Line], shade: Option<(f64, f64)>, y_fmt: &dyn Fn(f64) -> String) -> String {
    let (w, hgt, left, right, top, bottom) = (640.0, 240.0, 70.0, 16.0, 28.0, 62.0);
    let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let all: Vec<(f64, f64)> = lines.iter().flat_map(|l| l.points.iter().filter(finite).copied()).collect();
    let (mut x0, mut x1) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    if !(x0.is_finite() && x1.is_finite()) {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y1 = all.iter().map(|p| p.1).fold(0.0, f64::max) * 1.08;
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| top + (1.0 - y / y1) * (hgt - top - bottom);
    let mut s = format!(
        "<svg class=\"ns-chart\" data-testid=\"pts-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
        esc(title),
        w / 2.0,
        esc(title)
    );
    if let Some((a, b)) = shade {
        let (a, b) = (px(a.max(x0)), px(b.min(x1)));
        let _ = writeln!(
            s,
            "<rect x=\"{a:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{}\" fill=\"#2b5fb4\" fill-opacity=\"0.10\"/>",
            (b - a).max(0.0),
            hgt - top - bottom
        );
    }
    for t in ticks(0.0, y1) {
        let y = py(t);
        let _ = writeln!(s, "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", w - right, left - 4.0, y + 4.0, esc(&y_fmt(t)));
    }
    // rounds are whole numbers
    for t in ticks(x0, x1).into_iter().filter(|t| x_label != "round" || t.fract() == 0.0) {
        let x = px(t);
        let _ = writeln!(s, "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#999\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>", hgt - bottom, hgt - bottom + 4.0, hgt - bottom + 16.0, tick_text(t));
    }
    let _ = writeln!(s, "<line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{}\" stroke=\"#555\"/><line x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#555\"/>", hgt - bottom, w - right, hgt - bottom, hgt - bottom);
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (left + w - right) / 2.0,
        hgt - bottom + 32.0,
        esc(x_label)
    );
    for (i, l) in lines.iter().enumerate() {
        let path: Vec<String> = l.points.iter().filter(finite).map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let dash = if l.dash { " stroke-dasharray=\"5 4\"" } else { "" };
        let _ = writeln!(s, "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{dash} points=\"{}\"/>", l.color, path.join(" "));
        if l.marks {
            for &(x, y) in l.points.iter().filter(finite) {
                let _ = write!(s, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{}\"/>", px(x), py(y), l.color);
            }
            s.push('\n');
        }
        // the legend, in a row under the axis title (about 6 px a character at 11 px)
        let lx = left + lines[..i].iter().map(|l| 34.0 + 6.2 * l.name.chars().count() as f64).sum::<f64>();
        let ly = hgt - 10.0;
        let _ = writeln!(
            s,
            "<line x1=\"{lx}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{ly}\">{}</text>",
            lx + 18.0,
            ly - 4.0,
            ly - 4.0,
            l.color,
            lx + 22.0,
            esc(l.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// About five ticks from `lo` to `hi` at 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return vec![lo];
    }
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() * step;
    (0..).map(|i| first + i as f64 * step).take_while(|t| *t <= hi + step * 1e-9).take(50).collect()
}

fn tick_text(t: f64) -> String {
    if t == t.round() && t.abs() < 1e15 {
        format!("{}", t as i64)
    } else {
        let s = format!("{t:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_within_the_range() {
        assert_eq!(ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(1.0, 25.0), vec![5.0, 10.0, 15.0, 20.0, 25.0]);
        assert_eq!(ticks(0.0, 0.6), vec![0.0, 0.2, 0.4, 0.6000000000000001]);
        assert_eq!(ticks(3.0, 3.0), vec![3.0]);
        assert_eq!(tick_text(0.1 + 0.2), "0.3");
        assert_eq!(tick_text(25.0), "25");
    }

    #[test]
    fn a_run_without_pts_metadata_has_no_section() {
        assert!(section(&Run::default()).is_none());
    }
}
