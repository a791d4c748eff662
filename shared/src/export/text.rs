//! Text tables for a terminal: `nines stats`, `compare`, `steady` and `sweep`. Names, files,
//! tags and warnings come from files: they are shown with control characters escaped
//! ([`crate::table::shown`]).

use crate::compare::{Comparison, Side, Verdict};
use crate::convergence::SteadyReport;
use crate::quantile::Support;
use crate::stats::RunStats;
use crate::steady::Criterion;
use crate::sweep_table::{Point, SweepTable};
use crate::units::{format_ns, format_ns_f, format_rate, group, share_text};

/// The block `nines stats --context` prints under a run's table: each context number's mean
/// and max over the run's windows, the device I/Os the run did not issue, and fio's disk
/// statistics of an imported fio run.
pub fn context(c: &crate::context::ContextSummary) -> String {
    let esc = crate::table::shown;
    let mut out = if c.windows == 0 && !c.disk_util.is_empty() {
        "context: fio's disk statistics over its whole run".to_string()
    } else {
        format!("context: {} window{}", c.windows, if c.windows == 1 { "" } else { "s" })
    };
    if !c.devices.is_empty() {
        out.push_str(&format!(", device {}", esc(&c.devices.join(" + "))));
    }
    out.push('\n');
    if let Some(m) = &c.missing {
        out.push_str(&format!("  {}\n", esc(m)));
    }
    fn label(n: &'static str) -> &'static str {
        match n {
            "util" => "util %",
            "aqu_sz" => "aqu-sz",
            "r_await" => "r_await ms",
            "w_await" => "w_await ms",
            "r_s" => "r/s",
            "w_s" => "w/s",
            "rkB_s" => "rkB/s",
            "wkB_s" => "wkB/s",
            "user" => "cpu user %",
            "sys" => "cpu sys %",
            "iowait" => "cpu iowait %",
            "irq" => "cpu irq %",
            "softirq" => "cpu softirq %",
            "steal" => "cpu steal %",
            "io_some" => "io pressure some %",
            "io_full" => "io pressure full %",
            "cpu_some" => "cpu pressure some %",
            "cpu_full" => "cpu pressure full %",
            "nines_cpu" => "nines CPU % of a core",
            other => other,
        }
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let num = |x: f64| if x.abs() >= 1000.0 { format!("{x:.0}") } else { format!("{x:.2}") };
    for (n, m) in &c.numbers {
        rows.push(vec![format!("  {}", label(n)), num(m.mean), num(m.max)]);
    }
    if let Some(m) = &c.other_iops {
        rows.push(vec!["  device IOPS nines did not issue".into(), num(m.mean), num(m.max)]);
    }
    if !rows.is_empty() {
        rows.insert(0, vec!["  number".into(), "mean".into(), "max".into()]);
        out.push_str(&crate::table::render(&rows));
    }
    for d in &c.disk_util {
        let n = |x: Option<u64>| x.map_or("-".to_string(), group);
        out.push_str(&format!(
            "  fio disk_util {}: read_ios {}, write_ios {}, read_ticks {} ms, write_ticks {} ms, in_queue {} ms, util {}\n",
            esc(&d.name),
            n(d.read_ios),
            n(d.write_ios),
            n(d.read_ticks),
            n(d.write_ticks),
            n(d.in_queue),
            d.util.map_or("-".to_string(), |u| format!("{u:.2} %"))
        ));
    }
    out
}

/// The text table `nines stats` prints.
pub fn stats(runs: &[RunStats]) -> String {
    let mut out = String::new();
    for (i, r) in runs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&render_run(r));
    }
    out
}

