#!/usr/bin/env bash
# Runs every importer fuzz target for a short time (CI) or longer by hand.
# cargo-fuzz needs a nightly toolchain (installed here: `rustup toolchain list`); with only
# stable, RUSTC_BOOTSTRAP=1 lets stable accept the nightly flags libFuzzer builds need.
#
# Usage: bash fuzz/run.sh [SECONDS_PER_TARGET]   (default 20)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-20}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
if rustup toolchain list | grep -q '^nightly'; then tc=+nightly; else tc=; export RUSTC_BOOTSTRAP=1; fi
# Seed each corpus with real fio output kept in tests/data.
for t in fio_json fio_hist fio_lat list spectrum read_any write_back table compact fio_job; do mkdir -p "corpus/$t"; done
cp ../tests/data/fio-*.json corpus/fio_json/ 2>/dev/null || true
cp ../tests/data/fio-*hist*.log corpus/fio_hist/ 2>/dev/null || true
cp ../tests/data/fio-*clat.*.log corpus/fio_lat/ 2>/dev/null || true
find ../tests/data -type f -size -64k -exec cp {} corpus/read_any/ \;
cp corpus/read_any/* corpus/write_back/ 2>/dev/null || true
cp seeds/spectrum/* corpus/spectrum/
cp seeds/list/* corpus/list/
cp ../tests/data/fio-examples/*.fio corpus/fio_job/
for t in fio_json fio_hist fio_lat list spectrum read_any write_back table compact fio_job; do
  echo "fuzz: $t for ${secs}s" >&2
  cargo $tc fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=65536 2>&1 | tail -1
done
