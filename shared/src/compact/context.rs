//! The device's and the host's context records in a compact form (version 5): what the
//! viewer's "device and host" panel draws under the runtime chart.
//!
//! A record's numbers are rates, shares of time and queue sizes read off counters, drawn on a
//! chart and read off a crosshair to three digits; they are stored to within 0.25% of their
//! value (each as `round(ln(1 + v / 0.001) * 200)`: steps of 0.5% above the archive's 0.001,
//! so a number that barely moves codes to the same integer window after window), ZigZag
//! delta-coded column by column, which deflate shrinks to a few bits a number. A long run's
//! records are taken together in groups of a power of two of windows
//! ([`WindowContext::merge`], exact means over the group) until the section deflates to
//! [`BUDGET_PER_HOUR`] a run-hour.
//!
//! ```text
//! section (inflated): varint n, then
//!   starts   n ZigZag deltas of each record's start, microseconds from the run's start
//!   lengths  n ZigZag deltas of each record's length, microseconds
//!   parts    n varints: bit i set when number i of the disk's (bit 0, all 8 numbers), the
//!            CPU's (bit 1), I/O pressure some (2) and full (3), CPU pressure some (4) and
//!            full (5), nines' own CPU (6) is there
//!   numbers  per number of `WindowContext::values` in order, for each record holding it,
//!            the ZigZag delta of its code against the previous record's holding it
//! ```

use super::varint::{put, unzigzag, zigzag, Reader};
use super::FormError;
use crate::context::{WindowContext, FIELDS};

/// What a compact form's context records may weigh, deflated, per hour of run (at least
/// [`BUDGET_MIN`] for any run): 40 kB base64'd in a report, so that a one-hour run at 2k
/// IOPS with its context stays within a default report's 500 kB a run-hour. A real run's
/// record of one window deflates to about 19 bytes (BENCHMARKS.md), so runs longer than
/// about 7 minutes carry records of 2 or 4 windows.
pub const BUDGET_PER_HOUR: f64 = 30_000.0;
/// The budget of a run shorter than `BUDGET_MIN / BUDGET_PER_HOUR` hours.
pub const BUDGET_MIN: usize = 8_000;

const UNIT: f64 = 0.001;
const STEPS: f64 = 200.0;

/// The bit of `parts` for each number of `WindowContext::values`.
fn part_bit(j: usize) -> u32 {
    match j {
        0..=7 => 0,
        8..=15 => 1,
        16 => 2,
        17 => 3,
        18 => 4,
        19 => 5,
        _ => 6,
    }
}

fn code(v: f64) -> i64 {
    ((v.max(0.0) / UNIT).ln_1p() * STEPS).round() as i64
}

fn value(q: i64) -> f64 {
    UNIT * (q as f64 / STEPS).exp_m1()
}

/// The inflated section of `recs`.
pub(super) fn encode(recs: &[WindowContext]) -> Vec<u8> {
    let mut b = Vec::new();
    put(&mut b, recs.len() as u64);
    let micros = |ns: u64| (ns / 1000) as i64;
    let mut prev = 0;
    for r in recs {
        put(&mut b, zigzag(micros(r.start_ns) - prev));
        prev = micros(r.start_ns);
    }
    let mut prev = 0;
    for r in recs {
        let len = micros(r.end_ns) - micros(r.start_ns);
        put(&mut b, zigzag(len - prev));
        prev = len;
    }
    let values: Vec<[Option<f64>; FIELDS]> = recs.iter().map(WindowContext::values).collect();
    for v in &values {
        let mask = (0..FIELDS).filter(|&j| v[j].is_some()).fold(0u64, |m, j| m | 1 << part_bit(j));
        put(&mut b, mask);
    }
    for j in 0..FIELDS {
        let mut prev = 0;
        for v in values.iter().filter_map(|v| v[j]) {
            let q = code(v);
            put(&mut b, zigzag(q - prev));
            prev = q;
        }
    }
    b
}