fn render_run(r: &RunStats) -> String {
    // names, files and warnings come from files: shown with control characters escaped
    let esc = crate::table::shown;
    let mut out = format!("{} ({}), {:.1} s\n", esc(&r.name), esc(&r.file), r.duration_s);
    let levels: Vec<&str> = r.tags.0.first().map(|(_, s)| s.levels.iter().map(|l| l.label.as_str()).collect()).unwrap_or_default();
    // A level column is printed while any row has a value in it; the levels past the last
    // such column have no I/O beyond them in any row and are named in a note instead.
    let shown = (0..levels.len()).rev().find(|&i| r.tags.iter().any(|(_, s)| s.levels[i].value_ns.is_some())).map_or(0, |i| i + 1);
    let mut header = vec!["dir", "count", "IOPS", "min", "mean", "stdev"];
    header.extend(levels[..shown].iter().copied());
    header.push("max");
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    let mut thin_notes = Vec::new();
    let mut blank_inside = false;
    for (tag, s) in r.tags.iter() {
        let has = s.count > 0;
        let lat = |v: u64| if has { format_ns(v) } else { "-".into() };
        let latf = |v: f64| if has { format_ns_f(v) } else { "-".into() };
        let mut row = vec![tag.clone(), group(s.count), format_rate(s.iops), lat(s.min_ns), latf(s.mean_ns), latf(s.stdev_ns)];
        for l in &s.levels[..shown] {
            row.push(match (l.support, l.value_ns) {
                (Support::Reliable, Some(v)) => crate::precision::level_cell(l).unwrap_or_else(|| format_ns(v)),
                (Support::Thin, Some(v)) => {
                    thin_notes.push(format!("{tag} {} ({})", l.label, group(l.beyond)));
                    format!("{}*", crate::precision::level_cell(l).unwrap_or_else(|| format_ns(v)))
                }
                _ => {
                    blank_inside |= has;
                    String::new()
                }
            });
        }
        row.push(lat(s.max_ns));
        rows.push(row);
    }
    out.push_str(&crate::table::render(&rows));
    if !thin_notes.is_empty() {
        out.push_str(&wrap(&esc(&format!("* thin, I/Os beyond the level in brackets (reliable from 100): {}", thin_notes.join(", ")))));
    }
    if r.tags.iter().any(|(_, s)| s.levels.iter().any(|l| l.bucket_ns.is_some())) {
        out.push_str(&wrap(crate::precision::TABLE_NOTE));
    }
    if blank_inside {
        out.push_str("blank: no I/O lies beyond that level, so its value would only repeat the max\n");
    }
    if shown < levels.len() {
        out.push_str(&format!("{}..{}: not shown, no I/O lies beyond them in any row\n", levels[shown], levels[levels.len() - 1]));
    }
    out.push_str(&render_windows(r));
    for w in &r.warnings {
        out.push_str(&format!("warning: {}: {}\n", esc(&r.file), esc(&w.to_string())));
    }
    out
}

