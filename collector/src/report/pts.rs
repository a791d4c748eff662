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
    match (wsat, m.get("xsr"), m.get("fill")) {
        (Some(w), _, _) => wsat_part(&mut h, w),
        (_, Some(x), _) => xsr_part(&mut h, run, x),
        (_, _, Some(f)) => fill_part(&mut h, run, f),
        _ => rounds_part(&mut h, run, m, round_s),
    }
    if let Some(d) = m.get("di") {
        di_part(&mut h, run, d);
    }
    if let Some(x) = m.get("hir") {
        hir_part(&mut h, run, x);
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
    if let Some(f) = p["fills"].as_array() {
        let list: Vec<String> = f.iter().map(|v| format!("{}%", s(v))).collect();
        rows[3].1 = format!("{}, one after another, each after its own purge and preconditioning", list.join(", "));
    }
    if let Some(x) = p["xsr_segments_s"].as_array() {
        let list: Vec<String> = x.iter().map(|v| format!("{} s", s(v))).collect();
        rows[5] = ("segments", format!("{} (windows of {} s)", list.join(", "), s(&p["round_time_s"])));
    }
    if let Some(d) = p["di"].as_object() {
        let l = |k: &str| d.get(k).and_then(Value::as_array).map(|a| a.iter().map(s).collect::<Vec<_>>().join(", ")).unwrap_or_default();
        rows.push((
            "demand intensity",
            format!(
                "thread counts {} by queue depths {}; histograms of {} s",
                l("threads"),
                l("qds"),
                d.get("hist_time_s").map(s).unwrap_or_default()
            ),
        ));
    }
    if let Some(hp) = p["hir"].as_object() {
        let waits = hp
            .get("waits_s")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| format!("{} s", s(v))).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        rows.push((
            "bursts",
            format!(
                "{} bursts of {} s per wait segment, waits of {waits}, {} s back to baseline after each",
                hp.get("bursts").map(s).unwrap_or_default(),
                hp.get("burst_s").map(s).unwrap_or_default(),
                hp.get("baseline_s").map(s).unwrap_or_default()
            ),
        ));
    }
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

