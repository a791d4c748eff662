#!/usr/bin/env bash
# Builds the viewer bundle into target/viewer (or the directory given with --out DIR):
# nines-viewer for wasm32 (release), wasm-bindgen in-process through xtask (no CLI to
# install), wasm-opt -Oz when tests/browser/node_modules has binaryen (scripts/setup.sh
# installs it), and the shell from static/. A missing wasm32 target is added through rustup
# (xtask::ensure_wasm_target), or the build says how to add it. Flags: --debug, --no-wasm-opt, --out DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run -q -p xtask -- viewer "$@"