/// The spread of each level over the windows (`nines stats --windows`), when computed.
fn render_windows(r: &RunStats) -> String {
    let esc = crate::table::shown;
    let with: Vec<(&String, &crate::window_levels::WindowLevels)> =
        r.tags.iter().filter_map(|(t, s)| s.windows.as_ref().map(|w| (t, w))).collect();
    let Some((_, first)) = with.first() else { return String::new() };
    let any_limit = with.iter().any(|(_, w)| w.levels.iter().any(|l| !l.limits.is_empty()));
    // a level no window of any row supports (and no limit bounds) is named in a note instead
    let shown = |i: usize| with.iter().any(|(_, w)| w.levels[i].supported > 0 || !w.levels[i].limits.is_empty());
    let mut header = vec!["dir", "level", "windows", "too few", "min", "p50", "p90", "p99", "max"];
    if any_limit {
        header.extend(["limit", "windows beyond", "I/Os beyond", "IOPS met"]);
    }
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    let (mut thin_notes, mut too_few) = (Vec::new(), false);
    for (tag, w) in &with {
        for (i, l) in w.levels.iter().enumerate() {
            if !shown(i) {
                continue;
            }
            too_few |= l.too_few > 0;
            let mark = if l.thin > 0 {
                thin_notes.push(format!("{tag} {} ({} of {})", l.label, group(l.thin as u64), group(l.supported as u64)));
                "*"
            } else {
                ""
            };
            let v = |x: Option<u64>| x.map_or(String::new(), |v| format!("{}{mark}", format_ns(v)));
            let base = vec![
                tag.to_string(),
                l.label.clone(),
                group(l.supported as u64),
                group(l.too_few as u64),
                v(l.min_ns),
                v(l.p50_ns),
                v(l.p90_ns),
                v(l.p99_ns),
                v(l.max_ns),
            ];
            if l.limits.is_empty() {
                rows.push(base.clone());
            }
            for lim in &l.limits {
                let mut row = base.clone();
                row.push(lim.limit.clone());
                row.push(format!("{} ({})", group(lim.windows_beyond as u64), share_text(lim.windows_beyond_share)));
                row.push(format!("{} ({})", group(lim.ios_beyond), share_text(lim.ios_beyond_share)));
                row.push(lim.iops_met.map_or("-".into(), |v| group(v.round() as u64)));
                rows.push(row);
            }
        }
    }
    let mut out = String::from("\neach window's levels, spread over the windows (nearest rank, never interpolated):\n");
    out.push_str(&crate::table::render(&rows));
    if !thin_notes.is_empty() {
        out.push_str(&wrap(&esc(&format!(
            "* thin: windows with 1 to 99 I/Os beyond the level among those summarised: {}",
            thin_notes.join(", ")
        ))));
    }
    if too_few {
        out.push_str(&wrap("too few: windows with no I/O beyond the level (it would only repeat their max), left out"));
    }
    let hidden: Vec<&str> = first.levels.iter().enumerate().filter(|&(i, _)| !shown(i)).map(|(_, l)| l.label.as_str()).collect();
    if !hidden.is_empty() {
        out.push_str(&wrap(&format!("{}: not shown, no window has an I/O beyond them", hidden.join(", "))));
    }
    if any_limit {
        out.push_str(&wrap(
            "windows beyond: of the windows summarised; I/Os beyond: of every I/O of the row, in every window; IOPS met: of the windows that met the limit, their I/Os over their time",
        ));
    }
    out
}

/// Wrap a note at 80 columns, continuation lines indented.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line = "  ".to_string();
        } else if !line.is_empty() && line != "  " {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn compare_value(label: &str, v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if label == "IOPS" => format_rate(x),
        Some(x) => format_ns(x.max(0.0).round() as u64),
    }
}

fn compare_interval(label: &str, s: &Side) -> String {
    match s.interval {
        None => String::new(),
        Some((a, b)) => format!("[{}..{}]", compare_value(label, Some(a)), compare_value(label, Some(b))),
    }
}

/// Text tables for `nines compare`.
pub fn comparison(c: &Comparison) -> String {
    let mut out = format!(
        "baseline: {} ({} run{})\ncandidate: {} ({} run{})\n",
        crate::table::shown(&c.baseline.join(", ")),
        c.baseline.len(),
        if c.baseline.len() == 1 { "" } else { "s" },
        crate::table::shown(&c.candidate.join(", ")),
        c.candidate.len(),
        if c.candidate.len() == 1 { "" } else { "s" },
    );
    let kind = |n: usize| if n == 1 { "95% CI" } else { "run band" };
    for t in &c.tags {
        out.push_str(&format!("\n{}\n", crate::table::shown(&t.tag)));
        let mut rows = vec![vec![
            "".to_string(),
            "baseline".into(),
            kind(c.baseline.len()).into(),
            "candidate".into(),
            kind(c.candidate.len()).into(),
            "change".into(),
            "verdict".into(),
        ]];
        for ch in std::iter::once(&t.iops).chain(std::iter::once(&t.mean)).chain(t.levels.iter()) {
            if ch.base.value.is_none() && ch.cand.value.is_none() {
                continue;
            }
            rows.push(vec![
                ch.label.clone(),
                compare_value(&ch.label, ch.base.value),
                compare_interval(&ch.label, &ch.base),
                compare_value(&ch.label, ch.cand.value),
                compare_interval(&ch.label, &ch.cand),
                ch.change_pct.map_or("-".into(), |p| format!("{p:+.1}%")),
                match ch.verdict {
                    Verdict::Better => "better".into(),
                    Verdict::Worse => "worse".into(),
                    Verdict::Same => "within noise".into(),
                    Verdict::Unknown => "too few I/Os to tell".into(),
                },
            ]);
        }
        out.push_str(&crate::table::render(&rows));
    }
    out.push_str(
        "\nA change counts only where the intervals do not overlap: one run's 95% confidence \
         interval, or a set's band from its lowest to its highest run.\n",
    );
    out
}

