//! Loading runs from files for every command.

use std::path::Path;

use anyhow::{Context, Result};
use nines_core::run::Run;

/// Read a run from a file in any supported format; warnings go to stderr.
pub fn load_run(path: &Path) -> Result<Run> {
    let bytes = std::fs::read(path).with_context(|| format!("could not read '{}'", path.display()))?;
    let run = nines_core::import::read_any(&path.display().to_string(), &bytes)?;
    for w in &run.warnings {
        eprintln!("nines: warning: {}: {w}", path.display());
    }
    Ok(run)
}

/// Read several runs, stopping at the first that fails.
pub fn load_runs(paths: &[impl AsRef<Path>]) -> Result<Vec<Run>> {
    paths.iter().map(|p| load_run(p.as_ref())).collect()
}
