//! The demand-intensity part of `dirth` and `cbw`, after their rounds at the most outstanding
//! I/O have reached steady state: one pass of the thread-count by queue-depth matrix from the
//! most outstanding I/O to the least (PTS 2.0.2's demand intensity loop), each cell one round
//! time long under the scope `di_CELL`, then a response-time histogram of `hist_time_s` at the
//! maximum IOPS point, two middle points and the minimum (one thread at QD1), under the scopes
//! `hist_max`, `hist_mid1`, `hist_mid2` and `hist_min`. The PTS plots IOPS against the
//! outstanding I/O (demand variation) and the average response time against IOPS (demand
//! intensity, the "hockey stick"); nines records every cell's whole histogram, so each level
//! of nines can be drawn against IOPS too.

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Result};
use nines_core::hist::Hist;
use nines_core::meta::RunMeta;
use nines_core::pts::{self, Rounds};
use nines_core::quantile::{value_at, Level};
use nines_core::run::Window;
use nines_core::units::{format_ns, format_rate};
use serde_json::{json, Value};

use super::{run_stimulus, say, write_archive, Plan, Stimulus};
use crate::cli::pts::PtsArgs;
use crate::run::config::RunConfig;

/// IOPS, mean, p99, p99.99 and maximum of a cell's windows (its directions together).
pub(super) fn point(windows: &[Window]) -> Value {
    let start = windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min);
    let end = windows.iter().map(Window::end_s).fold(f64::NEG_INFINITY, f64::max);
    let h = Hist::merge_all(windows.iter().map(|w| &w.hist));
    let n = h.count();
    let iops = if end > start { n as f64 / (end - start) } else { f64::NAN };
    json!({
        "ios": n,
        "iops": iops,
        "mean_ns": (n > 0).then(|| h.mean()),
        "p99_ns": value_at(&h, &Level::nines(2)),
        "p9999_ns": value_at(&h, &Level::nines(4)),
        "max_ns": (n > 0).then(|| h.max()),
    })
}