fn steady_value(track: &str, v: f64) -> String {
    match track {
        "IOPS" => format_rate(v),
        "MB/s" => format!("{v:.1}"),
        _ => format_ns(v.max(0.0).round() as u64),
    }
}

/// The report as text: the verdict, the window table with its limits, and fio's criteria.
pub fn steady(r: &SteadyReport) -> String {
    let mut out = String::new();
    let n = r.rounds.len();
    match (&r.last, r.first_steady_after) {
        (Some(p), _) if p.holds => out.push_str(&format!(
            "steady: yes, over rounds {}..{} ({} of {}, {})\n",
            n - r.window + 1,
            n,
            r.track,
            r.direction,
            match r.first_steady_after {
                Some(k) => format!("first held after round {k}"),
                None => String::new(),
            }
        )),
        (_, Some(k)) => out.push_str(&format!("steady: not over the last {} rounds (it held after round {k}, then drifted)\n", r.window)),
        _ => out.push_str(&format!("steady: no, the PTS rule never held over {} rounds of {} ({})\n", r.window, r.track, r.direction)),
    }
    if let Some(p) = &r.last {
        out.push_str(&format!(
            "  range {} is {:.1}% of the average {} (limit: 20%): {}\n",
            steady_value(&r.track, p.range),
            p.range / p.average * 100.0,
            steady_value(&r.track, p.average),
            if p.range_ok { "ok" } else { "exceeded" }
        ));
        out.push_str(&format!(
            "  fitted line changes by {} across the window, {:.1}% of the average (limit: 10%): {}\n",
            steady_value(&r.track, p.excursion),
            p.excursion / p.average * 100.0,
            if p.slope_ok { "ok" } else { "exceeded" }
        ));
    } else {
        out.push_str("  the window has a round without a value (no I/O beyond the level): track a lower level or use longer rounds\n");
    }
    let avg = r.last.map(|p| p.average);
    let mut rows = vec![vec!["round".to_string(), "start s".into(), "I/Os".into(), r.track.clone(), "vs average".into(), "".into()]];
    for (i, round) in r.rounds.iter().enumerate() {
        let in_window = i + r.window >= n;
        rows.push(vec![
            (i + 1).to_string(),
            format!("{:.1}", round.start_s),
            crate::units::group(round.count),
            round.value.map_or("-".into(), |v| steady_value(&r.track, v)),
            match (in_window, avg, round.value) {
                (true, Some(a), Some(v)) => format!("{:+.1}%", (v - a) / a * 100.0),
                _ => String::new(),
            },
            if in_window { "window".into() } else { String::new() },
        ]);
    }
    out.push_str(&crate::table::render(&rows));
    for c in &r.criteria {
        let parsed: Option<Criterion> = c.criterion.parse().ok();
        let what = match parsed.as_ref().map(|p| p.test) {
            Some(crate::steady::Test::Slope) => "slope per second",
            _ => "largest deviation from the mean",
        };
        let (unit, limit) = match parsed.as_ref().map(|p| p.limit) {
            Some(crate::steady::Limit::Percent(l)) => ("% of the mean", format!("{l}%")),
            Some(crate::steady::Limit::Absolute(l)) => ("", format!("{l}")),
            None => ("", String::new()),
        };
        out.push_str(&format!(
            "fio {}: {}{}\n",
            c.criterion,
            match &c.last {
                Some(e) => format!(
                    "{} over the window ({what} {:.3}{unit}, limit {limit})",
                    if e.holds { "holds" } else { "does not hold" },
                    e.criterion.abs()
                ),
                None => "cannot be evaluated".into(),
            },
            match c.first_steady_after {
                Some(k) => format!("; first held after round {k}"),
                None => "; never held".into(),
            }
        ));
    }
    out
}

