"""Write a tagged interval log with Python hdrh and print what hdrh computes on it as JSON.

Usage: python3 py_write.py OUT.hlog SEED WINDOWS PER_WINDOW PCT...
The hdrh writer has no tags and a broken StartTime line, so the header and the "Tag=" prefix
are written here; each interval line comes from hdrh's HistogramLogWriter.
"""
import json
import random
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter


def main():
    out, seed, windows, per_window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    pcts = [float(p) for p in sys.argv[5:]]
    rnd = random.Random(seed)
    totals = {t: HdrHistogram(1, 3600 * 10**9, 3) for t in ("read", "write")}
    with open(out, "w") as f:
        w = HistogramLogWriter(f)
        w.output_log_format_version()
        f.write("#[StartTime: 1764489600.000 (seconds since epoch), Sun Nov 30 08:00:00 UTC 2025]\n")
        w.output_base_time(1764489600000)
        w.output_legend()
        for s in range(windows):
            for tag, scale in (("read", 80_000), ("write", 25_000)):
                h = HdrHistogram(1, 3600 * 10**9, 3)
                for _ in range(per_window):
                    v = scale * rnd.lognormvariate(0, 0.5)
                    if rnd.randrange(2000) == 0:
                        v *= 40
                    h.record_value(int(v))
                f.write(f"Tag={tag},")
                w.output_interval_histogram(h, start_time_stamp_sec=float(s) or 0.000001,
                                            end_time_stamp_sec=float(s + 1))
                totals[tag].add(h)
    print(json.dumps({t: summary(h, pcts) for t, h in totals.items()}))


def summary(h, pcts):
    return {
        "count": h.get_total_count(),
        "min": h.get_min_value(),
        "max": h.get_max_value(),
        "mean": h.get_mean_value(),
        "values": [h.get_value_at_percentile(p) for p in pcts],
    }


if __name__ == "__main__":
    main()
