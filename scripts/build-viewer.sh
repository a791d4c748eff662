#!/usr/bin/env bash
# Builds the viewer bundle into target/viewer (or the directory given with --out DIR):
# nines-viewer for wasm32 (release), wasm-bindgen in-process through xtask (no CLI to
# install), wasm-opt -Oz when tests/browser/node_modules has binaryen (scripts/setup.sh
# installs it), and the shell from static/. Flags: --debug, --no-wasm-opt, --out DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "build-viewer: the wasm32 target is missing; run: rustup target add wasm32-unknown-unknown" >&2
  exit 1
fi
exec cargo run -q -p xtask -- viewer "$@"
