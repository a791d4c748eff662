//! Windows keyed by time or count, put in order once read (fio's logs, latency lists).

use crate::hist::Hist;

/// Closed windows in order of their keys, those of equal keys merged exactly (a late value
/// can reopen a window that was already closed). Sorted once at the end rather than kept in a
/// `BTreeMap`: the viewer's wasm, whose size is budgeted, would carry another compiled copy of
/// the B-tree's code per key type.
pub(super) fn in_key_order<K: Ord>(mut closed: Vec<(K, Hist)>) -> Vec<(K, Hist)> {
    crate::sort::sort_by(&mut closed, |a, b| a.0.cmp(&b.0));
    let mut out: Vec<(K, Hist)> = Vec::with_capacity(closed.len());
    for (k, h) in closed {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 = last.1.merge(&h),
            _ => out.push((k, h)),
        }
    }
    out
}
