//! The report's static summary: title, notes, the runs with their workload and target, and
//! per run the stats table of `nines stats` (the same `nines_core::stats` numbers, the same
//! cell text). Plain HTML rendered when the report is written, so that it reads with scripts
//! and WebAssembly blocked.

use nines_core::meta::{RunMeta, Size};
use nines_core::quantile::Support;
use nines_core::run::Run;
use nines_core::spec::{self, RunCheck};
use nines_core::stats::RunStats;
use nines_core::units::{format_ns, format_ns_f, format_rate, format_size, group, iso_date};
use serde_json::{Map, Value};

use super::html::esc;

/// One run as the summary shows it.
pub struct Entry<'a> {
    /// The file name the run is embedded under.
    pub file: &'a str,
    pub run: &'a Run,
    pub stats: &'a RunStats,
    /// What the report carries of the run (the full archive, or its compact form and the
    /// grouping of its histograms).
    pub carries: &'a str,
}

/// The summary's HTML (a fragment: header, notes, run list, tables).
pub fn render(
    title: &str,
    notes_html: Option<&str>,
    entries: &[Entry],
    comparison: Option<&str>,
    qos: Option<&Qos>,
    generated: &str,
) -> String {
    let mut h = String::new();
    h.push_str("<header class=\"ns-head\" id=\"nines-report-head\">\n");
    h.push_str(&format!("<h1 data-testid=\"report-title\">{}</h1>\n", esc(title)));
    h.push_str(&format!(
        "<p class=\"ns-meta\">{} run{} &middot; written by nines {} on {}</p>\n",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        esc(env!("CARGO_PKG_VERSION")),
        esc(generated)
    ));
    if let Some(n) = notes_html {
        h.push_str(&format!("<div class=\"ns-notes\" data-testid=\"report-notes\">\n{n}</div>\n"));
    }
    if let Some(q) = qos {
        h.push_str(&qos_section(q));
    }
    for e in entries {
        if let Some(p) = super::pts::section(e.run) {
            h.push_str(&p);
        }
    }
    h.push_str("</header>\n");

    h.push_str("<section class=\"ns-summary\" id=\"nines-summary\" data-testid=\"summary\">\n");
    h.push_str(
        "<p class=\"ns-static\" id=\"nines-static-note\">Static summary, written with the report. \
         The interactive viewer replaces it when the browser runs scripts and WebAssembly.</p>\n",
    );
    h.push_str("<h2>Runs</h2>\n<table class=\"ns-runs\" data-testid=\"summary-runs\">\n");
    h.push_str("<tr><th>run</th><th>file</th><th>workload</th><th>target</th><th>start</th><th>duration</th><th>carried</th></tr>\n");
    for (i, e) in entries.iter().enumerate() {
        h.push_str(&format!(
            "<tr data-testid=\"summary-run\" data-run=\"{i}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{:.1} s</td><td data-testid=\"summary-carries\">{}</td></tr>\n",
            esc(&e.run.name),
            esc(e.file),
            esc(&workload(&e.run.meta)),
            esc(&target(&e.run.meta)),
            esc(&e.run.start_time.map(iso_date).unwrap_or_default()),
            e.stats.duration_s,
            esc(e.carries)
        ));
    }
    h.push_str("</table>\n");
    if let Some(c) = comparison {
        h.push_str("<h2>Baseline against candidates (nines compare)</h2>\n");
        h.push_str(&format!("<pre class=\"ns-compare\" data-testid=\"summary-compare\">{}</pre>\n", esc(c)));
    }
    for (i, e) in entries.iter().enumerate() {
        h.push_str(&run_section(i, e));
    }
    h.push_str("</section>\n");
    h
}

/// A QoS spec's verdicts, for the report's header (shown with and without the viewer).
#[derive(Debug)]
pub struct Qos {
    /// Where the limits came from: the spec file's name, `--limit`, or both.
    pub source: String,
    pub checks: Vec<RunCheck>,
}

