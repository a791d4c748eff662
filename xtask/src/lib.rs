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
//! nines_worker.js     the workers' module (nines-worker), glue
//! nines_worker_bg.wasm
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
pub const FILES: &[&str] =
    &["index.html", "style.css", "worker.js", "nines_viewer.js", "nines_viewer_bg.wasm", "nines_worker.js", "nines_worker_bg.wasm"];

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

/// The target the viewer is built for.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// The rustc cargo uses: `RUSTC` (cargo sets it for build scripts), else `rustc` on PATH.
fn rustc() -> std::ffi::OsString {
    std::env::var_os("RUSTC").filter(|r| !r.is_empty()).unwrap_or_else(|| "rustc".into())
}

/// The sysroot of the rustc cargo uses.
fn sysroot() -> Option<PathBuf> {
    let o = Command::new(rustc()).args(["--print", "sysroot"]).output().ok()?;
    o.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
}

/// Is the wasm32 target installed in this sysroot?
fn target_in(sysroot: &Path) -> bool {
    sysroot.join("lib/rustlib").join(WASM_TARGET).join("lib").is_dir()
}

/// Is the wasm32 target installed for the toolchain cargo uses?
pub fn wasm_target_installed() -> bool {
    sysroot().is_some_and(|s| target_in(&s))
}

/// What decides how a missing wasm32 target can be added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TargetEnv {
    /// The target is in the sysroot of the rustc cargo uses.
    pub installed: bool,
    /// `RUSTUP_TOOLCHAIN`: rustup's proxies set it to the toolchain they run (a name, or the
    /// path of a custom toolchain).
    pub rustup_toolchain: Option<String>,
    /// The sysroot of the rustc cargo uses; a rustup toolchain lives in
    /// `$RUSTUP_HOME/toolchains/<name>`.
    pub sysroot: Option<PathBuf>,
    /// A `rustup` program: on PATH, else in `$CARGO_HOME/bin`.
    pub rustup: Option<PathBuf>,
}

impl TargetEnv {
    /// This process's environment.
    pub fn current() -> TargetEnv {
        let sysroot = sysroot();
        let exe = |d: &Path| Some(d.join("rustup")).filter(|p| p.is_file());
        let on_path = std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).find_map(|d| exe(&d)));
        let in_cargo_home = || std::env::var_os("CARGO_HOME").and_then(|h| exe(&Path::new(&h).join("bin")));
        TargetEnv {
            installed: sysroot.as_deref().is_some_and(target_in),
            rustup_toolchain: std::env::var("RUSTUP_TOOLCHAIN").ok().filter(|t| !t.is_empty()),
            sysroot,
            rustup: on_path.or_else(in_cargo_home),
        }
    }
}

/// What is to be done about the wasm32 target (by the user: nothing here runs it).
#[derive(Clone, Debug, PartialEq)]
pub enum TargetPlan {
    /// Installed: nothing to run (the offline case).
    Ready,
    /// Missing, and rustup can add it to the toolchain cargo uses with `program args`.
    Add { program: PathBuf, args: Vec<String> },
    /// Missing, and nothing here can add it: why, and what to do.
    Missing(String),
}

/// Decide how to get the wasm32 target: nothing when it is installed; `rustup target add
/// wasm32-unknown-unknown --toolchain <t>` when rustup is there and the toolchain cargo uses is
/// known (`RUSTUP_TOOLCHAIN`, else the name of a sysroot under rustup's `toolchains/`);
/// otherwise an explanation. The toolchain is always named: `rustup target add` alone would
/// add the target to rustup's default toolchain, which need not be the one building.
pub fn plan_target(env: &TargetEnv) -> TargetPlan {
    if env.installed {
        return TargetPlan::Ready;
    }
    let from_sysroot = || {
        let s = env.sysroot.as_deref()?;
        let parent = s.parent()?;
        (parent.file_name()? == "toolchains").then(|| s.file_name().map(|n| n.to_string_lossy().into_owned()))?
    };
    let toolchain = env.rustup_toolchain.clone().or_else(from_sysroot);
    match (&env.rustup, toolchain) {
        (Some(rustup), Some(t)) => {
            TargetPlan::Add { program: rustup.clone(), args: ["target", "add", WASM_TARGET, "--toolchain", &t].map(String::from).to_vec() }
        }
        (None, _) => TargetPlan::Missing(format!(
            "the {WASM_TARGET} target is not installed and rustup was not found (not on PATH nor in $CARGO_HOME/bin); \
             install the target for your Rust toolchain (with rustup: `{ADD_TARGET}`)"
        )),
        (Some(_), None) => TargetPlan::Missing(format!(
            "the {WASM_TARGET} target is not installed, and the rustc cargo uses (sysroot {}) is not a rustup toolchain, \
             so rustup cannot add it; install the target for that toolchain, or build with a rustup toolchain (`{ADD_TARGET}`)",
            env.sysroot.as_ref().map_or_else(|| "unknown".to_string(), |s| format!("'{}'", s.display()))
        )),
    }
}

