//! Sparse, immutable latency histograms with HdrHistogram bucket layout.
//!
//! A run holds thousands of windows. A dense `hdrhistogram::Histogram` for a nanosecond range
//! of one hour at 3 significant digits is ~256 KiB of counters, so 7,200 windows would need
//! ~1.8 GiB; in the browser that is out of the question. A window usually fills a few hundred
//! buckets, so windows are kept as sorted `(bucket, count)` lists and merged exactly. The dense
//! `hdrhistogram` crate is still used for encoding, decoding and as the merge accumulator; only
//! the bucket arithmetic (`Layout`) is repeated here, because the crate keeps it private and it
//! is needed without a dense counts array. `Layout` is tested against the crate.

use hdrhistogram::Histogram;

/// The most I/Os a run may hold, over all its windows: 2^63 - 1. HdrHistogram's V2 encoding
/// writes each count as a ZigZag varint of a signed 64-bit integer (HdrHistogram's
/// "Histogram Serialization" format, `encodeIntoByteBuffer`), so no log holds a count above
/// this. Every reader checks that the counts of all windows of a run add up to at most this
/// ([`crate::run::Run::check_counts`]); any merge of any windows of one run is then exact in
/// 64 bits and encodable, so the merges below need no checks of their own.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// Counts that would add up to more than [`MAX_COUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("counts add up to more than 2^63-1 (9223372036854775807), the most an HdrHistogram log holds")]
pub struct CountOverflow;

/// `a + b` when it is at most [`MAX_COUNT`].
#[inline]
pub fn add_counts(a: u64, b: u64) -> Result<u64, CountOverflow> {
    a.checked_add(b).filter(|&t| t <= MAX_COUNT).ok_or(CountOverflow)
}

/// The bucket layout of an HdrHistogram: which values are "equivalent" (share a counter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Significant decimal digits kept (0..=5).
    pub sigfig: u8,
    /// Lowest discernible value (>= 1).
    pub low: u64,
    unit_magnitude: u8,
    sub_bucket_count_magnitude: u8,
}

impl Layout {
    /// Layout of a histogram with the given lowest discernible value and precision.
    /// Returns `None` where HdrHistogram itself would refuse the parameters.
    pub fn new(low: u64, sigfig: u8) -> Option<Layout> {
        if low == 0 || sigfig > 5 {
            return None;
        }
        let unit_magnitude = 63 - low.leading_zeros() as u8; // floor(log2(low))
        let largest = 2 * 10_u64.pow(u32::from(sigfig));
        // ceil(log2(largest))
        let sub_bucket_count_magnitude = (64 - (largest - 1).leading_zeros()) as u8;
        let sub_bucket_count_magnitude = sub_bucket_count_magnitude.max(1);
        if unit_magnitude + sub_bucket_count_magnitude > 63 {
            return None;
        }
        Some(Layout { sigfig, low, unit_magnitude, sub_bucket_count_magnitude })
    }

    /// The layout nines writes: 1 ns resolution, 3 significant digits.
    pub fn default_ns() -> Layout {
        Layout::new(1, 3).expect("valid default layout")
    }

    fn sub_bucket_mask(&self) -> u64 {
        ((1_u64 << self.sub_bucket_count_magnitude) - 1) << self.unit_magnitude
    }

    fn bucket_for(&self, value: u64) -> u32 {
        let base = 64 - u32::from(self.unit_magnitude) - u32::from(self.sub_bucket_count_magnitude);
        base - (value | self.sub_bucket_mask()).leading_zeros()
    }

    /// Lowest value equivalent to `value` (the bucket's lower bound).
    pub fn lowest_equivalent(&self, value: u64) -> u64 {
        let b = self.bucket_for(value) + u32::from(self.unit_magnitude);
        (value >> b) << b
    }

    /// Width of the bucket holding `value`.
    pub fn equivalent_range(&self, value: u64) -> u64 {
        1_u64 << (u32::from(self.unit_magnitude) + self.bucket_for(value))
    }

    /// Highest value equivalent to `value` (the bucket's upper bound).
    pub fn highest_equivalent(&self, value: u64) -> u64 {
        if value == u64::MAX {
            return u64::MAX;
        }
        self.lowest_equivalent(value).saturating_add(self.equivalent_range(value)) - 1
    }

    /// HdrHistogram's counts-array index of `value` (bucket 0 uses every sub-bucket, later
    /// buckets only the upper half). This is also the index the V2 encoding walks.
    pub fn index_of(&self, value: u64) -> usize {
        let bucket = self.bucket_for(value);
        let sub = (value >> (bucket + u32::from(self.unit_magnitude))) as usize;
        let half = 1_usize << (self.sub_bucket_count_magnitude - 1);
        (bucket as usize) * half + sub
    }

    /// Lowest value of the bucket at counts-array `index`; `None` past the 64-bit range.
    pub fn value_of_index(&self, index: usize) -> Option<u64> {
        let hm = u32::from(self.sub_bucket_count_magnitude - 1);
        let half = 1_usize << hm;
        let mut bucket = (index >> hm) as u64;
        let mut sub = (index & (half - 1)) + half;
        if bucket == 0 {
            sub -= half;
        } else {
            bucket -= 1;
        }
        let shift = bucket + u64::from(self.unit_magnitude);
        // the top bit of `sub` sits at sub_bucket_count_magnitude - 1 (+ shift)
        if shift + u64::from(self.sub_bucket_count_magnitude) > 64 {
            return None;
        }
        Some((sub as u64) << shift)
    }

    /// One past the highest counts-array index of a 64-bit value: `value_of_index` is `Some`
    /// exactly below it. It is below 2^25 for every layout (at most 64 buckets of at most 2^18
    /// sub-buckets), so indexes fit in 32 bits.
    pub fn index_limit(&self) -> usize {
        // index >> hm is the bucket + 1 (or 0 for bucket 0); see value_of_index
        let hm = u32::from(self.sub_bucket_count_magnitude - 1);
        (66 - usize::from(self.unit_magnitude) - usize::from(self.sub_bucket_count_magnitude)) << hm
    }

