//! `nines view` flags, and the server flags `nines run --live` shares with it.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone, PartialEq)]
pub struct ViewArgs {
    /// Runs to show: nines archives and every format `nines stats` reads, or a site's
    /// directory (`nines site`'s output: the runs its manifest lists).
    #[arg(required = true, value_name = "FILE|SITE")]
    pub files: Vec<PathBuf>,
    /// Follow the files as another process writes them (`nines run -o`, an HdrHistogram
    /// interval log being logged): the page draws each new window as it lands, and
    /// /metrics gives the last window's levels.
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub serve: ServeFlags,
}

/// Where and how the page is served.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct ServeFlags {
    /// Print the URL instead of opening it in the default browser (nines also prints it
    /// when there is no $BROWSER and no display).
    #[arg(long)]
    pub no_open: bool,
    /// Listen on this address (IP, or IP:PORT) instead of 127.0.0.1 on a free port. Any
    /// address other than loopback exposes the runs to whoever can reach it and has the URL
    /// (its token).
    #[arg(long, value_name = "ADDR", value_parser = parse_bind)]
    pub bind: Option<SocketAddr>,
}

/// `--bind`: `IP:PORT`, `[IPv6]:PORT`, or an IP alone (a free port).
pub fn parse_bind(s: &str) -> Result<SocketAddr, String> {
    let t = s.trim();
    if let Ok(a) = t.parse::<SocketAddr>() {
        return Ok(a);
    }
    let ip = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')).unwrap_or(t);
    ip.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 0)).map_err(|_| {
        format!("{s:?} is not an address to listen on; give an IP (127.0.0.1, 0.0.0.0, ::1) or IP:PORT (0.0.0.0:8080, [::]:8080)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Cmd};
    use clap::Parser;

    #[test]
    fn view_flags() {
        let cli = Cli::try_parse_from(["nines", "view", "a.hlog", "b.log", "--no-open"]).unwrap();
        let Cmd::View(a) = cli.cmd else { panic!("not view") };
        assert_eq!(a.files.len(), 2);
        assert!(a.serve.no_open && !a.follow && a.serve.bind.is_none());
        let cli = Cli::try_parse_from(["nines", "view", "--follow", "a.hlog", "--bind", "0.0.0.0:8080"]).unwrap();
        let Cmd::View(a) = cli.cmd else { panic!("not view") };
        assert!(a.follow);
        assert_eq!(a.serve.bind, Some("0.0.0.0:8080".parse().unwrap()));
        assert!(Cli::try_parse_from(["nines", "view"]).is_err());
        assert!(Cli::try_parse_from(["nines", "view", "a.hlog", "--bind", "everywhere"]).is_err());
    }

    #[test]
    fn bind_addresses() {
        assert_eq!(parse_bind("127.0.0.1").unwrap(), "127.0.0.1:0".parse().unwrap());
        assert_eq!(parse_bind("::1").unwrap(), "[::1]:0".parse().unwrap());
        assert_eq!(parse_bind("[::]").unwrap(), "[::]:0".parse().unwrap());
        assert_eq!(parse_bind("[::]:9000").unwrap(), "[::]:9000".parse().unwrap());
        assert_eq!(parse_bind("10.0.0.1:80").unwrap(), "10.0.0.1:80".parse().unwrap());
        let e = parse_bind("localhost:80").unwrap_err();
        assert!(e.contains("not an address"), "{e}");
    }
}
