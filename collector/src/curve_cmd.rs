//! `nines curve`: one workload at increasing load, an archive per point in a directory, and the
//! highest load meeting a latency limit. What to run and what to conclude is nines-core's
//! `curve`; this module only runs the points (through `run::collect`, as `nines run` does)
//! and prints the table.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use nines_core::curve::{self, Mark, Mode};
use nines_core::export;
use nines_core::run::Run;
use nines_core::spec::Verdict;

use crate::cli::curve::CurveArgs;
use crate::cli::run::Given;
use crate::run::config::{Arrival, RunConfig};

/// The flag that lets `-o DIR` hold files already.
const INTO_EXISTING: &str = "--into-existing";

/// What the points are.
enum Plan {
    Ladder(Vec<Mark>),
    Steps(Vec<f64>),
}

/// Runs the curve and prints its table; with `--limit`, the search's verdict (the exit status
/// of a judging command: README, "Exit status").
pub fn run(args: &CurveArgs, given: &Given, out: &mut impl Write) -> Result<Option<Verdict>> {
    let a = &args.run;
    let dir = a.output.clone();
    if dir.as_os_str().is_empty() {
        bail!("nines curve needs -o DIR, the directory the points' archives go into");
    }
    reject_flags(args, given)?;
    // the job file, once: every point runs the same workload
    let mut base: RunConfig = a.config(given).resolve_one(&given.ids)?;
    base.job_file = None;
    let plan = match (&args.qd_ladder, &args.jobs_ladder, &args.curve_steps) {
        (Some(l), _, _) => Plan::Ladder(curve::ladder(Mode::Qd, &l.0, base.qd, base.jobs)),
        (_, Some(l), _) => Plan::Ladder(curve::ladder(Mode::Jobs, &l.0, base.qd, base.jobs)),
        (_, _, Some(s)) => Plan::Steps(s.0.clone()),
        _ => bail!("give --qd-ladder, --jobs-ladder or --curve-steps"),
    };
    let tag = args.tag.clone().or_else(|| args.limit.as_ref().map(|l| l.tag.clone())).unwrap_or_else(|| "all".into());
    check_directions(args, &base)?;

    // every file name the curve will write, checked before the first point runs
    let names = file_names(&plan, &base)?;
    let created = std::fs::symlink_metadata(&dir).is_err();
    crate::output::prepare_dir(&dir, args.into_existing, INTO_EXISTING)?;
    // a directory this command made is removed again if it ends before the first point
    // recorded anything (remove_dir leaves a directory that holds files alone)
    let _cleanup = RemoveIfEmpty(created.then(|| dir.clone()));
    for n in &names {
        let p = dir.join(n);
        if std::fs::symlink_metadata(&p).is_ok() {
            bail!("'{}' already exists; nines curve never replaces a file: give a new -o DIR", p.display());
        }
    }

    let mut points = Points { args, base: &base, dir: &dir, tag: &tag, done: Vec::new(), notes: Vec::new() };
    match plan {
        Plan::Ladder(marks) => {
            points.run_marks(&marks)?;
        }
        Plan::Steps(pcts) => points.run_steps(&pcts, &names[0])?,
    }
    let Points { done, notes, .. } = points;
    print_table(args, &dir, &tag, &done, &notes, out)
}

/// Fails on a flag of `nines run` that nines curve does not take.
fn reject_flags(args: &CurveArgs, given: &Given) -> Result<()> {
    let a = &args.run;
    for (on, flag, why) in [
        (a.live, "--live", "a curve is many runs; watch a point's archive with nines view --follow"),
        (a.start_at.is_some(), "--start-at", "a curve's points start one after the other"),
        (a.raw_log.is_some(), "--raw-log", "one raw log cannot hold every point"),
        (a.force, "--force", "nines curve never replaces a file; give a new -o DIR"),
        (a.rate_iops.is_some() && args.curve_steps.is_some(), "--rate-iops", "--curve-steps sets each point's rate"),
        (
            a.rate_iops.is_some() && args.limit.is_some() && args.curve_steps.is_none(),
            "--rate-iops",
            "with a fixed rate a ladder does not raise the load; use --curve-steps",
        ),
        (given.has("qd") && args.qd_ladder.is_some(), "--qd", "--qd-ladder gives the queue depths"),
        (given.has("jobs") && args.jobs_ladder.is_some(), "--jobs", "--jobs-ladder gives the job counts"),
        (args.max_runtime_ns.is_some() && args.curve_steps.is_none(), "--max-runtime", "it is the maximum run's of --curve-steps"),
    ] {
        if on {
            bail!("{flag} is not taken by nines curve: {why}");
        }
    }
    Ok(())
}

