//! `nines demo`: a short randrw 70/30 collection on a temporary file, then the stats table.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Parser};
use nines_core::units::{format_duration, format_size};

use crate::cli::{Cli, Cmd};

#[derive(Args, Debug, Clone)]
pub struct DemoArgs {
    /// How long to record, e.g. 10s, 500ms, 1m (a bare number is seconds).
    #[arg(long = "runtime", value_name = "DUR", default_value = "10s", value_parser = nines_core::units::parse_duration_ns)]
    pub runtime_ns: u64,
    /// Size of the temporary file, e.g. 256MiB, 1GiB.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = nines_core::units::parse_size)]
    pub size: u64,
    /// Directory for the temporary file [default: the system's temporary directory].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Archive to write (replaced if it exists).
    #[arg(short = 'o', long = "output", value_name = "RUN.hlog", default_value = "nines-demo.hlog")]
    pub output: PathBuf,
    /// No progress line.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The `nines run` command line the demo runs, on `target`.
pub fn run_command(a: &DemoArgs, target: &std::path::Path, buffered: bool) -> Vec<String> {
    let mut v: Vec<String> = [
        "nines",
        "run",
        "--rw",
        "randrw",
        "--mix",
        "70",
        "--bs",
        "4k",
        "--qd",
        "16",
        "--window",
        "1s",
        "--name",
        "demo",
        "--notes",
        "nines demo: 4k random 70% reads / 30% writes, QD16, on a temporary file",
        "--force",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(["--runtime".into(), format_duration(a.runtime_ns), "--size".into(), format_size(a.size)]);
    v.extend(["--target".into(), target.display().to_string(), "-o".into(), a.output.display().to_string()]);
    if buffered {
        v.push("--buffered".into());
    }
    if a.quiet {
        v.push("--quiet".into());
    }
    v
}

pub fn run(a: &DemoArgs, out: &mut impl Write) -> Result<()> {
    let base = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("nines-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create '{}'", dir.display()))?;
    let target = dir.join("demo.dat");
    // O_DIRECT does not work on tmpfs; the demo then goes through the page cache.
    let buffered = crate::run::on_tmpfs(&dir);
    let argv = run_command(a, &target, buffered);
    let cli = Cli::try_parse_from(&argv).context("internal: demo command line")?;
    let Cmd::Run(ra) = cli.cmd else { unreachable!("demo builds a run command") };
    if !a.quiet {
        eprintln!("nines demo: {}", argv[1..].join(" "));
    }
    let res = crate::run::collect(&ra);
    let _ = std::fs::remove_dir_all(&dir);
    let o = res?;
    crate::run::finish(&o, false, out)?;
    writeln!(out, "archive: {} (try `nines stats {}`)", o.output.display(), o.output.display())?;
    // The report beside the archive: what a newcomer opens next.
    let html = o.output.with_file_name("demo.html");
    let report = crate::report::ReportArgs {
        files: vec![o.output.clone()],
        output: html.clone(),
        title: Some("nines demo".into()),
        notes: None,
        tag: None,
        baseline: Vec::new(),
        sweep: None,
    };
    crate::report::run(&report, out)?;
    writeln!(out, "open {} in a browser", std::fs::canonicalize(&html).unwrap_or(html).display())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_flags_build_a_valid_run() {
        let cli = Cli::try_parse_from(["nines", "demo", "--runtime", "2s", "-o", "d.hlog"]).unwrap();
        let Cmd::Demo(d) = cli.cmd else { panic!("not demo") };
        assert_eq!(d.runtime_ns, 2_000_000_000);
        let argv = run_command(&d, std::path::Path::new("/tmp/x/demo.dat"), true);
        let Cmd::Run(r) = Cli::try_parse_from(&argv).unwrap().cmd else { panic!("not run") };
        assert_eq!(r.mix, Some(70));
        assert!(r.buffered);
        assert_eq!(r.output, PathBuf::from("d.hlog"));
    }
}
