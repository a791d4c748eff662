//! `nines run JOB.fio`: an fio job file read (with its includes, through `load.rs`), turned
//! into nines' run configuration by nines-core's `fio_job`, with the flags given beside the
//! file overriding its settings.
//!
//! The parsed file is a [`Plan`]: groups of per-section workloads. The sections of the file's
//! group run at the same time, as fio runs them (one `RunConfig` each, handed to
//! `run::collect_all`); sections identical but for their name run as one workload; groups
//! after a `stonewall` are refused with where they start (`--section NAME` runs one).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use nines_core::fio_job::{self, Engine, Job, Pattern, Plan, Stop};

use super::config::{Arrival, BlockSplit, EngineKind, RunConfig, Rw};
use crate::load;

/// Read and interpret a job file: every section's workload, or every problem at once. With
/// `--engine` among the flags `given` (clap ids) the file's `ioengine` is not refused, whatever
/// it names: the flag wins over it, as every flag beside the file wins over the file.
pub fn read_plan(path: &Path, given: &[String]) -> Result<Plan> {
    let name = path.display().to_string();
    let text = load::read_text(path).map_err(|e| anyhow!("{name}: {e}"))?;
    let mut include = |inc: &str, from: &str| -> Result<(String, String), fio_job::IncludeError> {
        // as fio: the name as given (from the working directory), else beside the including file
        let mut p = PathBuf::from(inc);
        if !p.exists() {
            if let Some(dir) = Path::new(from).parent() {
                p = dir.join(inc);
            }
        }
        let text =
            load::read_included_text(&p).map_err(|e| fio_job::IncludeError::of_file(fio_job::excerpt(&p.display().to_string()), e))?;
        Ok((p.display().to_string(), text))
    };
    let env = |v: &str| std::env::var(v).ok();
    let sections = fio_job::parse(&name, &text, &mut include, &env)?;
    let overridden: &[&str] = if given.iter().any(|g| g == "engine") { &["engine"] } else { &[] };
    Ok(Plan::new(fio_job::interpret_overridden(&sections, overridden)?))
}

/// `a` itself without a job file; with one, the configuration it gives (notes on stderr
/// unless `--quiet`). A file whose sections run together as several workloads is an error
/// here (see [`resolve_all`]).
pub fn resolve(a: &RunConfig, given: &[String]) -> Result<RunConfig> {
    let mut parts = resolve_all(a, given)?;
    if a.job_file.is_none() {
        return Ok(a.clone());
    }
    if parts.len() > 1 {
        bail!("the job file runs {} workloads at the same time; pick one with --section NAME", parts.len());
    }
    parts.pop().ok_or_else(|| anyhow!("the job file runs no workload"))
}

/// The workloads to run together: `a` itself without a job file; with one, one
/// configuration per section run at the same time, the file's settings yielding to the flags
/// `given` (clap ids; notes on stderr unless `--quiet`). With several, the first names the
/// archive after the job file (`JOB.hlog`, unless `-o`).
pub fn resolve_all(a: &RunConfig, given: &[String]) -> Result<Vec<RunConfig>> {
    let Some(path) = &a.job_file else {
        let first = a.targets.first().map(PathBuf::as_path).unwrap_or(Path::new(""));
        for (p, flag) in [(first, "--target"), (a.output.as_path(), "-o")] {
            if p.as_os_str().is_empty() {
                bail!("{flag} needs a path");
            }
        }
        if a.targets.iter().any(|t| t.as_os_str().is_empty()) {
            bail!("--target needs a path");
        }
        return Ok(vec![a.clone()]);
    };
    let plan = read_plan(path, given)?;
    let jobs = plan.concurrent(a.section.as_deref()).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut notes = Vec::new();
    let mut parts = Vec::new();
    for job in &jobs {
        parts.push(apply(job, a, given, &mut notes)?);
    }
    if parts.len() > 1 {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "job".into());
        let given = |id: &str| given.iter().any(|g| g == id);
        if !given("output") {
            parts[0].output = PathBuf::from(format!("{}.hlog", safe_name(&stem)));
        }
        for (p, job) in parts.iter_mut().zip(&jobs) {
            p.scope = Some(job.name.clone());
        }
        if !given("name") {
            // the run is the file's: named after its archive
            parts[0].name = None;
        }
    }
    notes.dedup();
    if !a.quiet {
        for n in notes {
            crate::diag!("nines: job file: {n}");
        }
    }
    Ok(parts)
}

/// A file name made of a job's name.
fn safe_name(name: &str) -> String {
    let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    safe.trim_start_matches('.').to_string()
}

