//! Units: fio-style sizes, durations and counts as the command line and run metadata write
//! them, and display helpers for latencies, rates, sizes and dates. Computations use integers
//! (ns, bytes); strings exist only at the edges.
//!
//! The parsing rules are fio's (its documentation, "Parameter types", with the default
//! `kb_base=1024`): `k`, `K`, `KB` and `KiB` all mean 1024 bytes, `m`/`MiB` 1024², `g`/`GiB`
//! 1024³, `t`/`TiB` 1024⁴; a bare number of bytes is bytes, a bare duration is seconds, and
//! durations take `ns`, `us`, `ms`, `s`, `m` (minutes) and `h`. Each parser's error, a
//! [`UnitError`], displays as a sentence that says what was expected, so the parser can serve
//! as a clap `value_parser` unchanged.
//!
//! ```
//! use nines_core::units::{parse_duration_ns, parse_size};
//! assert_eq!(parse_size("64KiB"), Ok(65_536));
//! assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
//! assert_eq!(parse_duration_ns("2"), Ok(2_000_000_000));
//! ```

/// Why a size, duration, count or block-size split could not be read: each variant keeps the
/// text as written (or the number at fault) and says what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("{0:?} is not a size; expected e.g. 4k, 512, 64KiB, 1GiB")]
    NotSize(String),
    #[error("size {0:?} is out of range")]
    SizeOutOfRange(String),
    #[error("size {0:?} is not a whole number of bytes")]
    NotWholeBytes(String),
    #[error("{0:?} is not a duration; expected e.g. 10s, 500ms, 2m (a bare number is seconds)")]
    NotDuration(String),
    #[error("duration {0:?} is out of range")]
    DurationOutOfRange(String),
    #[error("{0:?} is not a count; expected e.g. 100000 or 100k")]
    NotCount(String),
    #[error("count {0:?} is out of range")]
    CountOutOfRange(String),
    /// A `--bssplit` entry without its `/PCT`.
    #[error("bssplit entry {0:?} needs a share: write it like 4k/70")]
    SplitNoShare(String),
    /// A `--bssplit` block size of 0 or above [`MAX_BLOCK`].
    #[error("block size {0} in --bssplit must be between 1 byte and 64MiB")]
    SplitBlock(u64),
    #[error("share {0:?} in --bssplit is not a whole percentage")]
    SplitShare(String),
    /// The shares' sum.
    #[error("--bssplit shares add up to {0}%, they must add up to 100% (e.g. 4k/70:64k/30)")]
    SplitTotal(u32),
}

/// Split a unit-suffixed number: the leading digits and dots, and the rest trimmed.
fn split_number(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

/// Parse a size in bytes: a number with an optional `k`/`m`/`g`/`t` suffix (powers of 1024),
/// optionally followed by `b`, `ib` or `B`/`iB` (any case). Fractions are fine as long as the
/// result is a whole number of bytes (`1.5m`).
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    let lower = s.trim().to_ascii_lowercase();
    let (num, suffix) = split_number(&lower);
    let expected = || UnitError::NotSize(s.to_string());
    let mult: u64 = match suffix {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(expected()),
    };
    let v: f64 = num.parse().map_err(|_| expected())?;
    let bytes = v * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 / 2.0 {
        return Err(UnitError::SizeOutOfRange(s.to_string()));
    }
    if bytes.fract() != 0.0 {
        return Err(UnitError::NotWholeBytes(s.to_string()));
    }
    Ok(bytes as u64)
}

/// Parse a duration in nanoseconds: a number with `ns`, `us`, `ms`, `s`, `m` (minutes) or `h`
/// (any case); a bare number is seconds, as in fio.
pub fn parse_duration_ns(s: &str) -> Result<u64, UnitError> {
    let lower = s.trim().to_ascii_lowercase();
    let (num, suffix) = split_number(&lower);
    let expected = || UnitError::NotDuration(s.to_string());
    let mult: f64 = match suffix {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "" | "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(expected()),
    };
    let v: f64 = num.parse().map_err(|_| expected())?;
    let ns = v * mult;
    if !ns.is_finite() || !(0.0..=1e18).contains(&ns) {
        return Err(UnitError::DurationOutOfRange(s.to_string()));
    }
    Ok(ns.round() as u64)
}

/// Parse a duration in seconds (for options kept in seconds, such as a stats range): as
/// [`parse_duration_ns`], so `90`, `90s`, `1.5m` and `1500ms` are all accepted.
pub fn parse_duration_s(s: &str) -> Result<f64, UnitError> {
    parse_duration_ns(s).map(|ns| ns as f64 / 1e9)
}

