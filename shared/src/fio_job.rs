//! fio job files: fio's ini syntax and the table of fio options nines honours.
//!
//! The syntax is fio's (fio HOWTO, "Job file format"): `[name]` starts a job section and
//! `[global]` one that sets defaults for the sections below it (a job sees every `[global]`
//! above it, later settings winning); from the first `;` or `#` of a line on is a comment (as
//! fio's parser strips it, so `numjobs=2 ; two copies` is `numjobs=2`); `key=value` or a bare `key` (a flag) per line; `include FILE` pulls in a file of
//! options (no sections, nested includes allowed, a relative name tried as given and then
//! beside the including file); `${VAR}` anywhere in an option's line is the environment
//! variable VAR, empty when unset (fio HOWTO, "Environment variables"; fio substitutes the
//! whole line, so a line `${OPT}` with `OPT=iodepth=8` is `iodepth=8`, and one that expands to
//! nothing is refused as fio refuses it). fio's reserved words `$pagesize`, `$mb_memory` and `$ncpus` (and the `bc`
//! arithmetic fio runs on them) are refused. Sizes and durations use fio's units
//! ([`crate::units`]); fio's integer options (`number_ios`, `rate_iops`) take fio's
//! 1024-based suffixes too. Every number is checked against the range the matching `nines run`
//! flag takes, never wrapped.
//!
//! Every option is either mapped onto a nines setting, accepted as changing nothing nines
//! measures (each stated in [`Job::accepted`]), or refused: [`interpret`] collects every
//! refusal of every section, each with its file and line, into one [`JobError`].
//!
//! A file that is not an fio job file (a line that is not fio's syntax, or a name that is no
//! fio option: [`FIO_OPTIONS`]) is read no further: a job file may include any file its
//! writer names (`include /etc/shadow`), so its lines are never echoed beyond the first
//! offending one, and any text echoed is cut to [`ECHO_CHARS`] characters ([`excerpt`]).
//!
//! This module reads no file: [`parse`] gets the text and a function that returns an
//! included file's text, so the collector does the reading (`collector/src/load.rs`).

use std::collections::BTreeMap;
use std::fmt;

use crate::distribution::Distribution;
use crate::units::{parse_bssplit, parse_duration_ns, parse_size, MAX_BLOCK};

/// The highest queue depth (`--qd`) and the most jobs (`--jobs`) `nines run` takes.
pub const MAX_QD: u32 = 4096;
pub const MAX_JOBS: u32 = 1024;

/// Where an option was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// One `key[=value]` line, after `${VAR}` substitution.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOpt {
    pub key: String,
    pub value: Option<String>,
    pub at: Loc,
}

/// The option as messages echo it: `key=value`, cut to [`ECHO_CHARS`] characters.
impl fmt::Display for RawOpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{}", excerpt(&format!("{}={v}", self.key))),
            None => write!(f, "{}", excerpt(&self.key)),
        }
    }
}

/// The most characters of a file's text a message echoes: a job file, or a file it
/// includes, may be one that is not meant to be shown.
pub const ECHO_CHARS: usize = 40;

/// `s` as a message echoes it: at most [`ECHO_CHARS`] characters (a cut one ends in `…`),
/// control characters escaped (`\u{1b}`), so that a line cannot move the terminal's cursor.
pub fn excerpt(s: &str) -> String {
    let cut = s.chars().count() > ECHO_CHARS;
    let keep = if cut { ECHO_CHARS - 1 } else { ECHO_CHARS };
    let mut out: String = s.chars().take(keep).flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect();
    if cut {
        out.push('…');
    }
    out
}

/// The names of fio's options, and their aliases: `.name` and `.alias` of fio's option
/// tables (options.c, engines/*.c and *.h, profiles/*.c) at fio-3.42-135-gf5344384, one a
/// line, sorted (made with `grep -ohE '\.(name|alias)\s*=\s*"[^"]*"'` over those files, the
/// quoted names kept). A key that is none of these is no fio option: fio refuses it ("Bad
/// option"), and nines reads such a file no further.
pub const FIO_OPTIONS: &str = include_str!("fio_options.txt");

/// Is `key` (lowercase) the name of an fio option?
pub fn is_fio_option(key: &str) -> bool {
    FIO_OPTIONS.lines().any(|n| n == key)
}

/// A `[section]` with its own lines (includes expanded).
#[derive(Clone, Debug, PartialEq)]
pub struct RawSection {
    pub name: String,
    pub at: Loc,
    pub opts: Vec<RawOpt>,
}

impl RawSection {
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// Everything wrong with a job file, each problem with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct JobError {
    pub problems: Vec<(Loc, String)>,
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(f, "{n} problem{} in the job file:", if n == 1 { "" } else { "s" })?;
        for (at, m) in &self.problems {
            write!(f, "\n  {at}: {m}")?;
        }
        Ok(())
    }
}

impl std::error::Error for JobError {}

/// Why an option of a job section is refused (a problem of a [`JobError`]). `opt` is the
/// option as messages echo it (`key=value`, cut: see [`RawOpt`]'s `Display`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("{key} needs a value ({key}=...)")]
    NoValue { key: String },
    #[error("{opt}: expected 0 or 1")]
    NotBool { opt: String },
    #[error("{opt}: expected a whole number")]
    NotWhole { opt: String },
    #[error("{opt}: larger than {}, the largest whole number nines takes", u64::MAX)]
    TooLarge { opt: String },
    /// Outside the range of the `nines run` flag `flag`.
    #[error("{opt}: expected {lo} to {hi} (as {flag} takes)")]
    OutOfRange { opt: String, lo: u64, hi: u64, flag: &'static str },
    #[error("{opt}: separate values for reads, writes and trims are not supported; nines uses one for every direction")]
    PerDirection { opt: String },
    #[error("{opt}: expected at most {} microseconds (as --thinktime takes)", MAX_DURATION_NS / 1000)]
    ThinkTooLong { opt: String },
    #[error("{opt}: expected a rate above 0")]
    ZeroRate { opt: String },
    /// A rate limit of each direction, for a job with two.
    #[error(
        "{opt}: fio limits reads and writes to this rate each, nines limits a job's reads and writes together; not supported with rw={rw}"
    )]
    RateOfEachDirection { opt: String, rw: &'static str },
    #[error("{opt}: expected at most {MAX_RATE_IOPS} I/Os per second (as --rate-iops takes)")]
    RateTooHigh { opt: String },
    #[error("{opt}: longer than thinktime; the spin is part of the think time")]
    SpinLongerThanThink { opt: String },
    #[error(
        "ioengine={0}: not supported; nines has io_uring (also for libaio), psync (also for pvsync, sync and vsync) and null; \
         --engine given beside the file runs the job on that one instead"
    )]
    Engine(String),
    /// A job's I/Os times its numjobs overflow.
    #[error("[{section}]: {n} I/Os a job times numjobs {numjobs} is more than {} I/Os", u64::MAX)]
    TooManyIos { section: String, n: u64, numjobs: u32 },
    /// A value that does not read (a size, a duration, a distribution), with why.
    #[error("{opt}: {error}")]
    Invalid { opt: String, error: String },
    /// A value or option nines does not support, with why.
    #[error("{opt}: {why}")]
    Refused { opt: String, why: &'static str },
}

/// [`OptionError::Refused`].
fn refuse(o: &RawOpt, why: &'static str) -> OptionError {
    OptionError::Refused { opt: o.to_string(), why }
}

/// [`OptionError::Invalid`].
fn invalid(o: &RawOpt, error: impl fmt::Display) -> OptionError {
    OptionError::Invalid { opt: o.to_string(), error: error.to_string() }
}

/// Why a plan's jobs are not one workload, or not jobs nines runs together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `starts` lists each later group's first section and where it is.
    #[error("stonewall (or wait_for_previous) makes {starts} wait for the sections before it; nines runs the sections of one group at the same time, not groups one after another: run each group's sections with --section NAME, or remove stonewall")]
    Stonewall { starts: String },
    #[error("no section [{pick}] in the job file; its job sections are {sections}")]
    NoSection { pick: String, sections: String },
    #[error("the job file runs {groups} groups one after another (stonewall): {sections}; nines runs one workload: pick a section with --section NAME")]
    Groups { groups: usize, sections: String },
    #[error("the sections {sections} run as one workload of {jobs} jobs in all; nines runs at most {MAX_JOBS} (--jobs)")]
    TooManyJobs { sections: String, jobs: u32 },
    #[error("the sections {sections} run {n} I/Os each, more than {} in all", u64::MAX)]
    TooManyIos { sections: String, n: u64 },
    #[error("the sections {sections} run at the same time with different workloads, and nines runs one workload at a time: pick one with --section NAME")]
    DifferentWorkloads { sections: String },
}

/// Reads an included file: its name as written and the including file's name in, the included
/// file's display name and text out.
pub type Include<'a> = dyn FnMut(&str, &str) -> Result<(String, String), IncludeError> + 'a;

/// Why an [`Include`] reader could not read a file: the file as it names it (`'opts.fio'`),
/// when it does, and the reason in its words (the reader, not this crate, does the I/O, so
/// the reason is its message: "could not open it (No such file or directory)").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludeError {
    pub file: Option<String>,
    pub reason: String,
}

impl IncludeError {
    /// An error naming the file (shown quoted, as written by the reader).
    pub fn of_file(file: impl Into<String>, reason: impl Into<String>) -> IncludeError {
        IncludeError { file: Some(file.into()), reason: reason.into() }
    }
}

impl From<&str> for IncludeError {
    /// An error with its reason alone.
    fn from(reason: &str) -> IncludeError {
        IncludeError { file: None, reason: reason.to_string() }
    }
}

