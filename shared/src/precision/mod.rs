//! The stated precision of a run whose histograms came from a coarser source than nines'.
//!
//! A run imported from fio json+ or fio histogram logs holds fio's bucket counts, recorded at
//! each bucket's middle. Our histogram buckets are finer than fio's, so a value read off them
//! would look sharper than fio measured. The run therefore carries its precision in its
//! metadata (`"precision": {"kind": "fio-buckets", "coarseness": 0, ...}`), which the archive
//! keeps, and [`Precision::apply_level`] turns every derived value back into fio's bucket:
//!
//! - a level's `value_ns` becomes the upper edge of fio's bucket holding it (never understated)
//!   and `bucket_ns` holds `[lower edge, upper edge]`, the level's stated precision;
//! - a level in fio's clamp bucket (latencies of about 17.05 s and more, see
//!   [`fio_buckets`]) has no upper edge: `value_ns` is the bucket's lower edge and
//!   `at_least` is set, shown as "at least 17.0s";
//! - confidence intervals, min and max widen to fio's bucket edges.
//!
//! A percentile spectrum (`.hgrm`, wrk2's "Detailed Percentile spectrum") has one step per
//! printed row: the I/Os counted by a row lie between the previous row's value and its own,
//! widened by half the printed resolution, and that step is the stated precision.
//!
//! Runs that mix sources take the coarsest precision present ([`Precision::coarsest`]).
//!
//! Precision is the core's concept, not the importers': the importers state it, and the
//! statistics ([`crate::stats`]), the renderers ([`crate::export`]) and the viewer apply it.

pub mod fio_buckets;

use serde_json::{json, Value};

use crate::hist::Layout;
use crate::quantile::LevelStat;
use crate::units::format_ns;
use fio_buckets::{Coarse, CLAMP_LO_NS, MAX_COARSENESS};

/// Metadata key holding the precision.
pub const META_KEY: &str = "precision";
const FIO_KIND: &str = "fio-buckets";
const STEPS_KIND: &str = "spectrum-steps";

/// How precise the values of a run are, when coarser than its histograms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Precision {
    /// fio's latency buckets, `2^coarseness` of them summed per bucket (0 for json+).
    Fio { coarseness: u8 },
    /// The rows of a percentile spectrum: ascending values (ns) at which counts were
    /// recorded; a value lies in `(previous row, its row]`, widened by `res_ns` each side
    /// for the printed rounding.
    Steps { edges_ns: Vec<u64>, res_ns: u64 },
}

/// A source bucket: the range a derived value is known to lie in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub lo: u64,
    pub hi: u64,
    /// The bucket has no upper edge: values are at least `lo`.
    pub at_least: bool,
}

/// What is wrong with a run's stated precision (its metadata value, [`Precision::from_value`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    #[error("expected an object with a \"kind\"")]
    NotObject,
    #[error("no \"kind\"")]
    NoKind,
    #[error("unknown precision kind \"{0}\" (known: {FIO_KIND}, {STEPS_KIND})")]
    UnknownKind(String),
    /// A field (its key) that is not a whole number.
    #[error("\"{0}\" is not a whole number")]
    NotWhole(&'static str),
    #[error("fio's bucket coarseness is at most {MAX_COARSENESS}, not {0}")]
    Coarseness(u64),
    #[error("\"edges_ns\" is not a list")]
    EdgesNotList,
    #[error("\"edges_ns\" holds a value that is not a whole number")]
    EdgeNotWhole,
    #[error("\"edges_ns\" must be a non-empty ascending list")]
    EdgesNotAscending,
}

