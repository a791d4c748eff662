//! Skewed random access: which block a random I/O goes to, with the models and parameters of
//! fio's `random_distribution` option (fio HOWTO, "random_distribution"), so that the same
//! parameters give the same hot-set shares as fio:
//!
//! - `random`: uniform.
//! - `zipf:THETA[:CENTER]`: Zipf over the blocks, generated as Gray et al. describe it
//!   ("Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994): a block's rank
//!   `r` is drawn with probability `1/r^THETA / zeta(n)`; like fio, `zeta(n)` sums at most the
//!   first 10 million terms. THETA > 0 and not 1.
//! - `pareto:H[:CENTER]`: rank `(n-1) * U^(ln H / ln(1-H))`, 0 < H < 1 (fio's "Pareto power").
//! - `normal:DEV[:CENTER]`: the mean of 12 uniform draws over the blocks (close to a normal
//!   around the middle), moved by a uniform deviation of up to DEV percent of the blocks,
//!   as fio's normal distribution does; 0 <= DEV <= 100.
//! - `zoned:ACCESS/SIZE:...`: ACCESS percent of the I/Os fall uniformly in the next SIZE
//!   percent of the region (`zoned:60/10:30/20:8/30:2/40`); both columns add up to 100.
//!
//! As in fio, the ranks of zipf, pareto and normal are scattered over the region by a
//! multiplicative hash (so the hot blocks are not all at the start), then moved by an offset:
//! CENTER (0 to 1) places the most likely rank at that fraction of the region; without it,
//! zipf and pareto start each job at a random offset (so each job has its own hot set, as
//! fio's jobs have) and normal is centred. The generator only maps uniform draws to a block;
//! the caller owns the random numbers, so this module stays pure.

use std::fmt;
use std::str::FromStr;

/// One zone of a `zoned` distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    /// Share of the I/Os, in percent.
    pub access_pct: u32,
    /// Share of the region, in percent.
    pub size_pct: u32,
}

/// A random-access model, as fio's `random_distribution` writes it.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Distribution {
    #[default]
    Random,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        dev: f64,
        center: Option<f64>,
    },
    Zoned(Vec<Zone>),
}

/// The most terms of zeta(n) summed (fio caps it at 10 million, which costs a second or two
/// and changes the shares by little).
const ZETA_MAX_TERMS: u64 = 10_000_000;
/// Uniform draws averaged by `normal`.
const NORMAL_DRAWS: u64 = 12;
/// An odd 64-bit constant (2^64 / golden ratio) for the multiplicative scatter of ranks.
const SCATTER: u64 = 0x9E37_79B9_7F4A_7C15;

impl Distribution {
    /// Is this the uniform default?
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Random
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = |c: &Option<f64>| c.map(|c| format!(":{c}")).unwrap_or_default();
        match self {
            Distribution::Random => write!(f, "random"),
            Distribution::Zipf { theta, center } => write!(f, "zipf:{theta}{}", c(center)),
            Distribution::Pareto { h, center } => write!(f, "pareto:{h}{}", c(center)),
            Distribution::Normal { dev, center } => write!(f, "normal:{dev}{}", c(center)),
            Distribution::Zoned(z) => {
                write!(f, "zoned")?;
                for z in z {
                    write!(f, ":{}/{}", z.access_pct, z.size_pct)?;
                }
                Ok(())
            }
        }
    }
}

/// Why a `random_distribution` could not be read; `text` is the whole distribution as
/// written, and each message says what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DistributionError {
    /// A parameter (`what`: theta, power, deviation or center) that is no finite number.
    #[error("{what} {value:?} in {text:?} is not a number")]
    NotNumber { what: &'static str, value: String, text: String },
    /// A distribution (`kind`, lowercase) written without its parameter.
    #[error("{kind} needs its {what}: write it like {kind}:{}", if .kind == "normal" { "5" } else { "0.9" })]
    NoParameter { kind: String, what: &'static str },
    #[error("center {center} in {text:?} must be between 0 and 1")]
    Center { center: f64, text: String },
    #[error("{text:?} has more than two numbers; expected {kind}:PARAM[:CENTER]")]
    TooManyNumbers { text: String, kind: String },
    #[error("{0:?}: the uniform distribution random takes no parameter")]
    RandomParameter(String),
    #[error("zipf theta {0} must be above 0 and not 1")]
    Theta(f64),
    #[error("pareto power {0} must be between 0 and 1 (exclusive)")]
    Power(f64),
    #[error("normal deviation {0} must be a percentage between 0 and 100")]
    Deviation(f64),
    #[error("zone {zone:?} in {text:?}: write it ACCESS/SIZE, e.g. 60/10")]
    ZoneForm { zone: String, text: String },
    #[error("{value:?} in zone {zone:?} is not a whole percentage")]
    ZonePercent { value: String, zone: String },
    /// The zones' shares of the I/Os (`access`) and of the region (`region`), in percent.
    #[error(
        "zoned shares in {text:?} add up to {access}% of the I/Os over {region}% of the region; the I/Os must add up to 100% and the region to at most 100% (e.g. zoned:60/10:30/20:8/30:2/40)"
    )]
    ZoneShares { text: String, access: u32, region: u32 },
    #[error("a zone in {0:?} has I/Os but 0% of the region")]
    EmptyZone(String),
    #[error("random distribution {0:?} is not supported by nines (supported: random, zipf, pareto, normal, zoned)")]
    Unsupported(String),
    #[error("{0:?} is not a random distribution; expected random, zipf:THETA, pareto:H, normal:DEV or zoned:ACCESS/SIZE:...")]
    Unknown(String),
}

