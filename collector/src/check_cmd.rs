//! `nines check`: runs against a QoS spec ([`nines_core::spec`]), with an exit status a CI
//! job can gate on.

use std::io::Write;

use anyhow::{bail, Context, Result};
use nines_core::spec::{self, Spec, Verdict};

use crate::cli::check::CheckArgs;
use crate::load::load_runs;

/// Exit status when the spec or a run cannot be read (0 to 2 are verdicts).
pub const EXIT_ERROR: u8 = 3;

/// Check the runs; the overall verdict (its [`Verdict::exit_code`] is the exit status).
pub fn run(args: &CheckArgs, out: &mut impl Write) -> Result<Verdict> {
    if let (Some(from), Some(to)) = (args.from, args.to) {
        if to <= from {
            bail!("--to {to} must be later than --from {from}");
        }
    }
    let mut spec = match &args.spec {
        Some(path) => {
            let name = path.display().to_string();
            let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read the spec"))?;
            let text = String::from_utf8(bytes)
                .map_err(|e| anyhow::anyhow!("{name}: byte {}: the spec is not UTF-8 text", e.utf8_error().valid_up_to()))?;
            Spec::parse(&name, &text)?
        }
        None => Spec::default(),
    };
    spec = spec.and(Spec::from_limits(&args.limit)?);
    if spec.is_empty() {
        bail!("{}: the spec holds no limit", args.spec.as_ref().map_or("--limit".into(), |p| p.display().to_string()));
    }
    let runs = load_runs(&args.files)?;
    let checks: Vec<_> = runs.iter().map(|r| spec::check_run(r, &spec, args.from, args.to)).collect();
    if args.json {
        writeln!(out, "{}", spec::json(&checks))?;
    } else {
        write!(out, "{}", spec::text(&checks))?;
    }
    Ok(Verdict::overall(checks.iter().map(|c| c.verdict)))
}
