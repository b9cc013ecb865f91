#!/usr/bin/env python3
"""gokernels_summary.py peer.txt bench.txt: each Go kernel's median GPU
time beside its nvcc peer's, as a speed ratio (peer time / Go time)."""
import re, statistics, sys

peer = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w+) ([\d.]+) us", line)
    if m:
        peer[m.group(1)] = float(m.group(2))
bench = {}
for line in open(sys.argv[2]):
    m = re.match(r"Benchmark(\S+?)(-\d+)?\s+\d+\s+.*?([\d.]+) gpu-ns/op", line)
    if m:
        bench.setdefault(m.group(1), []).append(float(m.group(3)) / 1000)
pairs = [
    ("VectorAdd", "vector_add"),
    ("MatrixMul/block=16", "matrix_mul16"),
    ("MatrixMul/block=32", "matrix_mul32"),
    ("Reduce", "reduce_f32"),
    ("Histogram256", "histogram256"),
    ("Transpose", "transpose"),
    ("Scan", "scan_block"),
]
print("%-22s %12s %12s %8s" % ("kernel", "nvcc us", "Go us", "speed"))
for go, nv in pairs:
    if go in bench and nv in peer:
        g = statistics.median(bench[go])
        print("%-22s %12.2f %12.2f %7.3fx" % (go, peer[nv], g, peer[nv] / g))
    else:
        print("%-22s missing (go %s, peer %s)" % (go, go in bench, nv in peer))
# Checked mode: every kernel's BenchmarkChecked run beside its unchecked
# run, as checked/unchecked (issue 48's target: at most 1.25x).
print()
print("%-22s %12s %12s %8s" % ("checked mode", "unchecked us", "checked us", "ratio"))
for go in sorted(bench):
    if go.startswith("Checked/"):
        continue
    ck = "Checked/kernel=" + go
    if ck in bench:
        c, u = statistics.median(bench[ck]), statistics.median(bench[go])
        print("%-22s %12.2f %12.2f %7.2fx%s" % (go, u, c, c / u, "" if c / u <= 1.25 else "  (over 1.25x)"))
    elif go in dict(pairs):
        print("%-22s no checked run" % go)
