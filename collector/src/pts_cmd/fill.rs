//! `fill`: the steady-state test at several active ranges. Write performance depends on how
//! much of the drive holds data (the rest is spare area to the controller), so for each
//! active range in turn (by default 25%, 50%, 75% and 100% of the capacity): a purge of the
//! whole capacity, workload-independent preconditioning of the range, then rounds of 4 KiB
//! random writes within it until the PTS's steady-state criteria hold or `max_rounds`. Each
//! range is a scope of its own (`fill25_rnd_0-100_4k`), its rounds one window each after the
//! previous range's.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};
use nines_core::pts::{Params, Rounds, Verdict};
use nines_core::run::Window;
use nines_core::units::{format_ns, format_rate, format_size};
use serde_json::{json, Value};

use super::di::point;
use super::{active_region, precondition, purge, run_stimulus, say, write_archive, Plan, Resumed, Stimulus};
use crate::cli::pts::PtsArgs;
use crate::run::config::RunConfig;

/// A percentage as a scope's name takes it: `25`, `12p5`.
fn label(pct: f64) -> String {
    format!("{pct}").replace('.', "p")
}

/// A range not started yet: its purge (the test's own for the first range) and its
/// preconditioning, as recorded.
#[allow(clippy::too_many_arguments)]
fn new_range(
    a: &PtsArgs,
    base: &RunConfig,
    plan: &Plan,
    params: &Params,
    region: u64,
    k: usize,
    prep: &Value,
    work: &Path,
) -> Result<(Value, Value)> {
    let pct = params.active_range_pct;
    let purged = if k == 0 && !a.resume {
        prep["purge"].clone()
    } else {
        // each range starts from a purged drive; the deviations were named the first time
        purge(a, base, &mut Vec::new())?.1
    };
    let level = Plan {
        params: params.clone(),
        cells: plan.cells.clone(),
        tracked: plan.tracked.clone(),
        capacity: region,
        region,
        deviations: Vec::new(),
    };
    say(a, &format!("fill: {pct}% of the capacity ({}): purged, preconditioning", format_size(region)));
    Ok((purged, precondition(a, base, &level, work)?))
}

pub(super) fn fill(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path, state: Resumed, out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let fills = p.fills.clone().unwrap_or_else(|| vec![25.0, 50.0, 75.0, 100.0]);
    let t = p.round_time_s;
    let cell = plan.cells[0];
    let Resumed { mut windows, mut metas, mut start_time, mut prep } = state;
    // a resumed test keeps its ranges; the last goes on with its rounds unless it is over
    let mut levels: Vec<Value> = prep["fill"].as_array().cloned().unwrap_or_default();
    let over = |l: &Value| l["steady"] == true || l["iops"].as_array().map_or(0, Vec::len) >= p.max_rounds;
    let mut going_on = levels.last().filter(|l| !over(l)).cloned();
    if going_on.is_some() {
        levels.pop();
    } else if a.resume && levels.len() >= fills.len() {
        bail!("--resume: the fill test in '{}' has ended: it tested its {} active ranges", a.output.display(), fills.len());
    }
    let mut all = Rounds::new(1, p.window_rounds);
    for l in levels.iter().chain(going_on.iter()) {
        for v in l["iops"].as_array().into_iter().flatten() {
            all.push(&[v.as_f64().unwrap_or(f64::NAN)])?;
        }
    }
    let mut offset = windows.iter().map(Window::end_s).fold(0.0, f64::max);
    for (k, &pct) in fills.iter().enumerate().skip(levels.len()) {
        let params = Params { active_range_pct: pct, ..p.clone() };
        let region = active_region(&params, &plan.cells, plan.capacity)?;
        let mut book = Rounds::new(1, p.window_rounds);
        let mut starts: Vec<f64> = Vec::new();
        let (purged, pre) = match going_on.take() {
            // its rounds so far: no purge or preconditioning again
            Some(l) => {
                for (v, st) in l["iops"].as_array().into_iter().flatten().zip(l["round_starts_s"].as_array().into_iter().flatten()) {
                    book.push(&[v.as_f64().unwrap_or(f64::NAN)])?;
                    starts.push(st.as_f64().unwrap_or(0.0));
                }
                (l["purge"].clone(), l["precondition"].clone())
            }
            None => new_range(a, base, plan, &params, region, k, &prep, work)?,
        };
        let scope = format!("fill{}_{}", label(pct), cell.scope());
        let record = |book: &Rounds, starts: &[f64], levels: &[Value]| {
            let v = Verdict::of(book);
            let window =
                v.window.map(|(f, e)| json!({ "first_round": f + 1, "last_round": e, "from_s": starts[f], "to_s": starts[e - 1] + t }));
            let avg = v.window.map(|(f, e)| book.series[0][f..e].iter().sum::<f64>() / (e - f) as f64);
            let mut all_levels = levels.to_vec();
            all_levels.push(json!({
                "active_range_pct": pct,
                "region_bytes": region,
                "scope": scope,
                "purge": purged,
                "precondition": pre,
                "iops": book.series[0],
                "round_starts_s": starts,
                "steady": v.steady,
                "verdict": v.text(),
                "window": window,
                "average_iops": avg,
            }));
            all_levels
        };
        for round in book.len() + 1..=p.max_rounds {
            if book.steady_at().is_some() {
                break;
            }
            let at = Stimulus {
                cell,
                scope: scope.clone(),
                offset,
                seconds: t,
                window_s: t,
                seed: base.seed.map(|s| s ^ ((k as u64) << 48) ^ ((round as u64) << 32)),
                region,
            };
            let c = run_stimulus(base, p.test, &at, &format!("fill {pct}%, round {round}"), work)?;
            start_time = start_time.or(c.start_time);
            if metas.is_empty() {
                metas.push(c.meta);
            }
            if let Some(sig) = c.stopped {
                prep["fill"] = json!(record(&book, &starts, &levels));
                write_archive(a, plan, &all, &windows, &metas, start_time, &prep, Some(&sig))?;
                bail!("stopped by {sig} at fill {pct}%, round {round}; '{}' keeps the rounds before it", a.output.display());
            }
            book.push(&[c.value])?;
            all.push(&[c.value])?;
            starts.push(offset);
            offset = c.windows.iter().map(Window::end_s).fold(offset + t, f64::max);
            windows.extend(c.windows);
            prep["fill"] = json!(record(&book, &starts, &levels));
            write_archive(a, plan, &all, &windows, &metas, start_time, &prep, None)?;
            say(
                a,
                &format!(
                    "fill {pct}%: round {round}/{}: {} IOPS{}",
                    p.max_rounds,
                    format_rate(c.value),
                    if book.steady_at().is_some() { "; steady" } else { "" }
                ),
            );
            if book.steady_at().is_some() {
                break;
            }
        }
        levels = record(&book, &starts, &levels);
    }
    prep["fill"] = json!(levels);
    write_archive(a, plan, &all, &windows, &metas, start_time, &prep, None)?;
    print_fill(a, plan, &levels, &windows, out)
}