/// Parse a count: a whole number with an optional `k`, `m` or `g` suffix (powers of 1000, as
/// counts are not sizes) and `_` separators allowed.
pub fn parse_count(s: &str) -> Result<u64, UnitError> {
    let t = s.trim().to_ascii_lowercase().replace('_', "");
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000u64),
        Some('m') => (&t[..t.len() - 1], 1_000_000),
        Some('g') => (&t[..t.len() - 1], 1_000_000_000),
        _ => (&t[..], 1),
    };
    let v: u64 = num.parse().map_err(|_| UnitError::NotCount(s.to_string()))?;
    v.checked_mul(mult).ok_or_else(|| UnitError::CountOutOfRange(s.to_string()))
}

/// The largest block size an I/O may have.
pub const MAX_BLOCK: u64 = 64 << 20;

/// Parse a block-size split as fio's `bssplit` writes it, `4k/70:64k/30`: block sizes (1 byte
/// to 64MiB) with their share in whole percent, summing to 100. Entries with a share of 0 are
/// dropped.
pub fn parse_bssplit(s: &str) -> Result<Vec<(u32, u32)>, UnitError> {
    let mut out = Vec::new();
    for part in s.split(':').filter(|p| !p.trim().is_empty()) {
        let (bs, pct) = part.split_once('/').ok_or_else(|| UnitError::SplitNoShare(part.to_string()))?;
        let bs = parse_size(bs)?;
        if bs == 0 || bs > MAX_BLOCK {
            return Err(UnitError::SplitBlock(bs));
        }
        let pct: u32 = pct.trim().trim_end_matches('%').parse().map_err(|_| UnitError::SplitShare(pct.to_string()))?;
        if pct > 0 {
            out.push((bs as u32, pct));
        }
    }
    let total: u32 = out.iter().map(|(_, p)| p).sum();
    if out.is_empty() || total != 100 {
        return Err(UnitError::SplitTotal(total));
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

/// A duration as a command line writes it, in the largest unit that keeps it whole: `10s`,
/// `500ms`, `2m`, `250us`, `7ns`. [`parse_duration_ns`] reads it back exactly.
pub fn format_duration(ns: u64) -> String {
    for (unit, m) in [("h", 3_600_000_000_000u64), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= m && ns.is_multiple_of(m) {
            return format!("{}{unit}", ns / m);
        }
    }
    if ns == 0 {
        return "0s".into();
    }
    format!("{ns}ns")
}

/// A latency in nanoseconds with three significant digits and a unit: `812ns`, `35.2us`,
/// `1.23ms`, `4.10s`.
pub fn format_ns(ns: u64) -> String {
    let v = ns as f64;
    let (x, unit) = if ns < 1_000 {
        return format!("{ns}ns");
    } else if ns < 1_000_000 {
        (v / 1e3, "us")
    } else if ns < 1_000_000_000 {
        (v / 1e6, "ms")
    } else {
        (v / 1e9, "s")
    };
    sig3(x, unit)
}

/// A float latency in nanoseconds (means, deviations), like [`format_ns`].
pub fn format_ns_f(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    if ns < 999.5 {
        return format!("{}ns", ns.round() as u64);
    }
    format_ns(ns.round() as u64)
}

fn sig3(x: f64, unit: &str) -> String {
    // Three significant digits; 999.5us must become 1.00ms rather than "1000us".
    if x >= 999.5 && unit != "s" {
        let next = match unit {
            "us" => "ms",
            _ => "s",
        };
        return sig3(x / 1e3, next);
    }
    if x >= 99.95 {
        format!("{x:.0}{unit}")
    } else if x >= 9.995 {
        format!("{x:.1}{unit}")
    } else {
        format!("{x:.2}{unit}")
    }
}

/// A rate (IOPS) with thousands grouping: `83,412`.
pub fn format_rate(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let n = x.round() as u64;
    group(n)
}

/// A share as a percent to 3 significant digits: `65.0%`, `0.0123%`; `-` for none.
pub fn share_text(share: Option<f64>) -> String {
    match share {
        None => "-".into(),
        Some(s) if s <= 0.0 => "0%".into(),
        Some(s) => {
            let p = s * 100.0;
            let decimals = (2 - p.log10().floor() as i32).clamp(0, 12) as usize;
            format!("{p:.decimals$}%")
        }
    }
}

/// An integer with thousands grouping.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Java `Date.toString()` style in UTC: `Sun Nov 30 08:00:00 UTC 2025`.
pub fn utc_date(epoch_s: f64) -> String {
    let secs = epoch_s.floor() as i64;
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    const DOW: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MON: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} UTC {}",
        DOW[days.rem_euclid(7) as usize],
        MON[(m - 1) as usize],
        d,
        tod / 3600,
        tod % 3600 / 60,
        tod % 60,
        y
    )
}