/// Which `nines run` flags (by clap id) stand for each of a job's settings.
const FLAGS: &[(&str, &[&str])] = &[
    ("target", &["target"]),
    ("rw", &["rw"]),
    ("mix", &["mix"]),
    ("bs", &["bs", "bssplit"]),
    ("qd", &["qd"]),
    ("submit_batch", &["submit_batch"]),
    ("complete_batch", &["complete_batch"]),
    ("jobs", &["jobs"]),
    ("size", &["size"]),
    ("runtime", &["runtime_ns", "ios"]),
    ("ios", &["runtime_ns", "ios"]),
    ("ramp", &["ramp_ns"]),
    ("direct", &["direct", "buffered"]),
    ("sync", &["sync"]),
    ("fsync_every", &["fsync_every"]),
    ("rate_iops", &["rate_iops", "rate_bytes"]),
    ("thinktime", &["thinktime_ns"]),
    ("thinktime_blocks", &["thinktime_blocks"]),
    ("thinktime_spin", &["thinktime_spin_ns"]),
    ("arrival", &["arrival"]),
    ("seed", &["seed"]),
    ("engine", &["engine"]),
    ("window", &["window_ns", "window_ios"]),
    ("random_distribution", &["random_distribution"]),
];

/// The configuration of `a.job_file`: the job's settings, except where a flag was `given`.
/// Notes (overrides, options accepted without effect) go to `notes`.
pub fn config(a: &RunConfig, given: &[String], notes: &mut Vec<String>) -> Result<RunConfig> {
    let path = a.job_file.as_ref().ok_or_else(|| anyhow!("no job file"))?;
    let plan = read_plan(path, given)?;
    let job = plan.single(a.section.as_deref()).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    apply(&job, a, given, notes)
}

/// `a` with `job`'s settings wherever no flag was given (`given` holds the clap ids of the
/// flags given).
pub fn apply(job: &Job, a: &RunConfig, given: &[String], notes: &mut Vec<String>) -> Result<RunConfig> {
    note_overrides(job, given, notes);
    let mut r = a.clone();
    apply_names(job, given, &mut r)?;
    apply_shape(job, given, &mut r)?;
    apply_io(job, given, &mut r);
    Ok(r)
}

/// Was any of the flags `ids` among those `given`?
fn any_given(given: &[String], ids: &[&str]) -> bool {
    ids.iter().any(|id| given.iter().any(|g| g == id))
}

/// Note each of the job's settings a flag overrides, and each option accepted without effect.
fn note_overrides(job: &Job, given: &[String], notes: &mut Vec<String>) {
    let given = |ids: &[&str]| any_given(given, ids);
    for (key, ids) in FLAGS {
        if given(ids) {
            if let Some((at, opt)) = job.origin.get(key) {
                let flags: Vec<String> = ids.iter().filter(|id| given(&[id])).map(|id| format!("--{}", flag_name(id))).collect();
                notes.push(format!("{} overrides {opt} ({at})", flags.join(" ")));
            }
        }
    }
    for (at, opt, why) in &job.accepted {
        notes.push(format!("{opt} ({at}) accepted: {why}"));
    }
}

/// The job's targets (its filename=), archive and name.
fn apply_names(job: &Job, given: &[String], r: &mut RunConfig) -> Result<()> {
    let given = |ids: &[&str]| any_given(given, ids);
    let s = &job.settings;
    if !given(&["target"]) {
        match s.filenames.first() {
            Some(_) => r.targets = s.filenames.iter().map(PathBuf::from).collect(),
            None => bail!(
                "{}: [{}] names no filename=, and nines does not make up file names as fio does; add filename= or give --target",
                job.at,
                job.section
            ),
        }
    }
    if !given(&["output"]) {
        r.output = PathBuf::from(format!("{}.hlog", safe_name(&job.name)));
    }
    if !given(&["name"]) {
        r.name = Some(job.name.clone());
    }
    Ok(())
}

