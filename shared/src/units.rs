//! Display helpers: latencies, rates, dates. Display only; computations use integers in ns.

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
    fn grouping() {
        assert_eq!(group(0), "0");
        assert_eq!(group(83_412), "83,412");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
