//! fio-like units on the command line: sizes (`4k`, `1GiB`), durations (`10s`, `500ms`),
//! counts (`100000`, `100k`) and block-size splits (`4k/70:64k/30`).
//!
//! As in fio (with its default `kb_base=1024`), `k`, `K`, `KB` and `KiB` all mean 1024 bytes.

/// Parse a size in bytes: a number with an optional `k`/`m`/`g`/`t` suffix (powers of 1024),
/// optionally followed by `b`, `ib` or `B`/`iB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let digits_end = lower.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(lower.len());
    let (num, suffix) = lower.split_at(digits_end);
    let mult: u64 = match suffix.trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("{s:?} is not a size; expected e.g. 4k, 512, 64KiB, 1GiB")),
    };
    let v: f64 = num.parse().map_err(|_| format!("{s:?} is not a size; expected e.g. 4k, 512, 64KiB, 1GiB"))?;
    let bytes = v * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 / 2.0 {
        return Err(format!("size {s:?} is out of range"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("size {s:?} is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Parse a duration in nanoseconds: a number with `ns`, `us`, `ms`, `s`, `m` or `h`; a bare
/// number is seconds (as in fio).
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let digits_end = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits_end);
    let mult: f64 = match suffix.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "" | "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(format!("{s:?} is not a duration; expected e.g. 10s, 500ms, 2m")),
    };
    let v: f64 = num.parse().map_err(|_| format!("{s:?} is not a duration; expected e.g. 10s, 500ms, 2m"))?;
    let ns = v * mult;
    if !ns.is_finite() || !(0.0..=1e18).contains(&ns) {
        return Err(format!("duration {s:?} is out of range"));
    }
    Ok(ns.round() as u64)
}

/// Parse a count: a whole number with an optional `k`, `m` or `g` suffix (powers of 1000).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase().replace('_', "");
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000u64),
        Some('m') => (&t[..t.len() - 1], 1_000_000),
        Some('g') => (&t[..t.len() - 1], 1_000_000_000),
        _ => (&t[..], 1),
    };
    let v: u64 = num.parse().map_err(|_| format!("{s:?} is not a count; expected e.g. 100000 or 100k"))?;
    v.checked_mul(mult).ok_or_else(|| format!("count {s:?} is out of range"))
}

/// A block-size split: block sizes with their share in percent (summing to 100).
pub fn parse_bssplit(s: &str) -> Result<Vec<(u32, u32)>, String> {
    let mut out = Vec::new();
    for part in s.split(':').filter(|p| !p.trim().is_empty()) {
        let (bs, pct) = part.split_once('/').ok_or_else(|| format!("bssplit entry {part:?} needs a share: write it like 4k/70"))?;
        let bs = parse_size(bs)?;
        if bs == 0 || bs > 64 << 20 {
            return Err(format!("block size {bs} in --bssplit must be between 1 byte and 64MiB"));
        }
        let pct: u32 =
            pct.trim().trim_end_matches('%').parse().map_err(|_| format!("share {pct:?} in --bssplit is not a whole percentage"))?;
        if pct > 0 {
            out.push((bs as u32, pct));
        }
    }
    let total: u32 = out.iter().map(|(_, p)| p).sum();
    if out.is_empty() || total != 100 {
        return Err(format!("--bssplit shares add up to {total}%, they must add up to 100% (e.g. 4k/70:64k/30)"));
    }
    Ok(out)
}

/// A size for display: `4KiB`, `1GiB`, `1536B`.
pub fn format_size(b: u64) -> String {
    for (unit, m) in [("TiB", 1u64 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if b >= m && b.is_multiple_of(m) {
            return format!("{}{unit}", b / m);
        }
    }
    if b >= 1 << 20 {
        return format!("{:.1}MiB", b as f64 / (1u64 << 20) as f64);
    }
    format!("{b}B")
}

/// A size for messages, to one decimal: `22.6GiB`, `512.0KiB`; exact sizes print whole.
pub fn format_approx(b: u64) -> String {
    for (unit, m) in [("TiB", 1u64 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if b.is_multiple_of(m) && b >= m {
            return format!("{}{unit}", b / m);
        }
        if b >= m {
            return format!("{:.1}{unit}", b as f64 / m as f64);
        }
    }
    format!("{b}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(format_approx(23_700_924 * 1024), "22.6GiB");
        assert_eq!(format_approx(64 << 30), "64GiB");
        assert_eq!(format_approx(1000), "1000B");
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("1.5m"), Ok(3 << 19));
        assert!(parse_size("4q").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-4k").is_err());
        assert!(parse_size("0.3k").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("10s"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("2"), Ok(2_000_000_000));
        assert_eq!(parse_duration_ns("1m"), Ok(60_000_000_000));
        assert_eq!(parse_duration_ns("250us"), Ok(250_000));
        assert!(parse_duration_ns("10 parsecs").is_err());
        assert!(parse_duration_ns("s").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("100000"), Ok(100_000));
        assert_eq!(parse_count("100k"), Ok(100_000));
        assert_eq!(parse_count("2m"), Ok(2_000_000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("99999999999999g").is_err());
    }

    #[test]
    fn bssplits() {
        assert_eq!(parse_bssplit("4k/70:64k/30"), Ok(vec![(4096, 70), (65536, 30)]));
        assert!(parse_bssplit("4k/70:64k/20").is_err());
        assert!(parse_bssplit("4k").is_err());
        assert!(parse_bssplit("4k/x").is_err());
    }

    #[test]
    fn display() {
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(1 << 30), "1GiB");
        assert_eq!(format_size(1000), "1000B");
    }
}
