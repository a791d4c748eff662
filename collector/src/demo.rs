//! `nines demo`: a short randrw 70/30 collection on a temporary file, then the stats table.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::demo::DemoArgs;
use crate::cli::report::ReportArgs;

pub fn run(a: &DemoArgs, out: &mut impl Write) -> Result<()> {
    let base = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("nines-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create '{}'", dir.display()))?;
    let target = dir.join("demo.dat");
    // O_DIRECT does not work on tmpfs; the demo then goes through the page cache.
    let buffered = crate::run::on_tmpfs(&dir);
    let ra = a.run_args(&target, buffered);
    if !a.quiet {
        crate::diag!("nines demo: {}", a.command_line(&target, buffered)[1..].join(" "));
    }
    let res = crate::run::collect(&ra);
    let _ = std::fs::remove_dir_all(&dir);
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