/// The verdict table of `nines check`: one row per run and limit, the same value, interval and
/// verdict text.
fn qos_section(q: &Qos) -> String {
    let (all, [meets, fails, unsure]) = spec::tally(&q.checks);
    let mut h = format!(
        "<section class=\"ns-qos\" data-testid=\"report-qos\" data-verdict=\"{}\">\n<h2>QoS spec {}: {}</h2>\n",
        all.key(),
        esc(&q.source),
        esc(all.text())
    );
    h.push_str(&format!(
        "<p class=\"ns-meta\">{meets} limit{} met, {fails} failed, {unsure} cannot tell (as <code>nines check</code>: the verdict is judged on each value's 95% interval; thin support is never a pass)</p>\n",
        if meets == 1 { "" } else { "s" }
    ));
    h.push_str("<table class=\"ns-check\">\n<tr><th>run</th><th>limit</th><th>value</th><th>95% interval</th><th>I/Os</th><th>beyond</th><th>verdict</th><th>why</th></tr>\n");
    for r in &q.checks {
        if r.checks.is_empty() {
            h.push_str(&format!(
                "<tr data-testid=\"qos-row\" data-verdict=\"cannot_tell\"><td>{}</td><td colspan=\"5\"></td><td class=\"ns-v-cannot_tell\">cannot tell</td><td>{}</td></tr>\n",
                esc(&r.name),
                esc(r.note.as_deref().unwrap_or(""))
            ));
        }
        for c in &r.checks {
            let v = c.verdict.key();
            h.push_str(&format!(
                "<tr data-testid=\"qos-row\" data-verdict=\"{v}\" data-limit=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"ns-v-{v}\">{}</td><td>{}</td></tr>\n",
                esc(&c.limit),
                esc(&r.name),
                esc(&c.limit),
                esc(&c.value_text()),
                esc(&c.interval_text()),
                esc(&group(c.count)),
                esc(&c.beyond.map(group).unwrap_or_default()),
                esc(c.verdict.text()),
                esc(c.reason.as_deref().unwrap_or(""))
            ));
        }
    }
    h.push_str("</table>\n</section>\n");
    h
}

