//! Throughput: MB/s from IOPS and the bytes per I/O a run's metadata states. A run that does
//! not say how large its I/Os were (a foreign log) has no MB/s rather than a guessed one.

use crate::run::Run;

/// MB/s (10^6 bytes per second) from IOPS and bytes per I/O.
pub fn mb_per_s(iops: f64, bytes_per_io: f64) -> f64 {
    iops * bytes_per_io / 1e6
}

/// Bytes per I/O from a run's metadata, for MB/s: the collector's `workload.bs_bytes`
/// (`[[size, percent], ...]`, the split's mean size: MB/s is then exact on average over the
/// split, not per window), else `workload.bs`, `workload.block_size` or `workload.bs_<tag>`
/// (bytes as a number, or a size such as `4k`, `128KiB`). `None` when the run does not say
/// (foreign logs): MB/s is then not shown rather than guessed.
pub fn bytes_per_io(run: &Run, tag: Option<&str>) -> Option<f64> {
    let w = run.meta.workload.as_ref()?;
    let total: f64 = w.bs_bytes.iter().map(|p| f64::from(p.1)).sum();
    if total > 0.0 {
        return Some(w.bs_bytes.iter().map(|&(b, pct)| b as f64 * f64::from(pct)).sum::<f64>() / total);
    }
    let keys: Vec<String> = match tag {
        Some(t) => vec![format!("bs_{t}"), format!("{t}_bs"), "bs".into(), "block_size".into()],
        None => vec!["bs".into(), "block_size".into()],
    };
    keys.iter().find_map(|k| run.meta.workload_value(k).as_ref().and_then(parse_size))
}

fn parse_size(v: &serde_json::Value) -> Option<f64> {
    if let Some(x) = v.as_f64() {
        return (x > 0.0).then_some(x);
    }
    crate::units::parse_size(v.as_str()?).ok().map(|b| b as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_size_from_metadata() {
        assert_eq!(mb_per_s(1000.0, 4096.0), 4.096);
        let mut r = Run::default();
        assert_eq!(bytes_per_io(&r, Some("read")), None);
        r.meta = crate::meta::tests::meta(serde_json::json!({"workload": {"bs": "4k", "bs_write": 131072}}));
        assert_eq!(bytes_per_io(&r, Some("read")), Some(4096.0));
        assert_eq!(bytes_per_io(&r, Some("write")), Some(131072.0));
        assert_eq!(bytes_per_io(&r, None), Some(4096.0));
        r.meta =
            crate::meta::tests::meta(serde_json::json!({"workload": {"bs": "4KiB/70:64KiB/30", "bs_bytes": [[4096, 70], [65536, 30]]}}));
        assert_eq!(bytes_per_io(&r, Some("read")), Some(4096.0 * 0.7 + 65536.0 * 0.3));
    }
}
