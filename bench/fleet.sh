#!/usr/bin/env bash
# Fleet-scale memory benchmark: `nines merge` and `nines stats` of 10, 100 (and, when asked,
# 1,000) one-hour runs recorded at the same time, as a fleet's hosts record them. Each run is
# one of the viewer benchmark's seeded synthetic archives (3,600 one-second windows x read and
# write, 2,000 I/Os a window, about 4.3 MB), its StartTime and BaseTime set to one instant so
# that all windows line up; beyond 100 runs the 100 archives are copied again under new
# names and a start one second later per hundred (so that no two runs are the same run, which
# `nines compare` refuses in a set). Measures wall time and peak resident memory (GNU time's
# maximum RSS) of each command, once per size (the sizes are the curve): `merge` and `stats`
# of all the runs, `compare` of the first half against the second, `export --parquet` of all.
# Writes the table into BENCHMARKS.md (between the fleet markers) and the raw numbers into
# bench/results/fleet.csv; the rows of sizes not measured this time stay as they were, each
# with the date it was measured.
#
# Usage: bash bench/fleet.sh [SIZES...]   (default: 10 100)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100)
archives=target/bench-viewer-runs-100
if [ "$(ls "$archives"/*.hlog 2>/dev/null | wc -l)" != 100 ]; then
  echo "bench: writing 100 one-hour runs into $archives (the viewer benchmark's generator)" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$archives" 100 3600 2000
fi
cargo build -q --release -p nines-qos
nines=target/release/nines
# the work folder beside the target folder: the copies, the merged archive and the merge's
# spill file take about three times the runs' size
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/lib.sh
source bench/lib.sh
src=("$archives"/*.hlog)
per_run=$(stat -c %s "${src[0]}")

# peak RSS in MB and wall seconds of a command
measure() {
  /usr/bin/time -o "$work/time" -f '%e %M' "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{printf "%.1f %.0f\n", $1, $2 / 1024}' "$work/time"
}

mkdir -p bench/results
csv=$work/fleet.csv
echo "runs,command,wall_s,peak_rss_mb" > "$csv"
rows=""
today=$(date -u +%Y-%m-%d)
for n in "${sizes[@]}"; do
  dir=$work/runs-$n
  fleet_copies "$dir" "$n"
  echo "bench: $n runs: merge" >&2
  read -r mw mm < <(measure "$nines" merge "$dir"/*.hlog -o "$work/merged.hlog")
  merged_mb=$(( $(stat -c %s "$work/merged.hlog") / 1000000 ))
  rm -f "$work/merged.hlog"
  echo "bench: $n runs: stats" >&2
  read -r sw sm < <(measure "$nines" stats --json "$dir"/*.hlog)
  echo "bench: $n runs: compare, $((n / 2)) against $((n / 2))" >&2
  files=("$dir"/*.hlog)
  half=$((n / 2))
  read -r cw cm < <(measure "$nines" compare "${files[@]:0:$half}" --with "${files[@]:$half}")
  echo "$n,merge,$mw,$mm" >> "$csv"
  echo "$n,stats,$sw,$sm" >> "$csv"
  echo "bench: $n runs: export --parquet" >&2
  read -r ew em < <(measure "$nines" export --parquet "$work/ds" "$dir"/*.hlog)
  ds_mb=$(( $(du -sb "$work/ds" | cut -f1) / 1000000 ))
  rm -rf "$work/ds"
  echo "$n,compare,$cw,$cm" >> "$csv"
  echo "$n,export,$ew,$em" >> "$csv"
  rows+="| $n | $today | $((n * per_run / 1000000)) MB | $mw s | $mm MB | $merged_mb MB | $sw s | $sm MB | $cw s | $cm MB | $ew s | $em MB | $ds_mb MB |"$'\n'
  rm -rf "$dir"
done

table=$(cat <<TABLE
## At fleet scale: \`nines merge\`, \`stats\`, \`compare\` and \`export\` of many runs

One-hour runs recorded at the same time (the viewer benchmark's synthetic archives, 3,600
one-second windows x read and write, 2,000 I/Os a window, $((per_run / 1000)) KB each, their start
set to one instant, a second later per hundred), on this project's 2-core machine, which other
builds share (wall times vary with them; peak memory does not). Whole process, once per size;
peak memory is the maximum resident set (GNU time).

| runs | measured | archives | \`nines merge\` wall | merge peak memory | merged archive | \`nines stats --json\` wall | stats peak memory | \`nines compare\` (half against half) wall | compare peak memory | \`nines export --parquet\` wall | export peak memory | dataset |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows}
Command: \`bash bench/fleet.sh [SIZES...]\` (raw numbers: bench/results/fleet.csv).
TABLE
)
python3 - "$table" "$csv" "${sizes[@]}" <<'PY'
import re, sys
table, csv, sizes = sys.argv[1], sys.argv[2], set(sys.argv[3:])
text = open("BENCHMARKS.md").read()
# the rows (and raw numbers) of the sizes not measured this time, as they were
old = re.search(r"<!-- fleet:begin -->.*?<!-- fleet:end -->", text, flags=re.S)
kept = []
for line in (old.group(0).splitlines() if old else []):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells and cells[0].isdigit() and cells[0] not in sizes:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", cells[1]):
            cells.insert(1, "2026-12-06")  # the rows written before the table had this column
        kept.append("| " + " | ".join(cells) + " |")
lines = table.splitlines()
head = [i for i, l in enumerate(lines) if l.startswith("|---")][0]
body = [l for l in lines[head + 1:] if l.startswith("| ")]
rest = lines[head + 1 + len(body):]
body = sorted(body + kept, key=lambda l: int(l.split("|")[1]))
table = "\n".join(lines[:head + 1] + body + rest)
raw = [l for l in open("bench/results/fleet.csv").read().splitlines()[1:] if l.split(",")[0] not in sizes]
new = open(csv).read().splitlines()
rows = sorted(new[1:] + raw, key=lambda l: int(l.split(",")[0]))
open("bench/results/fleet.csv", "w").write("\n".join([new[0]] + rows) + "\n")
block = "<!-- fleet:begin -->\n" + table + "\n<!-- fleet:end -->"
if "<!-- fleet:begin -->" in text:
    text = re.sub(r"<!-- fleet:begin -->.*?<!-- fleet:end -->", lambda m: block, text, flags=re.S)
else:
    text = text.replace("<!-- trend:begin -->", block + "\n\n<!-- trend:begin -->", 1)
open("BENCHMARKS.md", "w").write(text)
PY
echo "bench: table written to BENCHMARKS.md" >&2
