//! `nines demo`: a short randrw 70/30 collection on a temporary file, then the stats table.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::demo::DemoArgs;
use crate::cli::report::ReportArgs;

/// A new private directory for the demo's target: a name no other user can predict, created
/// exclusively with mode 0700 (mkdtemp(3) semantics, the `tempfile` crate), removed with
/// what is in it when dropped. A directory another user made in advance is never used.
fn work_dir(base: &std::path::Path) -> Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix("nines-demo-");
    if let Some(p) = crate::sys::mode(0o700) {
        b.permissions(p);
    }
    b.tempdir_in(base).with_context(|| format!("could not create a directory in '{}'", base.display()))
}

/// The words as one command line a POSIX shell splits back into them (each quoted where it
/// needs to be: `--notes 'a randrw run ...'`). A word holding a NUL byte, which no command
/// line can, is shown as it is.
fn shell_words(words: &[String]) -> String {
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

pub fn run(a: &DemoArgs, out: &mut impl Write) -> Result<()> {
    let base = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let work = work_dir(&base)?;
    let dir = work.path().to_path_buf();
    let target = dir.join("demo.dat");
    // O_DIRECT does not work on tmpfs; the demo then goes through the page cache.
    let buffered = crate::run::on_tmpfs(&dir);
    let ra = a.run_args(&target, buffered);
    if !a.quiet {
        crate::diag!("nines demo: {}", shell_words(&a.command_line(&target, buffered)[1..]));
    }
    let res = crate::run::collect(&ra.config(&crate::cli::run::Given::default()));
    drop(work);
    let o = res?;
    crate::run::finish(&o, false, out)?;
    writeln!(out, "archive: {} (try `nines stats {}`)", o.output.display(), o.output.display())?;
    // The report beside the archive: what a newcomer opens next.
    let html = o.output.with_file_name("demo.html");
    let report = ReportArgs {
        files: vec![o.output.clone()],
        output: html.clone(),
        title: Some("nines demo".into()),
        notes: None,
        tag: None,
        baseline: Vec::new(),
        sweep: None,
        max_size: None,
        group: None,
        full: false,
        spec: None,
        limit: Vec::new(),
    };
    crate::report::run(&report, out)?;
    writeln!(out, "open {} in a browser", std::fs::canonicalize(&html).unwrap_or(html).display())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn shell_words_split_back_into_the_words() {
        let words: Vec<String> =
            ["run", "--notes", "a demo: 70/30 randrw, QD16 (it's $cheap)", "--target", "/tmp/my dir/demo.dat", "-o", "plain.hlog"]
                .map(String::from)
                .to_vec();
        let line = shell_words(&words);
        assert_eq!(shlex::split(&line), Some(words.clone()), "{line}");
        assert!(line.ends_with(" -o plain.hlog"), "{line}");
    }

    #[test]
    fn the_work_directory_is_new_private_and_unpredictable() {
        let base = tempfile::tempdir().unwrap();
        // what an earlier nines used: another user could make it first
        let planted = base.path().join(format!("nines-demo-{}", std::process::id()));
        std::fs::create_dir(&planted).unwrap();
        let (a, b) = (work_dir(base.path()).unwrap(), work_dir(base.path()).unwrap());
        assert_ne!(a.path(), b.path());
        for d in [a.path(), b.path()] {
            assert_ne!(d, planted);
            assert_eq!(std::fs::metadata(d).unwrap().permissions().mode() & 0o777, 0o700);
        }
        let gone = a.path().to_path_buf();
        drop(a);
        assert!(!gone.exists());
    }
}
