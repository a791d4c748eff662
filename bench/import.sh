#!/usr/bin/env bash
# Benchmark: read a fio per-I/O latency log (--write_lat_log, log_avg_msec=0) of a few
# million lines, nines' streaming parser against pandas.read_csv on the same file. Writes the
# table into BENCHMARKS.md (between the import markers) and keeps the raw timings in
# bench/results/import.csv.
#
# nines is timed as the whole `nines import` process (read in chunks, parse, build 1 s
# windows per direction, write the archive), on all cores (large logs are read in parts side
# by side) and on one (NINES_THREADS=1); pandas only for the read_csv call inside an already
# started Python, with its fastest options here (C engine, no skipinitialspace: it parses
# fio's " 123" columns as integers anyway), so the comparison favours pandas.
#
# Usage: bash bench/import.sh [RUNS] [SECONDS]   (default 5 runs, median; 3 s of fio)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
secs=${2:-3}
command -v fio >/dev/null || { echo "bench: fio is missing (apt-get install fio)" >&2; exit 1; }
if ! python3 -c 'import pandas' 2>/dev/null; then
  echo "bench: installing pandas" >&2
  python3 -m pip install -q pandas
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "bench: fio null engine, ${secs} s of 4k randrw 70/30 with a per-I/O latency log" >&2
(cd "$work" && fio --name=big --ioengine=null --size=1G --rw=randrw --rwmixread=70 --bs=4k \
  --runtime="$secs" --time_based --write_lat_log=big --log_avg_msec=0 --output=/dev/null >/dev/null)
log=$work/big_clat.1.log
lines=$(wc -l < "$log")
size=$(stat -c %s "$log")
cargo build -q --release -p nines-qos
nines=target/release/nines

# shellcheck source=bench/lib.sh
source bench/lib.sh

echo "bench: timing (median of $runs)" >&2
t_nines=$(median "$nines" import "$log" -o "$work/out.hlog" --force)
c_nines=$(median_cpu "$nines" import "$log" -o "$work/out.hlog" --force)
t_nines1=$(median env NINES_THREADS=1 "$nines" import "$log" -o "$work/out.hlog" --force)
c_nines1=$(median_cpu env NINES_THREADS=1 "$nines" import "$log" -o "$work/out.hlog" --force)
# pandas: time read_csv alone, in-process, median of the same number of runs
t_pandas=$(python3 - "$log" "$runs" <<'PY'
import statistics, sys, time
import pandas as pd
path, runs = sys.argv[1], int(sys.argv[2])
t, c = [], []
for _ in range(runs):
    s, sc = time.perf_counter(), time.process_time()
    df = pd.read_csv(path, header=None, names=["time", "value", "ddir", "bs", "prio"])
    t.append(time.perf_counter() - s)
    c.append(time.process_time() - sc)
assert len(df) > 0 and str(df["value"].dtype) == "int64"
print(f"{statistics.median(t):.6f} {statistics.median(c):.6f}")
PY
)
c_pandas=${t_pandas#* }
t_pandas=${t_pandas% *}
pandas_version=$(python3 -c 'import pandas; print(pandas.__version__)')
# the two agree on the count
count=$("$nines" stats --json "$work/out.hlog" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["tags"]["all"]["count"])')
[ "$count" = "$lines" ] || { echo "bench: nines counted $count samples, the file has $lines lines" >&2; exit 1; }

mkdir -p bench/results
{
  echo "tool,wall_seconds,cpu_seconds,lines,bytes"
  echo "nines_import,$t_nines,$c_nines,$lines,$size"
  echo "nines_import_1_thread,$t_nines1,$c_nines1,$lines,$size"
  echo "pandas_read_csv,$t_pandas,$c_pandas,$lines,$size"
} > bench/results/import.csv

ratio=$(echo "scale=1; $t_pandas / $t_nines" | bc -l)
ratio1=$(echo "scale=1; $t_pandas / $t_nines1" | bc -l)
cratio=$(echo "scale=1; $c_pandas / $c_nines1" | bc -l)
cores=$(nproc)
mb=$((size / 1000000))
table=$(cat <<TABLE
A fio 3.33 per-I/O completion latency log (null engine, 4k randrw 70/30, $(python3 -c "print(f'{$lines:,}')") lines,
$mb MB). Median of $runs runs on this project's 2-core machine ($(date -u +%Y-%m-%d)).

| tool | what it does | wall s | CPU s | MB/s (wall) |
|---|---|---|---|---|
| \`nines import\` (whole process, $cores cores) | read in parts side by side in 256 KiB chunks, parse, 1 s windows per direction, join, write the archive | $t_nines | $c_nines | $(echo "scale=0; $size / $t_nines / 1000000" | bc -l) |
| \`nines import\`, \`NINES_THREADS=1\` | the same on one thread, one pass | $t_nines1 | $c_nines1 | $(echo "scale=0; $size / $t_nines1 / 1000000" | bc -l) |
| pandas $pandas_version \`read_csv\` (C engine, call only) | parse into a DataFrame | $t_pandas | $c_pandas | $(echo "scale=0; $size / $t_pandas / 1000000" | bc -l) |

nines is **${ratio}x** faster than \`pandas.read_csv\` on the same file in wall time
(**${ratio1}x** on one thread; goal: 5x) and uses **${cratio}x** less CPU on one thread. Other
work shares the $cores cores, so wall times vary between runs.
Command: \`bash bench/import.sh\` (raw timings: bench/results/import.csv).
TABLE
)
python3 - "$table" <<'PY'
import re, sys, pathlib
p = pathlib.Path("BENCHMARKS.md")
text = p.read_text() if p.exists() else "# Benchmarks\n\nEach section is written by the script it names; rerun it to refresh the numbers.\n"
block = "<!-- import:begin -->\n## Importing: fio per-I/O latency log vs pandas.read_csv\n\n" + sys.argv[1] + "\n<!-- import:end -->"
if "<!-- import:begin -->" in text:
    text = re.sub(r"<!-- import:begin -->.*?<!-- import:end -->", lambda m: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
p.write_text(text)
PY
echo "$table"