    /// Middle of the bucket holding `value` (what HdrHistogram uses for means).
    pub fn median_equivalent(&self, value: u64) -> u64 {
        self.lowest_equivalent(value) + (self.equivalent_range(value) >> 1)
    }
}

/// One non-empty bucket: its HdrHistogram counts-array index and its count. A count of
/// [`SPILL`] or more is kept in the histogram's `big` list instead (see [`Hist`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bucket {
    index: u32,
    count: u32,
}

/// A bucket count of this value stands for the next entry of `Hist::big`.
const SPILL: u32 = u32::MAX;

/// A bucket's stored count: the count itself below [`SPILL`], else `SPILL` with the whole
/// count appended to `big` (the side list, in bucket order).
#[inline]
fn spill(big: &mut Vec<u64>, count: u64) -> u32 {
    if count >= u64::from(SPILL) {
        big.push(count);
        SPILL
    } else {
        count as u32
    }
}

/// An immutable sparse histogram: sorted buckets with their counts.
///
/// Buckets are iterated as `(lowest equivalent value of the bucket, count)`, ascending, with
/// counts above 0 ([`Hist::buckets`]). A run keeps tens of millions of them (the viewer holds
/// many runs), so each is stored in 8 bytes: the layout's counts-array index (every index of a
/// 64-bit layout fits in 32 bits, see [`Layout::index_limit`]) and a 32-bit count. The rare
/// count of 2^32 - 1 or more is stored as that value and its full value goes, in bucket order,
/// to a side list. Storing the index rather than the value also makes merging a plain array
/// add.
#[derive(Clone, Debug, PartialEq)]
pub struct Hist {
    layout: Layout,
    buckets: Vec<Bucket>,
    big: Vec<u64>,
    total: u64,
}

/// Builds a [`Hist`] from buckets pushed in ascending index order.
pub(crate) struct HistBuilder {
    layout: Layout,
    buckets: Vec<Bucket>,
    big: Vec<u64>,
}

impl HistBuilder {
    pub(crate) fn with_capacity(layout: Layout, capacity: usize) -> HistBuilder {
        HistBuilder { layout, buckets: Vec::with_capacity(capacity), big: Vec::new() }
    }

    /// Append a bucket; `index` must be above the previous one, below the layout's
    /// [`Layout::index_limit`], and `count` > 0.
    #[inline]
    pub(crate) fn push(&mut self, index: u32, count: u64) {
        let count = spill(&mut self.big, count);
        self.push_small(index, count);
    }

    /// [`HistBuilder::push`] of a count below 2^32 - 1 (no spill check).
    #[inline(always)]
    pub(crate) fn push_small(&mut self, index: u32, count: u32) {
        debug_assert!(count > 0 && (index as usize) < self.layout.index_limit());
        debug_assert!(self.buckets.last().is_none_or(|b| b.index < index));
        self.buckets.push(Bucket { index, count });
    }

    pub(crate) fn finish(mut self) -> Hist {
        // runs keep thousands of these: no spare capacity
        self.buckets.shrink_to_fit();
        // The total in one pass at the end rather than per push: 32-bit counts summed in 64
        // bits cannot overflow; the spilled ones are added in place of SPILL, saturating for
        // a hostile file: a total of u64::MAX is above MAX_COUNT, which readers refuse.
        let small: u64 = self.buckets.iter().map(|b| u64::from(b.count)).sum::<u64>() - u64::from(SPILL) * self.big.len() as u64;
        let total = self.big.iter().fold(small, |t, &c| t.saturating_add(c));
        Hist { layout: self.layout, buckets: self.buckets, big: self.big, total }
    }
}

/// A decoder's reusable bucket list: buckets are written in place at `len` into a list kept
/// zero-filled up to its room, so that a bucket can be written unconditionally and kept or
/// not by a flag. That makes the decoder's loop over one-byte varints free of branches that
/// depend on the data: whether a byte is a count, a zero count or a zero run is unpredictable,
/// and on the one-hour bench log the mispredictions cost more than the extra instructions
/// (perf: 15% less CPU time for the whole `nines stats`). No `unsafe`: the room is real.
pub(crate) struct Scratch {
    layout: Layout,
    buckets: Vec<Bucket>,
    len: usize,
    big: Vec<u64>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch { layout: Layout::default_ns(), buckets: Vec::new(), len: 0, big: Vec::new() }
    }
}

impl Scratch {
    /// Start a histogram of `layout` with room for `room` buckets.
    pub(crate) fn reset(&mut self, layout: Layout, room: usize) {
        self.layout = layout;
        self.len = 0;
        self.big.clear();
        if self.buckets.len() < room {
            self.buckets.resize(room, Bucket { index: 0, count: 0 });
        }
    }

    /// Write a bucket with a count below 2^32 - 1 (or SPILL, from `push`) and keep it if
    /// `keep`. The caller reserved room for every bucket (one per payload byte at most).
    #[inline(always)]
    pub(crate) fn put(&mut self, index: u32, count: u32, keep: bool) {
        debug_assert!(!keep || (count > 0 && (index as usize) < self.layout.index_limit()));
        debug_assert!(!keep || self.buckets[..self.len].last().is_none_or(|b| b.index < index));
        self.buckets[self.len] = Bucket { index, count };
        self.len += usize::from(keep);
    }

    /// Keep a bucket with any count > 0.
    pub(crate) fn push(&mut self, index: u32, count: u64) {
        let count = spill(&mut self.big, count);
        self.put(index, count, true);
    }

    /// The histogram written so far, in a list of its exact size.
    pub(crate) fn take(&mut self) -> Hist {
        let mut out = HistBuilder::with_capacity(self.layout, 0);
        out.buckets = self.buckets[..self.len].to_vec();
        out.big = std::mem::take(&mut self.big);
        self.len = 0;
        out.finish()
    }
}

