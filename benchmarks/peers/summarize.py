"""summarize.py: medians of Go-format benchmark lines from several files,
with each peer's ratio to native C: python3 summarize.py FILE...
"""
import collections
import re
import statistics
import sys

LINE = re.compile(r"^Benchmark(\w+)/(\w+)(?:-\d+)?\s+(\d+)\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?")
ns = collections.defaultdict(list)
mbs = collections.defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        peer, metric = m.group(1), m.group(2)
        if peer == "Call":
            # The cuda driver's micro-benchmarks: raw_* are the same calls
            # made from Go with nothing of hipgo around them.
            if not metric.startswith("raw_"):
                continue
            peer, metric = "GoRaw", metric[len("raw_"):]
        ns[(peer, metric)].append(float(m.group(4)))
        if m.group(5):
            mbs[(peer, metric)].append(float(m.group(5)))
# Column order and names: the peers first, then hipgo's levels.
ORDER = ["Native", "CuPy", "GoRaw", "CUDA", "API", "APIGGL"]
NAMES = {"Native": "native C", "CuPy": "CuPy", "GoRaw": "Go, raw driver calls", "CUDA": "hipgo rocr queue", "API": "hipgo API (typed)", "APIGGL": "hipgo API (GGL)"}
peers = sorted({p for p, _ in ns}, key=lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p))
metrics = ["launch_sync", "launch_async", "cross_queue", "cross_queue_auto", "vector_add"]
print("%-17s" % "metric" + "".join("%26s" % NAMES.get(p, p) for p in peers))
for met in metrics:
    if not any((p, met) in ns for p in peers):
        continue
    row = "%-17s" % met
    base = ns.get(("Native", met))
    for p in peers:
        v = ns.get((p, met))
        if not v:
            row += "%26s" % "-"
            continue
        med = statistics.median(v)
        if met == "vector_add" and mbs.get((p, met)):
            gbs = statistics.median(mbs[(p, met)]) / 1e3
            cell = "%.0f GB/s" % gbs
            if base and mbs.get(("Native", met)):
                cell += " (%.3fx)" % (gbs * 1e3 / statistics.median(mbs[("Native", met)]))
        else:
            cell = "%.2f us" % (med / 1e3)
            if base:
                cell += " (%.3fx)" % (med / statistics.median(base))
        row += "%26s" % cell
    print(row)
print("\nmedians of %s runs each; ratios against native C (time: lower is better; GB/s: higher is better)" % ", ".join("%s=%d" % (p, len(ns[(p, 'launch_sync')])) for p in peers))
