#!/usr/bin/env bash
# Export benchmark: 100 one-hour runs (the viewer benchmark's seeded synthetic archives:
# 3,600 one-second windows x read and write, 2,000 I/Os a window) exported by
# `nines export --parquet`; export throughput in windows per second, the Parquet dataset's
# bytes per run-hour against the archives', and DuckDB's time for "p99.99 per host per hour"
# over the dataset against `nines stats` over the same archives (which prints that level and
# every other of every run; each synthetic run is one host's hour). DuckDB's levels are
# checked against nines stats' before any time is written. Writes the table into
# BENCHMARKS.md (between the export markers) and keeps the raw numbers in
# bench/results/export.csv.
#
# Usage: [NINES=BINARY] bash bench/export.sh [RUNS]   (default 3; medians are reported)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "bench: installing duckdb" >&2
  python3 -m pip install -q duckdb
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archives=target/bench-viewer-runs-100
if [ "$(ls "$archives"/*.hlog 2>/dev/null | wc -l)" != 100 ]; then
  echo "bench: writing 100 one-hour runs into $archives (the viewer benchmark's generator)" >&2
  cargo run -q --release -p nines-viewer --example runs -- synth "$archives" 100 3600 2000
fi
# NINES=PATH measures a given binary (another commit's) instead of building this tree's
if [ -n "${NINES:-}" ]; then
  nines=$NINES
else
  cargo build -q --release -p nines-qos
  nines=target/release/nines
fi

# shellcheck source=bench/lib.sh
source bench/lib.sh