/// Check that the wasm32 target is installed for the toolchain cargo uses. Nothing is
/// installed here: a build does not change the user's toolchain. In a clone, rustup installs
/// the target `rust-toolchain.toml` names when it first runs the toolchain (unless its
/// auto-install is off, `RUSTUP_AUTO_INSTALL=0`); otherwise the error names the exact
/// command for the toolchain that builds.
pub fn check_wasm_target() -> Result<()> {
    match plan_target(&TargetEnv::current()) {
        TargetPlan::Ready => Ok(()),
        TargetPlan::Missing(why) => bail!("{why}"),
        TargetPlan::Add { program, args } => bail!(
            "the viewer is built for WebAssembly and the {WASM_TARGET} target is not installed for the toolchain building; \
             add it with\n\n    {} {}\n\nand build again",
            program.display(),
            args.join(" ")
        ),
    }
}

/// Build the viewer bundle.
pub fn build_viewer(opts: &Options) -> Result<Built> {
    check_wasm_target()?;
    // The page's module: the UI crates (leptos, plotters, the viewer) and nines-core are
    // built for size ("z"); the inflating and base64 (miniz_oxide, base64) at "s" (at 3
    // they were about 1 KB larger gzipped, at "z" 440 bytes larger than at "s"; since a
    // site's page reads only the bytes before the groups, the page inflates half as much).
    // nines-core at "z" instead of 2: 557,844 -> 502,216 bytes of gzipped wasm, and 20
    // one-hour archives given to the page's workers took a median 0.70 s a file against
    // 0.60 s at level 2 (this VM's noise is of that order; BENCHMARKS.md, the viewer). The
    // workers no longer run this module (see below), only a page that cannot start them.
    // zmij (serde_json's float printer) at "s": it then computes its powers of ten instead
    // of carrying a 9.9 KB table of them (it checks `cfg!(opt_level = "s")`, not "z"): 961
    // bytes less gzipped. The page prints floats as JSON only in test hooks and spec checks.
    let page_levels = [
        "profile.release.opt-level=\"z\"",
        "profile.release.package.nines-core.opt-level=\"z\"",
        "profile.release.package.miniz_oxide.opt-level=\"s\"",
        "profile.release.package.base64.opt-level=\"s\"",
        "profile.release.package.zmij.opt-level=\"s\"",
    ];
    let wasm = cargo_wasm(opts, "nines-viewer", &page_levels, &[])?;
    std::fs::create_dir_all(&opts.out).with_context(|| format!("could not create '{}'", opts.out.display()))?;
    bindgen(opts, &wasm)?;
    let out_wasm = opts.out.join("nines_viewer_bg.wasm");
    // -Oz, and the passes run until the module stops shrinking: 1.4 KB less gzipped.
    // --low-memory-unused: binaryen may assume the first 1024 bytes of linear memory are
    // never accessed, and folds constant offsets into addresses where that lets it. In
    // Rust's wasm32 layout the shadow stack is at the bottom of memory, growing down from
    // 1 MiB, so those addresses are only reached when the stack overflows. 513,290 ->
    // 509,169 bytes gzipped (-9). Fat LTO instead of thin was 335 bytes larger.
    let optimised = opts.wasm_opt && wasm_opt(opts, &out_wasm, &["-Oz", "--converge", "--low-memory-unused"]);
    // The workers' module (nines-worker: nines-core's summarise and nothing else), built
    // for speed: it is all a worker runs, and the page's size budget does not carry it.
    // With 128-bit SIMD (Chromium 91, Firefox 89 and Safari 16.4 have it): one-hour archives
    // summarised in Node, 3 rounds alternating, medians 377, 263 and 366 ms a file against
    // 387, 336 and 406 without (about 0.9x; this VM's noise is of that order).
    let wasm = cargo_wasm(opts, "nines-worker", &["profile.release.opt-level=3"], &["-Ctarget-feature=+simd128"])?;
    bindgen(opts, &wasm)?;
    if opts.wasm_opt {
        wasm_opt(opts, &opts.out.join("nines_worker_bg.wasm"), &["-O3"]);
    }
    for f in ["index.html", "style.css", "worker.js"] {
        let src = opts.root.join("static").join(f);
        std::fs::copy(&src, opts.out.join(f)).with_context(|| format!("could not copy '{}'", src.display()))?;
    }
    let wasm_bytes = std::fs::metadata(&out_wasm)?.len();
    Ok(Built { dir: opts.out.clone(), wasm_bytes, optimised })
}

