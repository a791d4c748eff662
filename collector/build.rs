//! Puts the viewer bundle where the `nines` binary embeds it from (`OUT_DIR/viewer`):
//! `nines report` and `nines site` write it out. A plain `cargo build` / `cargo install` is
//! all a user runs; nothing here installs anything or changes the toolchain.
//!
//! Where the bundle comes from, first match wins:
//!
//! 1. `NINES_VIEWER_BUNDLE=DIR`: an already built bundle (e.g. `target/viewer` from
//!    `scripts/build-viewer.sh`).
//! 2. `viewer-dist/`, the bundle `cargo run -p xtask -- dist` built (optimised with wasm-opt)
//!    and recorded the digest of its sources in ([`viewer_sources`]). A package
//!    (`cargo install nines-qos`) carries it and always takes it; a clone takes it while its
//!    sources still have that digest, so a clone's first build compiles no WebAssembly.
//! 3. In a clone whose viewer sources changed: the viewer is built from them by
//!    `cargo run -p xtask -- viewer` in a cargo of its own (own target directory,
//!    `target/nines-viewer-wasm`: a nested cargo sharing the outer build's directory would
//!    wait forever on the outer build's lock). That needs the wasm32-unknown-unknown target,
//!    which rustup installs from `rust-toolchain.toml`; without it the build stops and says
//!    how to add it.
//!
//! It reruns only when the viewer's, the shell's or the analysis core's sources change (or the
//! workspace manifest and lock file, which decide how they build).

use std::path::{Path, PathBuf};

#[path = "viewer_sources.rs"]
mod viewer_sources;

/// Files of a built bundle (as xtask writes them).
const FILES: &[&str] =
    &["index.html", "style.css", "worker.js", "nines_viewer.js", "nines_viewer_bg.wasm", "nines_worker.js", "nines_worker_bg.wasm"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("the package has a parent folder").to_path_buf();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bundle = out_dir.join("viewer");
    let shipped = manifest.join("viewer-dist");
    // a clone has the workspace around the package; an unpacked package has not
    let clone = root.join("xtask/Cargo.toml").is_file() && root.join("viewer/Cargo.toml").is_file();

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=viewer-dist");
    version_line(&root);
    println!("cargo:rerun-if-env-changed=NINES_VIEWER_BUNDLE");
    if clone {
        for p in viewer_sources::INPUTS {
            println!("cargo:rerun-if-changed={}", root.join(p).display());
        }
    }

    if let Some(dir) = std::env::var_os("NINES_VIEWER_BUNDLE").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        if let Err(e) = copy_bundle(&dir, &bundle) {
            fail(&format!("NINES_VIEWER_BUNDLE={}: {e:#}", dir.display()));
        }
        return;
    }

    let recorded = viewer_sources::recorded(&shipped).filter(|_| FILES.iter().all(|f| shipped.join(f).is_file()));
    if !clone {
        match recorded {
            Some(_) => {
                if let Err(e) = copy_bundle(&shipped, &bundle) {
                    fail(&format!("the package's viewer bundle '{}': {e:#}", shipped.display()));
                }
            }
            None => fail(&format!(
                "this package carries no viewer bundle ('{}' is missing or incomplete); packages are made with \
                 `cargo run -p xtask -- dist` before `cargo package`",
                shipped.display()
            )),
        }
        return;
    }
    let digest = viewer_sources::digest(&root).unwrap_or_else(|e| fail(&format!("reading the viewer's sources: {e}")));
    if recorded.as_deref() == Some(digest.as_str()) {
        if let Err(e) = copy_bundle(&shipped, &bundle) {
            fail(&format!("the viewer bundle '{}': {e:#}", shipped.display()));
        }
        return;
    }
    println!(
        "cargo:warning=the viewer's sources differ from those collector/viewer-dist was built from: building the viewer \
         (`cargo run -p xtask -- dist` refreshes viewer-dist)"
    );
    build_from_source(&root, &out_dir, &bundle);
}

/// `cargo run -p xtask -- viewer` into `bundle`, in a cargo of its own.
fn build_from_source(root: &Path, out_dir: &Path, bundle: &Path) {
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
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(root)
        .args(["run", "-q", "-p", "xtask", "--target-dir"])
        .arg(&target_dir)
        .args(["--", "viewer", "--out"])
        .arg(bundle)
        .arg("--target-dir")
        .arg(&target_dir);
    // A wrapper the outer cargo runs rustc through (clippy's driver under `cargo clippy`) and
    // flags for the outer build's target are for the outer build: the viewer is built plainly,
    // so lints do not fail the binary.
    for v in [
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CLIPPY_CONF_DIR",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(v);
    }
    // (its summary line on stdout; cargo shows a build script's stderr when it fails)
    cmd.stderr(std::process::Stdio::inherit());
    match cmd.output() {
        Ok(o) if o.status.success() => {
            for line in String::from_utf8_lossy(&o.stdout).lines().filter(|l| l.contains("not optimised")) {
                println!("cargo:warning={line}");
            }
        }
        Ok(o) => fail(&format!("building the viewer bundle failed ({}); its output is above", o.status)),
        Err(e) => fail(&format!("could not run cargo to build the viewer bundle: {e}")),
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
    for f in FILES {
        std::fs::copy(from.join(f), to.join(f))?;
    }
    Ok(())
}

fn fail(msg: &str) -> ! {
    eprintln!("\nerror: {msg}\n");
    std::process::exit(1);
}