fn lat(v: Option<u64>) -> String {
    v.map_or_else(String::new, format_ns)
}

fn p9999(p: &Point) -> String {
    match p.p99_99_ns {
        Some(v) if p.p99_99_thin => format!("{}*", format_ns(v)),
        v => lat(v),
    }
}

fn pct_text(p: Option<f64>) -> String {
    p.map_or_else(String::new, |p| format!("{p:+.1}%"))
}

/// The sweep table as text, one block per configuration.
pub fn sweep(t: &SweepTable) -> String {
    let with_cand = t.rows.iter().any(|r| r.cand.is_some());
    let mut out = String::new();
    let mut configs: Vec<&str> = t.rows.iter().map(|r| r.config.as_str()).collect();
    configs.dedup();
    for config in configs {
        let heading = format!("{} ({}){}", t.param, t.tag, if config.is_empty() { String::new() } else { format!(", {config}") });
        out.push_str(&crate::table::shown(&heading));
        out.push('\n');
        let mut header: Vec<String> = [t.param.as_str(), "IOPS", "mean", "p99", "p99.99"].iter().map(|s| s.to_string()).collect();
        if with_cand {
            header.extend(["cand IOPS", "mean", "p99", "p99.99", "IOPS %", "mean %", "p99 %", "p99.99 %"].iter().map(|s| s.to_string()));
        }
        let mut rows = vec![header];
        for r in t.rows.iter().filter(|r| r.config == config) {
            let mut row = vec![
                trim_num(r.param),
                format_rate(r.base.iops),
                format_ns(r.base.mean_ns.round() as u64),
                lat(r.base.p99_ns),
                p9999(&r.base),
            ];
            if with_cand {
                match (&r.cand, &r.change) {
                    (Some(c), Some(ch)) => row.extend([
                        format_rate(c.iops),
                        format_ns(c.mean_ns.round() as u64),
                        lat(c.p99_ns),
                        p9999(c),
                        pct_text(ch.iops_pct),
                        pct_text(ch.mean_pct),
                        pct_text(ch.p99_pct),
                        pct_text(ch.p99_99_pct),
                    ]),
                    _ => row.extend(std::iter::repeat_n(String::new(), 8)),
                }
            }
            rows.push(row);
        }
        out.push_str(&crate::table::render(&rows));
        out.push('\n');
    }
    out.push_str("* thin: fewer than 100 I/Os beyond p99.99\n");
    out
}

/// A parameter value as written: `16`, not `16.0`.
pub(super) fn trim_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The curve table as text (`nines curve`, `nines sweep --curve`): a block per set, a row per
/// point with its load, achieved IOPS and each level as `value [lower, upper]`, then the
/// target's decision in words.
pub fn curve(t: &crate::curve::CurveTable) -> String {
    let mut out = String::new();
    for s in &t.sets {
        let heading = format!("{} ({}), by {}", s.label, t.tag, t.load);
        out.push_str(&crate::table::shown(&heading));
        out.push('\n');
        let mut header: Vec<String> = ["load", "run", "I/Os", "IOPS achieved [95%]"].iter().map(|s| s.to_string()).collect();
        header.extend(t.levels.iter().map(|l| format!("{l} [95%]")));
        let mut rows = vec![header];
        for p in &s.points {
            let mut row = vec![p.load_text(&t.load), p.run.clone(), group(p.count), p.iops.text(false)];
            row.extend(p.levels.iter().map(|l| l.text(true)));
            rows.push(row);
        }
        out.push_str(&crate::table::render(&rows));
        for line in crate::curve::describe(s, &t.load) {
            out.push_str(&crate::table::shown(&line));
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(
        "[lower, upper]: 95% interval (? where the run has too few I/Os for the bound); * thin: fewer than 100 I/Os beyond the level\n",
    );
    out
}
