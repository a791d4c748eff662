//! Run-to-run variability of each level across a set of runs (the five-run study in the SDC talk "Latency is more than just a number").

use serde::Serialize;

use crate::stats::TagStats;

/// How one level varies across runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelVariability {
    pub label: String,
    /// Runs in which the level has a value (support not `none`).
    pub runs: usize,
    pub min_ns: Option<u64>,
    /// Nearest-rank median (the lower middle for an even count; never averaged).
    pub median_ns: Option<u64>,
    pub max_ns: Option<u64>,
    /// (max - min) / median, in percent.
    pub spread_pct: Option<f64>,
}

/// Variability per level across the given runs' stats of one direction. Levels are matched
/// by position; every input must have been computed with the same levels.
pub fn variability(runs: &[&TagStats]) -> Vec<LevelVariability> {
    let Some(first) = runs.first() else { return Vec::new() };
    (0..first.levels.len())
        .map(|i| {
            let mut vals: Vec<u64> = runs.iter().filter_map(|r| r.levels.get(i).and_then(|l| l.value_ns)).collect();
            vals.sort_unstable();
            let n = vals.len();
            let (min, max) = (vals.first().copied(), vals.last().copied());
            let median = if n == 0 { None } else { Some(vals[n.div_ceil(2) - 1]) };
            let spread = match (min, max, median) {
                (Some(a), Some(b), Some(m)) if m > 0 => Some((b - a) as f64 / m as f64 * 100.0),
                _ => None,
            };
            LevelVariability {
                label: first.levels[i].label.clone(),
                runs: n,
                min_ns: min,
                median_ns: median,
                max_ns: max,
                spread_pct: spread,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::quantile::standard_levels;
    use crate::stats::tag_stats;

    #[test]
    fn spread_of_five_runs() {
        let l = Layout::default_ns();
        let stats: Vec<TagStats> = [100u64, 110, 90, 120, 100]
            .iter()
            .map(|&s| tag_stats(&Hist::from_values(l, (0..10_000u64).map(|i| s * 1000 + i)), 1.0, &standard_levels()))
            .collect();
        let refs: Vec<&TagStats> = stats.iter().collect();
        let v = variability(&refs);
        let p50 = &v[0];
        assert_eq!(p50.runs, 5);
        assert!(p50.min_ns.unwrap() < p50.median_ns.unwrap() && p50.median_ns.unwrap() < p50.max_ns.unwrap());
        let spread = p50.spread_pct.unwrap();
        assert!((spread - 30.0 / 1.05).abs() < 1.5, "{spread}");
        assert_eq!(v[9].runs, 0);
        assert_eq!(v[9].spread_pct, None);
    }
}