impl FromStr for Distribution {
    type Err = DistributionError;

    fn from_str(s: &str) -> Result<Self, DistributionError> {
        let t = s.trim();
        let (kind, rest) = t.split_once(':').unwrap_or((t, ""));
        let kind = kind.to_ascii_lowercase();
        let text = || s.to_string();
        let num = |v: &str, what: &'static str| -> Result<f64, DistributionError> {
            v.trim().parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| DistributionError::NotNumber {
                what,
                value: v.to_string(),
                text: text(),
            })
        };
        let param_center = |what: &'static str| -> Result<(f64, Option<f64>), DistributionError> {
            if rest.trim().is_empty() {
                return Err(DistributionError::NoParameter { kind: kind.clone(), what });
            }
            let mut it = rest.split(':');
            let p = num(it.next().unwrap_or(""), what)?;
            let center = match it.next() {
                Some(c) => {
                    let c = num(c, "center")?;
                    if !(0.0..=1.0).contains(&c) {
                        return Err(DistributionError::Center { center: c, text: text() });
                    }
                    Some(c)
                }
                None => None,
            };
            if it.next().is_some() {
                return Err(DistributionError::TooManyNumbers { text: text(), kind: kind.clone() });
            }
            Ok((p, center))
        };
        match kind.as_str() {
            "random" if rest.trim().is_empty() => Ok(Distribution::Random),
            "random" => Err(DistributionError::RandomParameter(text())),
            "zipf" => {
                let (theta, center) = param_center("theta")?;
                if theta <= 0.0 || theta == 1.0 {
                    return Err(DistributionError::Theta(theta));
                }
                Ok(Distribution::Zipf { theta, center })
            }
            "pareto" => {
                let (h, center) = param_center("power")?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(DistributionError::Power(h));
                }
                Ok(Distribution::Pareto { h, center })
            }
            "normal" => {
                let (dev, center) = param_center("deviation")?;
                if !(0.0..=100.0).contains(&dev) {
                    return Err(DistributionError::Deviation(dev));
                }
                Ok(Distribution::Normal { dev, center })
            }
            "zoned" => {
                let mut zones = Vec::new();
                let mut blank = Vec::new();
                for part in rest.split(':').filter(|p| !p.trim().is_empty()) {
                    let (a, z) =
                        part.split_once('/').ok_or_else(|| DistributionError::ZoneForm { zone: part.to_string(), text: text() })?;
                    let pct = |v: &str| {
                        v.trim()
                            .trim_end_matches('%')
                            .parse::<u32>()
                            .map_err(|_| DistributionError::ZonePercent { value: v.to_string(), zone: part.to_string() })
                    };
                    // as in fio's bssplit, a zone whose size is left blank (`20/`) shares what
                    // the others leave of the region equally with the other blank ones
                    let size_pct = if z.trim().is_empty() {
                        blank.push(zones.len());
                        0
                    } else {
                        pct(z)?
                    };
                    zones.push(Zone { access_pct: pct(a)?, size_pct });
                }
                if !blank.is_empty() {
                    let left = 100u32.saturating_sub(zones.iter().map(|z| z.size_pct).sum());
                    let each = left / blank.len() as u32;
                    for (k, &i) in blank.iter().enumerate() {
                        zones[i].size_pct = each + u32::from(k == 0) * (left - each * blank.len() as u32);
                    }
                }
                zones.retain(|z| z.access_pct > 0);
                let a: u32 = zones.iter().map(|z| z.access_pct).sum();
                let z: u32 = zones.iter().map(|z| z.size_pct).sum();
                if zones.is_empty() || a != 100 || z > 100 {
                    return Err(DistributionError::ZoneShares { text: text(), access: a, region: z });
                }
                if zones.iter().any(|z| z.size_pct == 0) {
                    return Err(DistributionError::EmptyZone(text()));
                }
                Ok(Distribution::Zoned(zones))
            }
            "zoned_abs" | "sequence" => Err(DistributionError::Unsupported(text())),
            _ => Err(DistributionError::Unknown(text())),
        }
    }
}

