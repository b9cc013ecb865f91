#!/usr/bin/env python3
"""fftrand_summary.py hipgo.txt cupy.txt: one line per case of gpu/fft's
and gpu/rand's benchmarks beside its CuPy peer, from interleaved rounds
(fftrand.sh): hipgo's median GPU time (gpu-ns/op of go test -bench, one
value a round), the peer's median (us of fftrand_cupy.py, one median a
round), and the ratio peer/hipgo (at least 1: hipgo as fast or faster;
the issue's targets are 0.98 for the FFT and 1.0 for Philox). The last
lines give uniform float32's write rate beside a plain fill's."""
import re
import statistics
import sys

hip, peer = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"Benchmark(\S+?)(-\d+)?\s+\d+\s+.*?([\d.]+) gpu-ns/op", line)
    if m:
        hip.setdefault(m.group(1), []).append(float(m.group(3)) / 1000)
for line in open(sys.argv[2]):
    m = re.match(r"cupy (\S+) us=([\d.]+)", line)
    if m:
        peer.setdefault(m.group(1), []).append(float(m.group(2)))


def med(v):
    return statistics.median(v) if v else None


# hipgo name -> peer name
pairs = []
for name in hip:
    kind, _, rest = name.partition("/")
    if kind in ("C2C", "R2C", "C2C2D"):
        pairs.append((name, name, "cufft"))
    elif kind in ("Uniform", "Normal", "Bits"):
        typ, _, size = rest.partition("/")
        what = {"Uniform": "uniform", "Normal": "normal", "Bits": "bits"}[kind]
        pairs.append((name, f"curand-philox-{what}/{typ}/{size}", "curand"))
        for g in ("philox", "xorwow"):
            p = f"cupy-generator-{g}-{what}/{typ}/{size}"
            if p in peer:
                pairs.append((name, p, "cupy.random"))

print(f"{'case':34} {'hipgo us':>10} {'peer us':>10} {'peer/hipgo':>10}  peer (rounds)")
for name, pname, lib in pairs:
    h, p = med(hip[name]), med(peer.get(pname, []))
    if p is None:
        print(f"{name:34} {h:10.2f} {'-':>10} {'-':>10}  {pname}: no peer line")
        continue
    print(f"{name:34} {h:10.2f} {p:10.2f} {p / h:10.3f}  {lib} {pname} ({len(hip[name])}/{len(peer[pname])})")
for l in (24, 26, 28):
    h, f = med(hip.get(f"Uniform/float32/2^{l}", [])), med(peer.get(f"fill/float32/2^{l}", []))
    if h and f:
        gbs = 4 * (1 << l) / h / 1e3
        print(f"write rate Uniform/float32/2^{l}: {gbs:.1f} GB/s, {f / h:.3f} of a plain fill's ({4 * (1 << l) / f / 1e3:.1f} GB/s)")
