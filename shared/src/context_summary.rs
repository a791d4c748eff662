//! A run's context records summed up over a range of its windows (`nines stats --context`):
//! what [`crate::context`] parses, read beside the run's own I/Os. Apart from
//! `context.rs` so that the records' module does not depend on the run that holds them.

use crate::context::{mean_max, ContextSummary, MeanMax, WindowContext, NUMBERS};
use crate::run::Run;

impl ContextSummary {
    /// The summary of `run`'s context records whose window starts in `[from, to)` seconds
    /// from the run's start (as `stats --from/--to` select windows); None when the run has
    /// no context records and says nothing about them.
    pub fn of(run: &Run, from: Option<f64>, to: Option<f64>) -> Option<ContextSummary> {
        let (lo, hi) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
        let recs: Vec<&WindowContext> =
            run.context.iter().filter(|c| c.end_ns > c.start_ns && (lo..hi).contains(&(c.start_ns as f64 / 1e9))).collect();
        let m = &run.meta;
        if recs.is_empty() && m.context_missing.is_none() && m.context_devices.is_empty() && m.disk_util.is_empty() {
            return None;
        }
        let nominal = |c: &WindowContext| (c.end_ns - c.start_ns) as f64 / 1e9;
        // the samples' own span where the line gives it (rates times it are the counts)
        let len = |c: &WindowContext| c.span_ns.map_or_else(|| nominal(c), |s| s as f64 / 1e9);
        let mut numbers = Vec::new();
        for (name, get) in NUMBERS {
            // awaits weighted by the I/Os they average over, the rest by time
            let weight = |c: &WindowContext| match name {
                "r_await" => c.disk.map_or(0.0, |d| d.r_s) * len(c),
                "w_await" => c.disk.map_or(0.0, |d| d.w_s) * len(c),
                _ => len(c),
            };
            if let Some(m) = mean_max(recs.iter().filter_map(|c| get(c).map(|x| (x, weight(c))))) {
                numbers.push((name, m));
            }
        }
        let other = recs.iter().filter_map(|c| {
            let d = c.disk?;
            Some(((d.r_s + d.w_s) * len(c) / nominal(c) - own_ios(run, c) as f64 / nominal(c), nominal(c)))
        });
        Some(ContextSummary {
            windows: recs.len(),
            devices: run.meta.context_devices.clone(),
            missing: run.meta.context_missing.clone(),
            numbers,
            other_iops: mean_max(other),
            disk_util: run.meta.disk_util.clone(),
        })
    }

    /// A number's mean and max by its `stats --context` name.
    pub fn get(&self, name: &str) -> Option<MeanMax> {
        self.numbers.iter().find(|(n, _)| *n == name).map(|x| x.1)
    }
}

/// The run's own reads and writes in the window of context record `c`: the I/Os of its
/// unscoped read and write tags whose window starts where the record does (the archive keeps
/// window starts to the millisecond).
fn own_ios(run: &Run, c: &WindowContext) -> u64 {
    let start_s = c.start_ns as f64 / 1e9;
    run.windows
        .iter()
        .filter(|w| (w.start_s - start_s).abs() < 1e-3)
        .filter(|w| crate::tag::is_direction(w.tag.as_deref()) && matches!(w.tag.as_deref(), Some("read" | "write")))
        .map(|w| w.hist.count())
        .sum()
}
