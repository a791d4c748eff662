//! 1-CDF ("levels of nines") curves: for each latency, the share of I/Os at least that slow,
//! and what a 1-CDF plot draws from them: the stair-step path, the share at a latency, its
//! levels of nines and the y axis gridlines, computed here so that the browser and the CLI
//! share one implementation.
//!
//! ```
//! use nines_core::{hist::{Hist, Layout}, ccdf::{ccdf, ccdf_steps}};
//! let h = Hist::from_values(Layout::default_ns(), 1_000..=100_000);
//! let steps: Vec<(f64, f64)> = ccdf_steps(&ccdf(&h)).collect();
//! assert_eq!(steps.first().unwrap().1, 1.0);
//! // the curve ends at the share of I/Os in the top bucket (1/N when the max stands alone)
//! assert_eq!(steps.last().unwrap().1, h.buckets().last().unwrap().1 as f64 / 99_001.0);
//! ```

use serde::Serialize;

use crate::hist::Hist;
use crate::quantile::Level;

/// One step of a 1-CDF curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CcdfPoint {
    /// Upper edge of a histogram bucket, in ns.
    pub value_ns: u64,
    /// Share of I/Os in this bucket or slower: in (0, 1]. The last point, at the max, is the
    /// share of I/Os in the top bucket, 1/N when the max is a single I/O.
    pub share: f64,
}

impl CcdfPoint {
    /// The share as levels of nines: -log10(share); 3.0 means 1 I/O in 1,000.
    pub fn nines(&self) -> f64 {
        -self.share.log10()
    }
}

/// The 1-CDF of a histogram, one point per recorded bucket, ascending latency.
pub fn ccdf(h: &Hist) -> Vec<CcdfPoint> {
    let n = h.count();
    if n == 0 {
        return Vec::new();
    }
    let layout = h.layout();
    let mut at_or_above = n;
    let mut out = Vec::with_capacity(h.buckets().len());
    for (v, c) in h.buckets() {
        out.push(CcdfPoint { value_ns: layout.highest_equivalent(v), share: at_or_above as f64 / n as f64 });
        at_or_above -= c;
    }
    out
}

/// The 1-CDF as a stair-step path `(latency ns, share slower)`, the latency as a chart's
/// `f64`: a latency within a bucket is drawn at the share of I/Os in that bucket or above,
/// and the curve drops at the bucket's upper edge to the share above it. Ends at the max with
/// the share of the top bucket (1/N for a single slowest I/O): the curve stops where the data
/// stops. An iterator: a chart reduces the path to its pixels as it goes (a page of 100 runs
/// has hundreds of thousands of steps).
pub fn ccdf_steps(points: &[CcdfPoint]) -> Steps<'_> {
    Steps { points, next: 0 }
}

/// The iterator of [`ccdf_steps`]: step `2i` is point `i`, step `2i - 1` point `i`'s share at
/// the latency of the point before.
#[derive(Clone, Debug)]
pub struct Steps<'a> {
    points: &'a [CcdfPoint],
    /// The next step's index.
    next: usize,
}

impl Iterator for Steps<'_> {
    type Item = (f64, f64);

    fn next(&mut self) -> Option<(f64, f64)> {
        let k = self.next;
        let i = k.div_ceil(2);
        let p = self.points.get(i)?;
        let at = if k % 2 == 1 { &self.points[i - 1] } else { p };
        self.next += 1;
        Some((at.value_ns as f64, p.share))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.points.len() * 2).saturating_sub(1).saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Steps<'_> {}

/// Share of I/Os at or above the bucket holding `x_ns` (at histogram precision); 1 below the
/// first bucket, `None` above the max (no I/O that slow).
pub fn share_at(points: &[CcdfPoint], x_ns: f64) -> Option<f64> {
    let i = points.partition_point(|p| (p.value_ns as f64) < x_ns);
    points.get(i).map(|p| p.share)
}

/// Levels of nines of a share: -log10(share) (3.0 = one I/O in a thousand is slower).
pub fn nines_of(share: f64) -> f64 {
    -share.log10()
}

/// A gridline of the 1-CDF's y axis: the share and its label (`90%`, `99.9%`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct NinesTick {
    pub share: f64,
    pub nines: u32,
    pub label: String,
}

/// Gridlines for 1..=`max_nines` nines (9 at most, as `nines stats` reports).
pub fn nines_ticks(max_nines: u32) -> Vec<NinesTick> {
    (1..=max_nines.min(12))
        .map(|k| NinesTick { share: 10f64.powi(-(k as i32)), nines: k, label: format!("{}%", &Level::nines(k).label[1..]) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;

    #[test]
    fn ends_at_one_over_n() {
        let h = Hist::from_values(Layout::default_ns(), 1..=1000);
        let c = ccdf(&h);
        assert_eq!(c.first().unwrap().share, 1.0);
        assert_eq!(c.last().unwrap().share, 1.0 / 1000.0);
        assert_eq!(c.last().unwrap().value_ns, h.max());
        assert!((c.last().unwrap().nines() - 3.0).abs() < 1e-12);
        assert!(c.windows(2).all(|w| w[0].value_ns < w[1].value_ns && w[0].share > w[1].share));
        assert!(ccdf(&Hist::empty(Layout::default_ns())).is_empty());
    }

    #[test]
    fn steps_follow_the_ccdf_and_end_at_one_over_n() {
        let h = Hist::from_values(Layout::default_ns(), [100, 200, 200, 300]);
        let c = ccdf(&h);
        let s: Vec<_> = ccdf_steps(&c).collect();
        assert_eq!(ccdf_steps(&c).len(), 5);
        assert_eq!(ccdf_steps(&[]).len(), 0);
        assert_eq!(s, vec![(100.0, 1.0), (100.0, 0.75), (200.0, 0.75), (200.0, 0.25), (300.0, 0.25)]);
        assert_eq!(share_at(&c, 50.0), Some(1.0));
        assert_eq!(share_at(&c, 150.0), Some(0.75));
        assert_eq!(share_at(&c, 300.0), Some(0.25));
        assert_eq!(share_at(&c, 301.0), None);
        assert!((nines_of(0.001) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn ticks_are_labelled_in_nines() {
        let t = nines_ticks(9);
        assert_eq!(t.len(), 9);
        assert_eq!(t[0].label, "90%");
        assert_eq!(t[2].label, "99.9%");
        assert_eq!(t[8].label, "99.9999999%");
        assert_eq!(t[8].share, 1e-9);
    }
}
