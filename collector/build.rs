//! Builds the viewer bundle (nines-viewer for wasm32, wasm-bindgen in-process, wasm-opt when
//! present) so that the `nines` binary carries it: `nines report` and `nines site` write it
//! out. A plain `cargo build` / `cargo install --path collector` is all a newcomer runs.
//!
//! The wasm build uses its own target directory (`target/nines-viewer-wasm`): a nested cargo
//! sharing the outer build's directory would wait forever on the outer build's lock.
//! It reruns only when the viewer's, the shell's or the analysis core's sources change (or the
//! workspace manifest and lock file, which decide how they build).
//!
//! `NINES_VIEWER_BUNDLE=DIR` takes an already built bundle (e.g. `target/viewer` from
//! `scripts/build-viewer.sh`) instead of building one.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("collector/ lives in the workspace").to_path_buf();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bundle = out_dir.join("viewer");

    println!("cargo:rerun-if-changed=build.rs");
    version_line(&root);
    println!("cargo:rerun-if-env-changed=NINES_VIEWER_BUNDLE");
    for p in [
        "viewer/src",
        "viewer/Cargo.toml",
        "worker/src",
        "worker/Cargo.toml",
        "static",
        "shared/src",
        "shared/Cargo.toml",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }

    if let Some(dir) = std::env::var_os("NINES_VIEWER_BUNDLE").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        if let Err(e) = copy_bundle(&dir, &bundle) {
            fail(&format!("NINES_VIEWER_BUNDLE={}: {e:#}", dir.display()));
        }
        return;
    }

    // rustup installs a rust-toolchain.toml's targets on demand only where auto-install is
    // on (it is off with RUSTUP_AUTO_INSTALL=0): add the target here, saying so.
    if let Err(e) = xtask::ensure_wasm_target(|line| println!("cargo:warning={line}")) {
        fail(&format!(
            "the nines binary carries the viewer, which is built for WebAssembly, and the \
             wasm32-unknown-unknown target could not be made ready: {e:#}\n\nRun:\n\n    {}\n\nthen build again.",
            xtask::ADD_TARGET
        ));
    }
    // A wrapper the outer cargo runs rustc through (clippy's driver under `cargo clippy`) is
    // for the outer build: the viewer is built plainly, so lints do not fail the binary.
    for v in ["RUSTC_WORKSPACE_WRAPPER", "CLIPPY_ARGS", "CLIPPY_CONF_DIR"] {
        std::env::remove_var(v);
    }
    // <target>/<profile>/build/nines-<hash>/out -> <target>, and with --target TRIPLE (a
    // static musl build, `cargo check --target x86_64-apple-darwin`) <target>/TRIPLE/<profile>/...
    // -> <target> too: the bundle is WebAssembly whatever the binary's target, so every target's
    // build shares one viewer build instead of starting its own.
    let triple = std::env::var_os("TARGET").unwrap_or_default();
    let mut target_root = out_dir.ancestors().nth(4);
    if target_root.is_some_and(|t| t.file_name() == Some(triple.as_os_str())) {
        target_root = target_root.and_then(Path::parent);
    }
    let target_dir = target_root.map_or_else(|| out_dir.join("wasm"), |t| t.join("nines-viewer-wasm"));
    let opts = xtask::Options { root: root.clone(), out: bundle, target_dir, release: true, wasm_opt: true };
    match xtask::build_viewer(&opts) {
        Ok(b) if !b.optimised => println!(
            "cargo:warning=viewer wasm not shrunk by wasm-opt ({} bytes); `npm install` in tests/browser (or wasm-opt on PATH) makes reports smaller",
            b.wasm_bytes
        ),
        Ok(_) => {}
        Err(e) => fail(&format!("building the viewer bundle failed: {e:#}")),
    }
}

/// `nines --version`: the package version, and in a git clone the commit it was built from
/// (as ripgrep and hyperfine print theirs), so a report of a bug names exactly what ran. A
/// build from a crate package has no git directory and prints the version alone.
fn version_line(root: &Path) {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let line = match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(commit) => format!("{version} (commit {commit})"),
        None => version,
    };
    println!("cargo:rustc-env=NINES_VERSION_LINE={line}");
    // a new commit or checkout changes HEAD or the ref it names
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let dir = PathBuf::from(dir);
        println!("cargo:rerun-if-changed={}", dir.join("HEAD").display());
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]).map_or(dir.clone(), PathBuf::from);
            println!("cargo:rerun-if-changed={}", common.join(r).display());
            println!("cargo:rerun-if-changed={}", common.join("packed-refs").display());
        }
    }
}

fn copy_bundle(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for f in xtask::FILES {
        std::fs::copy(from.join(f), to.join(f))?;
    }
    Ok(())
}

fn fail(msg: &str) -> ! {
    eprintln!("\nerror: {msg}\n");
    std::process::exit(1);
}