/// Read a section written by [`encode`]; each record gets `devices`.
pub(super) fn decode(body: &[u8], devices: &[String]) -> Result<Vec<WindowContext>, FormError> {
    let mut r = Reader { b: body, at: 0 };
    let n = r.len()?;
    // every record takes at least three bytes: a start, a length and its parts
    if n > body.len() / 3 {
        return Err(format!("states {n} records in {} bytes", body.len()).into());
    }
    let mut deltas = |what: &str| -> Result<Vec<i64>, FormError> {
        let mut out = Vec::with_capacity(n);
        let mut prev = 0i64;
        for i in 0..n {
            prev = prev
                .checked_add(unzigzag(r.varint()?))
                .filter(|&x| x >= 0)
                .ok_or_else(|| format!("record {}: its {what} is out of range", i + 1))?;
            out.push(prev);
        }
        Ok(out)
    };
    let starts = deltas("start")?;
    let lengths = deltas("length")?;
    let mut masks = Vec::with_capacity(n);
    for i in 0..n {
        let m = r.varint()?;
        if m >= 1 << 7 {
            return Err(format!("record {}: parts {m:#x}; expected bits 0 to 6", i + 1).into());
        }
        masks.push(m);
    }
    let mut values = vec![[None; FIELDS]; n];
    for j in 0..FIELDS {
        let mut prev = 0i64;
        for (i, v) in values.iter_mut().enumerate().filter(|(i, _)| masks[*i] & 1 << part_bit(j) != 0) {
            // a code past 8,000 would be a number past 10^14: no counter rate is
            prev = prev
                .checked_add(unzigzag(r.varint()?))
                .filter(|q| (0..8_000).contains(q))
                .ok_or_else(|| format!("record {}: number {} is out of range", i + 1, j + 1))?;
            v[j] = Some(value(prev));
        }
    }
    if r.at != body.len() {
        return Err(format!("{} bytes follow the last record", body.len() - r.at).into());
    }
    Ok((0..n)
        .map(|i| {
            let start = starts[i] as u64 * 1000;
            WindowContext::from_values(start, start + lengths[i] as u64 * 1000, devices.to_vec(), &values[i])
        })
        .collect())
}