/// Distinct colours for the lines of one chart (a colour-blind-safe set).
const PALETTE: [&str; 8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#222222", "#999933"];

/// The windows of `scope` (either direction) from `from_s` for `seconds`, as `nines stats
/// --tag SCOPE/DIR --from --to` would select them.
fn scope_stats(run: &Run, scope: &str, from_s: f64, to_s: f64) -> Vec<(String, TagStats)> {
    let mut rows = Vec::new();
    for dir in ["read", "write"] {
        let tag = format!("{scope}/{dir}");
        let opts = stats::Options { tag: Some(tag.clone()), from: Some(from_s), to: Some(to_s), ..Default::default() };
        let s = stats::run_stats(run, &opts);
        rows.extend(s.tags.0.into_iter().filter(|(_, t)| t.count > 0));
    }
    rows
}

/// dirth and cbw: demand variation (IOPS against queue depth, one line a thread count), demand
/// intensity (mean response time against IOPS, the hockey stick) and nines' p99.99 against
/// IOPS, the matrix's table and the response-time histograms' levels.
fn di_part(h: &mut String, run: &Run, d: &Value) {
    let points: Vec<&Value> = d["points"].as_array().into_iter().flatten().collect();
    if points.is_empty() {
        return;
    }
    let mut tcs: Vec<u64> = points.iter().filter_map(|p| p["tc"].as_u64()).collect();
    tcs.dedup();
    let by_tc = |tc: u64, x: &dyn Fn(&Value) -> f64, y: &dyn Fn(&Value) -> f64| -> Vec<(f64, f64)> {
        // joined in the order of the queue depth, as the PTS draws them
        let mut v: Vec<(u64, f64, f64)> =
            points.iter().filter(|p| p["tc"].as_u64() == Some(tc)).map(|p| (p["qd"].as_u64().unwrap_or(0), x(p), y(p))).collect();
        v.sort_by_key(|p| p.0);
        v.into_iter().map(|p| (p.1, p.2)).collect()
    };
    let names: Vec<String> = tcs.iter().map(|t| format!("T{t}")).collect();
    let f = |k: &'static str| move |p: &Value| p[k].as_f64().unwrap_or(f64::NAN);
    let lines = |x: &dyn Fn(&Value) -> f64, y: &dyn Fn(&Value) -> f64| -> Vec<(usize, Vec<(f64, f64)>)> {
        tcs.iter().enumerate().map(|(i, &tc)| (i, by_tc(tc, x, y))).collect()
    };
    let draw = |series: Vec<(usize, Vec<(f64, f64)>)>| -> Vec<Line<'_>> {
        series
            .into_iter()
            .map(|(i, pts)| Line { name: &names[i], color: PALETTE[i % PALETTE.len()], points: pts, dash: false, marks: true })
            .collect()
    };
    h.push_str("<h3>Demand variation: IOPS against queue depth, a line per thread count</h3>\n");
    h.push_str(&chart_xy(
        "IOPS by queue depth (TnQm: n threads, m I/Os each)",
        "queue depth per thread",
        &draw(lines(&f("qd"), &f("iops"))),
        None,
        &tick_text,
        &|v| format_rate(v),
    ));
    h.push_str("<h3>Demand intensity: response time against IOPS</h3>\n");
    h.push_str(&chart_xy(
        "mean response time against IOPS, a line per thread count",
        "IOPS",
        &draw(lines(&f("iops"), &f("mean_ns"))),
        None,
        &|v| format_rate(v),
        &|v| format_ns_f(v),
    ));
    h.push_str(&chart_xy(
        "p99.99 response time against IOPS (nines): the tail's hockey stick",
        "IOPS",
        &draw(lines(&f("iops"), &f("p9999_ns"))),
        None,
        &|v| format_rate(v),
        &|v| format_ns_f(v),
    ));
    h.push_str("<table class=\"ns-stats\" data-testid=\"pts-di\">\n<tr><th>TC</th><th>QD</th><th>outstanding</th><th>IOPS</th><th>mean</th><th>p99</th><th>p99.99</th><th>max</th></tr>\n");
    let ns = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format_ns(x as u64));
    for p in &points {
        let _ = writeln!(
            h,
            "<tr data-testid=\"pts-di-row\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            p["tc"],
            p["qd"],
            p["oio"],
            p["iops"].as_f64().map_or("-".into(), format_rate),
            ns(&p["mean_ns"]),
            ns(&p["p99_ns"]),
            ns(&p["p9999_ns"]),
            ns(&p["max_ns"])
        );
    }
    h.push_str("</table>\n");
    let hists: Vec<&Value> = d["histograms"].as_array().into_iter().flatten().collect();
    if !hists.is_empty() {
        h.push_str("<h3>Response-time histograms at the maximum, middle and minimum IOPS points</h3>\n<ul class=\"ns-meta\">\n");
        let mut rows = Vec::new();
        for x in &hists {
            let from = x["from_s"].as_f64().unwrap_or(0.0);
            let to = from + x["seconds"].as_f64().unwrap_or(0.0) + 1.0;
            let _ = writeln!(
                h,
                "<li>{}: {} ({} s)</li>",
                esc(x["point"].as_str().unwrap_or("")),
                esc(x["cell"].as_str().unwrap_or("")),
                x["seconds"]
            );
            rows.extend(scope_stats(run, x["scope"].as_str().unwrap_or(""), from, to));
        }
        h.push_str("</ul>\n");
        results_table(h, &rows, &|tag| block_size(run, tag));
    }
}