/// Fails when --tag or --limit names a direction the workload never issues: it could only
/// ever "cannot tell".
fn check_directions(args: &CurveArgs, base: &RunConfig) -> Result<()> {
    for (t, flag) in [(args.tag.as_deref(), "--tag"), (args.limit.as_ref().map(|l| l.tag.as_str()), "--limit")] {
        let Some(t) = t else { continue };
        let rw = base.rw;
        let issued = match t.split('.').next().unwrap_or(t) {
            "read" => rw.reads(),
            "write" => rw.writes() && !rw.trims(),
            "trim" => rw.trims(),
            "sync" => base.fsync_every.is_some(),
            _ => true,
        };
        if !issued {
            bail!("{flag} names the direction '{t}', which this workload (--rw {}) does not issue", rw.name());
        }
    }
    Ok(())
}

/// Every file name the curve will write, in the order it writes them.
fn file_names(plan: &Plan, base: &RunConfig) -> Result<Vec<String>> {
    Ok(match plan {
        Plan::Ladder(marks) => marks.iter().map(|m| file_name(m, marks)).collect(),
        Plan::Steps(pcts) => {
            let marks = curve::rate_steps(1.0, pcts, base.qd, base.jobs).map_err(|e| anyhow!(e))?;
            std::iter::once(file_name(&curve::max_run(base.qd, base.jobs), &marks))
                .chain(marks.iter().map(|m| file_name(m, &marks)))
                .collect()
        }
    })
}

/// Runs the points: the archives written so far and the notes on why the curve stopped.
struct Points<'a> {
    args: &'a CurveArgs,
    base: &'a RunConfig,
    dir: &'a Path,
    tag: &'a str,
    done: Vec<PathBuf>,
    notes: Vec<String>,
}

impl Points<'_> {
    fn say(&self, s: &str) {
        if !self.args.run.quiet {
            crate::diag!("nines: curve: {s}");
        }
    }

    /// Runs the marks in order; false when the curve stopped before the last.
    fn run_marks(&mut self, marks: &[Mark]) -> Result<bool> {
        let total = marks.len();
        for (i, m) in marks.iter().enumerate() {
            let path = self.dir.join(file_name(m, marks));
            self.say(&format!("point {}/{total}: {} -> {}", m.point, m.text(), path.display()));
            let (run, stopped) = run_point(self.base, m, &path, None)?;
            self.done.push(path);
            if let Some(s) = stopped {
                self.notes.push(format!("stopped by {s} during {}: the points after it were not run", m.text()));
                return Ok(false);
            }
            if self.judge(&run, marks, i) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Says how point `i` of `marks` did against --limit; true when the curve stops there.
    fn judge(&mut self, run: &Run, marks: &[Mark], i: usize) -> bool {
        let args = self.args;
        let m = &marks[i];
        let Some(limit) = &args.limit else { return false };
        let p = curve::point(run, self.tag, &[], None, Some(limit));
        let Some(c) = &p.target else { return false };
        self.say(&format!(
            "  {} IOPS, {} {} = {} [{}]: {}",
            nines_core::units::format_rate(p.iops.value.unwrap_or(0.0)),
            c.tag,
            c.metric,
            c.value_text(),
            c.interval_text(),
            c.verdict.text()
        ));
        if curve::stops(c.verdict) && !args.all_points && i + 1 < marks.len() {
            let rest: Vec<String> = marks[i + 1..].iter().map(Mark::text).collect();
            self.notes.push(format!(
                "stopped early: {} clearly fails '{}' (its whole 95% interval is above the limit); not run: {} (--all-points runs them)",
                m.text(),
                limit.text(),
                rest.join(", ")
            ));
            return true;
        }
        false
    }

    /// --curve-steps: the maximum run (into `first`), then a step at each share of its IOPS.
    fn run_steps(&mut self, pcts: &[f64], first: &str) -> Result<()> {
        let base = self.base;
        let m0 = curve::max_run(base.qd, base.jobs);
        let path = self.dir.join(first);
        self.say(&format!("point 0/{}: the maximum (qd {}, jobs {}, uncapped) -> {}", pcts.len(), base.qd, base.jobs, path.display()));
        let (run, stopped) = run_point(base, &m0, &path, self.args.max_runtime_ns)?;
        self.done.push(path);
        if let Some(s) = stopped {
            self.notes.push(format!("stopped by {s} during the maximum run: no step was run"));
        } else {
            let max = nines_core::stats::run_stats(&run, &nines_core::stats::Options { levels: Vec::new(), ..Default::default() })
                .tags
                .get("all")
                .map_or(0.0, |t| t.iops);
            self.say(&format!("  maximum: {} IOPS", nines_core::units::format_rate(max)));
            let marks = curve::rate_steps(max, pcts, base.qd, base.jobs).map_err(|e| anyhow!("{first}: {e}"))?;
            self.run_marks(&marks)?;
        }
        Ok(())
    }
}

/// Prints the curve's table of the points run, the notes and how to print it again; the
/// search's verdict with `--limit`.
fn print_table(
    args: &CurveArgs,
    dir: &Path,
    tag: &str,
    done: &[PathBuf],
    notes: &[String],
    out: &mut impl Write,
) -> Result<Option<Verdict>> {
    let runs = crate::load::load_runs(done)?;
    let label = format!("curve {}", dir.display());
    let t = curve::table(&[(label, runs.iter().collect())], tag, &curve::default_levels(), None, args.limit.as_ref());
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&t)?)?;
    } else {
        write!(out, "{}", export::text::curve(&t))?;
    }
    for n in notes {
        if args.json {
            crate::diag!("nines: curve: {n}");
        } else {
            writeln!(out, "{n}")?;
        }
    }
    if !args.json {
        let limit = args.limit.as_ref().map_or(String::new(), |l| format!(" --limit '{}'", l.text()));
        writeln!(out, "(nines sweep {}/*.hlog --curve{limit} prints this table again)", dir.display())?;
    }
    Ok(curve::verdict(&t))
}