/// The job's pattern, block sizes, queue depth, batches, jobs, size, stop rule and ramp.
fn apply_shape(job: &Job, given: &[String], r: &mut RunConfig) -> Result<()> {
    let given = |ids: &[&str]| any_given(given, ids);
    let s = &job.settings;
    if !given(&["rw"]) {
        r.rw = match s.rw {
            Pattern::Read => Rw::Read,
            Pattern::Write => Rw::Write,
            Pattern::Trim => Rw::Trim,
            Pattern::Randread => Rw::Randread,
            Pattern::Randwrite => Rw::Randwrite,
            Pattern::Randtrim => Rw::Randtrim,
            Pattern::Rw => Rw::Rw,
            Pattern::Randrw => Rw::Randrw,
        };
    }
    if !given(&["mix"]) {
        // fio's rwmixread applies to rw and randrw only (nines refuses --mix with trims)
        r.mix = s.read_pct.filter(|_| matches!(s.rw, Pattern::Rw | Pattern::Randrw));
    }
    if !given(&["bs", "bssplit"]) {
        match &s.bs[..] {
            [(b, _)] => {
                r.bs = *b;
                r.bssplit = None;
            }
            split => r.bssplit = Some(BlockSplit(split.to_vec())),
        }
    }
    if !given(&["qd"]) {
        r.qd = s.iodepth;
    }
    if !given(&["submit_batch"]) {
        if let Some(b) = s.submit_batch {
            r.submit_batch = b;
        }
    }
    if !given(&["complete_batch"]) {
        if let Some(b) = s.complete_batch {
            r.complete_batch = Some(b);
        }
    }
    if !given(&["jobs"]) {
        r.jobs = s.numjobs;
    }
    if !given(&["size"]) {
        r.size = s.size;
    }
    if !given(&["runtime_ns", "ios"]) {
        (r.runtime_ns, r.ios) = match &s.stop {
            Stop::Time { runtime_ns, ios } => (Some(*runtime_ns), *ios),
            Stop::Ios { ios, runtime_ns } => (*runtime_ns, Some(*ios)),
            Stop::Unknown(why) => bail!("{}: {why}; or give --runtime or --ios", job.at),
        };
    }
    if !given(&["ramp_ns"]) {
        r.ramp_ns = s.ramp_ns;
    }
    Ok(())
}

/// How the job's I/O is done: direct, sync, fdatasync, rate limits, think time, arrival,
/// seed, engine, window, random distribution, and its section.
fn apply_io(job: &Job, given: &[String], r: &mut RunConfig) {
    let given = |ids: &[&str]| any_given(given, ids);
    let s = &job.settings;
    if !given(&["direct", "buffered"]) {
        r.direct = s.direct;
    }
    if !given(&["sync"]) {
        r.sync = s.sync;
    }
    if !given(&["fsync_every"]) {
        r.fsync_every = s.fdatasync;
    }
    if !given(&["rate_iops", "rate_bytes"]) {
        r.rate_iops = s.rate_iops;
        r.rate_bytes = s.rate_bytes;
    }
    if !given(&["thinktime_ns"]) {
        r.thinktime_ns = s.thinktime_ns;
    }
    if !given(&["thinktime_blocks"]) {
        r.thinktime_blocks = s.thinktime_blocks;
    }
    if !given(&["thinktime_spin_ns"]) {
        r.thinktime_spin_ns = s.thinktime_spin_ns;
    }
    if !given(&["arrival"]) {
        r.arrival = if s.poisson { Arrival::Poisson } else { Arrival::Uniform };
    }
    if !given(&["seed"]) {
        r.seed = s.seed;
    }
    if !given(&["engine"]) {
        r.engine = match s.engine {
            Engine::Uring => EngineKind::Uring,
            Engine::Psync => EngineKind::Psync,
            Engine::Null => EngineKind::Null,
        };
    }
    if !given(&["window_ns", "window_ios"]) {
        if let Some(w) = s.window_ns {
            r.window_ns = w;
        }
    }
    if !given(&["random_distribution"]) {
        // fio applies it to random patterns only (and the job says it was accepted as such)
        r.random_distribution = Some(s.distribution.clone()).filter(|d| r.rw.random() || d.is_uniform());
    }
    if !given(&["section"]) {
        r.section = Some(job.section.clone());
    }
}