/// The buckets of a [`Hist`] as `(lowest equivalent value, count)`, ascending.
#[derive(Clone)]
pub struct Buckets<'a> {
    layout: Layout,
    buckets: std::slice::Iter<'a, Bucket>,
    big: &'a [u64],
    /// entries of `big` taken from the front and from the back
    big_front: usize,
    big_back: usize,
}

impl Buckets<'_> {
    fn value(&self, index: u32) -> u64 {
        self.layout.value_of_index(index as usize).expect("stored indexes are below the layout's limit")
    }

    /// The next bucket from the front as `(counts-array index, count)`: its value is left
    /// to the caller, for walks that convert few of the indexes they pass.
    #[inline]
    fn front_index(&mut self) -> Option<(u32, u64)> {
        let b = *self.buckets.next()?;
        let count = if b.count == SPILL {
            self.big_front += 1;
            self.big[self.big_front - 1]
        } else {
            u64::from(b.count)
        };
        Some((b.index, count))
    }

    /// [`Buckets::front_index`] from the back.
    fn back_index(&mut self) -> Option<(u32, u64)> {
        let b = *self.buckets.next_back()?;
        let count = if b.count == SPILL {
            self.big_back += 1;
            self.big[self.big.len() - self.big_back]
        } else {
            u64::from(b.count)
        };
        Some((b.index, count))
    }
}

impl Iterator for Buckets<'_> {
    type Item = (u64, u64);

    #[inline]
    fn next(&mut self) -> Option<(u64, u64)> {
        self.front_index().map(|(i, c)| (self.value(i), c))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.buckets.size_hint()
    }
}

impl DoubleEndedIterator for Buckets<'_> {
    fn next_back(&mut self) -> Option<(u64, u64)> {
        self.back_index().map(|(i, c)| (self.value(i), c))
    }
}

impl ExactSizeIterator for Buckets<'_> {}

impl Hist {
    /// An empty histogram (a window in which nothing completed).
    pub fn empty(layout: Layout) -> Hist {
        Hist { layout, buckets: Vec::new(), big: Vec::new(), total: 0 }
    }

    /// Build from raw values (mainly for tests and importers of exact values).
    pub fn from_values(layout: Layout, values: impl IntoIterator<Item = u64>) -> Hist {
        let mut acc = Accumulator::new(layout);
        for v in values {
            acc.record_n(v, 1);
        }
        acc.finish()
    }

    /// Convert a dense HdrHistogram.
    pub fn from_hdr(h: &Histogram<u64>) -> Hist {
        let layout = Layout::new(h.low(), h.sigfig()).expect("a valid histogram has a valid layout");
        let mut out = HistBuilder::with_capacity(layout, 0);
        for v in h.iter_recorded() {
            let index = layout.index_of(v.value_iterated_to());
            out.push(index as u32, v.count_at_value());
        }
        out.finish()
    }

