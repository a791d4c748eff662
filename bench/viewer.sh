#!/usr/bin/env bash
# Viewer benchmark in headless Chromium: 20 one-hour runs (3,600 one-second windows x read and
# write, 2,000 I/Os a window, written by nines-core's archive writer from seeded synthetic
# latencies) served with a manifest.json; time from navigation start to the first complete
# render of every panel, the time the page spends decoding the runs, the redraw of 16 wheel
# zoom steps on the runtime chart, the wasm size raw and gzipped, and the peer: decoding the
# same 20 logs with hdr-histogram-js (npm) in Node. Writes the generated part of BENCHMARKS.md's
# viewer section (between the viewer-generated markers) and keeps the raw JSON in bench/results/viewer.json.
#
# Usage: bash bench/viewer.sh [REPEATS]   (default 3; medians are reported)
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-3}
bash scripts/setup.sh >/dev/null
bash scripts/build-viewer.sh
# the CLI embeds this bundle instead of building the viewer a second time (collector/build.rs)
export NINES_VIEWER_BUNDLE="$PWD/target/viewer"
runs=target/bench-viewer-runs
if [ "$(ls "$runs"/*.hlog 2>/dev/null | wc -l)" != 20 ]; then
  echo "bench: writing 20 one-hour runs into $runs" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$runs" 20 3600 2000
fi
mkdir -p bench/results
node tests/browser/bench.mjs "$runs" "$repeats" > bench/results/viewer.json
# the same archives given to the file input: decoded in the page's workers
NINES_BENCH_MODE=drop node tests/browser/bench.mjs "$runs" "$repeats" > bench/results/viewer-drop.json
# the same runs as a site (each with its compact form) and as one report
cargo build -q --release -p nines-qos
site=target/bench-viewer-site
rm -rf "$site"
target/release/nines site "$runs"/*.hlog -o "$site" >/dev/null
NINES_BENCH_MODE=compact node tests/browser/bench.mjs "$site/runs" "$repeats" > bench/results/viewer-compact.json
target/release/nines report "$runs"/*.hlog -o target/bench-viewer-report.html >/dev/null
NINES_BENCH_MODE=report NINES_BENCH_REPORT=target/bench-viewer-report.html node tests/browser/bench.mjs "$runs" "$repeats" > bench/results/viewer-report.json
# a site of 100 one-hour runs
runs100=target/bench-viewer-runs-100
if [ "$(ls "$runs100"/*.hlog 2>/dev/null | wc -l)" != 100 ]; then
  echo "bench: writing 100 one-hour runs into $runs100" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$runs100" 100 3600 2000
fi
site100=target/bench-viewer-site-100
rm -rf "$site100"
target/release/nines site "$runs100"/*.hlog -o "$site100" >/dev/null
NINES_BENCH_MODE=compact node tests/browser/bench.mjs "$site100/runs" "$repeats" > bench/results/viewer-compact-100.json
wasm=target/viewer/nines_viewer_bg.wasm
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
js=$(stat -c %s target/viewer/nines_viewer.js)
chromium_v=$(chromium --version 2>/dev/null | head -1)
section=$(node tests/browser/bench-section.mjs "$raw" "$gz" "$js" "$chromium_v" "$(date -u +%Y-%m-%d)")
# replace the generated part of the viewer section (its goal table and the passes written by
# hand around it stay); the first time, a viewer section holding only that part is appended
touch BENCHMARKS.md
if ! grep -q '<!-- viewer-generated:begin -->' BENCHMARKS.md; then
  printf '\n<!-- viewer:begin -->\n## Viewer\n\n<!-- viewer-generated:begin -->\n<!-- viewer-generated:end -->\n<!-- viewer:end -->\n' >> BENCHMARKS.md
fi
SECTION="$section" python3 - <<'PY'
import os, re
p = "BENCHMARKS.md"
s = open(p).read()
s = re.sub(r"<!-- viewer-generated:begin -->.*?<!-- viewer-generated:end -->", lambda m: "<!-- viewer-generated:begin -->\n" + os.environ["SECTION"] + "\n<!-- viewer-generated:end -->", s, flags=re.S)
open(p, "w").write(s)
PY
echo "$section"