fn run_section(i: usize, e: &Entry) -> String {
    let r = e.stats;
    let mut h = format!("<section class=\"ns-run\" data-testid=\"summary-stats\" data-run=\"{i}\">\n");
    h.push_str(&format!("<h3>{} <span class=\"ns-file\">({}), {:.1} s</span></h3>\n", esc(&r.name), esc(e.file), r.duration_s));
    let levels: Vec<&str> = r.tags.0.first().map(|(_, s)| s.levels.iter().map(|l| l.label.as_str()).collect()).unwrap_or_default();
    // As `nines stats`: level columns up to the last one any row has a value in.
    let shown = (0..levels.len()).rev().find(|&k| r.tags.iter().any(|(_, s)| s.levels[k].value_ns.is_some())).map_or(0, |k| k + 1);
    h.push_str("<table class=\"ns-stats\">\n<tr><th>dir</th><th>count</th><th>IOPS</th><th>min</th><th>mean</th><th>stdev</th>");
    for l in &levels[..shown] {
        h.push_str(&format!("<th>{}</th>", esc(l)));
    }
    h.push_str("<th>max</th></tr>\n");
    let mut thin = Vec::new();
    let mut ranges = false;
    for (tag, s) in r.tags.iter() {
        let has = s.count > 0;
        let lat = |v: u64| if has { format_ns(v) } else { "-".into() };
        let latf = |v: f64| if has { format_ns_f(v) } else { "-".into() };
        let cell = |col: &str, text: &str| format!("<td class=\"num\" data-col=\"{}\">{}</td>", esc(col), esc(text));
        h.push_str(&format!("<tr data-testid=\"summary-row\" data-dir=\"{}\"><td>{}</td>", esc(tag), esc(tag)));
        h.push_str(&cell("count", &group(s.count)));
        h.push_str(&cell("IOPS", &format_rate(s.iops)));
        h.push_str(&cell("min", &lat(s.min_ns)));
        h.push_str(&cell("mean", &latf(s.mean_ns)));
        h.push_str(&cell("stdev", &latf(s.stdev_ns)));
        for l in &s.levels[..shown] {
            ranges |= l.bucket_ns.is_some();
            let text = nines_core::precision::level_cell(l);
            match (l.support, l.value_ns) {
                (Support::Reliable, Some(v)) => h.push_str(&cell(&l.label, &text.unwrap_or_else(|| format_ns(v)))),
                (Support::Thin, Some(v)) => {
                    thin.push(format!("{tag} {} ({})", l.label, group(l.beyond)));
                    h.push_str(&format!(
                        "<td class=\"num ns-thin\" data-col=\"{}\" title=\"thin: only {} I/Os beyond this level\">{}*</td>",
                        esc(&l.label),
                        group(l.beyond),
                        esc(&text.unwrap_or_else(|| format_ns(v)))
                    ));
                }
                _ => h.push_str(&cell(&l.label, "")),
            }
        }
        h.push_str(&cell("max", &lat(s.max_ns)));
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    if !thin.is_empty() {
        h.push_str(&format!(
            "<p class=\"ns-note\">* thin, I/Os beyond the level in brackets (reliable from 100): {}</p>\n",
            esc(&thin.join(", "))
        ));
    }
    if ranges {
        h.push_str(&format!("<p class=\"ns-note\">{}</p>\n", esc(nines_core::precision::TABLE_NOTE)));
    }
    if shown < levels.len() {
        h.push_str(&format!(
            "<p class=\"ns-note\">{}..{}: not shown, no I/O lies beyond them in any row. Blank cells: no I/O lies beyond that level.</p>\n",
            esc(levels[shown]),
            esc(levels[levels.len() - 1])
        ));
    }
    for w in &r.warnings {
        h.push_str(&format!("<p class=\"ns-note ns-warn\">warning: {}</p>\n", esc(&w.to_string())));
    }
    h.push_str(&format!(
        "<details><summary>metadata</summary><pre>{}</pre></details>\n",
        esc(&serde_json::to_string_pretty(&e.run.meta).unwrap_or_default())
    ));
    h.push_str("</section>\n");
    h
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// One line saying what the run did, from the metadata's `workload` (nines' own runs), else
/// the source format of an imported run.
pub fn workload(meta: &RunMeta) -> String {
    let Some(w) = &meta.workload else {
        let formats = meta.source_formats();
        return if formats.is_empty() { String::new() } else { format!("imported: {}", formats.join(", ")) };
    };
    let mut parts = Vec::new();
    if let Some(rw) = &w.rw {
        match w.read_pct {
            Some(p) if rw.contains("rw") => parts.push(format!("{rw} {p}% reads")),
            _ => parts.push(rw.clone()),
        }
    }
    match &w.bs {
        Some(Size::Text(bs)) => parts.push(bs.clone()),
        Some(Size::Bytes(b)) => parts.push(format_size(*b)),
        None => {}
    }
    if let Some(q) = w.qd {
        parts.push(format!("QD{q}"));
    }
    if let Some(j) = w.jobs {
        parts.push(format!("{j} job{}", if j == 1 { "" } else { "s" }));
    }
    match w.direct {
        Some(true) => parts.push("O_DIRECT".into()),
        Some(false) => parts.push("buffered".into()),
        None => {}
    }
    if let Some(r) = w.rate_iops_per_job {
        parts.push(format!("rate {r} IOPS/job"));
    }
    if parts.is_empty() {
        return serde_json::to_string(w).unwrap_or_default();
    }
    parts.join(", ")
}

/// One line naming what the run measured, from the metadata's `target`.
pub fn target(meta: &RunMeta) -> String {
    let Some(t) = &meta.target else { return String::new() };
    let mut parts: Vec<String> = t.kind.iter().chain(&t.path).cloned().collect();
    let no_device = Map::new();
    let d = t.device.as_ref().unwrap_or(&no_device);
    let name = d.get("name").and_then(text);
    let model = d.get("model").and_then(text).or_else(|| d.get("vendor").and_then(text));
    match (name, model) {
        (Some(n), Some(m)) => parts.push(format!("on {n} ({m})")),
        (Some(n), None) => parts.push(format!("on {n}")),
        _ => {}
    }
    if parts.is_empty() {
        return serde_json::to_string(t).unwrap_or_default();
    }
    parts.join(" ")
}

/// The summary's own CSS (the viewer's style sheet comes with it; classes here start `ns-`).
pub const CSS: &str = r#"
.ns-head { padding: 10px 14px 0; }
.ns-head h1 { font-size: 22px; margin: 6px 0 2px; }
.ns-meta, .ns-static, .ns-file, .ns-note { color: var(--muted, #666); font-size: 12px; }
.ns-notes { max-width: 60em; line-height: 1.45; }
.ns-notes pre, .ns-summary pre { background: #fff; border: 1px solid #ddd; padding: 6px 8px; overflow-x: auto; white-space: pre-wrap; }
.ns-summary { padding: 0 14px 24px; }
.ns-summary h2 { font-size: 17px; margin: 14px 0 6px; }
.ns-summary h3 { font-size: 15px; margin: 16px 0 4px; }
.ns-summary table { width: auto; background: #fff; }
.ns-runs td { white-space: normal; max-width: 36em; overflow-wrap: anywhere; }
.ns-summary h3, .ns-head h1, .ns-notes { overflow-wrap: anywhere; }
.ns-thin { color: var(--thin, #9a6700); }
.ns-warn { color: #6b1d14; }
.ns-error { background: #fdecea; border: 1px solid #f5c2bd; color: #6b1d14; padding: 5px 9px; border-radius: 4px; }
.ns-qos table { background: #fff; margin-bottom: 6px; }
.ns-qos h2 { font-size: 17px; margin: 10px 0 2px; }
.ns-v-meets { color: #1a7f37; font-weight: 600; }
.ns-v-fails { color: #b42318; font-weight: 600; }
.ns-v-cannot_tell { color: var(--thin, #9a6700); font-weight: 600; }
html.nines-started #nines-summary { display: none; }
html.nines-started .ns-head { padding-bottom: 0; }
"#;
