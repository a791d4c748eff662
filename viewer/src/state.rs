//! The view's state and its URL-hash form, so that a link reopens the same view:
//! `#dir=read&lv=3,4&lx=p95,p99.5&hide=2,5&x=ios&zoom=100,200&sel=120,150&cdf=1e4,1e6,1e-6,1&rate=mbps`
//! (`dir=probe%2Fread`: one scoped direction alone).
//!
//! Parsing is forgiving: an unknown or malformed key is ignored (a hand-edited link still
//! opens), and nothing in the hash is ever interpreted as markup or code.

use nines_core::quantile::{parse_level, Level, LevelError};

use crate::charts::Metric;
use crate::index_set::IndexSet;

/// Which directions every panel shows.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum DirMode {
    /// Every direction merged, per window.
    #[default]
    All,
    Read,
    Write,
    /// Trims (`nines run --rw trim|randtrim`).
    Trim,
    /// Each direction its own trace.
    Overlay,
    /// One scoped direction alone (`probe/read`: a job section's share of a run's reads,
    /// nines-core's `tag::scoped`), as `nines stats --tag probe/read` shows it.
    Scoped(String),
}

impl DirMode {
    pub const ALL: [DirMode; 5] = [DirMode::All, DirMode::Read, DirMode::Write, DirMode::Trim, DirMode::Overlay];
    pub fn key(&self) -> &str {
        match self {
            DirMode::All => "all",
            DirMode::Read => "read",
            DirMode::Write => "write",
            DirMode::Trim => "trim",
            DirMode::Overlay => "overlay",
            DirMode::Scoped(t) => t,
        }
    }
    pub fn label(&self) -> &str {
        match self {
            DirMode::Overlay => "each direction",
            d => d.key(),
        }
    }
    /// A mode by its key; any other key that is a scoped direction (`probe/read`, not an
    /// auxiliary measure such as `probe/read.svc`) selects that direction alone.
    pub fn from_key(s: &str) -> Option<DirMode> {
        DirMode::ALL.into_iter().find(|d| d.key() == s).or_else(|| {
            let t = nines_core::tag::Tag::parse(s);
            let ok = t.scope.is_some_and(|s| !s.is_empty()) && !t.direction.is_empty() && t.measure.is_none() && s.len() <= 256;
            ok.then(|| DirMode::Scoped(s.to_string()))
        })
    }
}

/// What the rate panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RateMode {
    #[default]
    Iops,
    Mbps,
}

/// Everything a link restores.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewState {
    pub dir: DirMode,
    /// Levels (in nines) drawn on the runtime chart.
    pub levels: Vec<u32>,
    /// Levels the stats table shows after the standard ones (`nines stats --levels`), in
    /// increasing order, each once ([`parse_levels`]).
    pub custom: Vec<Level>,
    /// Indices of runs the legend has hidden.
    pub hidden: IndexSet,
    /// Runtime x axis: seconds (false) or cumulative I/Os (true).
    pub x_ios: bool,
    /// Runtime zoom, in x-axis units.
    pub zoom: Option<(f64, f64)>,
    /// Brushed range, in x-axis units: every other panel shows only this range.
    pub sel: Option<(f64, f64)>,
    /// 1-CDF box zoom: latency range (ns) and share range.
    pub cdf: Option<(f64, f64, f64, f64)>,
    pub rate: RateMode,
    /// Compare mode: the runs that form the baseline (one run, or repeats compared by their
    /// run-to-run band); every other shown run is a candidate.
    pub base: IndexSet,
    /// Compare the candidates as one set (by their run-to-run band), not one by one.
    pub cset: bool,
    /// The swept parameter of the sweep plot (a metadata key or a name in the file names).
    pub sweep: Option<String>,
    /// The sweep panel as a latency curve (achieved IOPS against levels) or as the parameter
    /// plot; `None`: a curve when a shown run is a point of `nines curve`.
    pub curve: Option<bool>,
    /// The latency curve's IOPS axis is logarithmic.
    pub curve_log: bool,
    /// The steady-state check shown.
    pub steady: SteadyView,
    /// A QoS spec (nines-core's grammar, `read p99.99 <= 1ms` a line): its verdicts, the
    /// envelope on the 1-CDF and the windows that break it on the runtime chart. Empty: none.
    pub spec: String,
    /// A site's trend across its runs.
    pub trend: TrendView,
    /// Which run the runtime and rate charts draw strong, the others faded ([`focus_run`]).
    pub focus: Focus,
    /// The runtime chart draws this one metric of every run, each run in its own colour
    /// (`one=3`: p99.9, `one=med`, `one=max`); `None`: the median, the levels and the max.
    pub one: Option<Metric>,
    /// The runtime chart as small multiples: one strip per run, stacked, on shared axes.
    pub strips: bool,
    /// The runs the strips draw when more are shown than [`MAX_STRIPS`] (link: `sp=0,4`);
    /// empty: the first shown.
    pub strip_runs: IndexSet,
}

