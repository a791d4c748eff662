//! The `nines` binary: glue between the command line and the library modules.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;

use nines::cli::{Cli, Cmd};

fn main() -> ExitCode {
    let (cli, given) = match parse_cli() {
        Ok(parsed) => parsed,
        Err(e) => return usage_error(e),
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = match &cli.cmd {
        Cmd::Stats(a) => nines::stats_cmd::run(a, &mut out),
        Cmd::Run(a) => nines::run_cmd::run(a, &given, &mut out),
        Cmd::Curve(a) => return judged(nines::curve_cmd::run(a, &given, &mut out), &mut out),
        Cmd::Demo(a) => nines::demo::run(a, &mut out),
        Cmd::Import(a) => nines::import_cmd::run(a, &mut out),
        Cmd::Compare(a) if a.fail_on.is_some() => return compare_gate(a, &mut out),
        Cmd::Compare(a) => nines::judge_cmd::compare(a, &mut out).map(drop),
        Cmd::Sweep(a) => return judged(nines::judge_cmd::sweep(a, &mut out), &mut out),
        Cmd::Steady(a) => return judged(nines::judge_cmd::steady(a, &mut out).map(Some), &mut out),
        Cmd::Pts(a) => nines::pts_cmd::run(a, &mut out),
        Cmd::Check(a) => return check(a, &mut out),
        Cmd::Merge(a) => nines::merge_cmd::run(a, &mut out),
        Cmd::Export(a) => nines::export_cmd::run(a, &mut out),
        Cmd::Report(a) => nines::report::run(a, &mut out),
        Cmd::Site(a) => nines::report::site::run(a, &mut out),
        Cmd::View(a) => nines::view::run(a, &mut out),
        Cmd::Completions(a) => nines::generate::completions(a.shell, &mut out),
        Cmd::Man(a) => nines::generate::man(a.subcommand.as_deref(), &mut out),
    };
    let result = result.and_then(|()| out.flush().map_err(Into::into));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            nines::diag!("nines: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The command line, and for `nines run` and `nines curve` the flags given explicitly (a job
/// file's settings yield to them) with every repeated `--target` and `--destroy-data`.
fn parse_cli() -> Result<(Cli, nines::cli::run::Given), clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let m = Cli::command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&m)?;
    let given = match m.subcommand() {
        Some(("run" | "curve", rm)) => nines::cli::run::Given::of(rm),
        _ => nines::cli::run::Given::default(),
    };
    Ok((cli, given))
}

/// A command that may give a verdict (`curve` and `sweep --curve` with `--limit`,
/// `steady`): with one, the exit status is the verdict and an error is 3, as for `nines
/// check`; without one (no `--limit`), 0, and an error 1 as for any command.
fn judged(result: anyhow::Result<Option<nines_core::spec::Verdict>>, out: &mut impl Write) -> ExitCode {
    let judging = judging_args();
    match result.and_then(|v| out.flush().map(|()| v).map_err(Into::into)) {
        Ok(Some(v)) => ExitCode::from(v.exit_code()),
        Ok(None) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            nines::diag!("nines: {e:#}");
            if judging {
                ExitCode::from(nines::check_cmd::EXIT_ERROR)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Whether the command line asks for a verdict, so that its exit status is one (0 meets, 1
/// fails, 2 cannot tell) and an error 3: `check`, `steady`, and `curve`, `sweep` or
/// `compare` given `--limit` or `--fail-on`.
fn judging_args() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check" | "steady") => true,
        Some("curve" | "sweep" | "compare") => {
            args.iter().any(|a| ["--limit", "--fail-on"].iter().any(|f| a == f || a.starts_with(&format!("{f}="))))
        }
        _ => false,
    }
}

/// `nines check`: the exit status is the verdict (0 meets, 1 fails, 2 cannot tell), and an
/// error is 3 so that a CI job never reads a bad spec as a verdict.
fn check(args: &nines::cli::check::CheckArgs, out: &mut impl Write) -> ExitCode {
    let result = nines::check_cmd::run(args, out).and_then(|v| out.flush().map(|()| v).map_err(Into::into));
    match result {
        Ok(v) => ExitCode::from(v.exit_code()),
        Err(e) => {
            nines::diag!("nines: {e:#}");
            ExitCode::from(nines::check_cmd::EXIT_ERROR)
        }
    }
}

/// `nines compare --fail-on`: 1 when a change fails the gate (each named on stderr), 3 for
/// an error, so a regression and a broken job stay apart.
fn compare_gate(args: &nines::cli::judge::CompareArgs, out: &mut impl Write) -> ExitCode {
    match nines::judge_cmd::compare(args, out).and_then(|f| out.flush().map(|()| f).map_err(Into::into)) {
        Ok(failing) if failing.is_empty() => ExitCode::SUCCESS,
        Ok(failing) => {
            nines::diag!("nines: compare: {} beyond noise: {}", failing.len(), failing.join(", "));
            ExitCode::FAILURE
        }
        Err(e) => {
            nines::diag!("nines: {e:#}");
            ExitCode::from(nines::check_cmd::EXIT_ERROR)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// A command line clap refused. A flag value that does not parse (a size, a duration, a
/// count) is an error of nines like any other, so it starts `nines: ` and names the flag;
/// the rest (help, version, unknown flags) is clap's own output.
fn usage_error(e: clap::Error) -> ExitCode {
    let shown =
        matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand);
    if judging_args() && !shown {
        // a judging command keeps 2 for "cannot tell": a command line it refuses is an error
        let _ = e.print();
        return ExitCode::from(nines::check_cmd::EXIT_ERROR);
    }
    if e.kind() != ErrorKind::ValueValidation {
        e.exit();
    }
    let text = e.render().to_string();
    nines::diag::text(format_args!("nines: {}", text.strip_prefix("error: ").unwrap_or(&text)));
    ExitCode::from(e.exit_code() as u8)
}
