//! The recovery tests. `hir` (host idle recovery): after 4 KiB random writes have reached
//! steady state in rounds, wait segments of `bursts` bursts of `burst_s` of the same writes,
//! each burst followed by `wait` of idle time (the PTS: 360 bursts of 5 s, waits of 5, 10, 15,
//! 25 and 50 s), each segment followed by a return to baseline of continuous writes. What a
//! drive does with idle time (background garbage collection) shows as burst IOPS above the
//! steady baseline. `xsr` (cross-stimulus recovery): from the purged state, sequential 1024
//! KiB writes, random 8 KiB writes, then sequential 1024 KiB writes again (the PTS: 8, 6 and 8
//! hours), in windows of a round time, and when the last segment's throughput recovers to 90%
//! of the first's.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};
use nines_core::meta::RunMeta;
use nines_core::pts::{self, Rounds};
use nines_core::run::Window;
use nines_core::units::format_rate;
use serde_json::{json, Value};

use super::di::point;
use super::{run_stimulus, say, write_archive, Plan, Resumed, Stimulus};
use crate::cli::pts::PtsArgs;
use crate::run::config::RunConfig;

/// Seconds as a scope's name takes them: whole milliseconds (`5000ms`) or seconds (`5s`).
pub(super) fn label(s: f64) -> String {
    let ms = (s * 1000.0).round() as u64;
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The wait segments and returns to baseline after the rounds, appended to `windows` (scopes
/// `hir_waitW` for a segment's bursts, `hir_baseN` for the return after segment N); the
/// archive rewritten after each segment. Returns the terminal's lines.
#[allow(clippy::too_many_arguments)]
pub(super) fn hir(
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
    let Some(h) = p.hir.as_ref() else { return Ok(String::new()) };
    let cell = plan.cells[0];
    let t = p.round_time_s;
    let steady = book.report_window().map(|(f, e)| book.series[0][f..e].iter().sum::<f64>() / (e - f) as f64);
    let mut offset = windows.iter().map(Window::end_s).fold(book.len() as f64 * t, f64::max);
    // a resumed test keeps its whole segments (and runs the one under way again)
    let mut segments: Vec<Value> = prep["hir"]["segments"].as_array().cloned().unwrap_or_default();
    let mut bursts: Vec<Value> = prep["hir"]["bursts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["segment"].as_u64().is_some_and(|s| s as usize <= segments.len()))
        .cloned()
        .collect();
    let mut out = Vec::new();
    writeln!(
        out,
        "host idle recovery: bursts of {} s of 4 KiB random writes, {} per wait segment; steady baseline {}",
        h.burst_s,
        h.bursts,
        steady.map_or("not reached".into(), |v| format!("{} IOPS", format_rate(v)))
    )?;
    for (si, &wait) in h.waits_s.iter().enumerate().skip(segments.len()) {
        let scope = format!("hir_wait{}", label(wait));
        say(a, &format!("hir: segment {}: {} bursts of {} s, {} s idle after each", si + 1, h.bursts, h.burst_s, wait));
        let mut seg_iops = Vec::with_capacity(h.bursts);
        for b in 0..h.bursts {
            let at = Stimulus {
                cell,
                scope: scope.clone(),
                offset,
                seconds: h.burst_s,
                window_s: h.burst_s,
                seed: base.seed.map(|s| s ^ (0x41 << 40) ^ ((si as u64) << 24) ^ b as u64),
                region: plan.region,
            };
            let c = run_stimulus(base, p.test, &at, &format!("hir segment {}, burst {}", si + 1, b + 1), work)?;
            let pt = point(&c.windows);
            let iops = pt["iops"].as_f64().unwrap_or(f64::NAN);
            seg_iops.push(iops);
            bursts.push(json!({ "segment": si + 1, "wait_s": wait, "burst": b + 1, "from_s": offset, "iops": iops }));
            offset = c.windows.iter().map(Window::end_s).fold(offset + h.burst_s, f64::max);
            windows.extend(c.windows);
            if let Some(sig) = c.stopped {
                prep["hir"] = json!({ "bursts": bursts, "segments": segments, "steady_iops": steady });
                write_archive(a, plan, book, windows, metas, start_time, &prep, Some(&sig))?;
                bail!("stopped by {sig} in hir's segment {}; '{}' keeps what was recorded", si + 1, a.output.display());
            }
            // the idle wait: no I/O from nines
            std::thread::sleep(std::time::Duration::from_secs_f64(wait));
            offset += wait;
        }
        let mean = seg_iops.iter().sum::<f64>() / seg_iops.len().max(1) as f64;
        let mut seg = json!({
            "segment": si + 1,
            "wait_s": wait,
            "scope": scope,
            "bursts": seg_iops.len(),
            "burst_iops": mean,
            "over_steady": steady.map(|s| mean / s),
        });
        if h.baseline_s > 0.0 {
            let at = Stimulus {
                cell,
                scope: format!("hir_base{}", si + 1),
                offset,
                seconds: h.baseline_s,
                window_s: t.min(h.baseline_s),
                seed: base.seed.map(|s| s ^ (0x42 << 40) ^ si as u64),
                region: plan.region,
            };
            let c = run_stimulus(base, p.test, &at, &format!("hir's return to baseline after segment {}", si + 1), work)?;
            seg["baseline_scope"] = json!(at.scope);
            seg["baseline_from_s"] = json!(offset);
            seg["baseline_iops"] = point(&c.windows)["iops"].clone();
            offset = c.windows.iter().map(Window::end_s).fold(offset + h.baseline_s, f64::max);
            windows.extend(c.windows);
            if let Some(sig) = c.stopped {
                segments.push(seg);
                prep["hir"] = json!({ "bursts": bursts, "segments": segments, "steady_iops": steady });
                write_archive(a, plan, book, windows, metas, start_time, &prep, Some(&sig))?;
                bail!("stopped by {sig} in hir's return to baseline; '{}' keeps what was recorded", a.output.display());
            }
        }
        segments.push(seg);
        prep["hir"] = json!({ "bursts": bursts, "segments": segments, "steady_iops": steady });
        write_archive(a, plan, book, windows, metas, start_time, &prep, None)?;
    }
    prep["hir"]["done"] = json!(true);
    write_archive(a, plan, book, windows, metas, start_time, &prep, None)?;
    for seg in &segments {
        writeln!(
            out,
            "  wait {:>7}: burst average {} IOPS{}{}",
            label(seg["wait_s"].as_f64().unwrap_or(0.0)),
            seg["burst_iops"].as_f64().map_or("-".into(), format_rate),
            seg["over_steady"].as_f64().map(|r| format!(", {:.2} x steady", r)).unwrap_or_default(),
            seg["baseline_iops"].as_f64().map(|b| format!("; back to baseline at {} IOPS", format_rate(b))).unwrap_or_default()
        )?;
    }
    writeln!(out, "  (nines stats {} --tag hir_waitW/write: each segment's bursts, every level of nines)", a.output.display())?;
    Ok(String::from_utf8(out)?)
}

/// The cross-stimulus recovery test after the purge: its three segments one after another,
/// windows of a round time, one tracked value (MB/s) a window; the archive rewritten after
/// each segment.
pub(super) fn xsr(a: &PtsArgs, base: &RunConfig, plan: &Plan, work: &Path, state: Resumed, out: &mut impl Write) -> Result<()> {
    let p = &plan.params;
    let segs = p.xsr_segments_s.unwrap_or([8.0 * 3600.0; 3]);
    let t = p.round_time_s;
    let Resumed { mut windows, mut metas, mut start_time, mut prep } = state;
    // a resumed test keeps its whole segments and runs the one under way again
    let mut segments: Vec<Value> =
        prep["xsr"]["segments"].as_array().into_iter().flatten().take_while(|s| s["complete"] == true).cloned().collect();
    let whole = segments.len();
    let mut points: Vec<Value> = prep["xsr"]["points"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["segment"].as_u64().is_some_and(|k| k as usize <= whole))
        .cloned()
        .collect();
    let later: Vec<String> = (whole..3).map(|k| format!("xsr{}_", k + 1)).collect();
    windows.retain(|w| !w.tag.as_deref().is_some_and(|tag| later.iter().any(|l| tag.starts_with(l.as_str()))));
    metas.truncate(whole);
    let mut book = Rounds::new(1, p.window_rounds);
    for pt in &points {
        book.push(&[pt["mbps"].as_f64().unwrap_or(f64::NAN)])?;
    }
    let mut offset = windows.iter().map(Window::end_s).fold(0.0, f64::max);
    for (k, cell) in plan.cells.iter().enumerate().skip(whole) {
        let scope = format!("xsr{}_{}", k + 1, cell.scope());
        say(a, &format!("xsr: segment {} of 3: {} for {} s", k + 1, cell.text(), segs[k]));
        let at = Stimulus {
            cell: *cell,
            scope: scope.clone(),
            offset,
            seconds: segs[k],
            window_s: t.min(segs[k]),
            seed: base.seed.map(|s| s ^ (0x58 << 40) ^ k as u64),
            region: plan.region,
        };
        let c = run_stimulus(base, p.test, &at, &format!("xsr segment {}", k + 1), work)?;
        start_time = start_time.or(c.start_time);
        metas.push(c.meta);
        let mut by_start: Vec<(f64, Vec<Window>)> = Vec::new();
        for w in c.windows {
            match by_start.iter_mut().find(|(s, _)| (*s - w.start_s).abs() < 1e-9) {
                Some((_, v)) => v.push(w),
                None => by_start.push((w.start_s, vec![w])),
            }
        }
        nines_core::sort::sort_by_f64(&mut by_start, |x| x.0);
        let mut mbps = Vec::new();
        for (start, ws) in by_start {
            let n: u64 = ws.iter().map(|w| w.hist.count()).sum();
            let len = ws.iter().map(|w| w.length_s).fold(0.0, f64::max);
            let bytes = n as f64 * f64::from(cell.bs);
            let v = if len > 0.0 { bytes / len / 1e6 } else { f64::NAN };
            book.push(&[v])?;
            mbps.push(v);
            points.push(json!({ "segment": k + 1, "start_s": start, "seconds": len, "mbps": v, "iops": if len > 0.0 { n as f64 / len } else { f64::NAN } }));
            windows.extend(ws);
        }
        let avg = mbps.iter().sum::<f64>() / mbps.len().max(1) as f64;
        segments.push(json!({ "segment": k + 1, "scope": scope, "cell": cell.text(), "seconds": segs[k], "from_s": offset, "mbps": avg, "windows": mbps.len(), "complete": c.stopped.is_none() }));
        offset = windows.iter().map(Window::end_s).fold(offset + segs[k], f64::max);
        prep["xsr"] = json!({ "segments": segments, "points": points });
        if let Some(sig) = c.stopped {
            write_archive(a, plan, &book, &windows, &metas, start_time, &prep, Some(&sig))?;
            bail!("stopped by {sig} in xsr's segment {}; '{}' keeps what was recorded", k + 1, a.output.display());
        }
        if k < 2 {
            write_archive(a, plan, &book, &windows, &metas, start_time, &prep, None)?;
        }
    }
    // recovery: the last segment against the first's last measurement window
    let seg_mbps =
        |k: usize| -> Vec<f64> { points.iter().filter(|p| p["segment"] == k).map(|p| p["mbps"].as_f64().unwrap_or(f64::NAN)).collect() };
    let first = seg_mbps(1);
    let tail = &first[first.len().saturating_sub(p.window_rounds)..];
    let reference = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
    let third = seg_mbps(3);
    let rec = pts::recovered_at(&third, reference, 0.9, p.window_rounds);
    prep["xsr"]["reference_mbps"] = json!(reference);
    prep["xsr"]["recovered_window"] = json!(rec.map(|r| r + 1));
    prep["xsr"]["recovered_after_s"] = json!(rec.map(|r| r as f64 * t));
    prep["xsr"]["ended_by"] = json!("its three segments");
    prep["xsr"]["done"] = json!(true);
    write_archive(a, plan, &book, &windows, &metas, start_time, &prep, None)?;
    writeln!(out, "SNIA PTS xsr ({}), {}: three segments written", p.profile.name(), a.output.display())?;
    for s in &segments {
        writeln!(
            out,
            "  segment {}: {} for {} s, {:.1} MB/s on average (nines stats {} --tag {}/write)",
            s["segment"],
            s["cell"].as_str().unwrap_or(""),
            s["seconds"],
            s["mbps"].as_f64().unwrap_or(f64::NAN),
            a.output.display(),
            s["scope"].as_str().unwrap_or("")
        )?;
    }
    match rec {
        Some(r) => writeln!(
            out,
            "  recovered: the last segment reached 90% of the first's final {:.1} MB/s in window {} ({} s after it began)",
            reference,
            r + 1,
            r as f64 * t
        )?,
        None => writeln!(out, "  not recovered: the last segment never held 90% of the first's final {reference:.1} MB/s")?,
    }
    for d in &plan.deviations {
        writeln!(out, "  deviation: {d}")?;
    }
    Ok(())
}