/// The records a form carries: `recs` taken together `k` at a time, the smallest power of
/// two `k` whose section `pack` makes no larger than the budget of a run of `hours`.
pub(super) fn carried<E>(recs: &[WindowContext], hours: f64, pack: impl Fn(&[u8]) -> Result<Vec<u8>, E>) -> Result<(usize, Vec<u8>), E> {
    let budget = (BUDGET_PER_HOUR * hours).max(BUDGET_MIN as f64);
    let mut k = 1;
    loop {
        let merged: Vec<WindowContext> = if k == 1 { recs.to_vec() } else { recs.chunks(k).filter_map(WindowContext::merge).collect() };
        let body = encode(&merged);
        if k >= recs.len() || pack(&body)?.len() as f64 <= budget {
            return Ok((k, body));
        }
        k *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{CpuShares, DiskRates, PressureShares};

    fn rec(i: u64, iops: f64) -> WindowContext {
        WindowContext {
            start_ns: i * 1_000_000_000,
            end_ns: (i + 1) * 1_000_000_000,
            devices: vec!["vda".into()],
            disk: Some(DiskRates {
                r_s: iops,
                w_s: 0.0,
                rkb_s: iops * 4.0,
                wkb_s: 0.0,
                r_await: 0.25,
                w_await: 0.0,
                aqu_sz: 0.5,
                util: 99.5,
            }),
            cpu: Some(CpuShares { user: 3.0, nice: 0.0, system: 20.0, idle: 70.0, iowait: 5.0, irq: 0.0, softirq: 2.0, steal: 0.0 }),
            io_pressure: Some(PressureShares { some: 12.5, full: Some(10.0) }),
            cpu_pressure: Some(PressureShares { some: 0.25, full: None }),
            nines_cpu: if i.is_multiple_of(2) { Some(40.0) } else { None },
            span_ns: Some(1_000_000_000),
        }
    }

    fn within(a: &WindowContext, b: &WindowContext) {
        assert_eq!((a.start_ns, a.end_ns, &a.devices), (b.start_ns, b.end_ns, &b.devices));
        for (x, y) in a.values().iter().zip(b.values()) {
            match (x, y) {
                (Some(x), Some(y)) => assert!((x - y).abs() <= 0.0026 * x.abs().max(0.001), "{x} against {y}"),
                (None, None) => {}
                _ => panic!("{a:?} against {b:?}"),
            }
        }
    }

    #[test]
    fn records_come_back_within_a_quarter_percent() {
        let recs: Vec<WindowContext> = (0..50).map(|i| rec(i, 2000.0 + (i * 37 % 101) as f64)).collect();
        let back = decode(&encode(&recs), &["vda".to_string()]).unwrap();
        assert_eq!(back.len(), recs.len());
        for (a, b) in recs.iter().zip(&back) {
            within(a, b);
        }
        // zero stays zero, and a record without any part keeps none
        let empty = WindowContext { start_ns: 0, end_ns: 5, ..Default::default() };
        let back = decode(&encode(std::slice::from_ref(&empty)), &[]).unwrap();
        assert_eq!(back[0].values(), [None; FIELDS]);
        assert_eq!(value(code(0.0)), 0.0);
    }

    #[test]
    fn damaged_sections_are_errors_naming_the_record() {
        let b = encode(&[rec(0, 100.0), rec(1, 100.0)]);
        for cut in 0..b.len() {
            assert!(decode(&b[..cut], &[]).is_err(), "cut at {cut}");
        }
        let mut bad = b.clone();
        bad.push(0);
        assert!(decode(&bad, &[]).unwrap_err().0.contains("follow the last record"));
        // a record's parts past bit 6
        let mut b = Vec::new();
        put(&mut b, 1);
        put(&mut b, 0);
        put(&mut b, 2);
        put(&mut b, 0x80);
        assert!(decode(&b, &[]).unwrap_err().0.contains("record 1: parts"));
    }

    /// An hour of records as noisy as a real device's: every number moves a few percent
    /// from window to window (a fixed linear congruential sequence).
    fn noisy_hour() -> Vec<WindowContext> {
        let mut x = 12345u64;
        let mut noise = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            1.0 + ((x >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 0.1
        };
        (0..3600)
            .map(|i| {
                let mut r = rec(i, 2000.0 * noise());
                let d = r.disk.as_mut().unwrap();
                (d.w_s, d.wkb_s, d.r_await, d.w_await, d.aqu_sz) =
                    (900.0 * noise(), 3600.0 * noise(), 0.4 * noise(), 1.1 * noise(), 1.7 * noise());
                let c = r.cpu.as_mut().unwrap();
                (c.user, c.system, c.iowait, c.softirq) = (3.0 * noise(), 20.0 * noise(), 5.0 * noise(), 2.0 * noise());
                r.io_pressure = Some(PressureShares { some: 12.5 * noise(), full: Some(10.0 * noise()) });
                r
            })
            .collect()
    }

    fn deflate(b: &[u8]) -> Result<Vec<u8>, std::io::Error> {
        use std::io::Write as _;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b)?;
        z.finish()
    }

    #[test]
    fn an_hour_takes_the_finest_grouping_within_its_budget() {
        let recs = noisy_hour();
        let (k, body) = carried(&recs, 1.0, deflate).unwrap();
        assert!(deflate(&body).unwrap().len() as f64 <= BUDGET_PER_HOUR);
        if k > 1 {
            let finer: Vec<WindowContext> = recs.chunks(k / 2).filter_map(WindowContext::merge).collect();
            assert!(deflate(&encode(&finer)).unwrap().len() as f64 > BUDGET_PER_HOUR, "{k} windows a record");
        }
        // a run of a few minutes keeps every window's record
        let (k, _) = carried(&recs[..300], 300.0 / 3600.0, deflate).unwrap();
        assert_eq!(k, 1);
    }

    #[test]
    fn records_are_merged_until_they_fit() {
        let recs = noisy_hour();
        let whole = deflate(&encode(&recs)).unwrap().len();
        // a budget a quarter of one-second records' size: they go two or four at a time
        let (k, body) = carried(&recs, whole as f64 / 4.0 / BUDGET_PER_HOUR, deflate).unwrap();
        assert!(k == 2 || k == 4, "{k}");
        assert!(deflate(&body).unwrap().len() <= (whole / 4).max(BUDGET_MIN));
        let merged = decode(&body, &["vda".to_string()]).unwrap();
        assert_eq!(merged.len(), 3600usize.div_ceil(k));
        within(&merged[1], &WindowContext::merge(&recs[k..2 * k]).unwrap());
        assert_eq!((merged[1].start_ns, merged[1].end_ns), (k as u64 * 1_000_000_000, 2 * k as u64 * 1_000_000_000));
    }
}