/// Maps uniform draws to block indices for one job over `n` blocks.
#[derive(Clone, Debug)]
pub struct Sampler {
    n: u64,
    offset: u64,
    model: Model,
}

#[derive(Clone, Debug)]
enum Model {
    Uniform,
    Zipf {
        zetan: f64,
        alpha: f64,
        eta: f64,
        second: f64,
    },
    Pareto {
        pow: f64,
    },
    Normal {
        spread: i64,
    },
    /// (cumulative access percent, first block, blocks)
    Zoned(Vec<(u32, u64, u64)>),
}

impl Sampler {
    /// A sampler over `n` (at least 1) blocks. `random_offset` is a random 64-bit number of
    /// the job's: where the hot set starts when no center is given (zipf, pareto).
    pub fn new(d: &Distribution, n: u64, random_offset: u64) -> Sampler {
        let n = n.max(1);
        let centred = |c: &Option<f64>, default: u64| c.map_or(default, |c| ((n as f64 * c) as u64).min(n - 1));
        let (model, offset) = match d {
            Distribution::Random => (Model::Uniform, 0),
            Distribution::Zipf { theta, center } => {
                let theta = *theta;
                let zetan: f64 = (1..=n.min(ZETA_MAX_TERMS)).map(|i| (i as f64).powf(-theta)).sum();
                let zeta2 = 1.0 + 0.5f64.powf(theta);
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                (Model::Zipf { zetan, alpha, eta, second: zeta2 }, centred(center, random_offset % n))
            }
            Distribution::Pareto { h, center } => (Model::Pareto { pow: h.ln() / (1.0 - h).ln() }, centred(center, random_offset % n)),
            Distribution::Normal { dev, center } => {
                let spread = if *dev == 0.0 { 0 } else { ((n as f64 * dev / 100.0).ceil() as u64).min(n / 2) as i64 };
                // the mean of the draws is the middle; a center moves it there
                let off = center.map_or(0, |c| ((n as f64 * (c - 0.5)) as i64).rem_euclid(n as i64) as u64);
                (Model::Normal { spread }, off)
            }
            Distribution::Zoned(zones) => {
                let mut cum = 0;
                let mut start_pct = 0u64;
                let z = zones
                    .iter()
                    .map(|z| {
                        cum += z.access_pct;
                        let first = start_pct * n / 100;
                        start_pct += u64::from(z.size_pct);
                        let end = start_pct * n / 100;
                        (cum, first, (end - first).max(1))
                    })
                    .collect();
                (Model::Zoned(z), 0)
            }
        };
        Sampler { n, offset, model }
    }

    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.n
    }

    /// The next block, from uniform draws in [0, 1) that `uniform` returns (one for zipf and
    /// pareto, 13 for normal, two for zoned and uniform).
    pub fn block(&self, uniform: &mut impl FnMut() -> f64) -> u64 {
        let n = self.n;
        let idx = |u: f64, len: u64| ((u * len as f64) as u64).min(len - 1);
        let rank = match &self.model {
            Model::Uniform => return idx(uniform(), n),
            Model::Zoned(z) => {
                let v = 1 + idx(uniform(), 100) as u32;
                let &(_, first, len) = z.iter().find(|(c, _, _)| v <= *c).unwrap_or(&z[z.len() - 1]);
                return (first + idx(uniform(), len)).min(n - 1);
            }
            Model::Zipf { zetan, alpha, eta, second } => {
                let u = uniform();
                let uz = u * zetan;
                if uz < 1.0 {
                    0
                } else if uz < *second {
                    1
                } else {
                    ((n as f64 * (eta * u - eta + 1.0).powf(*alpha)) as u64).min(n - 1)
                }
            }
            Model::Pareto { pow } => (((n - 1) as f64) * uniform().powf(*pow)) as u64,
            Model::Normal { spread } => {
                let sum: u64 = (0..NORMAL_DRAWS).map(|_| idx(uniform(), n + 1)).sum();
                let mut r = sum.div_ceil(NORMAL_DRAWS);
                let u = uniform();
                if *spread > 0 {
                    let mut dev = (*spread as f64 * u) as i64 - spread / 2;
                    while r as i64 + dev < 0 || r as i64 + dev >= n as i64 {
                        dev /= 2;
                    }
                    r = (r as i64 + dev) as u64;
                }
                r.min(n - 1)
            }
        };
        (rank.wrapping_mul(SCATTER) % n + self.offset) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic uniform source (splitmix64), so the tests need no crate.
    fn source(mut s: u64) -> impl FnMut() -> f64 {
        move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Shares of the hottest 1% and 10% of the blocks.
    fn hot_shares(d: &str, n: u64, draws: usize) -> (f64, f64) {
        let s = Sampler::new(&d.parse().unwrap(), n, 12345);
        let mut u = source(7);
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            let b = s.block(&mut u);
            assert!(b < n);
            counts[b as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top = |f: f64| counts[..(n as f64 * f).round() as usize].iter().sum::<u64>() as f64 / draws as f64;
        (top(0.01), top(0.1))
    }

    #[test]
    fn parses_fio_syntax_and_round_trips() {
        for s in ["random", "zipf:1.2", "zipf:0.8:0.25", "pareto:0.9", "normal:5", "normal:0:0.75", "zoned:60/10:30/20:8/30:2/40"] {
            let d: Distribution = s.parse().unwrap();
            assert_eq!(d.to_string(), s);
        }
        assert_eq!("ZIPF:1.2".parse::<Distribution>().unwrap(), Distribution::Zipf { theta: 1.2, center: None });
        assert_eq!(
            "zoned:50/5:30/15:20/".parse::<Distribution>().unwrap().to_string(),
            "zoned:50/5:30/15:20/80",
            "a blank size is the rest"
        );
        for (bad, says) in [
            ("zipf", "needs its theta"),
            ("zipf:1", "not 1"),
            ("zipf:x", "not a number"),
            ("pareto:1.5", "between 0 and 1"),
            ("normal:200", "between 0 and 100"),
            ("zipf:1.2:2", "center"),
            ("zoned:60/10:30/20", "add up to 90%"),
            ("zoned:50/60:50/60", "at most 100%"),
            ("zoned_abs:60/20G:40/1G", "not supported"),
            ("gamma:2", "not a random distribution"),
        ] {
            let e = bad.parse::<Distribution>().unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn uniform_spreads_evenly() {
        let (one, ten) = hot_shares("random", 10_000, 1_000_000);
        // about 100 draws a block: the hottest blocks are the Poisson tail above 100
        assert!(one < 0.0135 && ten < 0.12, "{one} {ten}");
    }

    #[test]
    fn skewed_models_concentrate() {
        // Zipf 1.2 over 16384 blocks: fio gives about 79% to the hottest 1% and 92% to the
        // hottest 10% (collector/tests/distribution.rs checks against fio itself).
        let (one, ten) = hot_shares("zipf:1.2", 16384, 200_000);
        assert!((one - 0.79).abs() < 0.03 && (ten - 0.92).abs() < 0.03, "{one} {ten}");
        // pareto:0.9 draws ranks as U^(ln 0.9 / ln 0.1), about U^0.046: the densest block gets
        // 21.8 times the uniform share, so 1 - 0.99^21.8 = 20% falls in the hottest 1%
        let (one, ten) = hot_shares("pareto:0.9", 16384, 200_000);
        assert!((one - 0.197).abs() < 0.01 && (ten - 0.899).abs() < 0.01, "{one} {ten}");
        let (one, ten) = hot_shares("normal:0", 16384, 200_000);
        assert!(one > 0.03 && ten > 0.25, "{one} {ten}");
        // zoned: 60% of the I/Os in the first 10% of the region
        let s = Sampler::new(&"zoned:60/10:40/90".parse().unwrap(), 1000, 0);
        let mut u = source(1);
        let first = (0..100_000).filter(|_| s.block(&mut u) < 100).count();
        assert!((first as f64 / 1e5 - 0.6).abs() < 0.01, "{first}");
    }

    #[test]
    fn center_places_the_hot_block() {
        let s = Sampler::new(&"zipf:2:0.25".parse().unwrap(), 1000, 0);
        let mut u = source(3);
        let mut counts = vec![0u32; 1000];
        for _ in 0..10_000 {
            counts[s.block(&mut u) as usize] += 1;
        }
        let hottest = (0..1000).max_by_key(|&i| counts[i]).unwrap();
        assert_eq!(hottest, 250, "rank 0 scatters to 0, then the center moves it");
        // one block: every model returns it
        for d in ["zipf:1.2", "pareto:0.5", "normal:50", "zoned:100/100", "random"] {
            let s = Sampler::new(&d.parse().unwrap(), 1, 99);
            assert_eq!(s.block(&mut u), 0, "{d}");
        }
    }
}
