//! fio's latency buckets ("plat" histograms), the precision of everything read from them.
//!
//! fio 3.x sorts each latency in nanoseconds into one of `NR = 1856` buckets (stat.h,
//! `FIO_IO_U_PLAT_BITS = 6`, `FIO_IO_U_PLAT_GROUP_NR = 29`). Values below 128 ns have a bucket
//! each. Above, a value whose highest set bit is `m` (m >= 7) falls in group `m - 5`, which
//! splits `[2^m, 2^(m+1))` into 64 buckets of width `2^(m-6)`: a bucket is at most 1/64 of
//! its lower bound wide (1.6%), against 1/1024 for a 3-digit HdrHistogram. The last group ends
//! at 2^34 ns (about 17.2 s), and fio clamps every larger value into the last bucket, so that
//! bucket has no upper bound: it holds everything from `2^34 - 2^27` ns (about 17.05 s) up.
//!
//! In json+ output a bucket is named by `plat_idx_to_val`: the index itself below 128, else
//! the bucket's middle rounded down. Histogram logs (`--write_hist_log`) give the counts of
//! all buckets in index order, `2^coarseness` buckets summed per column.
//!
//! Every HdrHistogram bucket of nines' default layout (3 digits, 1 ns) nests inside one fio
//! bucket (both grids are power-of-two aligned and ours is at least 16x finer), so a fio
//! bucket recorded at any value inside it stays a distinct bucket, and the fio bucket of a
//! level can be recovered from the value read off our histogram.

/// `FIO_IO_U_PLAT_BITS`.
pub const BITS: u32 = 6;
/// Buckets per group (`FIO_IO_U_PLAT_VAL`).
pub const VAL: u64 = 1 << BITS;
/// Number of buckets (`FIO_IO_U_PLAT_NR`).
pub const NR: usize = 29 * (1 << BITS);
/// Lower bound of fio's clamp bucket: values from here up share the last bucket.
pub const CLAMP_LO_NS: u64 = (1 << 34) - (1 << 27);
/// Largest `--log_hist_coarseness` fio accepts.
pub const MAX_COARSENESS: u8 = 6;

/// Bucket index of a latency in ns (fio's `plat_val_to_idx`).
pub fn index_of(ns: u64) -> usize {
    if ns < (VAL << 1) {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros();
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) as usize) << BITS;
    let offset = ((ns >> error_bits) & (VAL - 1)) as usize;
    (base + offset).min(NR - 1)
}

/// Lowest value of bucket `idx` (`idx < NR`).
pub fn lowest(idx: usize) -> u64 {
    if idx < (VAL << 1) as usize {
        return idx as u64;
    }
    let error_bits = (idx >> BITS) as u32 - 1;
    let base = 1_u64 << (error_bits + BITS);
    base + (idx as u64 % VAL) * (1 << error_bits)
}

/// Highest value of bucket `idx` within fio's tracked range (the clamp bucket's nominal top;
/// see [`is_clamp`]).
pub fn highest(idx: usize) -> u64 {
    if idx < (VAL << 1) as usize {
        return idx as u64;
    }
    let error_bits = (idx >> BITS) as u32 - 1;
    lowest(idx) + (1 << error_bits) - 1
}

/// The value json+ uses to name bucket `idx` (fio's `plat_idx_to_val`): its middle, rounded down.
pub fn name_of(idx: usize) -> u64 {
    if idx < (VAL << 1) as usize {
        return idx as u64;
    }
    let error_bits = (idx >> BITS) as u32 - 1;
    lowest(idx) + (1 << error_bits) / 2
}

/// Does the bucket range `[first_idx, last_idx]` include fio's clamp bucket?
pub fn is_clamp(last_idx: usize) -> bool {
    last_idx >= NR - 1
}

/// A bucket of a fio histogram with the given coarseness: the indexes it sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coarse {
    pub first: usize,
    pub last: usize,
}

impl Coarse {
    /// The coarse bucket (column) `col` of a histogram log with `coarseness`.
    pub fn column(col: usize, coarseness: u8) -> Coarse {
        let stride = 1_usize << coarseness;
        Coarse { first: col * stride, last: (col * stride + stride - 1).min(NR - 1) }
    }
    /// The coarse bucket holding the value `ns`.
    pub fn of_value(ns: u64, coarseness: u8) -> Coarse {
        Coarse::column(index_of(ns) >> coarseness, coarseness)
    }
    pub fn lo(&self) -> u64 {
        lowest(self.first)
    }
    pub fn hi(&self) -> u64 {
        highest(self.last)
    }
    /// Holds values fio clamped: no upper bound.
    pub fn clamped(&self) -> bool {
        is_clamp(self.last)
    }
    /// A value to record the bucket's counts at: its middle (HdrHistogram's convention for
    /// means), which lies inside the bucket.
    pub fn representative(&self) -> u64 {
        self.lo() + (self.hi() - self.lo()) / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_buckets() {
        assert_eq!(index_of(0), 0);
        assert_eq!(index_of(127), 127);
        assert_eq!(index_of(128), 128);
        assert_eq!(index_of(129), 128); // width 2 from 128
        assert_eq!((lowest(128), highest(128)), (128, 129));
        assert_eq!(index_of(u64::MAX), NR - 1);
        assert_eq!(index_of(1 << 34), NR - 1);
        assert_eq!(index_of((1 << 34) - 1), NR - 1);
        assert_eq!(index_of(CLAMP_LO_NS - 1), NR - 2);
        assert_eq!(lowest(NR - 1), CLAMP_LO_NS);
        assert_eq!(highest(NR - 1), (1 << 34) - 1);
        // names seen in real fio 3.33 json+ output: 604, 620, 644, 652, 660 (width 4, 8)
        for name in [604_u64, 620, 644, 652, 660, 7328, 11072, 2_310_144] {
            assert_eq!(name_of(index_of(name)), name, "{name}");
        }
    }

    #[test]
    fn coarse_columns() {
        // coarseness 2: 464 columns, the last one holds the clamp bucket
        assert_eq!(Coarse::column(463, 2), Coarse { first: 1852, last: 1855 });
        assert!(Coarse::column(463, 2).clamped());
        assert!(!Coarse::column(462, 2).clamped());
        assert_eq!(Coarse::of_value(130, 1), Coarse { first: 128, last: 129 });
        assert_eq!(Coarse::of_value(130, 1).lo(), 128);
        assert_eq!(Coarse::of_value(130, 1).hi(), 131);
    }

    proptest! {
        #[test]
        fn buckets_partition_values(v in 0u64..(1u64 << 40)) {
            let i = index_of(v);
            prop_assert!(i < NR);
            prop_assert!(lowest(i) <= v);
            if !is_clamp(i) { prop_assert!(v <= highest(i)); }
            prop_assert_eq!(index_of(lowest(i)), i);
            prop_assert_eq!(index_of(highest(i)), i);
            prop_assert_eq!(index_of(name_of(i)), i);
            if i + 1 < NR { prop_assert_eq!(highest(i) + 1, lowest(i + 1)); }
        }

        // Our default layout nests inside fio's buckets, so the level's fio bucket can be
        // recovered from our histogram's bucket.
        #[test]
        fn hdr_buckets_nest_in_fio_buckets(v in 0u64..(1u64 << 36)) {
            let l = crate::hist::Layout::default_ns();
            let i = index_of(v);
            prop_assert_eq!(index_of(l.lowest_equivalent(v)), i);
            if !is_clamp(i) { prop_assert_eq!(index_of(l.highest_equivalent(v)), i); }
        }
    }
}