impl Precision {
    /// A precision from its metadata value; what is wrong with it otherwise.
    pub fn from_value(v: &Value) -> Result<Precision, PrecisionError> {
        let p = v.as_object().ok_or(PrecisionError::NotObject)?;
        let uint = |k: &'static str| match p.get(k) {
            None => Ok(0),
            Some(x) => x.as_u64().ok_or(PrecisionError::NotWhole(k)),
        };
        match p.get("kind").and_then(Value::as_str) {
            Some(FIO_KIND) => {
                let c = uint("coarseness")?;
                if c > u64::from(MAX_COARSENESS) {
                    return Err(PrecisionError::Coarseness(c));
                }
                Ok(Precision::Fio { coarseness: c as u8 })
            }
            Some(STEPS_KIND) => {
                let edges = p.get("edges_ns").and_then(Value::as_array).ok_or(PrecisionError::EdgesNotList)?;
                let edges_ns = edges.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>().ok_or(PrecisionError::EdgeNotWhole)?;
                if edges_ns.is_empty() || edges_ns.windows(2).any(|w| w[0] > w[1]) {
                    return Err(PrecisionError::EdgesNotAscending);
                }
                Ok(Precision::Steps { edges_ns, res_ns: uint("resolution_ns")? })
            }
            Some(k) => Err(PrecisionError::UnknownKind(k.to_string())),
            None => Err(PrecisionError::NoKind),
        }
    }

    /// The metadata value stating this precision.
    pub fn to_meta(&self) -> Value {
        match self {
            Precision::Fio { coarseness } => json!({
                "kind": FIO_KIND,
                "coarseness": coarseness,
                "clamp_ns": CLAMP_LO_NS,
                "note": "values derived from fio's latency buckets are stated as the bucket's range"
            }),
            Precision::Steps { edges_ns, res_ns } => json!({
                "kind": STEPS_KIND,
                "edges_ns": edges_ns,
                "resolution_ns": res_ns,
                "note": "values derived from a percentile spectrum are stated as the step between two rows"
            }),
        }
    }

    /// The coarser of two precisions (`None` = the histogram's own). Steps of a spectrum
    /// and fio's buckets do not combine: the first is kept.
    pub fn coarsest(a: Option<Precision>, b: Option<Precision>) -> Option<Precision> {
        match (a, b) {
            (Some(Precision::Fio { coarseness: x }), Some(Precision::Fio { coarseness: y })) => {
                Some(Precision::Fio { coarseness: x.max(y) })
            }
            (Some(a), _) => Some(a),
            (None, b) => b,
        }
    }

    /// The source bucket holding `ns`.
    pub fn bucket(&self, ns: u64) -> Bucket {
        match self {
            Precision::Fio { coarseness } => {
                let c = Coarse::of_value(ns, *coarseness);
                Bucket { lo: c.lo(), hi: c.hi(), at_least: c.clamped() }
            }
            Precision::Steps { edges_ns, .. } if edges_ns.is_empty() => Bucket { lo: ns, hi: ns, at_least: false },
            Precision::Steps { edges_ns, res_ns } => {
                // counts were recorded at the edges; `ns` is read off our histogram, so
                // compare against the edges' histogram buckets
                let l = Layout::default_ns();
                let i = edges_ns.partition_point(|&e| l.highest_equivalent(e) < ns).min(edges_ns.len() - 1);
                let lo = if i == 0 { 0 } else { edges_ns[i - 1] };
                Bucket { lo: lo.saturating_sub(*res_ns), hi: edges_ns[i].saturating_add(*res_ns), at_least: false }
            }
        }
    }

    /// Restate one level at this precision.
    pub fn apply_level(&self, l: &mut LevelStat) {
        if let Some(v) = l.value_ns {
            let b = self.bucket(v);
            if b.at_least {
                l.value_ns = Some(b.lo);
                l.at_least = true;
                l.bucket_ns = Some((b.lo, b.lo));
            } else {
                l.value_ns = Some(b.hi);
                l.bucket_ns = Some((b.lo, b.hi));
            }
        }
        if let Some((lo, hi)) = l.ci95_ns {
            let (bl, bh) = (self.bucket(lo), self.bucket(hi));
            // An interval reaching into the clamp bucket has no upper bound to state.
            l.ci95_ns = if bh.at_least { None } else { Some((bl.lo, bh.hi)) };
        }
    }
}

/// The table cell of a level stated at a source's precision: `1.02-1.05ms`, or
/// `at least 17.0s` in a clamp bucket; `None` for a level at histogram precision.
pub fn level_cell(l: &LevelStat) -> Option<String> {
    let v = l.value_ns?;
    if l.at_least {
        return Some(format!("at least {}", format_ns(v)));
    }
    let (lo, hi) = l.bucket_ns?;
    Some(format_range(lo, hi))
}