/// hir: burst IOPS against time (each segment a line, baseline windows their own), the
/// segments' table and each segment's levels.
fn hir_part(h: &mut String, run: &Run, x: &Value) {
    let bursts: Vec<&Value> = x["bursts"].as_array().into_iter().flatten().collect();
    let segments: Vec<&Value> = x["segments"].as_array().into_iter().flatten().collect();
    let names: Vec<String> = segments.iter().map(|s| format!("wait {} s", s["wait_s"])).collect();
    let mut lines: Vec<Line> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: &names[i],
            color: PALETTE[i % PALETTE.len()],
            points: bursts
                .iter()
                .filter(|b| b["segment"] == s["segment"])
                .map(|b| (b["from_s"].as_f64().unwrap_or(f64::NAN), b["iops"].as_f64().unwrap_or(f64::NAN)))
                .collect(),
            dash: false,
            marks: true,
        })
        .collect();
    let steady = x["steady_iops"].as_f64();
    let t0 = bursts.first().and_then(|b| b["from_s"].as_f64()).unwrap_or(0.0);
    let t1 = bursts.last().and_then(|b| b["from_s"].as_f64()).unwrap_or(0.0);
    if let Some(s) = steady {
        lines.push(Line { name: "steady baseline", color: "#222", points: vec![(t0, s), (t1, s)], dash: true, marks: false });
    }
    h.push_str("<h3>Host idle recovery: IOPS of each burst against time</h3>\n");
    h.push_str(&chart_xy("burst IOPS after idle waits", "time (s)", &lines, None, &tick_text, &|v| format_rate(v)));
    h.push_str("<table class=\"ns-check\" data-testid=\"pts-hir\"><tr><th>wait</th><th>bursts</th><th>burst IOPS</th><th>against steady</th><th>back to baseline</th></tr>\n");
    for s in &segments {
        let _ = writeln!(
            h,
            "<tr><td>{} s</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            s["wait_s"],
            s["bursts"],
            s["burst_iops"].as_f64().map_or("-".into(), format_rate),
            s["over_steady"].as_f64().map_or("-".into(), |r| format!("{r:.2} x")),
            s["baseline_iops"].as_f64().map_or("-".into(), format_rate)
        );
    }
    h.push_str("</table>\n");
    let mut rows = Vec::new();
    for s in &segments {
        rows.extend(scope_stats(run, s["scope"].as_str().unwrap_or(""), 0.0, f64::MAX));
    }
    h.push_str("<h3>Every burst of each wait segment: the levels of nines</h3>\n<p class=\"ns-note\">IOPS here is <code>nines stats</code>' over each segment's span, idle waits included; the table above gives the bursts' own.</p>\n");
    results_table(h, &rows, &|tag| block_size(run, tag));
}