/// The most strips drawn: past this, the panel's run buttons choose which.
pub const MAX_STRIPS: usize = 8;

/// The focus run of the runtime and rate charts: chosen automatically once
/// [`FOCUS_FROM`] runs are shown (twenty runs overlaid are a tangle of lines), one run
/// chosen in the legend, or every run drawn alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Focus {
    #[default]
    Auto,
    Run(usize),
    Off,
}

/// From this many shown runs on, one run is drawn strong and the others faded by default.
pub const FOCUS_FROM: usize = 5;

/// The run drawn strong, given the shown runs (indices, in legend order) and the choice:
/// a chosen run while it is shown; by default the first shown run once there are
/// [`FOCUS_FROM`] of them; none with fewer, or when the focus is turned off.
pub fn focus_run(shown: &[usize], focus: Focus) -> Option<usize> {
    match focus {
        Focus::Off => None,
        Focus::Run(i) if shown.contains(&i) && shown.len() > 1 => Some(i),
        _ if shown.len() >= FOCUS_FROM => shown.first().copied(),
        _ => None,
    }
}

/// The trend panel's choices: the direction and level followed, and the pinned baseline (an
/// index into the site's runs in start order) each run is compared with instead of the run
/// before it.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendView {
    pub tag: String,
    pub level: String,
    pub base: Option<usize>,
    /// The runs' own key (`nines run --meta KEY=VALUE`) the runs are ordered by on x; `None`:
    /// by their start (link: `to=KEY`).
    pub order: Option<String>,
}

impl Default for TrendView {
    fn default() -> TrendView {
        TrendView { tag: "all".into(), level: "p99.99".into(), base: None, order: None }
    }
}

/// A level label as a link may carry it (`p99.99`).
fn level_label(s: &str) -> Option<String> {
    let ok = s.len() <= 16 && s.strip_prefix('p').is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '.'));
    ok.then(|| s.to_string())
}

/// The steady-state panel's choices: which run, what is tracked, the measurement window.
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyView {
    pub run: usize,
    /// `iops`, `bw`, `mean` or a level such as `p99.9` (parsed by nines-core's `Track`).
    pub track: String,
    /// Rounds in the measurement window (the PTS uses 5).
    pub rounds: usize,
    /// Round length in seconds; `None`: each recorded window is a round.
    pub round_s: Option<f64>,
}

impl Default for SteadyView {
    fn default() -> SteadyView {
        SteadyView { run: 0, track: "iops".into(), rounds: 5, round_s: None }
    }
}

/// What the steady panel can track.
pub const TRACKS: [&str; 7] = ["iops", "bw", "mean", "p99", "p99.9", "p99.99", "p99.999"];

impl Default for ViewState {
    fn default() -> ViewState {
        ViewState {
            dir: DirMode::All,
            levels: vec![3, 4],
            custom: Vec::new(),
            hidden: IndexSet::new(),
            x_ios: false,
            zoom: None,
            sel: None,
            cdf: None,
            rate: RateMode::Iops,
            base: IndexSet::new(),
            cset: false,
            sweep: None,
            curve: None,
            curve_log: false,
            steady: SteadyView::default(),
            spec: String::new(),
            trend: TrendView::default(),
            focus: Focus::Auto,
            one: None,
            strips: false,
            strip_runs: IndexSet::new(),
        }
    }
}

/// A metric as the link carries it (`med`, `1` to `9` nines, `max`).
pub fn metric_key(m: Metric) -> String {
    match m {
        Metric::Median => "med".into(),
        Metric::Nines(k) => k.to_string(),
        Metric::Max => "max".into(),
    }
}

