//! `nines demo` flags, and the `nines run` they stand for.

use std::path::{Path, PathBuf};

use clap::Args;
use nines_core::units::{format_duration, format_size, parse_duration_ns, parse_size};

use super::run::{Arrival, EngineKind, RunArgs, Rw};

#[derive(Args, Debug, Clone)]
pub struct DemoArgs {
    /// How long to record, e.g. 10s, 500ms, 1m (a bare number is seconds).
    #[arg(long = "runtime", value_name = "DUR", default_value = "10s", value_parser = parse_duration_ns)]
    pub runtime_ns: u64,
    /// Size of the temporary file, e.g. 256MiB, 1GiB.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
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

/// The demo's notes, kept in the archive.
const NOTES: &str = "nines demo: 4k random 70% reads / 30% writes, QD16, on a temporary file";

impl DemoArgs {
    /// The run the demo does on `target`: 4k randrw 70/30 at QD16 in 1 s windows, through
    /// the page cache when `buffered` (O_DIRECT does not work on tmpfs).
    pub fn run_args(&self, target: &Path, buffered: bool) -> RunArgs {
        RunArgs {
            target: target.to_path_buf(),
            output: self.output.clone(),
            rw: Rw::Randrw,
            mix: Some(70),
            bs: 4096,
            bssplit: None,
            qd: 16,
            submit_batch: 1,
            jobs: 1,
            size: Some(self.size),
            runtime_ns: Some(self.runtime_ns),
            ios: None,
            ramp_ns: 0,
            start_at: None,
            direct: false,
            buffered,
            sync: false,
            fsync_every: None,
            rate_iops: None,
            arrival: Arrival::Poisson,
            window_ns: 1_000_000_000,
            window_ios: None,
            steady: None,
            steady_window_ns: 30_000_000_000,
            name: Some("demo".into()),
            notes: Some(NOTES.into()),
            seed: None,
            engine: if cfg!(target_os = "linux") { EngineKind::Uring } else { EngineKind::Psync },
            raw_log: None,
            quiet: self.quiet,
            no_summary: false,
            overwrite: false,
            destroy_data: None,
            ignore_signatures: false,
            force: true,
            no_record: false,
            no_context: false,
            live: false,
            serve: Default::default(),
            job_file: None,
            section: None,
            random_distribution: None,
            more: Default::default(),
        }
    }

    /// [`DemoArgs::run_args`] as a `nines run` command line, for showing what the demo does.
    pub fn command_line(&self, target: &Path, buffered: bool) -> Vec<String> {
        let mut v: Vec<String> = [
            "nines", "run", "--rw", "randrw", "--mix", "70", "--bs", "4k", "--qd", "16", "--window", "1s", "--name", "demo", "--notes",
            NOTES, "--force",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(["--runtime".into(), format_duration(self.runtime_ns), "--size".into(), format_size(self.size)]);
        v.extend(["--target".into(), target.display().to_string(), "-o".into(), self.output.display().to_string()]);
        if buffered {
            v.push("--buffered".into());
        }
        if self.quiet {
            v.push("--quiet".into());
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    fn demo(args: &[&str]) -> DemoArgs {
        let mut v = vec!["nines", "demo"];
        v.extend_from_slice(args);
        let Cmd::Demo(d) = Cli::try_parse_from(v).unwrap().cmd else { panic!("not demo") };
        d
    }

    #[test]
    fn demo_flags() {
        let d = demo(&["--runtime", "2s", "-o", "d.hlog"]);
        assert_eq!((d.runtime_ns, d.size, &d.output), (2_000_000_000, 256 << 20, &PathBuf::from("d.hlog")));
        let r = d.run_args(Path::new("/tmp/x/demo.dat"), true);
        assert_eq!(r.mix, Some(70));
        assert!(r.buffered);
        assert_eq!(r.output, PathBuf::from("d.hlog"));
        assert!(Cli::try_parse_from(["nines", "demo", "--size", "big"]).is_err());
    }

    #[test]
    fn the_command_line_shown_is_the_run_done() {
        for (args, buffered) in
            [(&["--runtime", "2s", "-o", "d.hlog"][..], true), (&["--quiet", "--size", "8MiB", "--runtime", "1500ms"][..], false)]
        {
            let d = demo(args);
            let target = Path::new("/tmp/x/demo.dat");
            let Cmd::Run(r) = Cli::try_parse_from(d.command_line(target, buffered)).unwrap().cmd else { panic!("not run") };
            assert_eq!(*r, d.run_args(target, buffered), "{args:?}");
        }
    }
}
