//! `nines check`: runs against a QoS spec ([`nines_core::spec`]), with an exit status a CI
//! job can gate on.

use std::io::Write;

use std::path::Path;

use anyhow::{bail, Result};
use nines_core::spec::{self, Spec, Verdict};

use crate::cli::check::CheckArgs;
use crate::load::load_runs;

/// Exit status when the spec or a run cannot be read (0 to 2 are verdicts).
pub const EXIT_ERROR: u8 = 3;

/// The spec of a spec file and `--limit`s; an error naming the file where it cannot be read
/// or holds no limit.
pub fn load_spec(path: Option<&Path>, limits: &[String]) -> Result<Spec> {
    Ok(load_spec_text(path, limits)?.0)
}

/// [`load_spec`], and the spec as one text that parses to the same limits for the same runs:
/// the file's text, then the `--limit`s under a `[*]` header (every run). What a report hands
/// its viewer.
pub fn load_spec_text(path: Option<&Path>, limits: &[String]) -> Result<(Spec, String)> {
    let (mut spec, mut text) = match path {
        Some(path) => {
            let name = path.display().to_string();
            let bytes = crate::output::read_bounded(path, MAX_SPEC, "the spec")?;
            let text = String::from_utf8(bytes)
                .map_err(|e| anyhow::anyhow!("{name}: byte offset {}: the spec is not UTF-8 text", e.utf8_error().valid_up_to()))?;
            (Spec::parse(&name, &text)?, text)
        }
        None => (Spec::default(), String::new()),
    };
    spec = spec.and(Spec::from_limits(limits)?);
    if spec.is_empty() {
        bail!("{}: the spec holds no limit", path.map_or("--limit".into(), |p| p.display().to_string()));
    }
    if !limits.is_empty() {
        if path.is_some() {
            text.push_str("\n[*]\n");
        }
        for l in limits {
            text.push_str(l.trim());
            text.push('\n');
        }
    }
    Ok((spec, text))
}

/// The largest spec file read.
pub const MAX_SPEC: u64 = 1 << 20;

/// Check the runs; the overall verdict (its [`Verdict::exit_code`] is the exit status).
pub fn run(args: &CheckArgs, out: &mut impl Write) -> Result<Verdict> {
    if let (Some(from), Some(to)) = (args.from, args.to) {
        if to <= from {
            bail!("--to {to} must be later than --from {from}");
        }
    }
    let spec = load_spec(args.spec.as_deref(), &args.limit)?;
    let runs = load_runs(&args.files)?;
    // a direction no run has and nines does not know is a slip in the spec, not a verdict
    let tags: Vec<String> = runs.iter().flat_map(|r| r.tags()).map(|t| nines_core::stats::tag_name(t.as_deref()).to_string()).collect();
    spec.check_directions(&tags).map_err(anyhow::Error::msg)?;
    let checks: Vec<_> = runs.iter().map(|r| spec::check_run(r, &spec, args.from, args.to)).collect();
    if args.json {
        writeln!(out, "{}", spec::json(&checks))?;
    } else {
        write!(out, "{}", spec::text(&checks))?;
    }
    Ok(Verdict::overall(checks.iter().map(|c| c.verdict)))
}