/// Build `package`'s library for wasm32 with the release profile's `levels` (`--config`
/// settings) and `rustflags` added, returning the path of its `.wasm`.
fn cargo_wasm(opts: &Options, package: &str, levels: &[&str], rustflags: &[&str]) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&opts.root).args(["build", "-p", package, "--lib", "--target", WASM_TARGET]).arg("--target-dir").arg(&opts.target_dir);
    // Flags meant for the host build (e.g. from an outer cargo) must not leak into wasm.
    for v in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"] {
        cmd.env_remove(v);
    }
    if opts.release {
        cmd.arg("--release");
        for l in levels {
            cmd.args(["--config", l]);
        }
        // Panic messages carry their source file's path; shipped wasm needs no machine's
        // prefix (this checkout, cargo's registry folders) in it.
        let mut flags: Vec<String> =
            remapped_prefixes(&opts.root).iter().map(|p| format!("--remap-path-prefix={}=", p.display())).collect();
        flags.extend(rustflags.iter().map(|f| f.to_string()));
        cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
        // The workspace's release profile suits the CLI (debug info for profiling); shipped
        // wasm wants no debug info. Thin LTO keeps the levels per crate (fat LTO
        // re-optimises everything at the top crate's level).
        cmd.env("CARGO_PROFILE_RELEASE_LTO", "thin")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "0");
    }
    let status = cmd.status().with_context(|| format!("could not run cargo to build {package} for wasm32"))?;
    if !status.success() {
        bail!("building {package} for wasm32 failed ({status})");
    }
    let profile = if opts.release { "release" } else { "debug" };
    Ok(opts.target_dir.join(WASM_TARGET).join(profile).join(format!("{}.wasm", package.replace('-', "_"))))
}

/// The folders whose paths `--remap-path-prefix` drops from shipped wasm: the checkout and each
/// registry source folder of cargo's home (`$CARGO_HOME`, else `~/.cargo`).
fn remapped_prefixes(root: &Path) -> Vec<PathBuf> {
    let home =
        std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let registries = home.map(|h| h.join("registry").join("src")).and_then(|d| std::fs::read_dir(d).ok());
    let mut out: Vec<PathBuf> = registries.into_iter().flatten().flatten().map(|e| e.path()).collect();
    out.sort();
    // a path remapped to nothing keeps its leading separator: drop it with the prefix
    out.push(root.to_path_buf());
    out.into_iter().map(|p| p.join("")).collect()
}

/// wasm-bindgen's `--target web` glue and module for `wasm`, into the bundle.
fn bindgen(opts: &Options, wasm: &Path) -> Result<()> {
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(wasm)
        .web(true)
        .map_err(|e| anyhow::anyhow!("{e:#}"))?
        .typescript(false)
        .omit_default_module_path(false)
        .debug(!opts.release)
        .generate(&opts.out)
        .map_err(|e| anyhow::anyhow!("wasm-bindgen on '{}': {e:#}", wasm.display()))
}

