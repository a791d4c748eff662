//! The latency histogram a chart draws: counts on log-spaced bins, as a share of I/Os per
//! decade of latency, so that a distribution spread over several decades keeps its shape.

use crate::hist::Hist;

/// One bin of a log-binned latency histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct DensityBin {
    pub lo_ns: f64,
    pub hi_ns: f64,
    /// I/Os whose bucket midpoint falls in `[lo, hi)`.
    pub count: u64,
    /// Share of all I/Os per decade of latency: count / N / log10(hi/lo).
    pub density: f64,
}

/// Histogram of latencies on log-spaced bins (`bins_per_decade` per factor of 10) from the
/// min's bin to the max's, empty bins included. Each recorded bucket goes whole to the bin
/// holding its midpoint, so counts are exact and sum to N.
pub fn log_density(h: &Hist, bins_per_decade: u32) -> Vec<DensityBin> {
    let n = h.count();
    let Some((first, counts)) = log_bins(h, bins_per_decade) else { return Vec::new() };
    counts
        .into_iter()
        .enumerate()
        .map(|(i, count)| {
            let (lo, hi) = bin_edges(first + i as i64, bins_per_decade);
            DensityBin { lo_ns: lo, hi_ns: hi, count, density: count as f64 / n as f64 / (hi / lo).log10() }
        })
        .collect()
}

/// The bin of a latency: bin k spans `[10^(k/b), 10^((k+1)/b))` ns with `b` bins per decade.
pub fn bin_of(v: u64, bins_per_decade: u32) -> i64 {
    ((v.max(1) as f64).log10() * bins_per_decade as f64).floor() as i64
}

/// The latency range `[lo, hi)` of bin `k` (see [`bin_of`]).
pub fn bin_edges(k: i64, bins_per_decade: u32) -> (f64, f64) {
    let b = bins_per_decade.max(1) as f64;
    (10f64.powf(k as f64 / b), 10f64.powf((k + 1) as f64 / b))
}

/// Counts on log-spaced bins: the first bin (see [`bin_of`]) and the count of every bin from
/// it to the max's, empty bins included. Each recorded bucket goes whole to the bin holding
/// its midpoint, so counts are exact and sum to N. `None` for an empty histogram.
pub fn log_bins(h: &Hist, bins_per_decade: u32) -> Option<(i64, Vec<u64>)> {
    if h.count() == 0 || bins_per_decade == 0 {
        return None;
    }
    let layout = h.layout();
    let first = bin_of(layout.median_equivalent(h.min()), bins_per_decade);
    let last = bin_of(layout.median_equivalent(h.buckets().next_back().map_or(0, |b| b.0)), bins_per_decade);
    let mut counts = vec![0_u64; (last - first + 1) as usize];
    // Buckets come in ascending order and a bin holds many of them: a bucket below the next
    // bin's first value is in the same bin, with no logarithm taken (one per bin, not one per
    // bucket: the viewer bins every run's histogram as it opens).
    let (mut bin, mut next) = (first, 0_u64);
    for (v, c) in h.buckets() {
        let m = layout.median_equivalent(v);
        if m >= next {
            bin = bin_of(m, bins_per_decade);
            next = first_of_next_bin(bin, bins_per_decade);
        }
        counts[(bin - first) as usize] += c;
    }
    Some((first, counts))
}

/// The least value whose bin (see [`bin_of`]) is past `bin`, found by [`bin_of`] itself near
/// the bin's upper edge: every value below it is in `bin` or before.
fn first_of_next_bin(bin: i64, bins_per_decade: u32) -> u64 {
    let edge = bin_edges(bin, bins_per_decade).1;
    if edge >= u64::MAX as f64 {
        return u64::MAX;
    }
    let mut c = (edge.ceil() as u64).max(1);
    while c > 1 && bin_of(c - 1, bins_per_decade) > bin {
        c -= 1;
    }
    while c < u64::MAX && bin_of(c, bins_per_decade) <= bin {
        c += 1;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;

    #[test]
    fn density_counts_are_exact() {
        let h = Hist::from_values(Layout::default_ns(), (0..10_000u64).map(|i| 1_000 + i * i / 100));
        let d = log_density(&h, 20);
        assert_eq!(d.iter().map(|b| b.count).sum::<u64>(), 10_000);
        assert!(d.windows(2).all(|w| (w[0].hi_ns - w[1].lo_ns).abs() < 1e-6 * w[1].lo_ns));
        assert!(d.first().unwrap().lo_ns <= 1_000.0 && d.last().unwrap().hi_ns >= h.max() as f64 * 0.999);
        let area: f64 = d.iter().map(|b| b.density * (b.hi_ns / b.lo_ns).log10()).sum();
        assert!((area - 1.0).abs() < 1e-9);
        assert!(log_density(&Hist::empty(Layout::default_ns()), 20).is_empty());
    }

    #[test]
    fn bins_are_those_of_each_buckets_own_logarithm() {
        // bucket by bucket, as bin_of gives it, over latencies from 1 ns to minutes
        for bins in [1, 7, 20, 50] {
            let h = Hist::from_values(Layout::default_ns(), (0..200_000u64).map(|i| 1 + i * i * 3 + (i % 97) * 1_000_000));
            let layout = h.layout();
            let (first, counts) = log_bins(&h, bins).unwrap();
            let mut want = vec![0_u64; counts.len()];
            for (v, c) in h.buckets() {
                want[(bin_of(layout.median_equivalent(v), bins) - first) as usize] += c;
            }
            assert_eq!(counts, want, "{bins} bins per decade");
            for k in -2..200 {
                let n = first_of_next_bin(k, bins);
                // (past u64's bins, none is next)
                let past = n == u64::MAX && bin_of(n, bins) <= k;
                assert!(past || (bin_of(n, bins) > k && (n <= 1 || bin_of(n - 1, bins) <= k)), "bin {k}: {n}");
            }
        }
    }
}