impl From<String> for IncludeError {
    /// An error with its reason alone.
    fn from(reason: String) -> IncludeError {
        IncludeError { file: None, reason }
    }
}

impl fmt::Display for IncludeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "'{file}': {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for IncludeError {}

/// How deep includes may nest (a file including itself ends here).
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// How many lines a job file and everything it includes may hold in all: a file that
/// includes itself twice would otherwise be read 2^16 times over before the depth stops it.
pub const MAX_JOB_LINES: usize = 100_000;

/// Parse a job file's text into its sections. `include(name, from)` returns the display name
/// and text of an included file (`from` is the including file's name); `env(VAR)` the value of
/// an environment variable.
pub fn parse(file: &str, text: &str, include: &mut Include<'_>, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<RawSection>, JobError> {
    let mut sections: Vec<RawSection> = Vec::new();
    let mut problems = Vec::new();
    let mut lines = Vec::new();
    collect_lines(file, text, include, env, 0, true, &mut lines, &mut problems);
    for l in lines {
        match l {
            Line::Section(name, at) => sections.push(RawSection { name, at, opts: Vec::new() }),
            Line::Opt(o) => match sections.last_mut() {
                Some(s) => s.opts.push(o),
                None => {
                    problems.push((o.at.clone(), format!("option {o} is outside any [section]; put it under [global] or a job's [name]")))
                }
            },
        }
    }
    if problems.is_empty() && !sections.iter().any(|s| !s.is_global()) {
        problems.push((
            Loc { file: file.to_string(), line: text.lines().count().max(1) },
            "no job section: the file has no [name] other than [global]".into(),
        ));
    }
    if problems.is_empty() {
        Ok(sections)
    } else {
        Err(JobError { problems })
    }
}

enum Line {
    Section(String, Loc),
    Opt(RawOpt),
}

#[allow(clippy::too_many_arguments)]
fn collect_lines(
    file: &str,
    text: &str,
    include: &mut Include<'_>,
    env: &dyn Fn(&str) -> Option<String>,
    depth: usize,
    top: bool,
    out: &mut Vec<Line>,
    problems: &mut Vec<(Loc, String)>,
) {
    // said of a file that is not an fio job file: none of its lines is echoed beyond this one
    let not_read = "this is not an fio job file, and the rest of it is not read";
    for (i, raw) in text.lines().enumerate() {
        let at = Loc { file: file.to_string(), line: i + 1 };
        // as fio: everything from the first ';' or '#' on is a comment
        let l = raw.split([';', '#']).next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if let Some(rest) = l.strip_prefix('[') {
            if !top {
                // as fio, which stops reading the file there ("No new sections in included files")
                problems.push((
                    at,
                    "an included file may not contain [sections] (fio HOWTO, \"Job file format\"); the rest of it is not read".into(),
                ));
                return;
            }
            match rest.strip_suffix(']') {
                Some(name) if !name.trim().is_empty() => out.push(Line::Section(name.trim().to_string(), at)),
                _ => problems.push((at, format!("\"{}\" is not a section header; expected [name]", excerpt(l)))),
            }
            continue;
        }
        if let Some(name) = l.strip_prefix("include").filter(|r| r.starts_with([' ', '\t'])) {
            let name = substitute(name.trim(), env);
            let shown = excerpt(&name);
            if depth >= MAX_INCLUDE_DEPTH {
                problems
                    .push((at, format!("include {shown}: includes nest deeper than {MAX_INCLUDE_DEPTH} (does a file include itself?)")));
                continue;
            }
            if out.len() + problems.len() >= MAX_JOB_LINES {
                problems.push((at, format!("include {shown}: the job file and its includes hold more than {MAX_JOB_LINES} lines")));
                return;
            }
            match include(&name, file) {
                Ok((iname, itext)) => collect_lines(&iname, &itext, include, env, depth + 1, false, out, problems),
                Err(e) => problems.push((at, format!("include {shown}: {e}"))),
            }
            continue;
        }
        // fio substitutes ${VAR} in the option's whole line before it looks the option up
        // (options.c, fio_option_dup_subs), so a variable may hold a whole `key=value`
        let line = substitute(l, env);
        let l = line.trim();
        if l.is_empty() {
            problems.push((
                at,
                format!(
                    "{} expands to nothing (an environment variable that is unset or empty), which is no option; fio refuses it too",
                    excerpt(raw.trim())
                ),
            ));
            continue;
        }
        if let Some(w) = ["$pagesize", "$mb_memory", "$ncpus"].iter().find(|w| l.contains(**w)) {
            problems.push((
                at,
                format!(
                    "{}: fio's reserved word {w} (and the bc arithmetic fio applies with it) is not supported; write the number",
                    excerpt(l)
                ),
            ));
            continue;
        }
        let (key, value) = match l.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (l, None),
        };
        // fio's option names are letters, digits, '_' and '-' (hugepage-size)
        let bad = key.char_indices().find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')));
        if key.is_empty() || bad.is_some() {
            let what = match bad {
                Some((j, c)) => format!("\"{}\" then {c:?}", excerpt(&key[..j])),
                None => "an option without a name".to_string(),
            };
            problems.push((
                at,
                format!("{what}: not a job-file line; expected [name], option=value, a bare option or include FILE; {not_read}"),
            ));
            return;
        }
        let key = key.to_ascii_lowercase();
        if !is_fio_option(&key) {
            // the value is not echoed: the file may hold secrets as key=value lines
            problems.push((at, format!("{}: no fio option has this name (fio refuses it too); {not_read}", excerpt(&key))));
            return;
        }
        out.push(Line::Opt(RawOpt { key, value, at }));
    }
}

/// `${VAR}` replaced by the environment variable VAR, or by nothing when it is unset or VAR is
/// empty (fio HOWTO, "Environment variables"; fio's `fio_option_dup_subs` in options.c, whose
/// rules these are: a `${` without a `}` after it is kept as it is).
fn substitute(v: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("${") {
        match rest[i + 2..].find('}') {
            Some(j) => {
                out.push_str(&rest[..i]);
                let name = &rest[i + 2..i + 2 + j];
                if !name.is_empty() {
                    out.push_str(&env(name).unwrap_or_default());
                }
                rest = &rest[i + 3 + j..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// The I/O pattern, as fio's `rw` names it (nines' `--rw` uses the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Read,
    Write,
    Trim,
    Randread,
    Randwrite,
    Randtrim,
    Rw,
    Randrw,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Read => "read",
            Pattern::Write => "write",
            Pattern::Trim => "trim",
            Pattern::Randread => "randread",
            Pattern::Randwrite => "randwrite",
            Pattern::Randtrim => "randtrim",
            Pattern::Rw => "rw",
            Pattern::Randrw => "randrw",
        }
    }
    fn random(self) -> bool {
        matches!(self, Pattern::Randread | Pattern::Randwrite | Pattern::Randtrim | Pattern::Randrw)
    }
}

/// The engines nines has, as fio names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// fio's `io_uring`, and `libaio` (the same reads and writes, submitted with io_uring).
    Uring,
    /// fio's `psync` (pread/pwrite) and `pvsync` (preadv/pwritev of one buffer: the same I/O),
    /// and `sync` and `vsync` (the same I/O at a position set by lseek).
    Psync,
    /// fio's `null`.
    Null,
}

/// How a job ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Runs for this long (fio `time_based` with `runtime`), or until `ios` I/Os.
    Time { runtime_ns: u64, ios: Option<u64> },
    /// Ends after this many I/Os in total (all jobs), or at `runtime_ns` if that comes first.
    Ios { ios: u64, runtime_ns: Option<u64> },
    /// The file gives no end nines can count (why): `--runtime` or `--ios` must.
    Unknown(String),
}

/// A job section's settings in nines' terms (every field a nines `run` argument).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The job's files (fio's `filename=a:b`, `\:` a colon inside a name), spread round robin.
    pub filenames: Vec<String>,
    pub rw: Pattern,
    /// Read percentage of rw/randrw (fio's default 50).
    pub read_pct: Option<u32>,
    /// Block sizes with their share in percent.
    pub bs: Vec<(u32, u32)>,
    pub iodepth: u32,
    pub submit_batch: Option<u32>,
    /// fio's iodepth_batch_complete_max.
    pub complete_batch: Option<u32>,
    pub numjobs: u32,
    pub size: Option<u64>,
    pub stop: Stop,
    pub ramp_ns: u64,
    /// O_DIRECT (fio's default is buffered I/O, `direct=0`).
    pub direct: bool,
    /// O_SYNC.
    pub sync: bool,
    /// fdatasync after every N writes.
    pub fdatasync: Option<u64>,
    pub rate_iops: Option<f64>,
    /// fio's `rate` in bytes per second (the job's direction's value).
    pub rate_bytes: Option<u64>,
    /// fio's `thinktime`, `thinktime_blocks`, `thinktime_spin` (ns, I/Os, ns).
    pub thinktime_ns: Option<u64>,
    pub thinktime_blocks: Option<u32>,
    pub thinktime_spin_ns: Option<u64>,
    /// `true` for fio's `rate_process=poisson`, `false` for its default `linear`.
    pub poisson: bool,
    /// `None` when `randrepeat=0` and no `randseed`: a new seed each run.
    pub seed: Option<u64>,
    pub engine: Engine,
    pub window_ns: Option<u64>,
    pub distribution: Distribution,
}

