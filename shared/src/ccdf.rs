//! 1-CDF ("levels of nines") curves: for each latency, the share of I/Os at least that slow.

use serde::Serialize;

use crate::hist::Hist;

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
}
