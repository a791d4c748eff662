//! Builds the viewer bundle: `nines-viewer` compiled for `wasm32-unknown-unknown`, bound to
//! JavaScript with wasm-bindgen (in-process, through `wasm-bindgen-cli-support`, so nobody has
//! to install the CLI), optionally shrunk with `wasm-opt`, plus the shell from `static/`.
//!
//! The bundle is a flat directory:
//!
//! ```text
//! index.html          shell (static/index.html)
//! style.css           static/style.css
//! worker.js           static/worker.js (decodes raw runs off the page's thread)
//! nines_viewer.js     wasm-bindgen glue (--target web)
//! nines_viewer_bg.wasm
//! ```
//!
//! A static site serves it as is; a self-contained report inlines the CSS, the glue and the
//! wasm (see [`Bundle`]) and fills `<script type="application/json" id="nines-runs">`.
//! [`build_viewer`] is a library function so that a build script (the `nines` binary's, which
//! embeds the viewer) can call it as well as `cargo xtask`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Files of a built bundle.
pub const FILES: &[&str] = &["index.html", "style.css", "worker.js", "nines_viewer.js", "nines_viewer_bg.wasm"];

/// How to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The workspace root (holds `viewer/` and `static/`).
    pub root: PathBuf,
    /// Where the bundle goes.
    pub out: PathBuf,
    /// Cargo target directory for the wasm build (a separate one avoids deadlocking on the
    /// lock of an outer cargo when called from a build script).
    pub target_dir: PathBuf,
    pub release: bool,
    /// Run `wasm-opt -Oz` when one is found (`tests/browser/node_modules/.bin/wasm-opt` from `npm install` there, or on PATH).
    pub wasm_opt: bool,
}

/// What was built.
#[derive(Clone, Debug)]
pub struct Built {
    pub dir: PathBuf,
    pub wasm_bytes: u64,
    pub optimised: bool,
}

/// The command that adds the missing target, for error messages.
pub const ADD_TARGET: &str = "rustup target add wasm32-unknown-unknown";

/// Is the wasm32 target installed for the toolchain cargo uses?
pub fn wasm_target_installed() -> bool {
    let out = Command::new("rustc").args(["--print", "sysroot"]).output();
    match out {
        Ok(o) if o.status.success() => {
            let sysroot = String::from_utf8_lossy(&o.stdout).trim().to_string();
            Path::new(&sysroot).join("lib/rustlib/wasm32-unknown-unknown/lib").is_dir()
        }
        _ => false,
    }
}

/// Build the viewer bundle.
pub fn build_viewer(opts: &Options) -> Result<Built> {
    if !wasm_target_installed() {
        bail!("the wasm32-unknown-unknown target is not installed; run `{ADD_TARGET}` and build again");
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&opts.root)
        .args(["build", "-p", "nines-viewer", "--lib", "--target", "wasm32-unknown-unknown"])
        .arg("--target-dir")
        .arg(&opts.target_dir);
    if opts.release {
        cmd.arg("--release");
    }
    // Flags meant for the host build (e.g. from an outer cargo) must not leak into wasm.
    for v in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"] {
        cmd.env_remove(v);
    }
    if opts.release {
        // The workspace's release profile suits the CLI (debug info for profiling); the
        // shipped wasm wants no debug info, and size where size is all that matters: the UI
        // crates (leptos, plotters, the viewer) are built for size, the decoding and statistics
        // (nines-core, miniz_oxide, base64) for speed. Thin LTO keeps those levels per crate
        // (fat LTO re-optimises everything at the viewer's level); measured in BENCHMARKS.md:
        // the same decode time as an all-speed build, 441 -> 400 KB of gzipped wasm.
        cmd.args(["--config", "profile.release.opt-level=\"z\""])
            .args(["--config", "profile.release.package.nines-core.opt-level=3"])
            .args(["--config", "profile.release.package.miniz_oxide.opt-level=3"])
            .args(["--config", "profile.release.package.base64.opt-level=3"]);
        cmd.env("CARGO_PROFILE_RELEASE_LTO", "thin")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "0");
    }
    let status = cmd.status().context("could not run cargo to build the viewer for wasm32")?;
    if !status.success() {
        bail!("building nines-viewer for wasm32 failed ({status})");
    }
    let profile = if opts.release { "release" } else { "debug" };
    let wasm = opts.target_dir.join("wasm32-unknown-unknown").join(profile).join("nines_viewer.wasm");
    std::fs::create_dir_all(&opts.out).with_context(|| format!("could not create '{}'", opts.out.display()))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)
        .map_err(|e| anyhow::anyhow!("{e:#}"))?
        .typescript(false)
        .omit_default_module_path(false)
        .debug(!opts.release)
        .generate(&opts.out)
        .map_err(|e| anyhow::anyhow!("wasm-bindgen on '{}': {e:#}", wasm.display()))?;
    let out_wasm = opts.out.join("nines_viewer_bg.wasm");
    let mut optimised = false;
    if opts.wasm_opt {
        if let Some(bin) = find_wasm_opt(&opts.root) {
            let tmp = opts.out.join("nines_viewer_bg.opt.wasm");
            let st = Command::new(&bin)
                .arg("-Oz")
                .arg("--strip-debug")
                .arg("--strip-producers")
                .arg("--enable-bulk-memory")
                .arg("--enable-nontrapping-float-to-int")
                .arg("--enable-sign-ext")
                .arg("--enable-mutable-globals")
                .arg("--enable-reference-types")
                .arg("--enable-multivalue")
                .arg(&out_wasm)
                .arg("-o")
                .arg(&tmp)
                .status();
            if matches!(st, Ok(s) if s.success()) {
                std::fs::rename(&tmp, &out_wasm)?;
                optimised = true;
            } else {
                eprintln!("xtask: warning: wasm-opt failed; keeping the unoptimised wasm");
            }
        }
    }
    for f in ["index.html", "style.css", "worker.js"] {
        let src = opts.root.join("static").join(f);
        std::fs::copy(&src, opts.out.join(f)).with_context(|| format!("could not copy '{}'", src.display()))?;
    }
    let wasm_bytes = std::fs::metadata(&out_wasm)?.len();
    Ok(Built { dir: opts.out.clone(), wasm_bytes, optimised })
}

fn find_wasm_opt(root: &Path) -> Option<PathBuf> {
    for local in ["tests/browser/node_modules/.bin/wasm-opt", "node_modules/.bin/wasm-opt"] {
        let local = root.join(local);
        if local.exists() {
            return Some(local);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("wasm-opt")).find(|p| p.exists())
}

/// A built bundle read into memory, for writers that inline it (reports, sites).
#[derive(Clone, Debug)]
pub struct Bundle {
    pub index_html: String,
    pub style_css: String,
    pub glue_js: String,
    pub wasm: Vec<u8>,
}

impl Bundle {
    pub fn read(dir: &Path) -> Result<Bundle> {
        let rd = |f: &str| std::fs::read(dir.join(f)).with_context(|| format!("could not read '{}'", dir.join(f).display()));
        Ok(Bundle {
            index_html: String::from_utf8(rd("index.html")?)?,
            style_css: String::from_utf8(rd("style.css")?)?,
            glue_js: String::from_utf8(rd("nines_viewer.js")?)?,
            wasm: rd("nines_viewer_bg.wasm")?,
        })
    }
}