/// One job section, interpreted.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The section's name, or its `name=`.
    pub name: String,
    pub section: String,
    pub at: Loc,
    pub settings: Settings,
    /// Where each nines setting came from (`"bs"`: `job.fio:7 bs=4k`), for the notes shown
    /// when a command-line flag overrides one.
    pub origin: BTreeMap<&'static str, (Loc, String)>,
    /// Options accepted that change nothing nines measures, with why.
    pub accepted: Vec<(Loc, String, &'static str)>,
    /// Waits for the sections above to finish (`stonewall`, `wait_for_previous`).
    pub stonewall: bool,
}

/// fio's `randseed` default when `randrepeat` is on (its default): runs repeat.
pub const DEFAULT_SEED: u64 = 0x89;

/// Options that change nothing nines measures, with why (fio HOWTO for each).
const HARMLESS: &[(&str, &str)] = &[
    ("description", "a comment"),
    ("group_reporting", "fio's report layout; nines merges a run's jobs anyway"),
    ("new_group", "fio's report layout"),
    ("thread", "fio's threads or processes; nines' jobs are threads"),
    ("write_bw_log", "fio's own log file"),
    ("write_lat_log", "fio's own log file"),
    ("write_iops_log", "fio's own log file"),
    ("write_hist_log", "fio's own log file; nines records every window's histogram"),
    ("log_avg_msec", "fio's own log files"),
    ("per_job_logs", "fio's own log files"),
    ("log_offset", "fio's own log files"),
    ("gtod_reduce", "fio's own timing shortcut; nines times every I/O"),
    ("clat_percentiles", "fio's report"),
    ("lat_percentiles", "fio's report"),
    ("slat_percentiles", "fio's report"),
    ("percentile_list", "fio's report; nines reports its levels of nines"),
    ("unified_rw_reporting", "fio's report"),
    ("disable_lat", "fio's own statistics"),
    ("disable_clat", "fio's own statistics"),
    ("disable_slat", "fio's own statistics"),
    ("disable_bw_measurement", "fio's own statistics"),
    ("kb_base", "only kb_base=1024 (fio's default) is accepted"),
    ("unit_base", "fio's report units"),
    ("loops", "only loops=1 is accepted"),
    ("stonewall", "a group run after the one before it (see the plan)"),
    ("wait_for_previous", "a group run after the one before it (see the plan)"),
];

/// A job's value of a per-direction option (`rate=r,w,t`): fio takes reads, writes and trims
/// in that order, one value for all, an empty one for no limit. `None` when the job's
/// direction has no value; an error when the job mixes reads and writes and limits them (fio
/// limits each direction on its own, nines a job's I/Os together).
fn per_direction(o: &RawOpt, rw: Pattern) -> Result<Option<u64>, OptionError> {
    let v = value(o)?;
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let at = |i: usize| -> Result<Option<u64>, OptionError> {
        let p = if parts.len() == 1 { parts[0] } else { parts.get(i).copied().unwrap_or("") };
        if p.is_empty() {
            return Ok(None);
        }
        match parse_size(p) {
            Ok(0) => Err(OptionError::ZeroRate { opt: o.to_string() }),
            Ok(r) => Ok(Some(r)),
            Err(e) => Err(invalid(o, e)),
        }
    };
    match rw {
        Pattern::Read | Pattern::Randread => at(0),
        Pattern::Write | Pattern::Randwrite => at(1),
        Pattern::Trim | Pattern::Randtrim => at(2),
        Pattern::Rw | Pattern::Randrw => match (at(0)?, at(1)?) {
            (None, None) => Ok(None),
            _ => Err(OptionError::RateOfEachDirection { opt: o.to_string(), rw: rw.name() }),
        },
    }
}

/// fio's think times: a bare number is microseconds (fio HOWTO, `thinktime`). At most
/// [`MAX_DURATION_NS`], as `--thinktime` takes.
fn think_ns(o: &RawOpt) -> Result<u64, OptionError> {
    let v = value(o)?;
    if v.chars().all(|c| c.is_ascii_digit()) {
        return v
            .parse::<u64>()
            .ok()
            .and_then(|us| us.checked_mul(1000))
            .filter(|&ns| ns <= MAX_DURATION_NS)
            .ok_or_else(|| OptionError::ThinkTooLong { opt: o.to_string() });
    }
    parse_duration_ns(v).map_err(|e| invalid(o, e))
}

/// The longest duration a nines flag takes (`--runtime`, `--window`, `--thinktime`:
/// [`crate::units::parse_duration_ns`]'s bound), in ns.
const MAX_DURATION_NS: u64 = 1_000_000_000_000_000_000;

/// The highest `--rate-iops` nines takes (I/Os per second per job).
const MAX_RATE_IOPS: u64 = 100_000_000;

/// fio's `filename=a:b`: the names separated by `:`, a `\:` being a colon of a name.
pub fn split_filenames(v: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("one name at least").push(':');
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("one name at least").push(c),
        }
    }
    out.into_iter().filter(|n| !n.is_empty()).collect()
}

/// Interpret parsed sections: one [`Job`] per job section, or every refusal at once.
pub fn interpret(sections: &[RawSection]) -> Result<Vec<Job>, JobError> {
    interpret_overridden(sections, &[])
}

/// [`interpret`] for a caller that sets the nines settings named in `overridden` (keys of
/// [`Job::origin`]) itself, as a command-line flag beside the file does: the file's options
/// for them are still read and their origin kept (for the note that the flag overrides them),
/// but a value nines has no use for is not refused. Only `"engine"` is looked at: with it,
/// any `ioengine` is accepted, the flag's engine running the job.
pub fn interpret_overridden(sections: &[RawSection], overridden: &[&str]) -> Result<Vec<Job>, JobError> {
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    let mut globals: Vec<&RawOpt> = Vec::new();
    for s in sections {
        if s.is_global() {
            globals.extend(s.opts.iter());
            continue;
        }
        let opts: Vec<&RawOpt> = globals.iter().copied().chain(s.opts.iter()).collect();
        let stonewall = opts.iter().any(|o| matches!(o.key.as_str(), "stonewall" | "wait_for_previous") && bool_value(o).unwrap_or(true));
        match interpret_job(s, &opts, stonewall, overridden) {
            Ok(j) => jobs.push(j),
            Err(mut p) => problems.append(&mut p),
        }
    }
    // a [global] option refused is named once, not once per job
    let mut seen = Vec::new();
    problems.retain(|p| {
        let new = !seen.contains(p);
        if new {
            seen.push(p.clone());
        }
        new
    });
    if problems.is_empty() {
        Ok(jobs)
    } else {
        Err(JobError { problems })
    }
}

fn bool_value(o: &RawOpt) -> Result<bool, OptionError> {
    match o.value.as_deref().map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) => match v.as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(OptionError::NotBool { opt: o.to_string() }),
        },
    }
}

fn value(o: &RawOpt) -> Result<&str, OptionError> {
    o.value.as_deref().map(str::trim).filter(|v| !v.is_empty()).ok_or_else(|| OptionError::NoValue { key: o.key.clone() })
}

/// An fio integer: a number with fio's 1024-based suffixes (fio's str_to_decimal); plain
/// digits are read exactly (a suffixed size goes through a float, exact up to 2^53).
fn int_value(o: &RawOpt) -> Result<u64, OptionError> {
    let v = value(o)?;
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse::<u64>().map_err(|_| OptionError::TooLarge { opt: o.to_string() });
    }
    parse_size(v).map_err(|_| OptionError::NotWhole { opt: o.to_string() })
}

/// An fio integer within `lo..=hi`, the range of the `nines run` flag named `flag` (never
/// wrapped into a smaller type).
fn int_in(o: &RawOpt, lo: u64, hi: u64, flag: &'static str) -> Result<u64, OptionError> {
    let n = int_value(o)?;
    if n < lo || n > hi {
        return Err(OptionError::OutOfRange { opt: o.to_string(), lo, hi, flag });
    }
    Ok(n)
}

fn one_for_all_directions(o: &RawOpt) -> Result<&str, OptionError> {
    let v = value(o)?;
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 1 && parts.iter().any(|p| !p.is_empty() && *p != parts[0]) {
        return Err(OptionError::PerDirection { opt: o.to_string() });
    }
    Ok(parts[0])
}

