//! Which part of the runs a command looks at: `--tag`, `--from`, `--to` (`stats`, `compare`).

use std::fmt;

use clap::Args;

/// Which part of the runs a command looks at (`stats`, `compare`).
#[derive(Args, Debug)]
pub struct Selection {
    /// Only this tag (direction), e.g. `read`; the `all` row is then left out.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// Only windows starting at or after this time from the run's start, e.g. 10s, 1m (a
    /// bare number is seconds).
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub from: Option<f64>,
    /// Only windows starting before this time from the run's start, e.g. 20s, 2m (a bare
    /// number is seconds).
    #[arg(long, value_name = "DUR", value_parser = nines_core::units::parse_duration_s)]
    pub to: Option<f64>,
}

impl Selection {
    /// The stats options for this selection; an empty range is an error.
    pub fn options(&self) -> Result<nines_core::stats::Options, EmptyRange> {
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if to <= from {
                return Err(EmptyRange { from, to });
            }
        }
        Ok(nines_core::stats::Options { tag: self.tag.clone(), from: self.from, to: self.to, ..Default::default() })
    }
}

/// `--to` is not later than `--from`: no window can be selected. Give a later `--to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmptyRange {
    pub from: f64,
    pub to: f64,
}

impl fmt::Display for EmptyRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--to {} must be later than --from {}", self.to, self.from)
    }
}

impl std::error::Error for EmptyRange {}
