//! CSV for spreadsheets: values in ns and IOPS, one row per run and direction (or sweep
//! point), every field from a file quoted and defused by [`field`].

use crate::quantile::Support;
use crate::stats::RunStats;
use crate::sweep_table::SweepTable;

/// The stats table as CSV: one row per run and direction, levels with their support and the
/// I/Os beyond them. Values in ns; a level without support is empty.
pub fn stats(runs: &[RunStats]) -> String {
    let mut out = String::new();
    let labels: Vec<String> =
        runs.iter().flat_map(|r| r.tags.iter()).next().map(|(_, s)| s.levels.iter().map(|l| l.label.clone()).collect()).unwrap_or_default();
    let mut header = vec![
        "run".to_string(),
        "file".into(),
        "direction".into(),
        "count".into(),
        "iops".into(),
        "min_ns".into(),
        "mean_ns".into(),
        "stdev_ns".into(),
    ];
    for l in &labels {
        header.extend([
            format!("{l}_ns"),
            format!("{l}_support"),
            format!("{l}_beyond"),
            format!("{l}_ci95_lo_ns"),
            format!("{l}_ci95_hi_ns"),
        ]);
    }
    header.push("max_ns".into());
    out.push_str(&header.iter().map(|h| field(h)).collect::<Vec<_>>().join(","));
    out.push('\n');
    for r in runs {
        for (tag, s) in r.tags.iter() {
            let mut row = vec![
                field(&r.name),
                field(&r.file),
                field(tag),
                s.count.to_string(),
                format!("{:.3}", s.iops),
                s.min_ns.to_string(),
                format!("{:.1}", s.mean_ns),
                format!("{:.1}", s.stdev_ns),
            ];
            for l in &s.levels {
                let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
                let support = match l.support {
                    Support::None => "none",
                    Support::Thin => "thin",
                    Support::Reliable => "reliable",
                };
                row.extend([
                    opt(l.value_ns),
                    support.into(),
                    l.beyond.to_string(),
                    opt(l.ci95_ns.map(|c| c.0)),
                    opt(l.ci95_ns.map(|c| c.1)),
                ]);
            }
            row.push(s.max_ns.to_string());
            out.push_str(&row.join(","));
            out.push('\n');
        }
    }
    out
}

/// Quote a CSV field when needed; a leading `=`, `+`, `-` or `@` is prefixed with `'` so that
/// a hostile run name cannot become a spreadsheet formula.
pub fn field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) { format!("'{s}") } else { s.to_string() };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// The sweep table as CSV (values in ns and IOPS, changes in percent).
pub fn sweep(t: &SweepTable) -> String {
    let mut out = format!(
        "config,{},base_run,iops,mean_ns,p99_ns,p99_99_ns,cand_run,cand_iops,cand_mean_ns,cand_p99_ns,cand_p99_99_ns,iops_pct,mean_pct,p99_pct,p99_99_pct\n",
        field(&t.param)
    );
    let o = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    let f = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    for r in &t.rows {
        let b = &r.base;
        out.push_str(&format!(
            "{},{},{},{:.3},{:.3},{},{}",
            field(&r.config),
            super::text::trim_num(r.param),
            field(&b.run),
            b.iops,
            b.mean_ns,
            o(b.p99_ns),
            o(b.p99_99_ns)
        ));
        match (&r.cand, &r.change) {
            (Some(c), Some(ch)) => out.push_str(&format!(
                ",{},{:.3},{:.3},{},{},{},{},{},{}\n",
                field(&c.run),
                c.iops,
                c.mean_ns,
                o(c.p99_ns),
                o(c.p99_99_ns),
                f(ch.iops_pct),
                f(ch.mean_pct),
                f(ch.p99_pct),
                f(ch.p99_99_pct)
            )),
            _ => out.push_str(",,,,,,,,,\n"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{run_stats, Options};

    use crate::run::test_runs::two_directions as run;

    #[test]
    fn csv_has_a_row_per_direction_and_defuses_formulas() {
        let mut r = run(3);
        r.name = "=cmd|' /C calc'!A0".into();
        let s = run_stats(&r, &Options::default());
        let csv = stats(std::slice::from_ref(&s));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 3);
        assert!(lines[0].starts_with("run,file,direction,count,iops"));
        assert!(lines[1].starts_with("'=cmd|' /C calc'!A0,r.hlog,read,2100,"), "{}", lines[1]);
        let fields: Vec<&str> = lines[3].split(',').collect();
        assert_eq!(fields[2], "all");
        assert_eq!(fields[3], "3000");
        assert_eq!(fields.last().unwrap().parse::<u64>().unwrap(), s.tags["all"].max_ns);
    }
}