fn interpret_job(s: &RawSection, opts: &[&RawOpt], stonewall: bool, overridden: &[&str]) -> Result<Job, Vec<(Loc, String)>> {
    let mut problems: Vec<(Loc, String)> = Vec::new();
    let mut d = Draft::new(s.name.clone());
    d.engine_overridden = overridden.contains(&"engine");
    for o in opts {
        let r: Result<(), OptionError> = (|| {
            match o.key.as_str() {
                "name" => d.opt_name(o)?,
                "filename" => d.opt_filename(o)?,
                "file_service_type" => d.opt_file_service_type(o)?,
                "thinktime" => d.opt_thinktime(o)?,
                "thinktime_spin" => d.opt_thinktime_spin(o)?,
                "thinktime_blocks" => d.opt_thinktime_blocks(o)?,
                "thinktime_blocks_type" => d.opt_thinktime_blocks_type(o)?,
                "rw" | "readwrite" => d.opt_rw(o)?,
                "rwmixread" | "rwmixwrite" => d.opt_rwmixread(o)?,
                "bs" | "blocksize" => d.opt_bs(o)?,
                "bssplit" => d.opt_bssplit(o)?,
                "iodepth" => d.opt_iodepth(o)?,
                // fio: 0 means the iodepth (fio HOWTO, iodepth_batch_submit), known in Draft::finish
                "iodepth_batch" | "iodepth_batch_submit" => d.opt_iodepth_batch(o)?,
                // fio: 0 means "as iodepth_batch_complete_min", which is 1 by default.
                "iodepth_batch_complete_max" => d.opt_iodepth_batch_complete_max(o)?,
                "iodepth_batch_complete_min" | "iodepth_batch_complete" => d.opt_iodepth_batch_complete_min(o)?,
                "numjobs" => d.opt_numjobs(o)?,
                "size" => d.opt_size(o)?,
                "offset" => d.opt_offset(o)?,
                "runtime" | "timeout" => d.opt_runtime(o)?,
                "time_based" => d.opt_time_based(o)?,
                "ramp_time" => d.opt_ramp_time(o)?,
                // fio's default 0: no limit (options.c)
                "number_ios" => d.opt_number_ios(o)?,
                "direct" => d.opt_direct(o)?,
                "buffered" => d.opt_buffered(o)?,
                "sync" => d.opt_sync(o)?,
                "fdatasync" => d.opt_fdatasync(o)?,
                "fsync" => d.opt_fsync(o)?,
                "rate_iops" | "rate" => d.opt_rate_iops(o)?,
                "rate_process" => d.opt_rate_process(o)?,
                "randrepeat" | "allrandrepeat" => d.opt_randrepeat(o)?,
                "randseed" => d.opt_randseed(o)?,
                "norandommap" => d.opt_norandommap(o)?,
                "ioengine" => d.opt_ioengine(o)?,
                "log_hist_msec" => d.opt_log_hist_msec(o)?,
                "random_distribution" => d.opt_random_distribution(o)?,
                k => match HARMLESS.iter().find(|(h, _)| *h == k) {
                    Some(&("kb_base", why)) if int_value(o)? != 1024 => return Err(refuse(o, why)),
                    Some(&("loops", why)) if int_value(o)? != 1 => return Err(refuse(o, why)),
                    Some(&(_, why)) => d.accepted.push((o.at.clone(), o.to_string(), why)),
                    None => return Err(refuse(o, "not supported by nines")),
                },
            }
            Ok(())
        })();
        if let Err(e) = r {
            problems.push((o.at.clone(), e.to_string()));
        }
    }
    d.finish(s, stonewall, problems)
}

/// A job section's settings while its options are read, each at fio's default until an
/// option sets it; [`Draft::finish`] checks them together and makes the [`Job`].
struct Draft<'a> {
    /// Where each nines setting came from (see [`Job::origin`]).
    origin: BTreeMap<&'static str, (Loc, String)>,
    accepted: Vec<(Loc, String, &'static str)>,
    name: String,
    filenames: Vec<String>,
    rw: Pattern,
    read_pct: Option<u32>,
    bs: Vec<(u32, u32)>,
    iodepth: u32,
    submit_batch: Option<u32>,
    complete_batch: Option<u32>,
    numjobs: u32,
    size: Option<u64>,
    runtime: Option<u64>,
    time_based: bool,
    ramp_ns: u64,
    number_ios: Option<u64>,
    direct: bool,
    sync: bool,
    fdatasync: Option<u64>,
    rate_iops: Option<f64>,
    rate_bytes: Option<u64>,
    /// The last `rate` or `rate_iops`, read once the pattern is known.
    rate_opts: Vec<&'a RawOpt>,
    thinktime_ns: Option<u64>,
    thinktime_blocks: Option<u32>,
    thinktime_spin_ns: Option<u64>,
    poisson: bool,
    randrepeat: bool,
    randseed: Option<u64>,
    engine: Engine,
    /// The caller runs an engine of its own: an `ioengine` nines does not have is not refused.
    engine_overridden: bool,
    window_ns: Option<u64>,
    distribution: Distribution,
}

impl<'a> Draft<'a> {
    fn new(name: String) -> Draft<'a> {
        Draft {
            origin: BTreeMap::new(),
            accepted: Vec::new(),
            name,
            filenames: Vec::new(),
            rw: Pattern::Read,
            read_pct: None,
            bs: vec![(4096, 100)],
            iodepth: 1,
            submit_batch: None,
            complete_batch: None,
            numjobs: 1,
            size: None,
            runtime: None,
            time_based: false,
            ramp_ns: 0,
            number_ios: None,
            direct: false,
            sync: false,
            fdatasync: None,
            rate_iops: None,
            rate_bytes: None,
            rate_opts: Vec::new(),
            thinktime_ns: None,
            thinktime_blocks: None,
            thinktime_spin_ns: None,
            poisson: false,
            randrepeat: true,
            randseed: None,
            engine: Engine::Psync,
            engine_overridden: false,
            window_ns: None,
            distribution: Distribution::Random,
        }
    }

    /// Note that option `o` set the nines setting `what`.
    fn set(&mut self, what: &'static str, o: &RawOpt) {
        self.origin.insert(what, (o.at.clone(), o.to_string()));
    }

    /// The checks across options, then the job; `problems` are the options' refusals.
    fn finish(mut self, s: &RawSection, stonewall: bool, mut problems: Vec<(Loc, String)>) -> Result<Job, Vec<(Loc, String)>> {
        self.submit_batch = self.submit_batch.map(|b| if b == 0 { self.iodepth } else { b });
        self.rates(&mut problems);
        self.thinktime_and_arrival(&mut problems);
        let stop = self.stop(s, &mut problems);
        if !self.rw.random() && !self.distribution.is_uniform() {
            self.accepted.push((
                self.origin["random_distribution"].0.clone(),
                self.origin["random_distribution"].1.clone(),
                "applies to random patterns only",
            ));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let settings = Settings {
            filenames: self.filenames,
            rw: self.rw,
            read_pct: self.read_pct,
            bs: self.bs,
            iodepth: self.iodepth,
            submit_batch: self.submit_batch,
            complete_batch: self.complete_batch,
            numjobs: self.numjobs,
            size: self.size,
            stop,
            ramp_ns: self.ramp_ns,
            direct: self.direct,
            sync: self.sync,
            fdatasync: self.fdatasync,
            rate_iops: self.rate_iops,
            rate_bytes: self.rate_bytes,
            thinktime_ns: self.thinktime_ns.filter(|&t| t > 0),
            thinktime_blocks: self.thinktime_blocks.filter(|_| self.thinktime_ns.is_some()),
            thinktime_spin_ns: self.thinktime_spin_ns.filter(|_| self.thinktime_ns.is_some()),
            poisson: self.poisson,
            seed: self.randseed.or(self.randrepeat.then_some(DEFAULT_SEED)),
            engine: self.engine,
            window_ns: self.window_ns,
            distribution: self.distribution,
        };
        Ok(Job {
            name: self.name,
            section: s.name.clone(),
            at: s.at.clone(),
            settings,
            origin: self.origin,
            accepted: self.accepted,
            stonewall,
        })
    }

    /// `rate` and `rate_iops`, now that the pattern is known. fio's rate and rate_iops hold
    /// for each direction on its own; nines' limit holds for a job's I/Os of every direction
    /// together: the same only when there is one direction.
    fn rates(&mut self, problems: &mut Vec<(Loc, String)>) {
        for o in &self.rate_opts {
            match per_direction(o, self.rw) {
                Ok(r) if o.key == "rate" => self.rate_bytes = r,
                Ok(Some(r)) if r > MAX_RATE_IOPS => {
                    problems.push((o.at.clone(), OptionError::RateTooHigh { opt: o.to_string() }.to_string()))
                }
                Ok(r) => self.rate_iops = r.map(|r| r as f64),
                Err(e) => problems.push((o.at.clone(), e.to_string())),
            }
        }
    }

    /// A spin longer than the think time is refused; think and arrival options that have
    /// nothing to act on are accepted, saying so.
    fn thinktime_and_arrival(&mut self, problems: &mut Vec<(Loc, String)>) {
        if let (Some(spin), Some(t)) = (self.thinktime_spin_ns, self.thinktime_ns) {
            if spin > t {
                let (at, opt) = self.origin["thinktime_spin"].clone();
                problems.push((at, OptionError::SpinLongerThanThink { opt }.to_string()));
            }
        }
        for k in ["thinktime_spin", "thinktime_blocks"] {
            if self.thinktime_ns.is_none() && self.origin.contains_key(k) {
                self.accepted.push((self.origin[k].0.clone(), self.origin[k].1.clone(), "no thinktime: nothing to think"));
            }
        }
        if self.rate_iops.is_none() && self.rate_bytes.is_none() && self.origin.contains_key("arrival") {
            self.accepted.push((
                self.origin["arrival"].0.clone(),
                self.origin["arrival"].1.clone(),
                "no rate_iops: nothing is rate-limited",
            ));
        }
    }

    /// How the job ends: a runtime, a count of I/Os, or why neither is known.
    fn stop(&self, s: &RawSection, problems: &mut Vec<(Loc, String)>) -> Stop {
        let (bs, numjobs, size, runtime, number_ios) = (&self.bs, self.numjobs, self.size, self.runtime, self.number_ios);
        // number_ios (and size) count a job's I/Os; the run's --ios counts every job's
        let mut all_jobs = |n: u64| {
            let total = n.checked_mul(u64::from(numjobs));
            if total.is_none() {
                problems.push((s.at.clone(), OptionError::TooManyIos { section: s.name.clone(), n, numjobs }.to_string()));
            }
            total
        };
        if self.time_based {
            match runtime {
                Some(r) if r > 0 => Stop::Time { runtime_ns: r, ios: number_ios.and_then(&mut all_jobs) },
                _ => Stop::Unknown(format!("[{}] is time_based without a runtime (fio would run until stopped)", s.name)),
            }
        } else {
            // fio ends a job after `size` bytes (or number_ios, or runtime, whichever first)
            let by_size = match (size, &bs[..]) {
                (Some(sz), [(b, _)]) => Some(sz / u64::from(*b)),
                _ => None,
            };
            match (number_ios, by_size) {
                (Some(n), Some(b)) => Some(n.min(b)),
                // with bssplit, number_ios comes first for sure when even the largest blocks fit
                (Some(n), None) if size.is_none_or(|sz| n.saturating_mul(u64::from(bs.iter().map(|b| b.0).max().unwrap_or(1))) <= sz) => Some(n),
                (None, Some(b)) => Some(b),
                _ => None,
        }
            .filter(|&n| n > 0)
            .map(|n| Stop::Ios { ios: all_jobs(n).unwrap_or(u64::MAX), runtime_ns: runtime })
            .unwrap_or_else(|| {
                Stop::Unknown(if bs.len() > 1 {
                    format!("[{}] is not time_based, so fio ends it after size bytes, which nines cannot count with bssplit; add time_based and runtime (or number_ios)", s.name)
                } else {
                    format!("[{}] is not time_based, so fio ends it after size bytes, and it gives no size (fio would cover the whole file); give size, or time_based with a runtime, or number_ios", s.name)
                })
            })
        }
    }
}

