//! `nines run`: the command line turned into the run's configuration (`RunArgs::configs`,
//! with a job file's settings), collected by `run`, and the summary printed; with `--live`
//! the archive is served as it is written.

use std::io::Write;

use anyhow::{bail, Result};

use crate::cli::run::{Given, RunArgs};
use crate::run::config::RunConfig;
use crate::run::{collect_all, finish, wait_for_signal};

/// `nines run`: collect, then print the summary table.
pub fn run(a: &RunArgs, given: &Given, out: &mut impl Write) -> Result<()> {
    let parts = a.configs(given)?;
    if a.live {
        return live(a, &parts, out);
    }
    if a.serve.bind.is_some() || a.serve.no_open {
        bail!("--bind and --no-open say how the run is served: they need --live");
    }
    let o = collect_all(&parts)?;
    finish(&o, a.no_summary, out)
}

/// `nines run --live`: the archive served as it is written (`nines view --follow`'s server),
/// and after a run that ends by itself, until Ctrl-C (a run stopped by a signal stops the
/// server with it).
fn live(a: &RunArgs, parts: &[RunConfig], out: &mut impl Write) -> Result<()> {
    let server = crate::view::Server::start_live(&parts[0].output, &a.serve)?;
    crate::view::announce(&server, &a.serve, "live: serving the run as it is written", &mut crate::diag::Stderr)?;
    let o = collect_all(parts)?;
    server.finish();
    let result = finish(&o, a.no_summary, out).and_then(|()| out.flush().map_err(Into::into));
    if o.stopped_by.starts_with("SIG") || o.stopped_by.starts_with("signal") {
        return result;
    }
    wait_for_signal(|| crate::diag!("nines: the run has ended; the page stays at {} until Ctrl-C", server.url));
    server.stop();
    result
}