/// The matrix and the histograms, appended to `windows`; the archive rewritten after each
/// cell. Returns the terminal's lines.
#[allow(clippy::too_many_arguments)]
pub(super) fn demand_intensity(
    a: &PtsArgs,
    base: &RunConfig,
    plan: &Plan,
    work: &Path,
    book: &Rounds,
    windows: &mut Vec<Window>,
    metas: &[RunMeta],
    start_time: Option<f64>,
    mut prep: Value,
) -> Result<String> {
    let p = &plan.params;
    let Some(di) = p.di.as_ref() else { return Ok(String::new()) };
    let t = p.round_time_s;
    let cells = p.test.di_cells(p);
    let tty = !a.quiet && std::io::stderr().is_terminal();
    say(
        a,
        &format!(
            "{}: the demand-intensity matrix, {} cells of {} s from T{}Q{} down",
            p.test.name(),
            cells.len(),
            t,
            di.threads[0],
            di.qds[0]
        ),
    );
    let mut offset = windows.iter().map(Window::end_s).fold(book.len() as f64 * t, f64::max);
    // a resumed test keeps the cells and histograms it finished
    let mut points: Vec<Value> = prep["di"]["points"].as_array().cloned().unwrap_or_default();
    let mut hists: Vec<Value> = prep["di"]["histograms"].as_array().cloned().unwrap_or_default();
    for (i, cell) in cells.iter().enumerate().skip(points.len()) {
        if tty {
            eprint!("\rnines: pts {}: demand intensity {}/{} {}        ", p.test.name(), i + 1, cells.len(), cell.text());
        }
        let (tc, qd) = cell.oio.unwrap_or((p.threads, p.qd));
        let at = Stimulus {
            cell: *cell,
            scope: format!("di_{}", cell.scope()),
            offset,
            seconds: t,
            window_s: t,
            seed: base.seed.map(|s| s ^ (0xd1 << 40) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            region: plan.region,
        };
        let c = run_stimulus(base, p.test, &at, &format!("demand intensity, cell {}", cell.text()), work)?;
        let mut pt = point(&c.windows);
        pt["tc"] = json!(tc);
        pt["qd"] = json!(qd);
        pt["oio"] = json!(tc * qd);
        pt["scope"] = json!(at.scope);
        pt["cell"] = json!(cell.text());
        pt["from_s"] = json!(offset);
        points.push(pt);
        offset = c.windows.iter().map(Window::end_s).fold(offset + t, f64::max);
        windows.extend(c.windows);
        prep["di"] = json!({ "points": points, "histograms": hists });
        if let Some(sig) = c.stopped {
            write_archive(a, plan, book, windows, metas, start_time, &prep, Some(&sig))?;
            bail!("stopped by {sig} in the demand-intensity matrix; '{}' keeps what was recorded", a.output.display());
        }
        write_archive(a, plan, book, windows, metas, start_time, &prep, None)?;
    }
    if tty {
        eprint!("\r");
    }
    let iops: Vec<f64> = points.iter().map(|p| p["iops"].as_f64().unwrap_or(f64::NAN)).collect();
    let Some(picks) = pts::di_points(&iops) else { return Ok(String::new()) };
    let mut chosen: Vec<(&str, usize)> = vec![("max", picks.max)];
    for (k, &m) in picks.mid.iter().enumerate() {
        chosen.push((if k == 0 { "mid1" } else { "mid2" }, m));
    }
    chosen.push(("min", picks.min));
    for (k, (name, i)) in chosen.iter().enumerate().skip(hists.len()) {
        let cell = cells[*i];
        say(a, &format!("{}: response-time histogram at the {name} IOPS point, {} for {} s", p.test.name(), cell.text(), di.hist_time_s));
        let window_s = if di.hist_time_s >= 20.0 { 1.0 } else { di.hist_time_s / 20.0 };
        let at = Stimulus {
            cell,
            scope: format!("hist_{name}"),
            offset,
            seconds: di.hist_time_s,
            window_s,
            seed: base.seed.map(|s| s ^ (0x415 << 40) ^ k as u64),
            region: plan.region,
        };
        let c = run_stimulus(base, p.test, &at, &format!("the {name} IOPS point's histogram"), work)?;
        let mut h = point(&c.windows);
        h["point"] = json!(name);
        h["scope"] = json!(at.scope);
        h["cell"] = json!(cell.text());
        h["tc"] = points[*i]["tc"].clone();
        h["qd"] = points[*i]["qd"].clone();
        h["from_s"] = json!(offset);
        h["seconds"] = json!(di.hist_time_s);
        hists.push(h);
        offset = c.windows.iter().map(Window::end_s).fold(offset + di.hist_time_s, f64::max);
        windows.extend(c.windows);
        prep["di"] = json!({ "points": points, "histograms": hists });
        if let Some(sig) = c.stopped {
            write_archive(a, plan, book, windows, metas, start_time, &prep, Some(&sig))?;
            bail!("stopped by {sig} while recording a response-time histogram; '{}' keeps what was recorded", a.output.display());
        }
        write_archive(a, plan, book, windows, metas, start_time, &prep, None)?;
    }
    prep["di"]["done"] = json!(true);
    write_archive(a, plan, book, windows, metas, start_time, &prep, None)?;
    di_text(a, &points, &hists)
}

/// The terminal's lines of the matrix and the histograms.
fn di_text(a: &PtsArgs, points: &[Value], hists: &[Value]) -> Result<String> {
    let mut out = Vec::new();
    writeln!(out, "demand intensity (nines stats {} --tag di_CELL/read):", a.output.display())?;
    writeln!(out, "  {:>4} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}", "TC", "QD", "IOPS", "mean", "p99", "p99.99", "max")?;
    let ns = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format_ns(x as u64));
    for pt in points {
        writeln!(
            out,
            "  {:>4} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}",
            pt["tc"],
            pt["qd"],
            pt["iops"].as_f64().map_or("-".into(), format_rate),
            ns(&pt["mean_ns"]),
            ns(&pt["p99_ns"]),
            ns(&pt["p9999_ns"]),
            ns(&pt["max_ns"])
        )?;
    }
    writeln!(out, "response-time histograms (nines stats {} --tag hist_POINT/read):", a.output.display())?;
    for h in hists {
        writeln!(
            out,
            "  {:<5} T{}Q{}: {} IOPS, mean {}, p99 {}, p99.99 {}, max {} ({} I/Os)",
            h["point"].as_str().unwrap_or(""),
            h["tc"],
            h["qd"],
            h["iops"].as_f64().map_or("-".into(), format_rate),
            ns(&h["mean_ns"]),
            ns(&h["p99_ns"]),
            ns(&h["p9999_ns"]),
            ns(&h["max_ns"]),
            h["ios"]
        )?;
    }
    Ok(String::from_utf8(out)?)
}