/// Each option the job section reads, at fio's meaning (fio HOWTO for each).
impl<'a> Draft<'a> {
    /// `name`.
    fn opt_name(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.name = value(o)?.to_string();
        Ok(())
    }

    /// `filename`.
    fn opt_filename(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.filenames = split_filenames(value(o)?);
        if self.filenames.is_empty() {
            return Err(refuse(o, "expected a file name"));
        }
        self.set("target", o);
        Ok(())
    }

    /// `file_service_type`.
    fn opt_file_service_type(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let v = value(o)?.to_ascii_lowercase();
        if v != "roundrobin" && v != "roundrobin:1" {
            return Err(refuse(o, "nines spreads a job's I/Os over its files round robin, one I/O each (fio's default roundrobin); other types are not supported"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "fio's default, what nines does"));
        Ok(())
    }

    /// `thinktime`.
    fn opt_thinktime(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.thinktime_ns = Some(think_ns(o)?);
        self.set("thinktime", o);
        Ok(())
    }

    /// `thinktime_spin`.
    fn opt_thinktime_spin(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.thinktime_spin_ns = Some(think_ns(o)?);
        self.set("thinktime_spin", o);
        Ok(())
    }

    /// `thinktime_blocks`.
    fn opt_thinktime_blocks(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.thinktime_blocks = Some(int_in(o, 1, u32::MAX.into(), "--thinktime-blocks")? as u32);
        self.set("thinktime_blocks", o);
        Ok(())
    }

    /// `thinktime_blocks_type`.
    fn opt_thinktime_blocks_type(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        if !value(o)?.eq_ignore_ascii_case("complete") {
            return Err(refuse(o, "nines thinks after the blocks have completed (fio's default, complete); issue is not supported"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "fio's default, what nines does"));
        Ok(())
    }

    /// `rw` or `readwrite`.
    fn opt_rw(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let v = value(o)?;
        if v.contains(':') {
            return Err(refuse(o, "the offset modifier ':N' is not supported"));
        }
        self.rw = match v.to_ascii_lowercase().as_str() {
            "read" => Pattern::Read,
            "write" => Pattern::Write,
            "trim" => Pattern::Trim,
            "randread" => Pattern::Randread,
            "randwrite" => Pattern::Randwrite,
            "randtrim" => Pattern::Randtrim,
            "rw" | "readwrite" => Pattern::Rw,
            "randrw" => Pattern::Randrw,
            _ => return Err(refuse(o, "not supported; nines runs read, write, trim, randread, randwrite, randtrim, rw and randrw")),
        };
        self.set("rw", o);
        Ok(())
    }

    /// `rwmixread` or `rwmixwrite`.
    fn opt_rwmixread(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let p = int_in(o, 0, 100, "--mix")?;
        self.read_pct = Some(if o.key == "rwmixread" { p as u32 } else { 100 - p as u32 });
        self.set("mix", o);
        Ok(())
    }

    /// `bs` or `blocksize`.
    fn opt_bs(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let b = parse_size(one_for_all_directions(o)?).map_err(|e| invalid(o, e))?;
        if b == 0 || b > MAX_BLOCK {
            return Err(refuse(o, "a block must be between 1 byte and 64MiB"));
        }
        self.bs = vec![(b as u32, 100)];
        self.set("bs", o);
        Ok(())
    }

    /// `bssplit`.
    fn opt_bssplit(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.bs = parse_bssplit(one_for_all_directions(o)?).map_err(|e| invalid(o, e))?;
        self.set("bs", o);
        Ok(())
    }

    /// `iodepth`.
    fn opt_iodepth(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.iodepth = int_in(o, 1, MAX_QD.into(), "--qd")? as u32;
        self.set("qd", o);
        Ok(())
    }

    /// `iodepth_batch` or `iodepth_batch_submit`.
    fn opt_iodepth_batch(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.submit_batch = Some(int_in(o, 0, u32::MAX.into(), "--submit-batch")? as u32);
        self.set("submit_batch", o);
        Ok(())
    }

    /// `iodepth_batch_complete_max`.
    fn opt_iodepth_batch_complete_max(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.complete_batch = Some((int_in(o, 0, u32::MAX.into(), "--complete-batch")? as u32).max(1));
        self.set("complete_batch", o);
        Ok(())
    }

    /// `iodepth_batch_complete_min` or `iodepth_batch_complete`.
    fn opt_iodepth_batch_complete_min(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        // nines always waits for at least one completion when I/Os are in
        // flight: fio's default of 1. 0 (polling without waiting) is not done.
        if int_value(o)? != 1 {
            return Err(refuse(o, "nines waits for at least one completion (fio's default 1); other values are not supported"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "fio's default, what nines does"));
        Ok(())
    }

    /// `numjobs`.
    fn opt_numjobs(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.numjobs = int_in(o, 1, MAX_JOBS.into(), "--jobs")? as u32;
        self.set("jobs", o);
        Ok(())
    }

    /// `size`.
    fn opt_size(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let v = value(o)?;
        if v.ends_with('%') {
            return Err(refuse(o, "a size in percent of the file is not supported; give bytes"));
        }
        self.size = Some(parse_size(v).map_err(|e| invalid(o, e))?);
        self.set("size", o);
        Ok(())
    }

    /// `offset`.
    fn opt_offset(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        if parse_size(value(o)?).map_err(|e| invalid(o, e))? != 0 {
            return Err(refuse(o, "a region that does not start at offset 0 is not supported"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "the region starts at 0, as nines' does"));
        Ok(())
    }

    /// `runtime` or `timeout`.
    fn opt_runtime(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.runtime = Some(parse_duration_ns(value(o)?).map_err(|e| invalid(o, e))?);
        self.set("runtime", o);
        Ok(())
    }

    /// `time_based`.
    fn opt_time_based(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.time_based = bool_value(o)?;
        self.set("runtime", o);
        Ok(())
    }

    /// `ramp_time`.
    fn opt_ramp_time(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.ramp_ns = parse_duration_ns(value(o)?).map_err(|e| invalid(o, e))?;
        self.set("ramp", o);
        Ok(())
    }

    /// `number_ios`.
    fn opt_number_ios(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.number_ios = Some(int_value(o)?).filter(|&n| n > 0);
        self.set("ios", o);
        Ok(())
    }

    /// `direct`.
    fn opt_direct(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.direct = bool_value(o)?;
        self.set("direct", o);
        Ok(())
    }

    /// `buffered`.
    fn opt_buffered(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.direct = !bool_value(o)?;
        self.set("direct", o);
        Ok(())
    }

    /// `sync`.
    fn opt_sync(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.sync = match o.value.as_deref().map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("1" | "sync" | "true") => true,
            Some("0" | "none" | "false") => false,
            Some(_) => return Err(refuse(o, "not supported; nines opens with O_SYNC (sync=1) or without (sync=0)")),
        };
        self.set("sync", o);
        Ok(())
    }

    /// `fdatasync`.
    fn opt_fdatasync(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let n = int_value(o)?;
        self.fdatasync = (n > 0).then_some(n);
        self.set("fsync_every", o);
        Ok(())
    }

    /// `fsync`.
    fn opt_fsync(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        if int_value(o)? != 0 {
            return Err(refuse(o, "nines issues fdatasync, not fsync, after every N writes; write fdatasync=N"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "no fsync"));
        Ok(())
    }

    /// `rate_iops` or `rate`.
    fn opt_rate_iops(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        // per direction: interpreted once rw is known (Draft::rates)
        value(o)?;
        // the last of rate and rate_iops wins, as a later setting of one option does
        self.rate_opts.clear();
        self.rate_opts.push(o);
        self.set("rate_iops", o);
        Ok(())
    }

    /// `rate_process`.
    fn opt_rate_process(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.poisson = match value(o)?.to_ascii_lowercase().as_str() {
            "poisson" => true,
            "linear" => false,
            _ => return Err(refuse(o, "expected linear or poisson")),
        };
        self.set("arrival", o);
        Ok(())
    }

    /// `randrepeat` or `allrandrepeat`.
    fn opt_randrepeat(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.randrepeat = bool_value(o)?;
        self.set("seed", o);
        Ok(())
    }

    /// fio's option for the random generator's starting value.
    fn opt_randseed(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.randseed = Some(int_value(o)?);
        self.set("seed", o);
        Ok(())
    }

    /// `norandommap`.
    fn opt_norandommap(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        if !bool_value(o)? {
            return Err(refuse(o, "nines keeps no random map; offsets are drawn with repeats as with norandommap"));
        }
        self.accepted.push((o.at.clone(), o.to_string(), "nines keeps no random map"));
        Ok(())
    }

    /// `ioengine`.
    fn opt_ioengine(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        // fio's HOWTO, "I/O engine": libaio is Linux native asynchronous I/O (io_submit), sync
        // and vsync read and write at the file position set by lseek (vsync with readv and
        // writev). nines submits the same reads and writes with io_uring and with pread/pwrite.
        self.engine = match value(o)?.to_ascii_lowercase().as_str() {
            "io_uring" => Engine::Uring,
            "psync" | "pvsync" => Engine::Psync,
            "null" => Engine::Null,
            "libaio" => {
                self.accepted.push((
                    o.at.clone(),
                    o.to_string(),
                    "run with io_uring, which submits the same reads and writes as libaio's io_submit; \
                     libaio queues them asynchronously only with direct=1, io_uring also when buffered, \
                     and iodepth_batch_* act on io_uring's submissions and completions",
                ));
                Engine::Uring
            }
            "sync" | "vsync" => {
                self.accepted.push((
                    o.at.clone(),
                    o.to_string(),
                    "run with psync: the same reads and writes, at each offset with pread/pwrite \
                     instead of lseek then read/write (one system call an I/O instead of two)",
                ));
                Engine::Psync
            }
            // the flag's engine runs the job (its note names this option)
            _ if self.engine_overridden => self.engine,
            v => return Err(OptionError::Engine(v.to_string())),
        };
        self.set("engine", o);
        Ok(())
    }

    /// `log_hist_msec`.
    fn opt_log_hist_msec(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        let ms = int_in(o, 1, MAX_DURATION_NS / 1_000_000, "--window, in ms,")?;
        self.window_ns = Some(ms * 1_000_000);
        self.set("window", o);
        Ok(())
    }

    /// `random_distribution`.
    fn opt_random_distribution(&mut self, o: &'a RawOpt) -> Result<(), OptionError> {
        self.distribution = value(o)?.parse::<Distribution>().map_err(|e| invalid(o, e))?;
        self.set("random_distribution", o);
        Ok(())
    }
}

/// The workloads a file asks for, run together or one group after another.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Groups run one after another (split at `stonewall`); the jobs of a group run together.
    pub groups: Vec<Vec<Job>>,
}

impl Plan {
    pub fn new(jobs: Vec<Job>) -> Plan {
        let mut groups: Vec<Vec<Job>> = Vec::new();
        for j in jobs {
            match groups.last_mut() {
                Some(g) if !j.stonewall => g.push(j),
                _ => groups.push(vec![j]),
            }
        }
        Plan { groups }
    }

    /// The workloads nines runs together: the section `pick`; or the file's jobs, which fio
    /// runs at the same time (sections identical but for their name as one workload, their
    /// `numjobs` added up). Groups run one after another (`stonewall`) are an error naming
    /// where each later group starts.
    pub fn concurrent(&self, pick: Option<&str>) -> Result<Vec<Job>, PlanError> {
        if pick.is_some() || self.groups.len() > 1 {
            if pick.is_none() {
                let starts: Vec<String> = self.groups[1..].iter().map(|g| format!("[{}] ({})", g[0].section, g[0].at)).collect();
                return Err(PlanError::Stonewall { starts: starts.join(", ") });
            }
            return self.single(pick).map(|j| vec![j]);
        }
        let all = &self.groups[0];
        if all.iter().all(|j| j.settings == all[0].settings) {
            return self.single(None).map(|j| vec![j]);
        }
        Ok(all.clone())
    }

    /// The one workload nines runs: the section `pick`, or the file's only job, or jobs run
    /// together that differ only in name (their `numjobs` added up). Otherwise an error
    /// naming the sections.
    pub fn single(&self, pick: Option<&str>) -> Result<Job, PlanError> {
        let all: Vec<&Job> = self.groups.iter().flatten().collect();
        if let Some(p) = pick {
            return all.iter().find(|j| j.section == p).map(|j| (*j).clone()).ok_or_else(|| PlanError::NoSection {
                pick: p.to_string(),
                sections: all.iter().map(|j| format!("[{}]", j.section)).collect::<Vec<_>>().join(", "),
            });
        }
        let names = |js: &[&Job]| js.iter().map(|j| format!("[{}] ({})", j.section, j.at)).collect::<Vec<_>>().join(", ");
        if self.groups.len() > 1 {
            return Err(PlanError::Groups { groups: self.groups.len(), sections: names(&all) });
        }
        let first = all[0];
        if all.iter().all(|j| j.settings == first.settings) {
            let mut j = first.clone();
            j.settings.numjobs = all.iter().map(|j| j.settings.numjobs).sum();
            if j.settings.numjobs > MAX_JOBS {
                return Err(PlanError::TooManyJobs { sections: names(&all), jobs: j.settings.numjobs });
            }
            let times = |n: u64| n.checked_mul(all.len() as u64).ok_or_else(|| PlanError::TooManyIos { sections: names(&all), n });
            j.settings.stop = match j.settings.stop {
                Stop::Time { runtime_ns, ios } => Stop::Time { runtime_ns, ios: ios.map(times).transpose()? },
                Stop::Ios { ios, runtime_ns } => Stop::Ios { ios: times(ios)?, runtime_ns },
                s => s,
            };
            return Ok(j);
        }
        Err(PlanError::DifferentWorkloads { sections: names(&all) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_include(_: &str, _: &str) -> Result<(String, String), IncludeError> {
        Err("not found".into())
    }

    fn jobs(text: &str) -> Result<Vec<Job>, JobError> {
        let env = |v: &str| (v == "SIZE").then(|| "64m".to_string());
        interpret(&parse("t.fio", text, &mut no_include, &env)?)
    }

    #[test]
    fn syntax_globals_comments_and_env() {
        let j = jobs("; a comment\n# another\n[global] ; defaults\nbs=8k # eight\nsize=${SIZE}\nrw=randread\n\n[a]\n  iodepth = 16 \n[global]\nbs=16k\n[b]\nrw=randwrite\n").unwrap();
        assert_eq!(j.len(), 2);
        assert_eq!(
            (j[0].name.as_str(), j[0].settings.bs.clone(), j[0].settings.iodepth, j[0].settings.size),
            ("a", vec![(8192, 100)], 16, Some(64 << 20))
        );
        // a job sees only the [global] sections above it; later settings win
        assert_eq!((j[1].settings.bs.clone(), j[1].settings.rw, j[1].settings.iodepth), (vec![(16384, 100)], Pattern::Randwrite, 1));
        assert_eq!(j[0].settings.stop, Stop::Ios { ios: (64 << 20) / 8192, runtime_ns: None });
        assert!(!j[0].settings.direct, "fio's default is buffered I/O");
        assert_eq!(j[0].settings.seed, Some(DEFAULT_SEED));
        assert_eq!(j[0].origin["bs"].0, Loc { file: "t.fio".into(), line: 4 });
        // an unset variable is empty
        let e = jobs("[a]\nsize=${NOPE}\n").unwrap_err();
        assert!(e.to_string().contains("t.fio:2: size needs a value"), "{e}");
    }

    #[test]
    fn libaio_and_sync_job_files_run_with_the_engines_nines_has_and_say_so() {
        for (engine, want, note) in [
            ("libaio", Engine::Uring, "run with io_uring"),
            ("sync", Engine::Psync, "run with psync"),
            ("vsync", Engine::Psync, "run with psync"),
        ] {
            let j = &jobs(&format!("[global]\nioengine={engine}\n[a]\nrw=randread\nsize=1g\nruntime=1s\ntime_based\n")).unwrap()[0];
            assert_eq!(j.settings.engine, want, "{engine}");
            let (at, opt, why) = j.accepted.iter().find(|a| a.1.starts_with("ioengine")).expect("a note");
            assert_eq!((at.to_string(), opt.as_str()), ("t.fio:2".to_string(), format!("ioengine={engine}").as_str()));
            assert!(why.starts_with(note), "{why}");
        }
    }

    #[test]
    fn an_engine_set_by_the_caller_wins_over_any_ioengine() {
        let sections = parse("t.fio", "[global]\nioengine=posixaio\n[a]\nsize=1m\n", &mut no_include, &|_| None).unwrap();
        let e = interpret(&sections).unwrap_err().to_string();
        assert!(e.contains("t.fio:2: ioengine=posixaio: not supported") && e.contains("--engine given beside the file"), "{e}");
        let j = &interpret_overridden(&sections, &["engine"]).unwrap()[0];
        // the option is kept as what the flag overrides
        assert_eq!(j.origin["engine"], (Loc { file: "t.fio".into(), line: 2 }, "ioengine=posixaio".to_string()));
        // the file's other refusals stand
        let sections = parse("t.fio", "[a]\nioengine=mmap\nbsrange=4k-8k\nsize=1m\n", &mut no_include, &|_| None).unwrap();
        let e = interpret_overridden(&sections, &["engine"]).unwrap_err();
        assert_eq!(e.problems.len(), 1, "{e}");
        assert!(e.to_string().contains("t.fio:3: bsrange=4k-8k"), "{e}");
    }

    #[test]
    fn every_refusal_at_once_with_its_line() {
        let e = jobs("[global]\nioengine=posixaio\nverify=crc32c\n[a]\nrw=randread:8\nsize=1g\nbsrange=4k-16k\n[b]\nsize=1g\nfsync=4\n")
            .unwrap_err();
        let s = e.to_string();
        for want in [
            "t.fio:2: ioengine=posixaio: not supported",
            "t.fio:3: verify=crc32c: not supported by nines",
            "t.fio:5: rw=randread:8: the offset modifier",
            "t.fio:7: bsrange=4k-16k: not supported by nines",
            "t.fio:10: fsync=4: nines issues fdatasync",
        ] {
            assert!(s.contains(want), "{want} in {s}");
        }
        // the [global] refusals are named once, not once per job
        assert_eq!(e.problems.len(), 5, "{s}");
        assert!(s.starts_with("5 problems in the job file:"));
    }

    #[test]
    fn syntax_errors() {
        let p = |t: &str| parse("t.fio", t, &mut no_include, &|_| None).unwrap_err().to_string();
        assert!(p("bs=4k\n[a]\n").contains("t.fio:1: option bs=4k is outside any [section]"));
        assert!(p("[a\nbs=4k\n").contains("t.fio:1: \"[a\" is not a section header"));
        assert!(p("[global]\nbs=4k\n").contains("no job section"));
        assert!(p("[a]\ninclude nothere.fio\n").contains("t.fio:2: include nothere.fio: not found"));
    }

    #[test]
    fn includes_nest_and_may_not_add_sections() {
        let mut inc = |name: &str, _from: &str| -> Result<(String, String), IncludeError> {
            match name {
                "opts.fio" => Ok(("opts.fio".into(), "iodepth=8\ninclude more.fio\n".into())),
                "more.fio" => Ok(("more.fio".into(), "bs=64k\n".into())),
                "sect.fio" => Ok(("sect.fio".into(), "[x]\n".into())),
                "loop.fio" => Ok(("loop.fio".into(), "include loop.fio\n".into())),
                // included twice at every level: 2^16 copies before the depth stops it
                "twice.fio" => Ok(("twice.fio".into(), "bs=4k\ninclude twice.fio\niodepth=2\ninclude twice.fio\n".into())),
                _ => Err("not found".into()),
            }
        };
        let s = parse("t.fio", "[a]\nsize=1m\ninclude opts.fio\n", &mut inc, &|_| None).unwrap();
        let j = interpret(&s).unwrap();
        assert_eq!((j[0].settings.iodepth, j[0].settings.bs.clone()), (8, vec![(65536, 100)]));
        assert_eq!(j[0].origin["bs"].0.to_string(), "more.fio:1");
        let e = parse("t.fio", "[a]\ninclude sect.fio\n", &mut inc, &|_| None).unwrap_err().to_string();
        assert!(e.contains("sect.fio:1: an included file may not contain [sections]"), "{e}");
        let e = parse("t.fio", "[a]\ninclude loop.fio\n", &mut inc, &|_| None).unwrap_err().to_string();
        assert!(e.contains("nest deeper than 16"), "{e}");
        // found by fuzzing: an error once the lines in all reach the bound, not gigabytes
        let e = parse("t.fio", "[a]\ninclude twice.fio\n", &mut inc, &|_| None).unwrap_err().to_string();
        assert!(e.contains("more than 100000 lines"), "{e}");
    }

    #[test]
    fn mapping() {
        let j = &jobs("[a]\nreadwrite=randrw\nrwmixwrite=30\nbssplit=4k/70:64k/30\nnumjobs=2\ntime_based\nruntime=1m\nramp_time=5\nnumber_ios=1k\ndirect=1\nsync=1\nfdatasync=8\nrate_process=poisson\nrandseed=42\nioengine=io_uring\nlog_hist_msec=250\nrandom_distribution=zipf:1.1\nfilename=/tmp/x\niodepth_batch_submit=4\niodepth_batch_complete_max=8\niodepth_batch_complete_min=1\ngroup_reporting\n").unwrap()[0];
        let s = &j.settings;
        assert_eq!((s.rw, s.read_pct, s.bs.clone(), s.numjobs), (Pattern::Randrw, Some(70), vec![(4096, 70), (65536, 30)], 2));
        assert_eq!(s.stop, Stop::Time { runtime_ns: 60_000_000_000, ios: Some(2048) }, "number_ios is per job, 1k is 1024");
        assert_eq!((s.ramp_ns, s.direct, s.sync, s.fdatasync), (5_000_000_000, true, true, Some(8)));
        assert_eq!((s.rate_iops, s.poisson, s.seed, s.engine, s.window_ns), (None, true, Some(42), Engine::Uring, Some(250_000_000)));
        assert!(j.accepted.iter().any(|a| a.1 == "rate_process=poisson"), "noted: nothing is rate-limited");
        assert_eq!(s.distribution, Distribution::Zipf { theta: 1.1, center: None });
        assert_eq!((s.filenames.clone(), s.submit_batch, s.complete_batch), (vec!["/tmp/x".to_string()], Some(4), Some(8)));
        assert_eq!(j.accepted.len(), 3, "iodepth_batch_complete_min=1 is noted as what nines does");
        // rates: per direction in fio (read,write,trim), so only with one direction; in bytes
        // with any block sizes
        let rate = |t: &str| jobs(t).map(|j| (j[0].settings.rate_iops, j[0].settings.rate_bytes)).map_err(|e| e.to_string());
        assert_eq!(rate("[a]\nsize=1m\nrw=randwrite\nbs=8k\nrate=1m\n"), Ok((None, Some(1 << 20))));
        assert_eq!(rate("[a]\nsize=1m\nrw=randwrite\nrate_iops=64\n"), Ok((Some(64.0), None)));
        assert_eq!(rate("[a]\nsize=1m\nrw=randwrite\nrate=,10m\n"), Ok((None, Some(10 << 20))), "the write value of r,w");
        assert_eq!(rate("[a]\nsize=1m\nrw=randread\nrate=5m,10m\n"), Ok((None, Some(5 << 20))), "the read value of r,w");
        assert_eq!(rate("[a]\nsize=1m\nrw=randread\nrate=,10m\n"), Ok((None, None)), "reads unlimited");
        assert_eq!(rate("[a]\nsize=1m\nrw=randtrim\nrate_iops=1,2,3\n"), Ok((Some(3.0), None)));
        assert!(rate("[a]\nsize=1m\nrw=randrw\nrate_iops=64\n")
            .unwrap_err()
            .contains("t.fio:4: rate_iops=64: fio limits reads and writes to this rate each"));
        assert_eq!(rate("[a]\nsize=1m\nrw=write\nbssplit=4k/50:8k/50\nnumber_ios=4\nrate=1m\n"), Ok((None, Some(1 << 20))));
        assert_eq!(rate("[a]\nsize=1m\nrw=write\nrate=1m\nrate_iops=5\n"), Ok((Some(5.0), None)), "the last one wins");
        assert!(rate("[a]\nsize=1m\nrw=write\nrate=0\n").unwrap_err().contains("t.fio:4: rate=0: expected a rate above 0"));
        // think time: a bare number is microseconds, as in fio
        let think =
            |t: &str| jobs(t).map(|j| (j[0].settings.thinktime_ns, j[0].settings.thinktime_blocks, j[0].settings.thinktime_spin_ns));
        assert_eq!(think("[a]\nsize=1m\nthinktime=250\n").unwrap(), (Some(250_000), None, None));
        assert_eq!(
            think("[a]\nsize=1m\nthinktime=2ms\nthinktime_blocks=8\nthinktime_spin=100\n").unwrap(),
            (Some(2_000_000), Some(8), Some(100_000))
        );
        assert!(think("[a]\nsize=1m\nthinktime=10\nthinktime_spin=20\n")
            .unwrap_err()
            .to_string()
            .contains("t.fio:4: thinktime_spin=20: longer than thinktime"));
        assert!(think("[a]\nsize=1m\niodepth_batch_complete_min=0\n")
            .unwrap_err()
            .to_string()
            .contains("t.fio:3: iodepth_batch_complete_min=0: nines waits for at least one completion"));
        assert!(think("[a]\nsize=1m\nthinktime=10\nthinktime_blocks_type=issue\n")
            .unwrap_err()
            .to_string()
            .contains("issue is not supported"));
        assert!(think("[a]\nsize=1m\nthinktime=10\nthinktime_iotime=1s\n")
            .unwrap_err()
            .to_string()
            .contains("thinktime_iotime=1s: not supported"));
        // several files, round robin
        assert_eq!(split_filenames("a.dat:/tmp/b\\:c:"), ["a.dat", "/tmp/b:c"]);
        let j = &jobs("[a]\nsize=1m\nfilename=x:y\nfile_service_type=roundrobin\n").unwrap()[0];
        assert_eq!(j.settings.filenames, ["x", "y"]);
        assert!(jobs("[a]\nsize=1m\nfilename=x:y\nfile_service_type=random\n")
            .unwrap_err()
            .to_string()
            .contains("t.fio:4: file_service_type=random"));
        let j = &jobs("[a]\nsize=1m\nbuffered=0\nrandrepeat=0\nrw=write\nruntime=3\nnumber_ios=10\n").unwrap()[0].settings;
        assert!(j.direct && j.seed.is_none());
        assert_eq!(j.stop, Stop::Ios { ios: 10, runtime_ns: Some(3_000_000_000) });
        let stop = |t: &str| jobs(t).unwrap()[0].settings.stop.clone();
        assert!(matches!(stop("[a]\ntime_based\n"), Stop::Unknown(w) if w.contains("without a runtime")));
        assert!(matches!(stop("[a]\nrw=randread\n"), Stop::Unknown(w) if w.contains("give size")));
        assert!(matches!(stop("[a]\nsize=1m\nbssplit=4k/50:8k/50\n"), Stop::Unknown(w) if w.contains("bssplit")));
        assert_eq!(stop("[a]\nsize=1m\nbssplit=4k/50:8k/50\nnumber_ios=5\n"), Stop::Ios { ios: 5, runtime_ns: None });
        assert!(matches!(stop("[a]\nsize=1m\nbssplit=4k/50:8k/50\nnumber_ios=1000\n"), Stop::Unknown(_)), "size bytes may come first");
        assert!(jobs("[a]\nbs=4k,8k\nsize=1m\n").unwrap_err().to_string().contains("separate values"));
        assert!(jobs("[a]\nbs=4k,4k\nsize=1m\n").is_ok());
    }

    #[test]
    fn plans() {
        let plan = |t: &str| Plan::new(jobs(t).unwrap());
        let same = plan("[global]\nsize=1m\nnumjobs=2\n[a]\n[b]\n");
        let j = same.single(None).unwrap();
        assert_eq!((j.section.as_str(), j.settings.numjobs), ("a", 4), "sections differing only by name run as one");
        let diff = plan("[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n");
        let e = diff.single(None).unwrap_err().to_string();
        assert!(e.contains("[a] (t.fio:3), [b] (t.fio:5) run at the same time") && e.contains("--section"), "{e}");
        assert_eq!(diff.single(Some("b")).unwrap().settings.rw, Pattern::Write);
        assert!(diff.single(Some("c")).unwrap_err().to_string().contains("no section [c]"));
        let seq = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\n");
        assert_eq!(seq.groups.len(), 2);
        assert!(seq.single(None).unwrap_err().to_string().contains("one after another"));
        // run together: different sections side by side, identical ones as one
        let both = diff.concurrent(None).unwrap();
        assert_eq!(both.iter().map(|j| j.section.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(same.concurrent(None).unwrap().len(), 1);
        assert_eq!(diff.concurrent(Some("b")).unwrap()[0].section, "b");
        let e = seq.concurrent(None).unwrap_err().to_string();
        assert!(e.contains("makes [b] (t.fio:4) wait") && e.contains("--section"), "{e}");
        assert_eq!(seq.concurrent(Some("b")).unwrap().len(), 1);
    }

    /// Every problem of a job file's text, as printed.
    fn refused(text: &str) -> String {
        let env = |v: &str| (v == "OPT").then(|| "iodepth=8".to_string());
        match parse("t.fio", text, &mut no_include, &env) {
            Ok(s) => interpret(&s).map(|_| String::new()).unwrap_or_else(|e| e.to_string()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn numbers_are_checked_as_the_flags_check_them_never_wrapped() {
        for (opt, want) in [
            // 2^32 + 1 used to run at QD 1, 2^32 + 2 jobs as 2
            ("iodepth=4294967297", "t.fio:3: iodepth=4294967297: expected 1 to 4096 (as --qd takes)"),
            ("iodepth=0", "t.fio:3: iodepth=0: expected 1 to 4096"),
            ("iodepth=5000", "t.fio:3: iodepth=5000: expected 1 to 4096"),
            ("numjobs=4294967298", "t.fio:3: numjobs=4294967298: expected 1 to 1024 (as --jobs takes)"),
            ("numjobs=0", "t.fio:3: numjobs=0: expected 1 to 1024"),
            // 99999999999999 ms in ns wrapped to a 7,766,279,631 s window
            ("log_hist_msec=99999999999999", "t.fio:3: log_hist_msec=99999999999999: expected 1 to 1000000000000"),
            ("iodepth_batch=4294967297", "t.fio:3: iodepth_batch=4294967297: expected 0 to 4294967295 (as --submit-batch takes)"),
            ("iodepth_batch_complete_max=4294967296", "t.fio:3: iodepth_batch_complete_max=4294967296: expected 0 to 4294967295"),
            ("thinktime_blocks=4294967296", "t.fio:3: thinktime_blocks=4294967296: expected 1 to 4294967295"),
            ("rwmixread=101", "t.fio:3: rwmixread=101: expected 0 to 100 (as --mix takes)"),
            ("thinktime=18446744073709551", "t.fio:3: thinktime=18446744073709551: expected at most 1000000000000000 microseconds"),
            ("randseed=18446744073709551616", "t.fio:3: randseed=18446744073709551616: larger than 18446744073709551615"),
            ("rw=randread\nrate_iops=100000001", "t.fio:4: rate_iops=100000001: expected at most 100000000 I/Os per second"),
            (
                "numjobs=4\nnumber_ios=9223372036854775807\ntime_based\nruntime=1",
                "t.fio:1: [a]: 9223372036854775807 I/Os a job times numjobs 4 is more than",
            ),
        ] {
            let e = refused(&format!("[a]\nsize=1m\n{opt}\n"));
            assert!(e.contains(want), "{opt}: {e}");
        }
        let one = |t: &str| jobs(t).unwrap().remove(0).settings;
        // plain digits are read exactly (a float would make 2^53 + 1 of this one)
        assert_eq!(one("[a]\nsize=1m\nrandseed=9007199254740993\n").seed, Some(9_007_199_254_740_993));
        assert_eq!(one("[a]\nsize=1m\nrandseed=18446744073709551615\n").seed, Some(u64::MAX));
        // fio's zeros: iodepth_batch=0 is the iodepth, number_ios=0 no limit
        let s = one("[a]\nsize=1m\niodepth_batch=0\niodepth=32\nnumber_ios=0\n");
        assert_eq!((s.submit_batch, s.stop), (Some(32), Stop::Ios { ios: 256, runtime_ns: None }));
        assert_eq!(one("[a]\nsize=1m\nlog_hist_msec=1000000000000\n").window_ns, Some(1_000_000_000_000_000_000));
        // sections that run as one add their jobs up: within --jobs too
        let e = Plan::new(jobs("[global]\nsize=1m\nnumjobs=1000\n[a]\n[b]\n").unwrap()).single(None).unwrap_err().to_string();
        assert!(e.contains("2000 jobs in all; nines runs at most 1024"), "{e}");
    }

    #[test]
    fn a_bare_variable_is_a_whole_option_as_in_fio() {
        // fio substitutes the line, then looks the option up (options.c, fio_option_dup_subs)
        let env = |v: &str| (v == "OPT").then(|| "iodepth=8".to_string());
        let s = parse("t.fio", "[a]\nsize=1m\n${OPT}\n", &mut no_include, &env).unwrap();
        assert_eq!(interpret(&s).unwrap()[0].settings.iodepth, 8);
        let e = refused("[a]\nsize=1m\n${NOPE}\n");
        assert!(e.contains("t.fio:3: ${NOPE} expands to nothing"), "{e}");
        // `${}` is nothing, and a `${` never closed stays as written
        let env = |_: &str| -> Option<String> { panic!("no variable is named") };
        assert_eq!(substitute("a${}b", &env), "ab");
        assert_eq!(substitute("a${b", &env), "a${b");
    }

    #[test]
    fn a_file_that_is_no_job_file_is_not_echoed() {
        let secret = "s3cr3t-hash-that-must-not-be-printed";
        let shadow: String = (0..30).map(|i| format!("user{i}:$y$j9T${secret}{i}:20228:0:99999:7:::\n")).collect();
        let env_file: String = (0..30).map(|i| format!("api_token_{i}={secret}\n")).collect();
        let ini = format!("[default]\naws_access_key_id = {secret}\n");
        let mut inc = |name: &str, _: &str| -> Result<(String, String), IncludeError> {
            match name {
                "shadow" => Ok(("shadow".into(), shadow.clone())),
                "env" => Ok(("env".into(), env_file.clone())),
                "ini" => Ok(("ini".into(), ini.clone())),
                _ => Err("not found".into()),
            }
        };
        for (name, want) in [
            ("shadow", "shadow:1: \"user0\" then ':': not a job-file line"),
            ("env", "env:1: api_token_0: no fio option has this name"),
            ("ini", "ini:1: an included file may not contain [sections]"),
        ] {
            let e = parse("t.fio", &format!("[a]\nsize=1m\ninclude {name}\nbs=8k\n"), &mut inc, &|_| None).unwrap_err();
            let text = e.to_string();
            assert!(text.contains(want), "{text}");
            assert!(!text.contains(secret), "{text}");
            assert_eq!(e.problems.len(), 1, "only the first offending line: {text}");
        }
        // the job file itself is read the same way
        let e = parse("shadow", &shadow, &mut no_include, &|_| None).unwrap_err().to_string();
        assert!(e.starts_with("1 problem in the job file:\n  shadow:1: \"user0\" then ':'") && !e.contains(secret), "{e}");
        // echoed text is cut to 40 characters, its control characters escaped
        let long = format!("[a]\nsize=1m\nrw={}\x1b[2J\n", "x".repeat(100));
        let e = refused(&long);
        let shown = e.lines().find(|l| l.contains("rw=")).unwrap();
        assert!(shown.contains(&format!("rw={}…: not supported", "x".repeat(36))), "{shown}");
        let e = refused("[a]\nsize=1m\nrw=\x1b[2Jx\n");
        assert!(e.contains("rw=\\u{1b}[2Jx: not supported") && !e.contains('\x1b'), "{e}");
    }

    #[test]
    fn every_option_nines_reads_is_an_fio_option() {
        let text = include_str!("fio_job.rs");
        let handled = text.split("match o.key.as_str() {").nth(1).unwrap().split("k => match HARMLESS").next().unwrap();
        // the match arms' keys: the quoted names before `=>` on the arms' lines
        let mut keys: Vec<&str> = handled
            .lines()
            .filter(|l| l.starts_with(&format!("{}\"", " ".repeat(16))))
            .flat_map(|l| l.split("=>").next().unwrap_or("").split('"').skip(1).step_by(2))
            .collect();
        keys.extend(HARMLESS.iter().map(|h| h.0));
        assert!(keys.len() > 50, "{keys:?}");
        for k in keys {
            assert!(is_fio_option(k), "{k}");
        }
    }
}