    /// Convert to a dense HdrHistogram with the same layout (for encoding).
    pub fn to_hdr(&self) -> Histogram<u64> {
        let high = self.max().max(self.layout.low.saturating_mul(2)).max(2);
        let mut h = Histogram::<u64>::new_with_bounds(self.layout.low, high, self.layout.sigfig).expect("layout was validated");
        h.auto(true);
        for (v, c) in self.buckets() {
            h.record_n(v, c).expect("auto-resizing histogram accepts every value");
        }
        h
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.total
    }
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
    /// `(bucket lowest value, count)` pairs, ascending.
    pub fn buckets(&self) -> Buckets<'_> {
        Buckets { layout: self.layout, buckets: self.buckets.iter(), big: &self.big, big_front: 0, big_back: 0 }
    }
    /// Number of non-empty buckets.
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }
    /// Bytes this histogram holds on the heap (its bucket storage).
    pub fn heap_bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>() + self.big.capacity() * 8
    }
    /// Lowest recorded value, at bucket precision (the bucket's lower bound); 0 when empty.
    pub fn min(&self) -> u64 {
        self.buckets().next().map_or(0, |b| b.0)
    }
    /// Highest recorded value, at bucket precision (the bucket's upper bound); 0 when empty.
    pub fn max(&self) -> u64 {
        self.buckets().next_back().map_or(0, |b| self.layout.highest_equivalent(b.0))
    }

    /// Mean, with each bucket represented by its middle (as HdrHistogram does). It lies in
    /// `[min, max]`: a weighted mean of bucket middles does, and the clamp keeps it there
    /// against the rounding of sums of products beyond 2^53.
    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let n = self.total as f64;
        let mean = self.buckets().map(|(v, c)| self.layout.median_equivalent(v) as f64 * c as f64).sum::<f64>() / n;
        mean.clamp(self.min() as f64, self.max() as f64)
    }

    /// Population standard deviation, bucket middles as values.
    pub fn stdev(&self) -> f64 {
        self.stdev_about(self.mean())
    }

    /// [`Hist::stdev`] given the histogram's [`Hist::mean`], for callers that have it.
    pub(crate) fn stdev_about(&self, mean: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let ss: f64 = self
            .buckets()
            .map(|(v, c)| {
                let d = self.layout.median_equivalent(v) as f64 - mean;
                d * d * c as f64
            })
            .sum();
        (ss / self.total as f64).sqrt()
    }

    /// The bucket holding the value of rank `rank` (1-based, ascending): its lowest value.
    /// `None` when `rank` is 0 or larger than the count.
    pub fn bucket_at_rank(&self, rank: u64) -> Option<u64> {
        if rank == 0 || rank > self.total {
            return None;
        }
        // The levels of a latency report sit in the tail (99.99% of a million I/Os is rank
        // 999,900): walk from the end nearer the rank, so a deep level reads a few buckets of
        // the top instead of all of them. From the top, rank r lies in the first bucket whose
        // count with those above it exceeds the N - r I/Os ranked above r.
        // Only the bucket found is converted from its index to a value.
        let beyond = self.total - rank;
        let (mut it, mut cum) = (self.buckets(), 0_u64);
        if beyond < rank {
            while let Some((i, c)) = it.back_index() {
                // saturating for a histogram decoded from hostile bytes (readers refuse its run)
                cum = cum.saturating_add(c);
                if cum > beyond {
                    return Some(it.value(i));
                }
            }
            return None;
        }
        while let Some((i, c)) = it.front_index() {
            cum = cum.saturating_add(c);
            if cum >= rank {
                return Some(it.value(i));
            }
        }
        None
    }

    /// `(counts-array index, count)` of each bucket, ascending, when no count is spilled to
    /// the side list (`None` otherwise): a plain slice walk in either direction, for loops
    /// that look at most buckets and convert few indexes to values.
    pub(crate) fn small_buckets(&self) -> Option<impl DoubleEndedIterator<Item = (u32, u64)> + Clone + '_> {
        self.big.is_empty().then(|| self.buckets.iter().map(|b| (b.index, u64::from(b.count))))
    }

    /// `(counts-array index, count)` of each bucket, ascending (the index is the layout's, see
    /// [`Layout::index_of`]).
    pub fn indexed(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let mut big = self.big.iter();
        self.buckets.iter().map(move |b| {
            let c = if b.count == SPILL { *big.next().expect("one big count per spilled bucket") } else { u64::from(b.count) };
            (b.index, c)
        })
    }

    /// Exact merge of two histograms (histogram addition). Exact while the two counts add up
    /// to at most [`MAX_COUNT`], as any windows of one run do (see [`MAX_COUNT`]); for
    /// histograms of different runs use [`Hist::checked_merge`].
    pub fn merge(&self, other: &Hist) -> Hist {
        debug_assert!(add_counts(self.total, other.total).is_ok(), "merge beyond MAX_COUNT: check the run's counts first");
        if self.layout != other.layout {
            return Hist::merge_all([self, other]);
        }
        if self.big.is_empty() && other.big.is_empty() {
            return self.merge_small(other);
        }
        self.merge_wide(other)
    }

    /// [`Hist::merge`] through the side list of big counts.
    fn merge_wide(&self, other: &Hist) -> Hist {
        let mut out = HistBuilder::with_capacity(self.layout, self.buckets.len() + other.buckets.len());
        let (mut a, mut b) = (self.indexed().peekable(), other.indexed().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (Some(&(i, c)), Some(&(j, d))) => match i.cmp(&j) {
                    std::cmp::Ordering::Less => {
                        out.push(i, c);
                        a.next();
                    }
                    std::cmp::Ordering::Greater => {
                        out.push(j, d);
                        b.next();
                    }
                    std::cmp::Ordering::Equal => {
                        out.push(i, c.saturating_add(d));
                        a.next();
                        b.next();
                    }
                },
                (Some(&(i, c)), None) => {
                    out.push(i, c);
                    a.next();
                }
                (None, Some(&(j, d))) => {
                    out.push(j, d);
                    b.next();
                }
                (None, None) => break,
            }
        }
        let mut h = out.finish();
        h.total = self.total.saturating_add(other.total);
        h
    }

    /// [`Hist::merge`] of two histograms of one layout without spilled counts (the usual
    /// case): a merge of two sorted slices by index into a list sized once.
    fn merge_small(&self, other: &Hist) -> Hist {
        let mut out = Vec::new();
        if !merge_sorted(&self.buckets, &other.buckets, &mut out) {
            return self.merge_wide(other);
        }
        // runs keep thousands of these: no spare capacity
        out.shrink_to_fit();
        Hist { layout: self.layout, buckets: out, big: Vec::new(), total: self.total.saturating_add(other.total) }
    }

    /// [`Hist::merge`] written into `out`, whose bucket storage is reused (and kept at its
    /// size): for merging many histograms in turn, such as the groups of a compact form's
    /// levels, without allocating (or freeing) a list per merge.
    pub(crate) fn merge_into(&self, other: &Hist, out: &mut Hist) {
        if self.layout == other.layout
            && self.big.is_empty()
            && other.big.is_empty()
            && merge_sorted(&self.buckets, &other.buckets, &mut out.buckets)
        {
            out.layout = self.layout;
            out.big.clear();
            out.total = self.total.saturating_add(other.total);
            return;
        }
        *out = self.merge(other);
    }

    /// [`Hist::merge`], or an error when the counts would add up to more than [`MAX_COUNT`].
    pub fn checked_merge(&self, other: &Hist) -> Result<Hist, CountOverflow> {
        add_counts(self.total, other.total)?;
        Ok(self.merge(other))
    }

    /// [`Hist::merge_all`], or an error when the counts would add up to more than
    /// [`MAX_COUNT`].
    pub fn checked_merge_all<'a>(hists: impl IntoIterator<Item = &'a Hist>) -> Result<Hist, CountOverflow> {
        let hists: Vec<&Hist> = hists.into_iter().collect();
        hists.iter().try_fold(0, |t, h| add_counts(t, h.total))?;
        Ok(Hist::merge_all(hists))
    }

    /// Exact merge of many histograms. With mixed layouts the result takes the coarsest
    /// precision present, and values are re-bucketed by their bucket's upper bound (never
    /// sharper than the inputs). Exact while the counts add up to at most [`MAX_COUNT`] (any
    /// windows of one run); see [`Hist::checked_merge_all`].
    pub fn merge_all<'a>(hists: impl IntoIterator<Item = &'a Hist>) -> Hist {
        let hists: Vec<&Hist> = hists.into_iter().collect();
        let Some(first) = hists.first() else {
            return Hist::empty(Layout::default_ns());
        };
        let mut layout = first.layout;
        for h in &hists {
            if h.layout != layout {
                let sigfig = layout.sigfig.min(h.layout.sigfig);
                let low = layout.low.max(h.layout.low);
                layout = Layout::new(low, sigfig).unwrap_or(layout);
            }
        }
        let mut acc = Accumulator::new(layout);
        for h in hists {
            acc.add(h);
        }
        acc.finish()
    }
}