/// Run wasm-opt with `passes` on `wasm` in place, when one is found; whether it ran.
fn wasm_opt(opts: &Options, wasm: &Path, passes: &[&str]) -> bool {
    let Some(bin) = find_wasm_opt(&opts.root) else { return false };
    let tmp = wasm.with_extension("opt.wasm");
    let st = Command::new(&bin)
        .args(passes)
        // the target-features section only tells linkers which features the code uses;
        // browsers ignore it (about 120 bytes gzipped)
        .args(["--strip-debug", "--strip-producers", "--strip-target-features"])
        .args(["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"])
        .args(["--enable-reference-types", "--enable-multivalue"])
        .arg(wasm)
        .arg("-o")
        .arg(&tmp)
        .status();
    if matches!(st, Ok(s) if s.success()) && std::fs::rename(&tmp, wasm).is_ok() {
        return true;
    }
    eprintln!("xtask: warning: wasm-opt failed on '{}'; keeping it unoptimised", wasm.display());
    false
}

/// binaryen's wasm-opt: `npm install` in tests/browser (scripts/setup.sh), else on PATH.
pub fn find_wasm_opt(root: &Path) -> Option<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(installed: bool, toolchain: Option<&str>, sysroot: Option<&str>, rustup: Option<&str>) -> TargetEnv {
        TargetEnv {
            installed,
            rustup_toolchain: toolchain.map(String::from),
            sysroot: sysroot.map(PathBuf::from),
            rustup: rustup.map(PathBuf::from),
        }
    }

    fn add(toolchain: &str) -> TargetPlan {
        TargetPlan::Add {
            program: PathBuf::from("/c/bin/rustup"),
            args: vec!["target".into(), "add".into(), WASM_TARGET.into(), "--toolchain".into(), toolchain.into()],
        }
    }

    #[test]
    fn installed_target_runs_nothing() {
        // whatever else is there (the offline case: no network needed)
        for e in [env(true, None, None, None), env(true, Some("stable"), Some("/r/toolchains/stable"), Some("/c/bin/rustup"))] {
            assert_eq!(plan_target(&e), TargetPlan::Ready);
        }
    }

    #[test]
    fn missing_target_is_added_to_the_toolchain_cargo_uses() {
        let tc = "stable-x86_64-unknown-linux-gnu";
        // under rustup's proxy: RUSTUP_TOOLCHAIN names it, even over the sysroot's name
        let e = env(false, Some(tc), Some("/r/toolchains/nightly-x86_64-unknown-linux-gnu"), Some("/c/bin/rustup"));
        assert_eq!(plan_target(&e), add(tc));
        // cargo run without the proxy (e.g. the toolchain's cargo called directly): the sysroot's name
        let e = env(false, None, Some(&format!("/root/.rustup/toolchains/{tc}")), Some("/c/bin/rustup"));
        assert_eq!(plan_target(&e), add(tc));
        // a rust-toolchain.toml pin seen through the proxy
        assert_eq!(plan_target(&env(false, Some("1.95.0"), None, Some("/c/bin/rustup"))), add("1.95.0"));
    }

    #[test]
    fn missing_target_without_rustup_keeps_the_clear_message() {
        let e = env(false, None, Some("/usr/lib/rust"), None);
        let TargetPlan::Missing(why) = plan_target(&e) else { panic!("{:?}", plan_target(&e)) };
        assert!(why.contains("rustup was not found") && why.contains(ADD_TARGET), "{why}");
        // rustup there, but cargo's rustc is a distribution's, not a rustup toolchain
        let e = env(false, None, Some("/usr/lib/rust"), Some("/c/bin/rustup"));
        let TargetPlan::Missing(why) = plan_target(&e) else { panic!("{:?}", plan_target(&e)) };
        assert!(why.contains("'/usr/lib/rust'") && why.contains("not a rustup toolchain"), "{why}");
        // and nothing known about the sysroot
        assert!(matches!(plan_target(&env(false, None, None, Some("/c/bin/rustup"))), TargetPlan::Missing(_)));
    }

    #[test]
    fn this_machine_has_the_target_so_nothing_would_run() {
        // the test command installs the target first (scripts/test.sh), so the plan here is Ready
        assert_eq!(plan_target(&TargetEnv::current()), TargetPlan::Ready);
    }
}