/// The table of the ranges tested, the deviations, and an error if a range never reached steady
/// state.
fn print_fill(a: &PtsArgs, plan: &Plan, levels: &[Value], windows: &[Window], out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let cell = plan.cells[0];
    writeln!(out, "SNIA PTS fill ({}), {}: steady state of 4 KiB random writes by active range", p.profile.name(), a.output.display())?;
    writeln!(out, "  {:>6} {:>10} {:>7} {:>12} {:>10} {:>10} {:>10}", "range", "bytes", "rounds", "IOPS", "p99", "p99.99", "max")?;
    let mut unsteady = Vec::new();
    for l in levels {
        let scope = l["scope"].as_str().unwrap_or("");
        let (from, to) = (l["window"]["from_s"].as_f64().unwrap_or(0.0), l["window"]["to_s"].as_f64().unwrap_or(0.0));
        let ws: Vec<Window> = windows
            .iter()
            .filter(|w| {
                w.tag.as_deref().is_some_and(|tag| tag.starts_with(&format!("{scope}/")))
                    && w.start_s >= from - 1e-9
                    && w.end_s() <= to + 1e-6
            })
            .cloned()
            .collect();
        let pt = point(&ws);
        let ns = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format_ns(x as u64));
        writeln!(
            out,
            "  {:>5}% {:>10} {:>7} {:>12} {:>10} {:>10} {:>10}{}",
            l["active_range_pct"].as_f64().unwrap_or(0.0),
            format_size(l["region_bytes"].as_u64().unwrap_or(0)),
            l["iops"].as_array().map_or(0, Vec::len),
            l["average_iops"].as_f64().map_or("-".into(), format_rate),
            ns(&pt["p99_ns"]),
            ns(&pt["p9999_ns"]),
            ns(&pt["max_ns"]),
            if l["steady"].as_bool() == Some(true) { "" } else { "  (steady state not reached)" }
        )?;
        if l["steady"].as_bool() != Some(true) {
            unsteady.push(format!("{}%", l["active_range_pct"].as_f64().unwrap_or(0.0)));
        }
    }
    writeln!(out, "  (over each range's measurement window; nines stats {} --tag fillPCT_{}/write)", a.output.display(), cell.scope())?;
    for d in &plan.deviations {
        writeln!(out, "  deviation: {d}")?;
    }
    if !unsteady.is_empty() {
        bail!(
            "steady state not reached at {} (--max-rounds {}); '{}' keeps every round",
            unsteady.join(", "),
            p.max_rounds,
            a.output.display()
        );
    }
    Ok(())
}
