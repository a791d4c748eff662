//! `cargo run -p xtask -- viewer [--debug] [--no-wasm-opt] [--out DIR]`: build the viewer
//! bundle into `target/viewer` (default).

use std::path::PathBuf;

use anyhow::{bail, Result};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(cmd) = args.next() else { bail!("usage: xtask viewer [--debug] [--no-wasm-opt] [--out DIR]") };
    if cmd != "viewer" {
        bail!("unknown command {cmd:?}; usage: xtask viewer [--debug] [--no-wasm-opt] [--out DIR]");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut opts = xtask::Options {
        out: root.join("target/viewer"),
        target_dir: root.join("target"),
        root: root.clone(),
        release: true,
        wasm_opt: true,
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--debug" => opts.release = false,
            "--no-wasm-opt" => opts.wasm_opt = false,
            "--out" => opts.out = PathBuf::from(args.next().unwrap_or_default()),
            other => bail!("unknown flag {other:?}"),
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