/// The merge of two bucket lists sorted by index, counts added, into `out` (its contents
/// replaced); `false` (and `out` unspecified) when a sum reaches [`SPILL`] (two counts of 2^31
/// and more), for the caller to merge through the side list of big counts. `out` is grown to
/// room for both lists (zeroing only what it did not have) and cut to the merge at the end.
///
/// Only the buckets where both lists' ranges overlap need merging: those below it (of the
/// list that starts lower) and above it (of the list that ends higher) are copied. Where one
/// list has few buckets in the overlap among many of the other (reads next to writes, whose
/// latencies differ: a direction's tail among the other's body), each of its buckets is put in
/// place by a scan of the other, whose runs between them are copied: a branch that mispredicts
/// once a bucket of the short list. Otherwise the merge is [`merge_branchless`].
fn merge_sorted(a: &[Bucket], b: &[Bucket], out: &mut Vec<Bucket>) -> bool {
    let room = a.len() + b.len();
    if out.len() < room {
        out.resize(room, Bucket { index: 0, count: 0 });
    }
    let (Some(first_a), Some(last_a), Some(first_b), Some(last_b)) = (a.first(), a.last(), b.first(), b.last()) else {
        out.truncate(0);
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        return true;
    };
    let (lo, hi) = (first_a.index.max(first_b.index), last_a.index.min(last_b.index));
    // each list's buckets below lo, in [lo, hi] and above hi (the ranges overlap, or do not
    // and every bucket of a list is on one side of the other's)
    let cut = |l: &[Bucket]| {
        let below = l.partition_point(|x| x.index < lo);
        (below, l.partition_point(|x| x.index <= hi).max(below))
    };
    let ((a0, a1), (b0, b1)) = (cut(a), cut(b));
    let out_all = &mut out[..room];
    let mut n = 0;
    for part in [&a[..a0], &b[..b0]] {
        out_all[n..n + part.len()].copy_from_slice(part);
        n += part.len();
    }
    let (am, bm) = (&a[a0..a1], &b[b0..b1]);
    let (long, short) = if am.len() >= bm.len() { (am, bm) } else { (bm, am) };
    if short.len() * 4 <= long.len() {
        let mut at = 0;
        for s in short {
            let run = long[at..].iter().take_while(|x| x.index < s.index).count();
            out_all[n..n + run].copy_from_slice(&long[at..at + run]);
            n += run;
            at += run;
            match long.get(at) {
                Some(x) if x.index == s.index => {
                    let count = u64::from(x.count) + u64::from(s.count);
                    if count >= u64::from(SPILL) {
                        return false;
                    }
                    out_all[n] = Bucket { index: s.index, count: count as u32 };
                    at += 1;
                }
                _ => out_all[n] = *s,
            }
            n += 1;
        }
        let rest = &long[at..];
        out_all[n..n + rest.len()].copy_from_slice(rest);
        n += rest.len();
    } else {
        match merge_branchless(am, bm, &mut out_all[n..n + am.len() + bm.len()]) {
            Some(m) => n += m,
            None => return false,
        }
    }
    for part in [&a[a1..], &b[b1..]] {
        out_all[n..n + part.len()].copy_from_slice(part);
        n += part.len();
    }
    out.truncate(n);
    true
}

/// The merge of `a` and `b` (sorted by index) into `out`, which has room for both: the number
/// of buckets written, or `None` when a sum reaches [`SPILL`].
///
/// Each step has no branch that depends on the data: it writes the lower index of the two
/// heads with the counts of the sides that hold it, and advances those sides by a flag. Which
/// side is lower is a coin toss when two windows' buckets interleave, and the mispredictions of
/// a branching merge were a third of a viewer worker's time summarising a one-hour run (perf).
/// Without them a step waits for the last: its loads need the positions the last comparison
/// gave. So the lists are cut at one bucket index into a lower and an upper pair, which share
/// no index and merge independently, and the loop takes a step of each pair in turn: two
/// chains of dependent steps that the CPU overlaps.
fn merge_branchless(a: &[Bucket], b: &[Bucket], out: &mut [Bucket]) -> Option<usize> {
    // cut at the middle bucket of the longer list: the buckets of both below its index, then
    // the rest
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let Some(mid) = long.get(long.len() / 2) else { return Some(0) };
    let (cut_long, cut_short) = (long.len() / 2, short.partition_point(|x| x.index < mid.index));
    let (lo_a, hi_a) = long.split_at(cut_long);
    let (lo_b, hi_b) = short.split_at(cut_short);
    let lo_room = lo_a.len() + lo_b.len();
    let (lo_out, hi_out) = out.split_at_mut(lo_room);
    let mut lo = Chain::default();
    let mut hi = Chain::default();
    let mut wide = false;
    while lo.i < lo_a.len() && lo.j < lo_b.len() && hi.i < hi_a.len() && hi.j < hi_b.len() {
        wide |= lo.step(lo_a, lo_b, lo_out);
        wide |= hi.step(hi_a, hi_b, hi_out);
    }
    wide |= lo.finish(lo_a, lo_b, lo_out);
    wide |= hi.finish(hi_a, hi_b, hi_out);
    if wide {
        return None;
    }
    // the upper merge after the lower one
    out.copy_within(lo_room..lo_room + hi.n, lo.n);
    Some(lo.n + hi.n)
}

/// Where one merge of [`merge_branchless`] stands: the next bucket of each list, and of the output.
#[derive(Default)]
struct Chain {
    i: usize,
    j: usize,
    n: usize,
}

