#!/usr/bin/env bash
# Reports on wide tails: what a one-hour, 64k-IOPS log written by HdrHistogram's Python
# implementation (a lognormal body and 5 to 50 ms stalls: bench/widetail.py) adds to a default
# `nines report`, against the goal of at most 1 MB a run-hour. Two logs: stalls in one window
# of 20, and in every window. Writes the BENCHMARKS.md section between <!-- widetail:begin -->
# and <!-- widetail:end --> (raw: bench/results/widetail.csv). Needs Python's hdrh (installed
# by scripts/setup.sh).
# Usage: bash bench/widetail.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p nines-qos
N=$PWD/target/release/nines
tmp=$(mktemp -d -p target)
trap 'rm -rf "$tmp"' EXIT
size() { stat -c %s "$1"; }
carries() { grep -o 'data-testid="summary-carries">[^<]*' "$1" | head -1 | sed 's/.*histograms of //'; }
echo "share,archive_bytes,per_run_hour_bytes" > bench/results/widetail.csv
rows=""
for share in 0.05 1.0; do
  echo "bench: writing a one-hour log, stalls in a share $share of the windows (about 2 minutes)" >&2
  python3 bench/widetail.py "$tmp/wide.hlog" 3600 64000 "$share"
  cp "$tmp/wide.hlog" "$tmp/copy.hlog"
  $N report "$tmp/wide.hlog" -o "$tmp/r1.html" >/dev/null
  $N report "$tmp/wide.hlog" "$tmp/copy.hlog" -o "$tmp/r2.html" >/dev/null
  arch=$(size "$tmp/wide.hlog")
  per=$(( $(size "$tmp/r2.html") - $(size "$tmp/r1.html") ))
  verdict=$([ "$per" -le 1000000 ] && echo meets || echo misses)
  echo "$share,$arch,$per" >> bench/results/widetail.csv
  rows+="| $share | $((arch / 1024)) KiB | $((per / 1024)) KiB ($verdict <= 1000 KB) | $(carries "$tmp/r1.html") |"$'\n'
done
section=$(cat <<MD
<!-- widetail:begin -->
### Wide tails written by another tool

A one-hour log written by HdrHistogram's Python implementation (hdrh), not by nines: one
direction, 64,000 I/Os a second, a lognormal body (median 90 us) and stalls of 5 to 50 ms
(1 to 20 in a window that has them), counts drawn per bucket of a 3-digit histogram
(bench/widetail.py); what it adds to a default \`nines report\`. $(date -u +%Y-%m-%d), this
project's 2-core VM.

| windows with stalls | archive | per run-hour, default | its histograms |
|---|---|---|---|
${rows}
Command: \`bash bench/widetail.sh\` (raw: bench/results/widetail.csv).
<!-- widetail:end -->
MD
)
python3 - "$section" <<'PY'
import re, sys
section = sys.argv[1]
path = "BENCHMARKS.md"
text = open(path).read()
if "<!-- widetail:begin -->" in text:
    text = re.sub(r"<!-- widetail:begin -->.*?<!-- widetail:end -->", lambda m: section, text, flags=re.S)
else:
    text = text.replace("<!-- report:end -->", "<!-- report:end -->\n\n" + section, 1)
open(path, "w").write(text)
PY
echo "widetail: $rows"