/// Removes its directory when dropped, if the directory is still empty.
struct RemoveIfEmpty(Option<PathBuf>);

impl Drop for RemoveIfEmpty {
    fn drop(&mut self) {
        if let Some(d) = &self.0 {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// The archive name of a point: `qd-004.hlog`, `jobs-16.hlog`, `max.hlog`, `load-050pct.hlog`
/// (zero-padded to the widest of the curve, so the files sort by load).
fn file_name(m: &Mark, all: &[Mark]) -> String {
    let width = |v: u32| v.to_string().len();
    match (m.mode, m.max_run) {
        (Mode::Qd, _) => format!("qd-{:0w$}.hlog", m.qd, w = all.iter().map(|x| width(x.qd)).max().unwrap_or(1)),
        (Mode::Jobs, _) => format!("jobs-{:0w$}.hlog", m.jobs, w = all.iter().map(|x| width(x.jobs)).max().unwrap_or(1)),
        (Mode::Rate, true) => "max.hlog".into(),
        (Mode::Rate, false) => {
            let p = m.offered_pct.unwrap_or(0.0);
            if p.fract() == 0.0 {
                format!("load-{p:03.0}pct.hlog")
            } else {
                format!("load-{p:06.2}pct.hlog")
            }
        }
    }
}

/// Run one point as `nines run` would, its archive labelled with the point; the archive read
/// back, and the signal that stopped it early, if one did.
fn run_point(base: &RunConfig, m: &Mark, path: &Path, runtime_ns: Option<u64>) -> Result<(Run, Option<String>)> {
    let mut a = base.clone();
    a.qd = m.qd;
    a.jobs = m.jobs;
    a.output = path.to_path_buf();
    if let Some(r) = runtime_ns {
        a.runtime_ns = Some(r);
    }
    if let Some(r) = m.rate_per_job() {
        a.rate_iops = Some(r);
        a.arrival = Arrival::Poisson;
    }
    if let Some(n) = &base.name {
        a.name = Some(format!("{n} {}", m.text()));
    }
    let (param, c) = m.to_meta();
    a.param = param;
    a.meta_other.insert(curve::META_KEY.into(), c);
    let o = crate::run::collect(&a).with_context(|| format!("the curve point {}", m.text()))?;
    crate::run::finish(&o, true, &mut std::io::sink()).with_context(|| format!("the curve point {}", m.text()))?;
    let run = crate::load::load_run(path)?;
    let stopped = (o.stopped_by.starts_with("SIG") || o.stopped_by.starts_with("signal")).then(|| o.stopped_by.clone());
    Ok((run, stopped))
}
