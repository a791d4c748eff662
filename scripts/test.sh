#!/usr/bin/env bash
# Runs every test of nines. README's test command. Installs what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# A test run builds everything once: incremental caches would only take disk (about 1 GB).
export CARGO_INCREMENTAL=0

echo "== nines-core builds for wasm32"
cargo build -q -p nines-core --target wasm32-unknown-unknown

# Build the viewer bundle once and let the nines binary embed that one (collector/build.rs
# would otherwise build the same bundle again in its own target directory).
echo "== viewer bundle"
bash scripts/build-viewer.sh
export NINES_VIEWER_BUNDLE="$PWD/target/viewer"
# What a package and a clone's first build embed: the bundle shipped in collector/viewer-dist,
# which must be the one these sources build (the digest of the sources recorded beside it, and
# byte for byte the bundle just built, when built by the same rustc and wasm-opt).
echo "== the shipped viewer bundle is what these sources build"
cargo run -q -p xtask -- dist --check --built target/viewer

# (after the bundle: the collector's build script then embeds it instead of building it again)
echo "== gates: rustfmt and clippy (workspace natively, the viewer for wasm32 too)"
cargo fmt --all --check
(cd fuzz && cargo fmt --check)
cargo clippy -q --workspace --all-targets -- -D warnings
cargo clippy -q -p nines-viewer --target wasm32-unknown-unknown --all-targets -- -D warnings
echo "== gates: no function over 120 lines without a // long: reason beside it"
python3 scripts/long-fns.py
echo "== gates: no import cycle between the viewer's files (the app's panels over what they share)"
python3 scripts/import-graph.py viewer/src
echo "== gates: no import cycle between the top-level modules of nines-core and the collector"
python3 scripts/import-graph.py --modules shared/src collector/src

# ---- other operating systems and the static Linux binary ---------------------------------
# Every command but the Linux-only I/O builds for macOS and Windows (nines run there uses the
# portable psync engine). cargo clippy type-checks without linking, so no macOS SDK or MinGW
# is needed; no dependency of nines-core or nines builds C code for these targets.
echo "== gates: clippy of nines and nines-core for macOS (x86_64, aarch64) and Windows"
foreign_targets=(x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
for t in "${foreign_targets[@]}" x86_64-unknown-linux-musl; do
  rustup target list --installed | grep -qx "$t" || rustup target add "$t"
done
for t in "${foreign_targets[@]}"; do
  cargo clippy -q -p nines-qos -p nines-core --target "$t" -- -D warnings
done
# One static binary for Linux (musl; pure Rust, so no musl-gcc is needed), then a smoke test
# of that binary: a one-second run on a new file and nines stats of its archive.
echo "== static Linux binary (x86_64-unknown-linux-musl) and a smoke test of it"
cargo build -q --release -p nines-qos --target x86_64-unknown-linux-musl
static_bin=target/x86_64-unknown-linux-musl/release/nines
file "$static_bin" | grep -q "statically linked\|static-pie linked" || { file "$static_bin"; echo "not a static binary" >&2; exit 1; }
smoke=$(mktemp -d)
"$static_bin" run --quiet --target "$smoke/t.dat" --size 8MiB --runtime 1s -o "$smoke/r.hlog" >/dev/null
# (the run's summary ends with the engine it used)
"$static_bin" run --quiet --engine psync --target "$smoke/t.dat" --runtime 1s -o "$smoke/p.hlog" >"$smoke/psync.txt"
grep -q "engine psync, stopped by runtime" "$smoke/psync.txt"
"$static_bin" stats "$smoke/r.hlog" "$smoke/p.hlog"
rm -rf "$smoke"
# ---- end other operating systems ---------------------------------------------------------

# The crates as crates.io would take them; nines-qos is built from its package alone, which
# carries the shipped viewer (no WebAssembly is built: the package is not a clone).
echo "== packages: cargo publish --dry-run of nines-core and nines-qos"
# Publishing two crates at once verifies nines-qos against nines-core through a temporary
# registry that cargo unpacks into $CARGO_HOME/registry/src/-<hash of the checkout's path>/.
# Cargo never unpacks a name and version twice, so on a machine that ran this before from
# the same path, nines-qos would be verified against an old nines-core 0.1.0 (a CI run
# failed that way). Remove only those unpacked copies of our own crates first.
for stale in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/nines-core-* \
    "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/nines-qos-*; do
    if [ -d "$stale" ]; then rm -rf -- "$stale"; fi
done
env -u NINES_VIEWER_BUNDLE cargo publish -q --dry-run --allow-dirty -p nines-core -p nines-qos


echo "== cargo test (workspace)"
cargo test --workspace --exclude nines-viewer 2>&1

# ---- viewer ------------------------------------------------------------------------------
echo "== viewer: chart and state unit tests (native)"
cargo test -q -p nines-viewer 2>&1
echo "== viewer: browser tests in headless Chromium (screenshots in tests/artifacts/)"
cargo build -q -p nines-qos
node --test tests/browser/viewer.test.mjs 2>&1
echo "== viewer: compare mode, sweep plot and steady state against nines compare/sweep/steady"
node --test tests/browser/judge.test.mjs 2>&1
echo "== viewer: the latency curve chart against nines sweep --curve --json"
node --test tests/browser/curve.test.mjs 2>&1
echo "== viewer: what a first-time reader sees (1-CDF axes, steady-state verdicts)"
node --test tests/browser/glance.test.mjs 2>&1
echo "== viewer: the device and host panel of a report against nines stats --context"
node --test tests/browser/context.test.mjs 2>&1
echo "== viewer: run-to-run variability per workload, and a site's trend ordered by a metadata key"
node --test tests/browser/workload.test.mjs 2>&1
echo "== viewer: per-window levels and a spec's limits against nines stats --windows --limit"
node --test tests/browser/windows.test.mjs 2>&1
echo "== viewer: one level of every run and one strip per run on the runtime chart; the time rule across the heatmap"
node --test tests/browser/runtime-modes.test.mjs 2>&1
# ---- end viewer --------------------------------------------------------------------------

# ---- reports and sites -------------------------------------------------------------------
# The nines binary carries the viewer (collector/build.rs builds it); the report tests drive
# the reports it writes from file:// and a site from a loopback server in headless Chromium.
# Screenshots: tests/artifacts/report-*.png.
# (their CLI tests, collector/tests/report_cli.rs, ran with cargo test above)
echo "== reports: browser tests in headless Chromium (file://, no network, hostile runs, site)"
cargo build -q -p nines-qos
node --test tests/browser/report.test.mjs 2>&1
echo "== reports: the same report from file:// in Firefox"
node --test tests/browser/report-firefox.test.mjs 2>&1
echo "== reports and sites in WebKit (WebKitGTK's MiniBrowser over WebDriver, under Xvfb)"
node --test tests/browser/report-webkit.test.mjs 2>&1
echo "== live: nines run --live followed by a headless Chromium page (the /metrics Prometheus test ran with cargo test)"
node --test tests/browser/live.test.mjs 2>&1
echo "== view: nines view of 20 runs loaded 10 times in headless Chromium, under the page's Content-Security-Policy"
node --test tests/browser/view-many.test.mjs 2>&1
# ---- end reports -------------------------------------------------------------------------

# ---- importer fuzzing --------------------------------------------------------------------
# A short cargo-fuzz run of every parser (stable toolchain with RUSTC_BOOTSTRAP=1 where no
# nightly is installed); a crash fails the test command.
echo "== fuzz: every importer for 10 s"
bash fuzz/run.sh 10
# ---- end fuzzing -------------------------------------------------------------------------

echo "all tests passed"