impl Chain {
    /// One step of the merge of `a` and `b` into `out` (which has room for both); both lists
    /// must have a bucket left. `true` when the sum reaches [`SPILL`].
    #[inline(always)]
    fn step(&mut self, a: &[Bucket], b: &[Bucket], out: &mut [Bucket]) -> bool {
        let (x, y) = (a[self.i], b[self.j]);
        let (take_x, take_y) = (x.index <= y.index, y.index <= x.index);
        let count = u64::from(x.count) * u64::from(take_x) + u64::from(y.count) * u64::from(take_y);
        out[self.n] = Bucket { index: x.index.min(y.index), count: count as u32 };
        self.n += 1;
        self.i += usize::from(take_x);
        self.j += usize::from(take_y);
        count >= u64::from(SPILL)
    }

    /// The rest of the merge: steps while both lists have buckets, then the tail of the other.
    fn finish(&mut self, a: &[Bucket], b: &[Bucket], out: &mut [Bucket]) -> bool {
        let mut wide = false;
        while self.i < a.len() && self.j < b.len() {
            wide |= self.step(a, b, out);
        }
        for tail in [&a[self.i..], &b[self.j..]] {
            out[self.n..self.n + tail.len()].copy_from_slice(tail);
            self.n += tail.len();
        }
        self.i = a.len();
        self.j = b.len();
        wide
    }
}

/// Dense accumulator for building and merging sparse histograms.
///
/// Counters are indexed by (bucket, sub-bucket) like HdrHistogram; the array grows with the
/// largest value seen, so cost is proportional to the range actually used.
///
/// [`Accumulator::add`] and [`Accumulator::record_n`] are exact while the total stays at most
/// [`MAX_COUNT`], which holds for the windows of one run (see [`MAX_COUNT`]); where counts come
/// from a file or from several runs, [`Accumulator::try_add`] and
/// [`Accumulator::try_record_n`] check the total first (one comparison per call: every
/// counter is at most the total, so no counter needs a check of its own).
pub struct Accumulator {
    layout: Layout,
    counts: Vec<u64>,
    total: u64,
    /// The counters that may be non-zero: `counts[lo..hi]` (none when `lo >= hi`), so that
    /// taking a histogram walks the range its buckets used, not every counter an earlier one
    /// grew.
    lo: usize,
    hi: usize,
}

impl Accumulator {
    pub fn new(layout: Layout) -> Accumulator {
        Accumulator { layout, counts: Vec::new(), total: 0, lo: usize::MAX, hi: 0 }
    }

    pub fn record_n(&mut self, value: u64, count: u64) {
        if count == 0 {
            return;
        }
        self.record_index(self.layout.index_of(value), count);
    }

    /// [`Accumulator::record_n`], or an error (and nothing recorded) when the total would
    /// exceed [`MAX_COUNT`].
    pub fn try_record_n(&mut self, value: u64, count: u64) -> Result<(), CountOverflow> {
        add_counts(self.total, count)?;
        self.record_n(value, count);
        Ok(())
    }

    /// [`Accumulator::add`], or an error (and nothing added) when the total would exceed
    /// [`MAX_COUNT`].
    pub fn try_add(&mut self, h: &Hist) -> Result<(), CountOverflow> {
        add_counts(self.total, h.total)?;
        self.add(h);
        Ok(())
    }

    pub fn add(&mut self, h: &Hist) {
        debug_assert!(add_counts(self.total, h.total).is_ok(), "merge beyond MAX_COUNT: check the run's counts first");
        if h.layout == self.layout {
            // Same layout: the stored indexes are this accumulator's. Size the counters once
            // for the largest bucket, then add without per-entry growth checks (this loop is
            // most of merging an hour of windows).
            let (Some(first), Some(top)) = (h.buckets.first(), h.buckets.last()) else { return };
            let need = top.index as usize + 1;
            (self.lo, self.hi) = (self.lo.min(first.index as usize), self.hi.max(need));
            if need > self.counts.len() {
                self.counts.resize(need.max(self.counts.len() * 2).max(64), 0);
            }
            let counts = &mut self.counts[..need];
            if h.big.is_empty() {
                for b in &h.buckets {
                    let i = b.index as usize;
                    counts[i] = counts[i].saturating_add(u64::from(b.count));
                }
            } else {
                for (i, c) in h.indexed() {
                    counts[i as usize] = counts[i as usize].saturating_add(c);
                }
            }
            self.total = self.total.saturating_add(h.total);
        } else {
            for (v, c) in h.buckets() {
                self.record_n(h.layout.highest_equivalent(v), c);
            }
        }
    }

