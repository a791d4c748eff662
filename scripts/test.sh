#!/usr/bin/env bash
# Runs every test of nines. README's test command. Installs what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== nines-core builds for wasm32"
cargo build -q -p nines-core --target wasm32-unknown-unknown

echo "== cargo test (workspace)"
cargo test --workspace --exclude nines-viewer 2>&1

# ---- viewer (issue 4) --------------------------------------------------------------------
echo "== viewer: chart and state unit tests (native)"
cargo test -q -p nines-viewer 2>&1
echo "== viewer: bundle, then browser tests in headless Chromium (screenshots in tests/artifacts/)"
bash scripts/build-viewer.sh
cargo build -q -p nines
node --test tests/browser/viewer.test.mjs 2>&1
# ---- end viewer --------------------------------------------------------------------------