/// A flag's name on the command line from its clap id.
fn flag_name(id: &str) -> String {
    match id {
        "runtime_ns" => "runtime".into(),
        "ramp_ns" => "ramp".into(),
        "window_ns" => "window".into(),
        "steady_window_ns" => "steady-window".into(),
        "rate_bytes" => "rate".into(),
        "thinktime_ns" => "thinktime".into(),
        "thinktime_spin_ns" => "thinktime-spin".into(),
        id => id.replace('_', "-"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::Given;
    use crate::cli::{Cli, Cmd};
    use clap::{CommandFactory, FromArgMatches};

    /// The configuration of a `nines run` command line, and the ids of the flags it gives.
    fn cli(args: &[&str]) -> (RunConfig, Vec<String>) {
        let mut v = vec!["nines", "run"];
        v.extend_from_slice(args);
        let m = Cli::command().try_get_matches_from(v).unwrap();
        let Cmd::Run(a) = Cli::from_arg_matches(&m).unwrap().cmd else { panic!() };
        let given = Given::of(m.subcommand().unwrap().1);
        (a.config(&given), given.ids)
    }

    fn apply_to(job: &Job, (a, given): &(RunConfig, Vec<String>), notes: &mut Vec<String>) -> Result<RunConfig> {
        apply(job, a, given, notes)
    }

    fn job(text: &str) -> Job {
        let s = fio_job::parse("t.fio", text, &mut |_, _| Err("no".into()), &|_| None).unwrap();
        Plan::new(fio_job::interpret(&s).unwrap()).single(None).unwrap()
    }

    #[test]
    fn flags_override_the_file_and_say_so() {
        let j =
            job("[db]\nfilename=/tmp/f\nrw=randrw\nrwmixread=70\nbs=8k\niodepth=16\nsize=1g\ntime_based\nruntime=60\ngroup_reporting\n");
        let mut notes = Vec::new();
        let r = apply_to(&j, &cli(&["j.fio", "--qd", "4", "--ios", "1000", "--buffered"]), &mut notes).unwrap();
        assert_eq!((r.qd, r.ios, r.runtime_ns), (4, Some(1000), None), "--ios replaces the file's stop rule");
        assert_eq!((r.rw, r.mix, r.bs, r.size), (Rw::Randrw, Some(70), 8192, Some(1 << 30)));
        assert_eq!(
            (r.targets[0].clone(), r.output.clone(), r.name.as_deref()),
            (PathBuf::from("/tmp/f"), PathBuf::from("db.hlog"), Some("db"))
        );
        assert!(!r.direct && r.seed == Some(fio_job::DEFAULT_SEED) && r.engine == EngineKind::Psync);
        let all = notes.join("\n");
        assert!(all.contains("--qd overrides iodepth=16 (t.fio:6)"), "{all}");
        assert!(all.contains("--ios overrides runtime=60 (t.fio:9)"), "{all}");
        assert!(all.contains("group_reporting (t.fio:10) accepted"), "{all}");
        // a flag the file does not set is simply used
        let r = apply_to(&j, &cli(&["j.fio", "-o", "x.hlog", "--target", "/dev/null"]), &mut Vec::new()).unwrap();
        assert_eq!((r.output, r.targets, r.qd), (PathBuf::from("x.hlog"), vec![PathBuf::from("/dev/null")], 16));
    }

    #[test]
    fn engine_overrides_any_ioengine_even_one_nines_does_not_have() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.fio");
        std::fs::write(&path, "[a]\nfilename=f\nsize=1m\nioengine=posixaio\n").unwrap();
        let e = read_plan(&path, &[]).unwrap_err().to_string();
        assert!(e.contains(":4: ioengine=posixaio: not supported"), "{e}");
        let mut notes = Vec::new();
        let (a, given) = cli(&[path.to_str().unwrap(), "--engine", "null"]);
        let r = config(&a, &given, &mut notes).unwrap();
        assert_eq!(r.engine, EngineKind::Null);
        assert!(notes.iter().any(|n| n.starts_with("--engine overrides ioengine=posixaio (") && n.ends_with("j.fio:4)")), "{notes:?}");
        // and over an engine nines has
        let j = job("[a]\nfilename=f\nsize=1m\nioengine=libaio\n");
        let mut notes = Vec::new();
        assert_eq!(apply_to(&j, &cli(&["j.fio", "--engine", "psync"]), &mut notes).unwrap().engine, EngineKind::Psync);
        assert!(notes.iter().any(|n| n == "--engine overrides ioengine=libaio (t.fio:4)"), "{notes:?}");
    }

    #[test]
    fn a_distribution_on_a_sequential_job_is_noted_not_run() {
        let j = job("[a]\nfilename=f\nsize=1m\nrw=read\nrandom_distribution=zipf:1.2\n");
        let mut notes = Vec::new();
        let r = apply_to(&j, &cli(&["j.fio"]), &mut notes).unwrap();
        assert_eq!(r.random_distribution, None);
        assert!(
            notes.iter().any(|n| n.contains("random_distribution=zipf:1.2 (t.fio:5) accepted: applies to random patterns only")),
            "{notes:?}"
        );
        let r = apply_to(&j, &cli(&["j.fio", "--rw", "randread"]), &mut notes).unwrap();
        assert_eq!(r.random_distribution.map(|d| d.to_string()).as_deref(), Some("zipf:1.2"));
    }

    #[test]
    fn no_filename_needs_target() {
        let j = job("[a]\nsize=1m\n");
        let e = apply_to(&j, &cli(&["j.fio"]), &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("t.fio:1: [a] names no filename=") && e.contains("--target"), "{e}");
        assert!(apply_to(&j, &cli(&["j.fio", "--target", "/tmp/x"]), &mut Vec::new()).is_ok());
    }

    #[test]
    fn target_and_output_come_from_the_job_file() {
        assert!(<Cli as clap::Parser>::try_parse_from(["nines", "run"]).is_err(), "without a job file --target and -o are required");
        let (a, given) = cli(&["j.fio"]);
        assert_eq!(a.job_file, Some(PathBuf::from("j.fio")));
        assert!(given.iter().all(|g| g == "job_file" || g == "RunArgs"), "only the file was given: {given:?}");
        assert!(
            <Cli as clap::Parser>::try_parse_from(["nines", "run", "--section", "x", "--target", "t", "-o", "o"]).is_err(),
            "--section needs a job file"
        );
    }
}