/// xsr: MB/s against time over the three segments, their table, recovery, and each
/// segment's levels.
fn xsr_part(h: &mut String, run: &Run, x: &Value) {
    let points: Vec<&Value> = x["points"].as_array().into_iter().flatten().collect();
    let segments: Vec<&Value> = x["segments"].as_array().into_iter().flatten().collect();
    let names: Vec<String> = segments.iter().map(|s| format!("{}: {}", s["segment"], s["cell"].as_str().unwrap_or(""))).collect();
    let lines: Vec<Line> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: &names[i],
            color: PALETTE[i % PALETTE.len()],
            points: points
                .iter()
                .filter(|p| p["segment"] == s["segment"])
                .map(|p| {
                    (
                        p["start_s"].as_f64().unwrap_or(f64::NAN) + p["seconds"].as_f64().unwrap_or(0.0),
                        p["mbps"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect(),
            dash: false,
            marks: points.len() <= 200,
        })
        .collect();
    h.push_str("<h3>Cross-stimulus recovery: throughput against time</h3>\n");
    h.push_str(&chart_xy("MB/s per window: sequential, random, sequential writes", "time (s)", &lines, None, &tick_text, &|v| {
        format_rate(v)
    }));
    h.push_str("<table class=\"ns-check\" data-testid=\"pts-xsr\"><tr><th>segment</th><th>workload</th><th>seconds</th><th>average MB/s</th></tr>\n");
    for s in &segments {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td></tr>",
            s["segment"],
            esc(s["cell"].as_str().unwrap_or("")),
            s["seconds"],
            s["mbps"].as_f64().unwrap_or(f64::NAN)
        );
    }
    h.push_str("</table>\n");
    let reference = x["reference_mbps"].as_f64().unwrap_or(f64::NAN);
    let _ = match x["recovered_after_s"].as_f64() {
        Some(t) => writeln!(h, "<p class=\"ns-meta\" data-testid=\"pts-recovery\">Recovered: the last segment held 90% of the first segment's final {reference:.1} MB/s from {t} s after it began (window {}).</p>", x["recovered_window"]),
        None => writeln!(h, "<p class=\"ns-meta\" data-testid=\"pts-recovery\">Not recovered: the last segment never held 90% of the first segment's final {reference:.1} MB/s.</p>"),
    };
    let mut rows = Vec::new();
    for s in &segments {
        rows.extend(scope_stats(run, s["scope"].as_str().unwrap_or(""), 0.0, f64::MAX));
    }
    h.push_str("<h3>Each segment: the levels of nines</h3>\n");
    results_table(h, &rows, &|tag| block_size(run, tag));
}

/// fill: IOPS per round of each active range (their convergence), steady IOPS against the
/// range, and the levels over each range's measurement window.
fn fill_part(h: &mut String, run: &Run, f: &Value) {
    let levels: Vec<&Value> = f.as_array().into_iter().flatten().collect();
    let names: Vec<String> = levels.iter().map(|l| format!("{}%", l["active_range_pct"].as_f64().unwrap_or(0.0))).collect();
    let lines: Vec<Line> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| Line {
            name: &names[i],
            color: PALETTE[i % PALETTE.len()],
            points: l["iops"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(r, v)| ((r + 1) as f64, v.as_f64().unwrap_or(f64::NAN)))
                .collect(),
            dash: false,
            marks: true,
        })
        .collect();
    h.push_str("<h3>Convergence at each active range: IOPS per round</h3>\n");
    h.push_str(&chart("4 KiB random writes: IOPS per round, a line per active range", "round", &lines, None, &|v| format_rate(v)));
    let steady: Vec<(f64, f64)> =
        levels.iter().filter_map(|l| Some((l["active_range_pct"].as_f64()?, l["average_iops"].as_f64()?))).collect();
    h.push_str("<h3>Steady-state IOPS against the active range</h3>\n");
    h.push_str(&chart_xy(
        "steady 4 KiB random write IOPS by how much of the drive is written",
        "active range (% of the capacity)",
        &[Line { name: "IOPS over the measurement window", color: PALETTE[0], points: steady, dash: false, marks: true }],
        None,
        &tick_text,
        &|v| format_rate(v),
    ));
    h.push_str("<table class=\"ns-check\" data-testid=\"pts-fill\"><tr><th>active range</th><th>bytes</th><th>rounds</th><th>verdict</th><th>average IOPS</th></tr>\n");
    let mut rows = Vec::new();
    for l in &levels {
        let _ = writeln!(
            h,
            "<tr><td>{}%</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"ns-v-{}\">{}</td><td class=\"num\">{}</td></tr>",
            l["active_range_pct"].as_f64().unwrap_or(0.0),
            format_size(l["region_bytes"].as_u64().unwrap_or(0)),
            l["iops"].as_array().map_or(0, Vec::len),
            if l["steady"] == true { "meets" } else { "fails" },
            esc(l["verdict"].as_str().unwrap_or("")),
            l["average_iops"].as_f64().map_or("-".into(), format_rate)
        );
        let w = &l["window"];
        if let (Some(from), Some(to)) = (w["from_s"].as_f64(), w["to_s"].as_f64()) {
            // the window's rounds: from the first's start to just before the next round's
            rows.extend(scope_stats(run, l["scope"].as_str().unwrap_or(""), from, to - 1e-9));
        }
    }
    h.push_str("</table>\n<h3>Over each range's measurement window: the levels of nines</h3>\n");
    results_table(h, &rows, &|tag| block_size(run, tag));
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
    chart_xy(title, x_label, lines, shade, &tick_text, y_fmt)
}

/// [`chart`] with the x ticks' text written by `x_fmt`.
fn chart_xy(
    title: &str,
    x_label: &str,
    lines: &[Line],
    shade: Option<(f64, f64)>,
    x_fmt: &dyn Fn(f64) -> String,
    y_fmt: &dyn Fn(f64) -> String,
) -> String {
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
        let _ = writeln!(s, "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#999\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>", hgt - bottom, hgt - bottom + 4.0, hgt - bottom + 16.0, esc(&x_fmt(t)));
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
