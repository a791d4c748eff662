#!/usr/bin/env bash
# The cost of recording each window's context (nines run's #[context] lines): CPU time of
# the whole process over 1000 windows of 10 ms with and without --no-context (null engine,
# 100 IOPS, so the I/O itself costs next to nothing), 3 rounds; the difference per window is
# one sample of /proc/diskstats, /proc/stat, /proc/pressure/{io,cpu} and getrusage, the
# sampling thread's wake-up and the line written.
# Usage: bash bench/context.sh [path/to/nines]   (default: a release build in target/)
set -euo pipefail
cd "$(dirname "$0")/.."
NINES=${1:-target/release/nines}
[ -x "$NINES" ] || cargo build -q --release -p nines-qos
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$NINES" "$DIR" <<'PY'
import resource, subprocess, sys
nines, d = sys.argv[1], sys.argv[2]
def cpu(extra):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([nines, "run", "--engine", "null", "--target", "x", "--size", "1m", "--rate-iops", "100", "--runtime", "10s",
                    "--window", "10ms", "-q", "--no-summary", "-o", d + "/c.hlog", "--force"] + extra, check=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime)
per = []
for i in range(3):
    on, off = cpu([]), cpu(["--no-context"])
    per.append((on - off) / 1000)
    print(f"round {i+1}: with context {on:.3f} s CPU, --no-context {off:.3f} s CPU: {(on-off)/1000*1e6:.0f} us a window")
m = sorted(per)[1]
print(f"median {m*1e6:.0f} us a window = {m*100:.4f} % of a core at 1 s windows")
PY