    /// Add `count` at counts-array `index`.
    pub(crate) fn record_index(&mut self, index: usize, count: u64) {
        debug_assert!(add_counts(self.total, count).is_ok(), "count beyond MAX_COUNT: use try_record_n");
        if index >= self.counts.len() {
            let new_len = (index + 1).max(self.counts.len() * 2).max(64);
            self.counts.resize(new_len, 0);
        }
        (self.lo, self.hi) = (self.lo.min(index), self.hi.max(index + 1));
        self.counts[index] = self.counts[index].saturating_add(count);
        self.total = self.total.saturating_add(count);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The histogram so far, leaving the accumulator empty with its counters kept: merging
    /// many small groups (a pyramid's first level) then allocates and zeroes them once.
    pub fn take(&mut self) -> Hist {
        let h = self.histogram();
        if let Some(c) = self.counts.get_mut(self.lo..self.hi) {
            c.fill(0);
        }
        (self.lo, self.hi) = (usize::MAX, 0);
        self.total = 0;
        h
    }

    pub fn finish(self) -> Hist {
        self.histogram()
    }

    /// The counters' histogram (the touched ones walked).
    fn histogram(&self) -> Hist {
        let (start, counts) = match self.counts.get(self.lo..self.hi) {
            Some(c) => (self.lo, c),
            None => (0, &[][..]),
        };
        let n = counts.iter().filter(|&&c| c > 0).count();
        let mut out = HistBuilder::with_capacity(self.layout, n);
        for (i, &c) in counts.iter().enumerate() {
            if c > 0 {
                out.push((start + i) as u32, c);
            }
        }
        let mut h = out.finish();
        h.total = self.total;
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_accumulator_taken_starts_again_empty() {
        let l = Layout::default_ns();
        let (a, b) = (Hist::from_values(l, [5, 900, 1_000_000]), Hist::from_values(l, [7, 7, 1200]));
        let mut acc = Accumulator::new(l);
        acc.add(&a);
        acc.add(&b);
        assert_eq!(acc.take(), a.merge(&b));
        assert_eq!(acc.count(), 0);
        acc.add(&b);
        assert_eq!(acc.take(), b);
        assert!(acc.take().is_empty());
    }

    proptest! {
        #[test]
        fn layout_matches_hdrhistogram(low_pow in 0u32..10, sigfig in 0u8..=5, v in 0u64..(1u64 << 50)) {
            let low = 1u64 << low_pow;
            let h = Histogram::<u64>::new_with_bounds(low, 1u64 << 52, sigfig).unwrap();
            let l = Layout::new(low, sigfig).unwrap();
            prop_assert_eq!(l.lowest_equivalent(v), h.lowest_equivalent(v));
            prop_assert_eq!(l.highest_equivalent(v), h.highest_equivalent(v));
            prop_assert_eq!(l.median_equivalent(v), h.median_equivalent(v));
            prop_assert_eq!(l.value_of_index(l.index_of(v)), Some(l.lowest_equivalent(v)));
        }

        #[test]
        fn sparse_matches_dense(values in proptest::collection::vec(0u64..(1u64 << 40), 1..500)) {
            let mut h = Histogram::<u64>::new(3).unwrap();
            for &v in &values { h.record(v).unwrap(); }
            let s = Hist::from_values(Layout::default_ns(), values.iter().copied());
            prop_assert_eq!(&s, &Hist::from_hdr(&h));
            prop_assert_eq!(s.count(), h.len());
            prop_assert_eq!(s.max(), h.max());
            prop_assert_eq!(s.min(), h.min());
            prop_assert!((s.mean() - h.mean()).abs() <= 1e-6 * h.mean().max(1.0));
            prop_assert_eq!(Hist::from_hdr(&s.to_hdr()), s);
        }

        #[test]
        fn bucket_at_rank_is_the_sorted_values_bucket(vals in proptest::collection::vec((0u64..(1u64 << 30), 1u64..4), 1..200),
                                                      heavy in 0u64..(1u64 << 34)) {
            // from either end of the walk; a count beyond u32 is spilled to the side list
            let l = Layout::default_ns();
            let mut acc = Accumulator::new(l);
            let mut sorted: Vec<(u64, u64)> = vals.iter().map(|&(v, c)| (l.lowest_equivalent(v), c)).collect();
            sorted.push((l.lowest_equivalent(heavy >> 4), heavy.max(1)));
            for &(v, c) in &sorted { acc.record_n(v, c); }
            let h = acc.histogram();
            sorted.sort_unstable();
            let n: u64 = sorted.iter().map(|p| p.1).sum();
            prop_assert_eq!(h.count(), n);
            let mut ranks: Vec<u64> = vec![1, n, n / 2, n / 2 + 1, n - n / 1000, n.saturating_sub(1).max(1)];
            let mut cum = 0;
            for &(_, c) in &sorted { ranks.extend([cum + 1, cum + c]); cum += c; }
            for r in ranks {
                let mut cum = 0;
                let want = sorted.iter().find(|p| { cum += p.1; cum >= r }).map(|p| p.0);
                prop_assert_eq!(h.bucket_at_rank(r), want, "rank {} of {}", r, n);
            }
            prop_assert_eq!(h.bucket_at_rank(0), None);
            prop_assert_eq!(h.bucket_at_rank(n + 1), None);
        }

        #[test]
        fn merge_equals_recording_all(a in proptest::collection::vec(0u64..(1u64 << 36), 0..300),
                                      b in proptest::collection::vec(0u64..(1u64 << 36), 0..300)) {
            let l = Layout::default_ns();
            let ha = Hist::from_values(l, a.iter().copied());
            let hb = Hist::from_values(l, b.iter().copied());
            let all = Hist::from_values(l, a.iter().chain(b.iter()).copied());
            prop_assert_eq!(&ha.merge(&hb), &all);
            prop_assert_eq!(&Hist::merge_all([&ha, &hb]), &all);
        }

        #[test]
        fn merges_of_every_overlap_are_exact(a in proptest::collection::vec((0u64..4_000, 1u64..4), 0..400),
                                             b in proptest::collection::vec((0u64..4_000, 1u64..4), 0..400),
                                             shift in 0u64..5_000, spread in 1u64..40, big in any::<bool>(),
                                             reused in proptest::collection::vec((0u64..4_000, 1u64..4), 0..50)) {
            // b's values shifted and spread: disjoint ranges, a few buckets of one among many of
            // the other, or both interleaved; the copied, scanned and branch-free paths of the
            // merge, and counts that reach the side list of big counts
            let l = Layout::default_ns();
            let big_count = if big { u64::from(u32::MAX) - 2 } else { 0 };
            let record = |entries: &[(u64, u64)], f: &dyn Fn(u64) -> u64| {
                let mut acc = Accumulator::new(l);
                for &(v, c) in entries {
                    acc.record_n(f(v), c + big_count);
                }
                acc
            };
            let ha = record(&a, &|v| 1_000 + v * 7).finish();
            let hb = record(&b, &|v| 1_000 + shift * 7 + v * spread).finish();
            let mut all = record(&a, &|v| 1_000 + v * 7);
            all.add(&hb);
            let all = all.finish();
            prop_assert_eq!(&ha.merge(&hb), &all);
            prop_assert_eq!(&hb.merge(&ha), &all);
            // into a histogram whose bucket list held another merge
            let mut out = record(&reused, &|v| v * 3).finish();
            ha.merge_into(&hb, &mut out);
            prop_assert_eq!(&out, &all);
        }
    }

    #[test]
    fn index_limit_is_where_values_end() {
        for low_pow in 0..40 {
            for sigfig in 0..=5 {
                let Some(l) = Layout::new(1 << low_pow, sigfig) else {
                    continue;
                };
                let limit = l.index_limit();
                assert!(limit < 1 << 25);
                assert!(l.value_of_index(limit - 1).is_some(), "{l:?}");
                assert!(l.value_of_index(limit).is_none(), "{l:?}");
            }
        }
    }

    #[test]
    fn counts_beyond_32_bits_are_kept_whole() {
        let l = Layout::default_ns();
        let huge = u64::from(u32::MAX);
        let big = MAX_COUNT / 4;
        let mut acc = Accumulator::new(l);
        acc.record_n(10, 3);
        acc.record_n(1000, huge);
        acc.record_n(5000, 7);
        acc.record_n(1 << 40, big);
        let h = acc.finish();
        let want = vec![(10, 3), (1000, huge), (l.lowest_equivalent(5000), 7), (l.lowest_equivalent(1 << 40), big)];
        assert_eq!(h.buckets().collect::<Vec<_>>(), want);
        assert_eq!(h.buckets().rev().collect::<Vec<_>>(), want.iter().rev().copied().collect::<Vec<_>>());
        assert_eq!(h.count(), 3 + huge + 7 + big);
        assert_eq!(h.max(), l.highest_equivalent(1 << 40));
        let small = Hist::from_values(l, [10, 1000, 1000]);
        let merged = h.merge(&small);
        let mut want2 = want.clone();
        want2[0].1 += 1;
        want2[1].1 += 2;
        assert_eq!(merged.buckets().collect::<Vec<_>>(), want2);
        assert_eq!(merged, Hist::merge_all([&small, &h]));
        assert_eq!(Hist::from_hdr(&h.to_hdr()), h);
        // counts beyond 32 bits add up exactly up to MAX_COUNT; beyond, the checked merges
        // refuse and nothing saturates
        let twice = merged.merge(&merged);
        assert_eq!(twice.buckets().nth(3).unwrap().1, big * 2);
        let thrice = twice.checked_merge(&merged).unwrap();
        assert_eq!(thrice.buckets().nth(3).unwrap().1, big * 3);
        assert_eq!(thrice, Hist::checked_merge_all([&twice, &merged]).unwrap());
        assert_eq!(thrice.checked_merge(&twice), Err(CountOverflow));
        assert_eq!(Hist::checked_merge_all([&thrice, &small, &twice]), Err(CountOverflow));
        let mut acc = Accumulator::new(l);
        acc.try_add(&thrice).unwrap();
        assert_eq!(acc.try_add(&twice), Err(CountOverflow));
        assert_eq!(acc.try_record_n(5, MAX_COUNT), Err(CountOverflow));
        acc.try_record_n(5, MAX_COUNT - thrice.count()).unwrap();
        assert_eq!(acc.count(), MAX_COUNT);
        assert_eq!(acc.try_record_n(5, 1), Err(CountOverflow));
        assert_eq!(acc.finish().count(), MAX_COUNT);
    }

    #[test]
    fn merging_two_lists_equals_the_dense_merge_and_sums_reaching_the_side_list_spill() {
        let l = Layout::default_ns();
        // interleaved, nested, disjoint and equal bucket lists
        let mut hists: Vec<Hist> = (0..40u64).map(|k| Hist::from_values(l, (0..k * 7).map(|i| 900 + (i * i * (k + 3)) % 90_000))).collect();
        hists.push(Hist::empty(l));
        for a in &hists {
            for b in &hists {
                let m = a.merge(b);
                assert_eq!(m, Hist::merge_all([a, b]));
                assert_eq!(m.count(), a.count() + b.count());
            }
        }
        // two counts below the side list whose sum is not
        let half = u64::from(SPILL / 2 + 1);
        let mut acc = Accumulator::new(l);
        acc.record_n(100, half);
        acc.record_n(200, 1);
        let a = acc.finish();
        let m = a.merge(&a);
        assert_eq!(m.buckets().collect::<Vec<_>>(), vec![(100, 2 * half), (200, 2)]);
        assert_eq!(m.count(), 2 * half + 2);
    }

    #[test]
    fn a_bucket_takes_8_bytes() {
        let h = Hist::from_values(Layout::default_ns(), 0..10_000);
        assert_eq!(h.bucket_count(), h.buckets().len());
        assert_eq!(h.heap_bytes(), 8 * h.bucket_count());
    }

    #[test]
    fn means_lie_between_min_and_max() {
        let l = Layout::default_ns();
        // one bucket of width 1 (below 2048 ns) with a count beyond 2^53: the sum of products
        // rounds, the mean must not leave the bucket
        for (v, c) in [(1001, (1u64 << 62) + 1), (2047, MAX_COUNT), (1, 3), (123_456_789, (1 << 60) + 12_345)] {
            let mut acc = Accumulator::new(l);
            acc.record_n(v, c);
            let h = acc.finish();
            assert!(h.min() as f64 <= h.mean() && h.mean() <= h.max() as f64, "{v} x {c}: {} not in [{}, {}]", h.mean(), h.min(), h.max());
        }
        let mut acc = Accumulator::new(l);
        acc.record_n(1000, 1 << 62);
        acc.record_n(2000, (1 << 62) - 1);
        let h = acc.finish();
        assert!(h.min() as f64 <= h.mean() && h.mean() <= h.max() as f64);
    }

    #[test]
    fn empty_histogram() {
        let h = Hist::empty(Layout::default_ns());
        assert_eq!(h.count(), 0);
        assert_eq!(h.max(), 0);
        assert_eq!(h.bucket_at_rank(1), None);
        assert_eq!(h.mean(), 0.0);
    }

    #[test]
    fn invalid_layouts_are_refused() {
        assert!(Layout::new(0, 3).is_none());
        assert!(Layout::new(1, 6).is_none());
        assert!(Layout::new(1 << 60, 5).is_none());
    }
}
