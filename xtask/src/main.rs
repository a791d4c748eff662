//! `cargo run -p xtask -- viewer [--debug] [--no-wasm-opt] [--out DIR] [--target-dir DIR]`:
//! build the viewer bundle into `target/viewer` (default).
//!
//! `cargo run -p xtask -- dist`: build the optimised bundle and ship it in
//! `collector/viewer-dist/` with the digest of its sources (`SOURCES`): what a package of
//! `nines-qos` carries and a clone's build takes while its sources are unchanged.
//! `dist --check [--built DIR]`: fail when the shipped bundle was not built from the
//! checkout's sources, or (with a bundle just built from them, by the same rustc) when its
//! bytes differ from that build's.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

#[path = "../../collector/viewer_sources.rs"]
mod viewer_sources;

const USAGE: &str =
    "usage: xtask viewer [--debug] [--no-wasm-opt] [--out DIR] [--target-dir DIR]\n       xtask dist [--check [--built DIR]]";

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    match args.next().as_deref() {
        Some("viewer") => viewer(&root, args),
        Some("dist") => dist(&root, args),
        Some(other) => bail!("unknown command {other:?}\n{USAGE}"),
        None => bail!("{USAGE}"),
    }
}

fn viewer(root: &Path, mut args: impl Iterator<Item = String>) -> Result<()> {
    let mut opts = xtask::Options {
        out: root.join("target/viewer"),
        target_dir: root.join("target"),
        root: root.to_path_buf(),
        release: true,
        wasm_opt: true,
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--debug" => opts.release = false,
            "--no-wasm-opt" => opts.wasm_opt = false,
            "--out" => opts.out = PathBuf::from(args.next().unwrap_or_default()),
            "--target-dir" => opts.target_dir = PathBuf::from(args.next().unwrap_or_default()),
            other => bail!("unknown flag {other:?}\n{USAGE}"),
        }
    }
    let built = xtask::build_viewer(&opts)?;
    println!(
        "viewer bundle: {} (wasm {} bytes{})",
        built.dir.display(),
        built.wasm_bytes,
        if built.optimised {
            ", wasm-opt -Oz"
        } else {
            ", not optimised: run scripts/setup.sh (npm install in tests/browser brings binaryen's wasm-opt)"
        }
    );
    Ok(())
}

fn dist(root: &Path, mut args: impl Iterator<Item = String>) -> Result<()> {
    let dist = root.join("collector/viewer-dist");
    let (mut check, mut built) = (false, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--check" => check = true,
            "--built" => built = Some(PathBuf::from(args.next().unwrap_or_default())),
            other => bail!("unknown flag {other:?}\n{USAGE}"),
        }
    }
    let digest = viewer_sources::digest(root).context("reading the viewer's sources")?;
    if check {
        return check_dist(&dist, &digest, built.as_deref());
    }
    let opts = xtask::Options {
        out: root.join("target/viewer"),
        target_dir: root.join("target"),
        root: root.to_path_buf(),
        release: true,
        wasm_opt: true,
    };
    let b = xtask::build_viewer(&opts)?;
    if !b.optimised {
        bail!("the shipped viewer is optimised with binaryen's wasm-opt, which was not found: run scripts/setup.sh (npm install in tests/browser) or put wasm-opt on PATH");
    }
    std::fs::create_dir_all(&dist)?;
    for f in xtask::FILES {
        std::fs::copy(opts.out.join(f), dist.join(f)).with_context(|| format!("could not copy {f} into '{}'", dist.display()))?;
    }
    let record = format!("sources {digest}\nrustc {}\nwasm-opt {}\n", version("rustc", root), version(&wasm_opt_name(root), root));
    std::fs::write(dist.join(viewer_sources::RECORD), record)?;
    println!("shipped viewer bundle: {} (wasm {} bytes, sources {})", dist.display(), b.wasm_bytes, &digest[..12]);
    Ok(())
}

/// The shipped bundle against the checkout: its recorded digest, and its bytes against `built`.
fn check_dist(dist: &Path, digest: &str, built: Option<&Path>) -> Result<()> {
    let Some(recorded) = viewer_sources::recorded(dist) else {
        bail!("'{}' has no {} record: run `cargo run -p xtask -- dist`", dist.display(), viewer_sources::RECORD)
    };
    if recorded != digest {
        bail!(
            "the shipped viewer bundle '{}' was built from other sources (recorded {}, the checkout's {}): run \
             `cargo run -p xtask -- dist` and commit collector/viewer-dist",
            dist.display(),
            &recorded[..recorded.len().min(12)],
            &digest[..12]
        );
    }
    println!("shipped viewer bundle: built from these sources ({})", &digest[..12]);
    let Some(built) = built else { return Ok(()) };
    let record = std::fs::read_to_string(dist.join(viewer_sources::RECORD))?;
    let rustc = version("rustc", dist);
    // the same sources give the same bytes only through the same compiler and optimiser
    let root = dist.parent().and_then(Path::parent).unwrap_or(dist);
    let opt = version(&wasm_opt_name(root), root);
    for tool in [format!("rustc {rustc}"), format!("wasm-opt {opt}")] {
        if !record.lines().any(|l| l == tool) {
            println!("shipped viewer bundle: recorded with another tool than {tool}; bytes not compared");
            return Ok(());
        }
    }
    let mut differ = Vec::new();
    for f in xtask::FILES {
        let a = std::fs::read(dist.join(f)).with_context(|| format!("'{}'", dist.join(f).display()))?;
        let b = std::fs::read(built.join(f)).with_context(|| format!("'{}'", built.join(f).display()))?;
        if a != b {
            differ.push(format!("{f} ({} bytes shipped, {} built)", a.len(), b.len()));
        }
    }
    if !differ.is_empty() {
        bail!("the shipped viewer bundle differs from the one built from these sources in '{}': {}", built.display(), differ.join(", "));
    }
    println!("shipped viewer bundle: byte for byte the bundle built in '{}'", built.display());
    Ok(())
}

fn wasm_opt_name(root: &Path) -> String {
    xtask::find_wasm_opt(root).map_or_else(|| "wasm-opt".into(), |p| p.display().to_string())
}

/// `program --version`'s first line, or "unknown".
fn version(program: &str, dir: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}
