"""A one-hour, 64k-IOPS latency log with a wide tail, written by HdrHistogram's Python
implementation (hdrh), not by nines: one-second windows, a lognormal body (median 90 us) and
rare stalls of 5 to 50 ms (about one window in 20 holds 1 to 20 of them).

Each window's counts are drawn per histogram bucket (Poisson counts of the lognormal's share of
each bucket of a 3-significant-digit HdrHistogram: the distribution of drawing 64,000
latencies a second, at a fraction of the time).

Usage: python3 bench/widetail.py OUT.hlog [SECONDS] [IOPS] [STALL_SHARE]
(STALL_SHARE: the share of windows holding stalls, 0.05 by default)
"""
import math
import random
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

out = sys.argv[1]
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
iops = int(sys.argv[3]) if len(sys.argv) > 3 else 64000
stall_share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
rng = random.Random(42)
median_ns, sigma = 90_000.0, 0.45
# the buckets of 3 significant digits (2,048 sub-buckets: width 2^(bits - 11)) from 10 us to
# 5 ms: the lognormal's probability in each
edges = [10_000]
while edges[-1] < 5_000_000:
    edges.append(edges[-1] + 2 ** max(0, edges[-1].bit_length() - 11))


def cdf(x):
    return 0.5 * (1 + math.erf((math.log(x) - math.log(median_ns)) / (sigma * math.sqrt(2))))


bins = [(a, iops * (cdf(b) - cdf(a))) for a, b in zip(edges, edges[1:])]
bins = [(v, lam) for v, lam in bins if lam > 1e-6]


def poisson(lam):
    if lam > 30:
        return max(0, round(rng.gauss(lam, math.sqrt(lam))))
    k, p, limit = 0, 1.0, math.exp(-lam)
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


with open(out, "w") as f:
    w = HistogramLogWriter(f)
    start = 1_800_000_000.0
    # (hdrh 0.10's output_start_time fails on a date method Python does not have: the
    # start time line is written as Java's writer writes it)
    f.write("#[StartTime: %.3f (seconds since epoch), 2027-01-15 08:00:00]\n" % start)
    w.output_base_time(start * 1000)
    w.base_time = start * 1000
    w.output_legend()
    for s in range(seconds):
        h = HdrHistogram(1, 3_600_000_000_000, 3)
        for v, lam in bins:
            n = poisson(lam)
            if n:
                h.record_value(v, n)
        if rng.random() < stall_share:
            for _ in range(rng.randint(1, 20)):
                h.record_value(int(rng.uniform(5e6, 50e6)))
        h.set_start_time_stamp((start + s) * 1000)
        h.set_end_time_stamp((start + s + 1) * 1000)
        w.output_interval_histogram(h)