echo "bench: export (median of $runs)" >&2
# each time into a new dataset (the removal of the last one is timed too: a few ms)
export_once='rm -rf "$0/ds" && "$1" export "${@:2}" --parquet "$0/ds"'
read -r t_export c_export < <(median_wall_cpu bash -c "$export_once" "$work" "$nines" "$archives"/*.hlog)
windows=0
for f in "$archives"/*.hlog; do
  windows=$((windows + $(grep -c '^Tag=' "$f")))
done
archive_bytes=$(cat "$archives"/*.hlog | wc -c)
parquet_bytes=$(find "$work/ds" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END{print s}')
table_bytes() { find "$work/ds/$1" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END{print s}'; }
buckets_bytes=$(table_bytes buckets)
hours_bytes=$(table_bytes hours)
layouts_bytes=$(table_bytes layouts)
windows_bytes=$(table_bytes windows)
runs_bytes=$(table_bytes runs)
hours=$(ls "$archives"/*.hlog | wc -l)

echo "bench: nines stats over the archives (median of $runs)" >&2
read -r t_stats c_stats < <(median_wall_cpu "$nines" stats --json "$archives"/*.hlog)
"$nines" stats --json "$archives"/*.hlog > "$work/stats.json"

echo "bench: DuckDB, p99.99 per host per hour (median of $runs)" >&2
duck=$(python3 - "$work/ds" "$runs" "$work/stats.json" <<'PY'
import json, statistics, sys, time
import duckdb
ds, runs, stats = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# p99.99 (rank N - floor(N/10000)) per host and hour: every direction of the host's runs
# (unscoped tags: no scope, no measure) in the hour, merged; from the hours table (each
# tag's buckets summed per hour) or from every window's buckets (the source a time range
# or a runtime level needs)
sources = {
    "hours": f"""
  SELECT coalesce(r.host_name, r.name) AS host, h.hour_start_s AS hour, h.layout, h.bucket_index, h.count
  FROM read_parquet('{ds}/hours/*.parquet') h
  JOIN read_parquet('{ds}/runs/*.parquet') r USING (run_id)
  WHERE h.scope IS NULL AND h.measure IS NULL""",
    "windows": f"""
  SELECT coalesce(r.host_name, r.name) AS host, floor(w.start_s / 3600) * 3600 AS hour, w.layout, b.bucket_index, b.count
  FROM read_parquet('{ds}/buckets/*.parquet') b
  JOIN read_parquet('{ds}/windows/*.parquet') w USING (run_id, window_index)
  JOIN read_parquet('{ds}/runs/*.parquet') r USING (run_id)
  WHERE w.scope IS NULL AND w.measure IS NULL""",
}
def sql(src):
    return f"""
WITH src AS ({src}),
merged AS (SELECT host, hour, layout, bucket_index, sum(count) AS n FROM src GROUP BY host, hour, layout, bucket_index),
edges AS (SELECT DISTINCT layout, bucket_index, lower_ns, upper_ns FROM read_parquet('{ds}/layouts/*.parquet')),
running AS (
  SELECT host, hour, upper_ns, sum(n) OVER (PARTITION BY host, hour ORDER BY lower_ns) AS cum,
         sum(n) OVER (PARTITION BY host, hour) AS total
  FROM merged JOIN edges USING (layout, bucket_index)
)
SELECT host, hour, any_value(total) AS count,
       CASE WHEN any_value(total) // 10000 = 0 THEN NULL ELSE min(upper_ns) END AS p9999_ns
FROM running WHERE cum >= total - total // 10000
GROUP BY host, hour ORDER BY host, hour
"""
# the same numbers as nines stats: each synthetic run is one host's hour
want = {r["name"]: (r["tags"]["all"]["count"], r["tags"]["all"]["levels"][4]["value_ns"]) for r in json.load(open(stats))["runs"]}
con = duckdb.connect()
out = []
for name, src in sources.items():
    t, c = [], []
    for _ in range(runs):
        s, sc = time.perf_counter(), time.process_time()
        rows = con.execute(sql(src)).fetchall()
        t.append(time.perf_counter() - s)
        c.append(time.process_time() - sc)
    got = {h: (n, v) for h, _, n, v in rows}
    assert len(rows) == len(want) and got == want, f"DuckDB ({name}) and nines stats differ: {sorted(set(got.items()) ^ set(want.items()))[:4]}"
    out += [f"{statistics.median(t):.3f}", f"{statistics.median(c):.3f}"]
bucket_rows = con.execute(f"SELECT count(*) FROM read_parquet('{ds}/buckets/*.parquet')").fetchone()[0]
hour_rows = con.execute(f"SELECT count(*) FROM read_parquet('{ds}/hours/*.parquet')").fetchone()[0]
print(" ".join(out), len(rows), bucket_rows, hour_rows, duckdb.__version__)
PY
)
read -r t_duck c_duck t_duckw c_duckw groups bucket_rows hour_rows duck_version <<<"$duck"

mkdir -p bench/results
{
  echo "measure,wall_seconds,cpu_seconds,windows,run_hours,archive_bytes,parquet_bytes"
  echo "nines_export,$t_export,$c_export,$windows,$hours,$archive_bytes,$parquet_bytes"
  echo "nines_stats,$t_stats,$c_stats,$windows,$hours,$archive_bytes,"
  echo "duckdb_p9999_per_host_hour_from_hours,$t_duck,$c_duck,$windows,$hours,,$parquet_bytes"
  echo "duckdb_p9999_per_host_hour_from_windows,$t_duckw,$c_duckw,$windows,$hours,,$parquet_bytes"
} > bench/results/export.csv

per_s=$(echo "$windows / $t_export" | bc)
mb_archive=$(echo "scale=2; $archive_bytes / $hours / 1000000" | bc -l)
mb_parquet=$(echo "scale=2; $parquet_bytes / $hours / 1000000" | bc -l)
mb_buckets=$(echo "scale=2; $buckets_bytes / $hours / 1000000" | bc -l)
mb_hours=$(echo "scale=3; $hours_bytes / $hours / 1000000" | bc -l | sed 's/^\./0./')
mb_layouts=$(echo "scale=3; $layouts_bytes / $hours / 1000000" | bc -l | sed 's/^\./0./')
mb_windows=$(echo "scale=3; $windows_bytes / $hours / 1000000" | bc -l | sed 's/^\./0./')
mb_runs=$(echo "scale=3; $runs_bytes / $hours / 1000000" | bc -l | sed 's/^\./0./')
size_ratio=$(echo "scale=2; $parquet_bytes / $archive_bytes" | bc -l | sed 's/^\./0./')
# "DuckDB takes 3.2x the time" or "DuckDB answers 2.0x faster"
if [ "$(echo "$t_duck < $t_stats" | bc -l)" = 1 ]; then
  speed="answers **$(echo "scale=1; $t_stats / $t_duck" | bc -l | sed 's/^\./0./')x faster** than"
else
  speed="takes **$(echo "scale=1; $t_duck / $t_stats" | bc -l | sed 's/^\./0./')x the time** of"
fi
verdict_query=$(echo "$t_duck < $t_stats" | bc -l | sed 's/1/met/; s/0/missed/')
verdict_size=$(echo "$parquet_bytes <= $archive_bytes" | bc -l | sed 's/1/met/; s/0/missed/')
ratio_w=$(echo "scale=1; $t_duckw / $t_stats" | bc -l | sed 's/^\./0./')
# the same ratios in CPU seconds, steadier on a shared machine
cpu_h=$(echo "scale=1; $c_stats / $c_duck" | bc -l | sed 's/^\./0./')
cpu_w=$(echo "scale=1; $c_duckw / $c_stats" | bc -l | sed 's/^\./0./')
if [ "$runs" = 1 ]; then med="one run each"; else med="median of $runs runs each"; fi
rows_per_hour=$(echo "$bucket_rows / $hours" | bc)
if [ "$(echo "$t_duckw < $t_stats" | bc -l)" = 1 ]; then
  verdict_w="**met** from every window's buckets too (${ratio_w}x its wall time, ${cpu_w}x its CPU seconds)"
else
  verdict_w="**missed** from every window's buckets (${ratio_w}x its wall time, ${cpu_w}x its CPU seconds)"
fi
cores=$(nproc)
comma() { python3 -c "print(f'{$1:,}')"; }
table=$(cat <<TABLE
\`nines export --parquet DATASET RUN...\` writes five tables as Parquet files, one file per run
in each: \`runs\` (a row a run: name, host, start), \`windows\` (a row a window and tag: start,
length, scope, measure, count), \`buckets\` (a row a non-empty bucket of a window: its layout's
bucket index and its count), \`hours\` (each tag's buckets summed per clock hour, whole runs
being sums of hours) and \`layouts\` (each bucket index's lower and upper edge in ns, once per
index a run uses). The levels query ships with the collector: \`collector/sql/levels.duckdb.sql\`
(the DuckDB table macro \`nines_levels(dataset [, runs := [...]])\`) and
\`collector/sql/levels.spark.sql\` (a Spark SQL view); \`nines export --sql DIR\` writes both
beside a dataset, and \`collector/tests/export.rs\` checks that DuckDB and Spark give
\`nines stats --json\`'s levels to the nanosecond.

Measured on $hours one-hour runs (the viewer benchmark's synthetic archives,
\`target/bench-viewer-runs-100\`, $(comma "$windows") windows of 2,000 I/Os), $med, on this project's $cores-core machine ($(date -u +%Y-%m-%d)), DuckDB $duck_version in-process from
Python. Other builds shared the two cores, so wall times vary by tens of percent between
runs; CPU seconds are steadier, and each ratio below is of numbers from this one run.

| measure | value |
|---|---|
| \`nines export --parquet\` of the $hours runs (whole process: read the archives, write the five tables) | $t_export s wall, $c_export s CPU: **$(comma "$per_s") windows/s** |
| archives | $(echo "scale=1; $archive_bytes / 1000000" | bc -l) MB ($mb_archive MB a run-hour) |
| Parquet dataset, all five tables | $(echo "scale=1; $parquet_bytes / 1000000" | bc -l) MB ($mb_parquet MB a run-hour: buckets $mb_buckets, windows $mb_windows, layouts $mb_layouts, hours $mb_hours, runs $mb_runs): **${size_ratio}x the archives** |
| DuckDB: p99.99 per host per hour from the hours table ($groups host-hours) | **$t_duck s** wall, $c_duck s CPU |
| DuckDB: the same from every window's buckets, joined to the windows and runs ($(comma "$bucket_rows") bucket rows) | $t_duckw s wall, $c_duckw s CPU |
| \`nines stats --json\` over the same archives (whole process; every level of every run and tag) | $t_stats s wall, $c_stats s CPU |

Both DuckDB queries give nines stats' count and p99.99 for every host and hour (the script
stops before writing anything if one differs). Goals: a dataset no larger than the archives:
**$verdict_size** (${size_ratio}x). The levels per host per hour within the wall time of \`nines stats\`
over the same archives: **$verdict_query** from the hours table (DuckDB ${speed} \`nines stats\`; its CPU seconds are ${cpu_h}x DuckDB's),
$verdict_w. Where that time goes: the hours table holds each tag's buckets already summed per
hour, $(comma "$((hour_rows / hours))") rows a run-hour; from the windows DuckDB reads, joins and groups one row per
non-empty bucket of every window, $(comma "$rows_per_hour") a run-hour, while \`nines stats\` adds
each window's decoded counts with no row handling at all. A query over a time range other than
whole hours, or over a runtime level, needs the window rows. What makes the dataset small: a
bucket is its layout's index (delta-coded) and its count (dictionary-coded, mostly 1 to 3), not
two 64-bit edges; the edges sit once per index in the layouts table; pages are GZIP-compressed.
The layout before it (two 64-bit edges in every bucket row, no hours table) took 10.63 MB a
run-hour (2.46x the archives), and the window-level query 78.7 s.

Command: \`bash bench/export.sh [RUNS]\` (raw numbers: bench/results/export.csv).
TABLE
)
python3 - "$table" <<'PY'
import re, sys, pathlib
p = pathlib.Path("BENCHMARKS.md")
text = p.read_text()
block = "<!-- export:begin -->\n## Exporting: Parquet for DuckDB and Spark SQL\n\n" + sys.argv[1] + "\n<!-- export:end -->"
if "<!-- export:begin -->" in text:
    text = re.sub(r"<!-- export:begin -->.*?<!-- export:end -->", lambda m: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
p.write_text(text)
PY
echo "$table"