/// ISO 8601 UTC date-time: `2025-11-30T08:00:00Z`.
pub fn iso_date(epoch_s: f64) -> String {
    let secs = epoch_s.floor() as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let tod = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", tod / 3600, tod % 3600 / 60, tod % 60)
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian), as no dependency-free
/// date crate builds for wasm without pulling a clock in.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_have_three_significant_digits() {
        assert_eq!(share_text(None), "-");
        assert_eq!(share_text(Some(0.0)), "0%");
        assert_eq!(share_text(Some(0.65)), "65.0%");
        assert_eq!(share_text(Some(0.000123)), "0.0123%");
    }

    #[test]
    fn latencies() {
        assert_eq!(format_ns(812), "812ns");
        assert_eq!(format_ns(35_249), "35.2us");
        assert_eq!(format_ns(1_234_567), "1.23ms");
        assert_eq!(format_ns(999_700), "1.00ms");
        assert_eq!(format_ns(4_100_000_000), "4.10s");
        assert_eq!(format_ns(123_456), "123us");
        assert_eq!(format_ns_f(12.4), "12ns");
    }

    #[test]
    fn dates() {
        assert_eq!(utc_date(1_764_489_600.0), "Sun Nov 30 08:00:00 UTC 2025");
        assert_eq!(iso_date(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_date(951_782_400.0), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4KB"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("2TiB"), Ok(2 << 40));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size(" 128 KiB "), Ok(128 << 10));
        assert_eq!(parse_size("1.5m"), Ok(3 << 19));
        assert!(parse_size("4q").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-4k").is_err());
        assert!(parse_size("0.3k").unwrap_err().to_string().contains("whole number"));
        assert!(parse_size("99999999999t").unwrap_err().to_string().contains("out of range"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("10s"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("500MS"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("2"), Ok(2_000_000_000));
        assert_eq!(parse_duration_ns("2.5"), Ok(2_500_000_000));
        assert_eq!(parse_duration_ns("1m"), Ok(60_000_000_000));
        assert_eq!(parse_duration_ns("1h"), Ok(3_600_000_000_000));
        assert_eq!(parse_duration_ns("250us"), Ok(250_000));
        assert_eq!(parse_duration_ns("7ns"), Ok(7));
        assert!(parse_duration_ns("10 parsecs").is_err());
        assert!(parse_duration_ns("s").is_err());
        assert!(parse_duration_ns("").is_err());
        assert_eq!(parse_duration_s("1.5"), Ok(1.5));
        assert_eq!(parse_duration_s("100ms"), Ok(0.1));
        assert_eq!(parse_duration_s("2m"), Ok(120.0));
    }

    #[test]
    fn durations_round_trip_through_their_display() {
        for (ns, text) in
            [(10_000_000_000, "10s"), (500_000_000, "500ms"), (120_000_000_000, "2m"), (250_000, "250us"), (7, "7ns"), (0, "0s")]
        {
            assert_eq!(format_duration(ns), text);
            assert_eq!(parse_duration_ns(text), Ok(ns));
        }
        assert_eq!(format_duration(1_500_000_000), "1500ms");
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
        assert_eq!(parse_bssplit("4k/100:8k/0"), Ok(vec![(4096, 100)]));
        assert!(parse_bssplit("4k/70:64k/20").unwrap_err().to_string().contains("100%"));
        assert!(parse_bssplit("4k").is_err());
        assert!(parse_bssplit("4k/x").is_err());
        assert!(parse_bssplit("128m/100").is_err());
    }

    #[test]
    fn size_display() {
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(1 << 30), "1GiB");
        assert_eq!(format_size(1000), "1000B");
        assert_eq!(format_approx(23_700_924 * 1024), "22.6GiB");
        assert_eq!(format_approx(64 << 30), "64GiB");
        assert_eq!(format_approx(1000), "1000B");
    }

    #[test]
    fn grouping() {
        assert_eq!(group(0), "0");
        assert_eq!(group(83_412), "83,412");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
