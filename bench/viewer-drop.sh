#!/usr/bin/env bash
# Dropped files against the page from before the workers, side by side on this machine today:
# the 20 one-hour archives of bench/viewer.sh given to the viewer's file input (decoded in its
# Web Workers), at once and after the page has been left alone 1.5 s, against the page of
# commit 8ef95f9 (the viewer before the workers: it decodes every window of the same archives
# itself, from a manifest.json), alternating round by round so that both see the same load.
# That page is built once into target/viewer-old from a git worktree of that commit. Prints a
# table of every round (every run drawn, ratio to the old page, first run drawn) and keeps the
# raw numbers in bench/results/viewer-drop-vs-old.json.
#
# Usage: bash bench/viewer-drop.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-5}
old_commit=8ef95f9
bash scripts/setup.sh >/dev/null
bash scripts/build-viewer.sh
old=target/viewer-old
if [ ! -f "$old/nines_viewer_bg.wasm" ]; then
  echo "bench: building the page of $old_commit into $old" >&2
  tmp=$(mktemp -d)
  tree="$tmp/old"
  trap 'git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  git worktree add --detach "$tree" "$old_commit" >/dev/null
  # its build runs wasm-opt -Oz when it finds binaryen here, as it did then
  ln -s "$root/tests/browser/node_modules" "$tree/tests/browser/node_modules"
  (cd "$tree" && CARGO_TARGET_DIR="$root/target" bash scripts/build-viewer.sh --out "$root/$old")
fi
runs=target/bench-viewer-runs
if [ "$(ls "$runs"/*.hlog 2>/dev/null | wc -l)" != 20 ]; then
  echo "bench: writing 20 one-hour runs into $runs" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$runs" 20 3600 2000
fi
mkdir -p bench/results
out=bench/results/viewer-drop-vs-old.json
: > "$out.tmp"
for r in $(seq "$rounds"); do
  o=$(NINES_VIEWER_BUNDLE="$old" NINES_BENCH_MODE=archive node tests/browser/bench.mjs "$runs" 1)
  a=$(NINES_VIEWER_BUNDLE=target/viewer NINES_BENCH_MODE=drop NINES_BENCH_DROP_WAIT_MS=0 node tests/browser/bench.mjs "$runs" 1)
  b=$(NINES_VIEWER_BUNDLE=target/viewer NINES_BENCH_MODE=drop NINES_BENCH_DROP_WAIT_MS=1500 node tests/browser/bench.mjs "$runs" 1)
  printf '{"round":%d,"old":%s,"at_once":%s,"after_1500_ms":%s}\n' "$r" "$o" "$a" "$b" >> "$out.tmp"
done
python3 - "$out.tmp" "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
print("| round | old page, every run drawn | dropped, every run, at once / after 1.5 s | ratio | first run drawn, at once / after 1.5 s |")
print("|---|---|---|---|---|")
ratios = {"at_once": [], "after_1500_ms": []}
firsts = []
for r in rows:
    old = r["old"]["first_render_ms"][0]
    a, b = r["at_once"], r["after_1500_ms"]
    for k in ratios:
        ratios[k].append(r[k]["first_render_ms"][0] / old)
    firsts += [a["first_run_ms"][0], b["first_run_ms"][0]]
    print(f"| {r['round']} | {old:,.0f} ms | {a['first_render_ms'][0]:,.0f} / {b['first_render_ms'][0]:,.0f} ms "
          f"| {ratios['at_once'][-1]:.2f} / {ratios['after_1500_ms'][-1]:.2f} "
          f"| {a['first_run_ms'][0]:,.0f} / {b['first_run_ms'][0]:,.0f} ms |")
for k, v in ratios.items():
    met = sum(x <= 0.5 for x in v)
    print(f"{k}: ratio median {statistics.median(v):.2f} ({min(v):.2f} to {max(v):.2f}); at most 0.5 in {met} of {len(v)}")
print(f"first run drawn within 1 s in {sum(f <= 1000 for f in firsts)} of {len(firsts)} loads")
PY
rm -f "$out.tmp"