/// `1.02-1.05ms`; `12.3us-1.01ms` across units; one number when both print the same.
pub fn format_range(lo: u64, hi: u64) -> String {
    let (a, b) = (format_ns(lo), format_ns(hi));
    if a == b {
        return a;
    }
    let unit = |s: &str| s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').to_string();
    if unit(&a) == unit(&b) {
        format!("{}-{b}", a.trim_end_matches(|c: char| c.is_ascii_alphabetic()))
    } else {
        format!("{a}-{b}")
    }
}

/// The note printed under a table with levels at a source's precision.
pub const TABLE_NOTE: &str = "ranges: the source's bucket (fio's, or a spectrum's step) holding the level; it measured no finer";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::meta::RunMeta;
    use crate::quantile::{level_stats, standard_levels, Support};
    use crate::stats::tag_stats;

    #[test]
    fn meta_roundtrip_and_coarsest() {
        let fio = |c| Some(Precision::Fio { coarseness: c });
        let m = RunMeta { precision: [fio(0), fio(2), fio(1)].into_iter().fold(None, Precision::coarsest), ..RunMeta::default() };
        assert_eq!(m.precision, fio(2));
        let back = RunMeta::from_map(m.to_map()).unwrap();
        assert_eq!(back.precision, Some(Precision::Fio { coarseness: 2 }));
        for bad in [
            json!({"kind": "fio-buckets", "coarseness": 9}),
            json!({"kind": "sharp"}),
            json!({"kind": "spectrum-steps", "edges_ns": [3, 1]}),
        ] {
            let mut map = serde_json::Map::new();
            map.insert("precision".into(), bad);
            let e = RunMeta::from_map(map).unwrap_err().to_string();
            assert!(e.starts_with("metadata key 'precision': "), "{e}");
        }
    }

    #[test]
    fn levels_become_fio_buckets() {
        // 1000 values spread over 100..200 us: each level must become the fio bucket of the
        // exact nearest-rank value.
        let values: Vec<u64> = (0..1000u64).map(|i| 100_000 + i * 97).collect();
        let h = Hist::from_values(Layout::default_ns(), values.iter().copied());
        let mut s = tag_stats(&h, 1.0, &standard_levels());
        let p = Precision::Fio { coarseness: 0 };
        s.restate(&p);
        for l in &s.levels {
            if l.support == Support::None {
                continue;
            }
            let exact = values[(crate::quantile::Level::from_quantile(l.quantile).unwrap().rank(1000) - 1) as usize];
            let b = p.bucket(exact);
            assert_eq!(l.bucket_ns, Some((b.lo, b.hi)), "{}", l.label);
            assert_eq!(l.value_ns, Some(b.hi));
            let (lo, hi) = l.ci95_ns.unwrap_or((b.lo, b.hi));
            assert!(lo <= b.lo && hi >= b.hi);
        }
        assert_eq!(s.min_ns, p.bucket(100_000).lo);
        assert!(s.max_ns >= 100_000 + 999 * 97);
    }

    #[test]
    fn clamp_bucket_is_at_least() {
        let h = Hist::from_values(Layout::default_ns(), (0..1000u64).map(|i| if i < 900 { 1_000_000 } else { 20_000_000_000 }));
        let mut levels = level_stats(&h, &standard_levels());
        let p = Precision::Fio { coarseness: 0 };
        for l in &mut levels {
            p.apply_level(l);
        }
        let p99 = levels.iter().find(|l| l.label == "p99").unwrap();
        assert!(p99.at_least);
        assert_eq!(p99.value_ns, Some(CLAMP_LO_NS));
        assert_eq!(level_cell(p99).unwrap(), "at least 17.0s");
        let p50 = levels.iter().find(|l| l.label == "p50").unwrap();
        assert!(!p50.at_least);
        assert_eq!(level_cell(p50).unwrap(), "999us-1.01ms");
    }

    #[test]
    fn ranges() {
        assert_eq!(format_range(1_032_192, 1_048_575), "1.03-1.05ms");
        assert_eq!(format_range(604, 604), "604ns");
        assert_eq!(format_range(999_000, 1_015_807), "999us-1.02ms");
    }
}
