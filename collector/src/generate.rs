//! `nines completions SHELL` and `nines man`: shell completions and manual pages generated
//! from the one clap definition (`cli::Cli`), as ripgrep and hyperfine ship theirs, so they
//! can never disagree with the flags.

use std::io::Write;

use anyhow::{anyhow, Result};
use clap::CommandFactory;

use crate::cli::Cli;

/// Write the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> Result<()> {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "nines", out);
    Ok(())
}

/// Write nines(1), or nines-SUB(1) for `sub`.
pub fn man(sub: Option<&str>, out: &mut impl Write) -> Result<()> {
    let cmd = Cli::command();
    let page = match sub {
        None => cmd,
        Some(name) => {
            let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
            let found = cmd.find_subcommand(name).cloned().ok_or_else(|| {
                anyhow!("nines has no subcommand {name:?}; the pages are nines(1) and nines-SUBCOMMAND(1) for {}", names.join(", "))
            })?;
            // the page's title and its synopsis name the whole command, `nines-run` / `nines run`
            found.name(format!("nines-{name}")).bin_name(format!("nines {name}")).version(env!("NINES_VERSION_LINE"))
        }
    };
    clap_mangen::Man::new(page).render(out)?;
    Ok(())
}
