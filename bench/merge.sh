#!/usr/bin/env bash
# `nines merge` memory and time against the number of runs and the `--memory-mb` budget: the
# same one-hour runs as bench/fleet.sh (the viewer benchmark's seeded synthetic archives, 3,600
# one-second windows x read and write, 2,000 I/Os a window, about 4.3 MB each, their start set
# to one instant, a second later per hundred), merged at each budget. Measures wall time, CPU
# time (user + system: other builds share this machine's two cores, so wall time varies with
# them) and peak resident memory (GNU time's maximum RSS) of the whole process, once each.
# Writes the table into BENCHMARKS.md (between the merge markers) and the raw numbers into
# bench/results/merge.csv; sizes and budgets not measured this time keep their rows.
#
# Usage: bash bench/merge.sh [SIZES...]   (default: 10 100 1000; MERGE_BUDGETS="64 16")
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 1000)
read -r -a budgets <<< "${MERGE_BUDGETS:-64 16}"
archives=target/bench-viewer-runs-100
if [ "$(ls "$archives"/*.hlog 2>/dev/null | wc -l)" != 100 ]; then
  echo "bench: writing 100 one-hour runs into $archives (the viewer benchmark's generator)" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$archives" 100 3600 2000
fi
cargo build -q --release -p nines-qos
nines=$PWD/target/release/nines
# beside the target folder: the copies, the merged archive and the merge's spill file take
# about three times the runs' size
work=$(mktemp -d -p "$PWD/target")
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/lib.sh
source bench/lib.sh
src=("$PWD/$archives"/*.hlog)

csv=$work/merge.csv
echo "runs,memory_mb,bands,wall_s,cpu_s,peak_rss_mb,merged_mb" > "$csv"
today=$(date -u +%Y-%m-%d)
for n in "${sizes[@]}"; do
  dir=$work/runs-$n
  fleet_copies "$dir" "$n"
  for mb in "${budgets[@]}"; do
    echo "bench: $n runs, --memory-mb $mb" >&2
    # relative names: a thousand absolute paths make a long command line
    (cd "$dir" && /usr/bin/time -o "$work/time" -f '%e %U %S %M' "$nines" merge ./*.hlog -o "$work/merged.hlog" --memory-mb "$mb" \
      > "$work/out" 2>"$work/err") || { cat "$work/err" >&2; exit 1; }
    bands=$(sed -n 's/.*took \([0-9]*\) bands.*/\1/p' "$work/out")
    read -r wall user sys rss < "$work/time"
    merged=$(( $(stat -c %s "$work/merged.hlog") / 1000000 ))
    rm -f "$work/merged.hlog"
    awk -v n="$n" -v mb="$mb" -v b="${bands:-1}" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v m="$merged" \
      'BEGIN { printf "%s,%s,%s,%.1f,%.1f,%.0f,%s\n", n, mb, b, w, u + s, r / 1024, m }' >> "$csv"
  done
  rm -rf "$dir"
done

python3 - "$csv" "$today" "${sizes[@]}" <<'PY'
import re, sys
csv, today, sizes = sys.argv[1], sys.argv[2], set(sys.argv[3:])
head = "runs,memory_mb,bands,wall_s,cpu_s,peak_rss_mb,merged_mb,measured"
new = [l + "," + today for l in open(csv).read().splitlines()[1:]]
try:
    done = {tuple(l.split(",")[:2]) for l in new}
    old = [l for l in open("bench/results/merge.csv").read().splitlines()[1:] if tuple(l.split(",")[:2]) not in done]
except FileNotFoundError:
    old = []
rows = sorted(new + old, key=lambda l: (int(l.split(",")[0]), -float(l.split(",")[1])))
open("bench/results/merge.csv", "w").write("\n".join([head] + rows) + "\n")
body = []
for l in rows:
    n, mb, bands, wall, cpu, rss, merged, day = l.split(",")
    body.append(f"| {n} | {mb} MB | {bands} | {rss} MB | {cpu} s | {float(cpu) / int(n):.2f} s | {wall} s | {merged} MB | {day} |")
table = f"""## Merging many runs: `nines merge` at 10, 100 and 1,000 runs

One-hour runs recorded at the same time (as in the fleet table above: 3,600 one-second
windows x read and write, 2,000 I/Os a window, about 4.3 MB each), merged with `nines merge
RUNS -o OUT --memory-mb MB`, whole process once each on this project's 2-core machine. Peak
memory is the maximum resident set (GNU time); CPU is user plus system seconds, steadier than
wall time on a machine that other builds share.

| runs | `--memory-mb` | bands | peak memory | CPU | CPU a run | wall | merged archive | measured |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(body)}

Command: `bash bench/merge.sh [SIZES...]` (raw numbers: bench/results/merge.csv)."""
text = open("BENCHMARKS.md").read()
block = "<!-- merge:begin -->\n" + table + "\n<!-- merge:end -->"
if "<!-- merge:begin -->" in text:
    text = re.sub(r"<!-- merge:begin -->.*?<!-- merge:end -->", lambda m: block, text, flags=re.S)
else:
    text = text.replace("<!-- fleet:end -->", "<!-- fleet:end -->\n\n" + block, 1)
open("BENCHMARKS.md", "w").write(text)
PY
echo "bench: table written to BENCHMARKS.md" >&2
