"""Read an interval log with Python hdrh and print per tag what hdrh computes, as JSON.

Usage: python3 py_read.py IN.hlog PCT...
"""
import json
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader


def main():
    path = sys.argv[1]
    pcts = [float(p) for p in sys.argv[2:]]
    reader = HistogramLogReader(path, HdrHistogram(1, 3600 * 10**9, 3))
    totals = {}
    windows = 0
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        windows += 1
        tag = h.get_tag() or "untagged"
        if tag not in totals:
            totals[tag] = HdrHistogram(1, 3600 * 10**9, 3)
        totals[tag].add(h)
    out = {"windows": windows, "tags": {}}
    for tag, h in totals.items():
        out["tags"][tag] = {
            "count": h.get_total_count(),
            "min": h.get_min_value(),
            "max": h.get_max_value(),
            "mean": h.get_mean_value(),
            "values": [h.get_value_at_percentile(p) for p in pcts],
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