/// The inverse of [`metric_key`]; `None` for anything else.
pub fn metric_of(v: &str) -> Option<Metric> {
    match v {
        "med" => Some(Metric::Median),
        "max" => Some(Metric::Max),
        _ => v.parse::<u32>().ok().filter(|k| (1..=9).contains(k)).map(Metric::Nines),
    }
}

/// The longest spec a link carries (bytes of text).
pub const MAX_SPEC: usize = 16 * 1024;

/// `s` percent-encoded for a URL hash: letters, digits and `-_.~` (RFC 3986's unreserved
/// set) are kept; every other byte, newlines, `#`, `&` and `=` among them, becomes `%XX`.
/// Written here rather than with the percent-encoding crate (the same output: a test checks
/// it), whose table of the 256 "%XX" strings cost the page's wasm about 300 bytes gzipped.
pub fn encode(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.extend(['%', char::from(HEX[usize::from(b >> 4)]), char::from(HEX[usize::from(b & 15)])]);
        }
    }
    out
}

/// The inverse of [`encode`]; `None` for text that is not UTF-8 once decoded. A `%` not
/// followed by two hex digits stays as it is.
pub fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b.get(i + 1..i + 3).filter(|h| b[i] == b'%' && h.iter().all(u8::is_ascii_hexdigit));
        match hex.and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()) {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// A sweep parameter name as a link may carry it: letters, digits and `_.-`, at most 64.
pub fn param_name(s: &str) -> Option<String> {
    let ok = !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    ok.then(|| s.to_string())
}

fn nums(s: &str) -> Option<Vec<f64>> {
    s.split(',').map(|p| p.trim().parse::<f64>().ok().filter(|v| v.is_finite())).collect()
}

fn pair(s: &str) -> Option<(f64, f64)> {
    match nums(s)?.as_slice() {
        [a, b] if a < b => Some((*a, *b)),
        _ => None,
    }
}

fn num(v: f64) -> String {
    // shortest form that round-trips
    format!("{v}")
}

impl ViewState {
    /// The hash (without `#`); defaults are left out so links stay short.
    pub fn to_hash(&self) -> String {
        let d = ViewState::default();
        let mut parts = Vec::new();
        if self.dir != d.dir {
            parts.push(format!("dir={}", encode(self.dir.key())));
        }
        if self.levels != d.levels {
            parts.push(format!("lv={}", self.levels.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")));
        }
        if !self.custom.is_empty() {
            parts.push(format!("lx={}", self.custom.iter().map(|l| l.label.as_str()).collect::<Vec<_>>().join(",")));
        }
        if !self.hidden.is_empty() {
            parts.push(format!("hide={}", self.hidden.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")));
        }
        if self.x_ios {
            parts.push("x=ios".into());
        }
        if let Some((a, b)) = self.zoom {
            parts.push(format!("zoom={},{}", num(a), num(b)));
        }
        if let Some((a, b)) = self.sel {
            parts.push(format!("sel={},{}", num(a), num(b)));
        }
        if let Some((a, b, c, e)) = self.cdf {
            parts.push(format!("cdf={},{},{},{}", num(a), num(b), num(c), num(e)));
        }
        if self.rate == RateMode::Mbps {
            parts.push("rate=mbps".into());
        }
        if !self.base.is_empty() {
            parts.push(format!("base={}", self.base.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")));
        }
        if self.cset {
            parts.push("cset=1".into());
        }
        if let Some(p) = &self.sweep {
            parts.push(format!("sweep={p}"));
        }
        if let Some(c) = self.curve {
            parts.push(format!("curve={}", u8::from(c)));
        }
        if self.curve_log {
            parts.push("cx=log".into());
        }
        if self.steady != d.steady {
            let ss = &self.steady;
            let mut v = format!("ss={},{},{}", ss.run, ss.track, ss.rounds);
            if let Some(r) = ss.round_s {
                v.push_str(&format!(",{}", num(r)));
            }
            parts.push(v);
        }
        let t = &self.trend;
        if (&t.tag, &t.level, t.base) != (&d.trend.tag, &d.trend.level, d.trend.base) {
            parts.push(format!("tr={},{}{}", t.tag, t.level, t.base.map(|b| format!(",{b}")).unwrap_or_default()));
        }
        if let Some(o) = &t.order {
            parts.push(format!("to={}", encode(o)));
        }
        match self.focus {
            Focus::Auto => {}
            Focus::Run(i) => parts.push(format!("fo={i}")),
            Focus::Off => parts.push("fo=off".into()),
        }
        if let Some(m) = self.one {
            parts.push(format!("one={}", metric_key(m)));
        }
        if self.strips {
            parts.push("strips=1".into());
        }
        if !self.strip_runs.is_empty() {
            parts.push(format!("sp={}", self.strip_runs.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",")));
        }
        if !self.spec.trim().is_empty() {
            parts.push(format!("spec={}", encode(&self.spec)));
        }
        parts.join("&")
    }

    /// Parse a hash (with or without `#`); bad entries are skipped.
    pub fn from_hash(hash: &str) -> ViewState {
        let mut s = ViewState::default();
        for kv in hash.trim_start_matches('#').split('&') {
            let Some((k, v)) = kv.split_once('=') else { continue };
            match k {
                "dir" => s.dir = decode(v).and_then(|v| DirMode::from_key(&v)).unwrap_or_default(),
                "lv" => {
                    let lv: Option<Vec<u32>> = v.split(',').map(|x| x.parse::<u32>().ok().filter(|k| (1..=9).contains(k))).collect();
                    if let Some(mut lv) = lv {
                        // the shared sort (nines_core::sort): a few levels, no copy of the std sort of its own
                        nines_core::sort::sort_by(&mut lv, u32::cmp);
                        lv.dedup();
                        s.levels = lv;
                    }
                }
                "lx" => {
                    if let Some(Ok(lx)) = decode(v).map(|v| parse_levels(&v)) {
                        s.custom = lx;
                    }
                }
                "hide" => s.hidden = indices(v),
                "x" => s.x_ios = v == "ios",
                "zoom" => s.zoom = pair(v),
                "sel" => s.sel = pair(v),
                "cdf" => {
                    s.cdf = match nums(v).as_deref() {
                        Some([a, b, c, d]) if 0.0 < *a && a < b && 0.0 < *c && c < d => Some((*a, *b, *c, *d)),
                        _ => None,
                    }
                }
                "rate" => s.rate = if v == "mbps" { RateMode::Mbps } else { RateMode::Iops },
                "base" => s.base = indices(v),
                "cset" => s.cset = v == "1",
                "sweep" => s.sweep = param_name(v),
                "curve" => s.curve = matches!(v, "0" | "1").then_some(v == "1"),
                "cx" => s.curve_log = v == "log",
                "tr" => {
                    let p: Vec<&str> = v.split(',').collect();
                    let tag = p.first().and_then(|t| param_name(t));
                    let level = p.get(1).and_then(|l| level_label(l));
                    let base = match p.get(2) {
                        None => Some(None),
                        Some(b) => b.parse::<usize>().ok().filter(|&i| i < 100_000).map(Some),
                    };
                    if let (Some(tag), Some(level), Some(base)) = (tag, level, base) {
                        s.trend = TrendView { tag, level, base, order: s.trend.order.take() };
                    }
                }
                "to" => s.trend.order = decode(v).filter(|o| !o.is_empty() && o.chars().count() <= 64),
                "fo" => {
                    s.focus = match v {
                        "off" => Focus::Off,
                        _ => v.parse::<usize>().ok().filter(|&i| i < 100_000).map(Focus::Run).unwrap_or_default(),
                    }
                }
                "one" => s.one = metric_of(v),
                "strips" => s.strips = v == "1",
                "sp" => s.strip_runs = indices(v),
                "spec" => s.spec = decode(v).filter(|t| t.len() <= MAX_SPEC).unwrap_or_default(),
                "ss" => {
                    let p: Vec<&str> = v.split(',').collect();
                    let run = p.first().and_then(|x| x.parse::<usize>().ok()).filter(|&i| i < 100_000);
                    let track = p.get(1).filter(|t| TRACKS.contains(t));
                    let rounds = p.get(2).and_then(|x| x.parse::<usize>().ok()).filter(|r| (2..=100).contains(r));
                    let round_s = match p.get(3) {
                        None => Some(None),
                        Some(x) => x.parse::<f64>().ok().filter(|r| r.is_finite() && *r > 0.0 && *r <= 86_400.0).map(Some),
                    };
                    if let (Some(run), Some(track), Some(rounds), Some(round_s)) = (run, track, rounds, round_s) {
                        s.steady = SteadyView { run, track: track.to_string(), rounds, round_s };
                    }
                }
                _ => {}
            }
        }
        s
    }
}

/// The most custom levels a list holds (a link's or the levels field's).
pub const MAX_CUSTOM: usize = 32;

/// Levels as `nines stats --levels` reads them (nines-core's [`parse_level`]: `p95`, `99.5`,
/// `median`), comma-separated, blank entries skipped; in increasing order, each once.
/// The first entry that is no level is the error (at most [`MAX_CUSTOM`] kept).
pub fn parse_levels(text: &str) -> Result<Vec<Level>, LevelError> {
    let mut out = Vec::new();
    for item in text.split(',').filter(|x| !x.trim().is_empty()) {
        out.push(parse_level(item.trim())?);
    }
    // the shared sort (nines_core::sort), as `sorted_levels` orders them
    let cross = |a: &Level, b: &Level| (u128::from(a.num) * u128::from(b.den), u128::from(b.num) * u128::from(a.den));
    nines_core::sort::sort_by(&mut out, |a, b| {
        let (x, y) = cross(a, b);
        x.cmp(&y)
    });
    out.dedup_by(|a, b| {
        let (x, y) = cross(a, b);
        x == y
    });
    out.truncate(MAX_CUSTOM);
    Ok(out)
}

/// Does a hash choose the direction (a `dir` key the viewer knows)? A page then opens on it;
/// without one, runs with several directions open with each shown.
pub fn dir_in_hash(hash: &str) -> bool {
    hash.trim_start_matches('#').split('&').any(|kv| kv.split_once('=').is_some_and(|(k, v)| k == "dir" && DirMode::from_key(v).is_some()))
}

/// Run indices of a hash's comma list (`hide=1,3`), unparsable or absurd ones left out.
/// Inserted one by one: collecting into a BTreeSet sorts the items first, one more compiled
/// copy of the standard sort in the wasm.
fn indices(v: &str) -> IndexSet {
    let mut out = IndexSet::new();
    out.extend(v.split(',').filter_map(|x| x.parse::<usize>().ok()).filter(|&i| i < 100_000));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_text_is_percent_encoded_as_the_percent_encoding_crate_does() {
        const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');
        let keep = KEEP;
        let texts =
            ["read p99.99 <= 1ms\nall max <= 50ms", "[name=*probe*]\r\n# x&y=z", "µs é 漢字 🚀", "%", "a%2", "%zz%41%4a%4A", "~-_.", ""];
        for t in texts {
            assert_eq!(encode(t), percent_encoding::utf8_percent_encode(t, keep).to_string(), "{t:?}");
            assert_eq!(decode(&encode(t)).as_deref(), Some(t));
            let crate_decoded = percent_encoding::percent_decode_str(t).decode_utf8().ok().map(|c| c.into_owned());
            assert_eq!(decode(t), crate_decoded, "{t:?}");
        }
        // every byte value
        let all: String = (0..=255u8).map(char::from).collect();
        assert_eq!(encode(&all), percent_encoding::utf8_percent_encode(&all, keep).to_string());
        assert_eq!(decode("%FF"), None);
        assert_eq!(decode("%+1"), Some("%+1".into()));
    }

    #[test]
    fn a_hash_chooses_the_direction_only_with_a_known_one() {
        assert!(dir_in_hash("#dir=all"));
        assert!(dir_in_hash("lv=3&dir=read"));
        assert!(!dir_in_hash(""));
        assert!(!dir_in_hash("#lv=3,4&x=ios"));
        assert!(!dir_in_hash("#dir=<script>"));
        assert!(!dir_in_hash("#xdir=all"));
    }

    #[test]
    fn default_is_an_empty_hash() {
        assert_eq!(ViewState::default().to_hash(), "");
        assert_eq!(ViewState::from_hash(""), ViewState::default());
        assert_eq!(ViewState::from_hash("#"), ViewState::default());
    }

    #[test]
    fn round_trip() {
        let s = ViewState {
            dir: DirMode::Overlay,
            levels: vec![2, 5, 6],
            custom: parse_levels("p99.99, 95,p99.5").unwrap(),
            hidden: [1, 7].into_iter().collect(),
            x_ios: true,
            zoom: Some((100.5, 2000.0)),
            sel: Some((120.0, 150.25)),
            cdf: Some((1e4, 2.5e6, 1e-7, 0.5)),
            rate: RateMode::Mbps,
            base: [0, 3].into_iter().collect(),
            cset: true,
            sweep: Some("numjobs".into()),
            curve: Some(true),
            curve_log: true,
            steady: SteadyView { run: 2, track: "p99.9".into(), rounds: 6, round_s: Some(10.0) },
            spec: "read p99.99 <= 1ms # vendor\n[name=a&b=c]\nwrite max<50ms µ".into(),
            trend: TrendView { tag: "read".into(), level: "p99.9".into(), base: Some(4), order: Some("build id".into()) },
            focus: Focus::Run(3),
            one: Some(Metric::Nines(3)),
            strips: true,
            strip_runs: [2, 9].into_iter().collect(),
        };
        let h = s.to_hash();
        assert_eq!(h, "dir=overlay&lv=2,5,6&lx=p95,p99.5,p99.99&hide=1,7&x=ios&zoom=100.5,2000&sel=120,150.25&cdf=10000,2500000,0.0000001,0.5&rate=mbps&base=0,3&cset=1&sweep=numjobs&curve=1&cx=log&ss=2,p99.9,6,10&tr=read,p99.9,4&to=build%20id&fo=3&one=3&strips=1&sp=2,9&spec=read%20p99.99%20%3C%3D%201ms%20%23%20vendor%0A%5Bname%3Da%26b%3Dc%5D%0Awrite%20max%3C50ms%20%C2%B5");
        assert_eq!(ViewState::from_hash(&format!("#{h}")), s);
    }

    #[test]
    fn custom_levels_round_trip_and_a_bad_one_is_ignored() {
        let s = ViewState { custom: parse_levels("p99.99, p95, p50,, 99.5%").unwrap(), ..ViewState::default() };
        assert_eq!(s.to_hash(), "lx=p50,p95,p99.5,p99.99");
        assert_eq!(ViewState::from_hash("#lx=p50,p95,p99.5,p99.99"), s);
        // the same level twice is one column
        assert_eq!(parse_levels("p99.9,99.90").unwrap().len(), 1);
        assert_eq!(ViewState::from_hash("lx=").custom, vec![]);
        // a list with an entry that is no level is ignored whole, the other keys kept
        for bad in ["lx=p95,p101&x=ios", "lx=p95,%3Cb%3E&x=ios", "lx=p0&x=ios", "lx=%FF&x=ios"] {
            let s = ViewState::from_hash(bad);
            assert_eq!((s.custom, s.x_ios), (vec![], true), "{bad}");
        }
        // the field's message names the entry, as `nines stats --levels` does
        let e = parse_levels("p95, p101").unwrap_err().to_string();
        assert!(e.contains("\"p101\" is not a level"), "{e}");
        assert_eq!(parse_levels(&["p95"; 5].join(",")).unwrap().len(), 1);
    }

    #[test]
    fn a_scoped_direction_round_trips() {
        let s = ViewState { dir: DirMode::Scoped("probe/read".into()), ..ViewState::default() };
        assert_eq!(s.to_hash(), "dir=probe%2Fread");
        assert_eq!(ViewState::from_hash("#dir=probe%2Fread"), s);
        assert_eq!(ViewState::from_hash("dir=probe/read"), s, "as typed");
        assert_eq!(DirMode::Scoped("host07/nvme1n1/probe/read".into()).label(), "host07/nvme1n1/probe/read");
        // a measure, an empty scope or direction is not a direction to select
        for bad in ["probe/read.svc", "/read", "probe/", "read.lat", "nonsense"] {
            assert_eq!(ViewState::from_hash(&format!("dir={bad}")).dir, DirMode::All, "{bad}");
        }
    }

    #[test]
    fn hostile_or_broken_hashes_fall_back() {
        let s = ViewState::from_hash(
            "#dir=<script>&lv=3,x&zoom=5,1&sel=NaN,2&cdf=-1,2,3,4&hide=a,2&junk&x=ios&sweep=<b>&ss=0,rm -rf,5&base=x,1",
        );
        assert_eq!(s.sweep, None);
        assert_eq!((ViewState::from_hash("curve=yes").curve, ViewState::from_hash("curve=0").curve), (None, Some(false)));
        assert_eq!(s.steady, SteadyView::default());
        assert_eq!(s.base, [1].into_iter().collect());
        assert_eq!(s.dir, DirMode::All);
        assert_eq!(s.levels, vec![3, 4]);
        assert_eq!(s.zoom, None);
        assert_eq!(s.sel, None);
        assert_eq!(s.cdf, None);
        assert_eq!(s.hidden, [2].into_iter().collect());
        assert!(s.x_ios);
        // a broken escape, bytes that are not UTF-8, an overlong spec: no spec
        assert_eq!(ViewState::from_hash("spec=%FF%FE").spec, "");
        for bad in ["tr=<b>,p99", "tr=read,x99", "tr=read,p99,-1", "tr=read"] {
            assert_eq!(ViewState::from_hash(bad).trend, TrendView::default(), "{bad}");
        }
        // a broken escape is kept as written, as browsers do
        assert_eq!(ViewState::from_hash("spec=read%2").spec, "read%2");
        assert_eq!(ViewState::from_hash(&format!("spec={}", "a".repeat(MAX_SPEC + 1))).spec, "");
        assert_eq!(ViewState::from_hash("spec=%3Cscript%3E").spec, "<script>");
    }

    #[test]
    fn one_level_and_strips_round_trip_and_bad_values_fall_back() {
        for (m, key) in
            [(Metric::Median, "med"), (Metric::Nines(1), "1"), (Metric::Nines(3), "3"), (Metric::Nines(9), "9"), (Metric::Max, "max")]
        {
            let s = ViewState { one: Some(m), ..ViewState::default() };
            assert_eq!(s.to_hash(), format!("one={key}"));
            assert_eq!(ViewState::from_hash(&format!("#one={key}")), s);
        }
        let s = ViewState { strips: true, one: Some(Metric::Nines(4)), levels: vec![2, 5], ..ViewState::default() };
        assert_eq!(s.to_hash(), "lv=2,5&one=4&strips=1");
        assert_eq!(ViewState::from_hash("lv=2,5&one=4&strips=1"), s);
        for bad in ["one=0", "one=10", "one=p99", "one=<b>", "one=", "one=-1"] {
            assert_eq!(ViewState::from_hash(&format!("{bad}&x=ios")).one, None, "{bad}");
            assert!(ViewState::from_hash(&format!("{bad}&x=ios")).x_ios, "{bad}: the other keys kept");
        }
        assert!(!ViewState::from_hash("strips=yes").strips);
        assert!(!ViewState::from_hash("strips=0").strips);
    }

    #[test]
    fn focus() {
        let five = [0, 1, 2, 3, 4];
        // few runs: all alike unless one is chosen; many: the first shown by default
        assert_eq!(focus_run(&[0, 1], Focus::Auto), None);
        assert_eq!(focus_run(&[0, 1], Focus::Run(1)), Some(1));
        assert_eq!(focus_run(&five, Focus::Auto), Some(0));
        assert_eq!(focus_run(&[2, 3, 5, 7, 9], Focus::Auto), Some(2));
        assert_eq!(focus_run(&five, Focus::Run(3)), Some(3));
        // a chosen run that is hidden falls back to the default; off is off
        assert_eq!(focus_run(&[0, 1, 2, 4, 5], Focus::Run(3)), Some(0));
        assert_eq!(focus_run(&[0, 1, 2], Focus::Run(7)), None);
        assert_eq!(focus_run(&five, Focus::Off), None);
        // one run alone is never a focus
        assert_eq!(focus_run(&[4], Focus::Run(4)), None);
        for (h, f) in
            [("fo=off", Focus::Off), ("fo=12", Focus::Run(12)), ("fo=x", Focus::Auto), ("fo=-1", Focus::Auto), ("fo=100000", Focus::Auto)]
        {
            assert_eq!(ViewState::from_hash(h).focus, f, "{h}");
        }
        assert_eq!(ViewState { focus: Focus::Off, ..ViewState::default() }.to_hash(), "fo=off");
    }
}
