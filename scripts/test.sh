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

# (after the bundle: the collector's build script then embeds it instead of building it again)
echo "== gates: rustfmt and clippy (workspace natively, the viewer for wasm32 too)"
cargo fmt --all --check
(cd fuzz && cargo fmt --check)
cargo clippy -q --workspace --all-targets -- -D warnings
cargo clippy -q -p nines-viewer --target wasm32-unknown-unknown --all-targets -- -D warnings


echo "== cargo test (workspace)"
cargo test --workspace --exclude nines-viewer 2>&1

# ---- viewer ------------------------------------------------------------------------------
echo "== viewer: chart and state unit tests (native)"
cargo test -q -p nines-viewer 2>&1
echo "== viewer: browser tests in headless Chromium (screenshots in tests/artifacts/)"
cargo build -q -p nines
node --test tests/browser/viewer.test.mjs 2>&1
echo "== viewer: compare mode, sweep plot and steady state against nines compare/sweep/steady"
node --test tests/browser/judge.test.mjs 2>&1
echo "== viewer: the latency curve chart against nines sweep --curve --json"
node --test tests/browser/curve.test.mjs 2>&1
# ---- end viewer --------------------------------------------------------------------------

# ---- reports and sites -------------------------------------------------------------------
# The nines binary carries the viewer (collector/build.rs builds it); the report tests drive
# the reports it writes from file:// and a site from a loopback server in headless Chromium.
# Screenshots: tests/artifacts/report-*.png.
# (their CLI tests, collector/tests/report_cli.rs, ran with cargo test above)
echo "== reports: browser tests in headless Chromium (file://, no network, hostile runs, site)"
cargo build -q -p nines
node --test tests/browser/report.test.mjs 2>&1
echo "== reports: the same report from file:// in Firefox"
node --test tests/browser/report-firefox.test.mjs 2>&1
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
