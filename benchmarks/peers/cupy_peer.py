"""cupy_peer.py: the CuPy peer of rocr/drivers/cuda's BenchmarkCUDA.

Loads the same PTX with cupy.RawModule and prints Go benchmark lines
(BenchmarkCuPy/<metric> N ns/op [MB/s]):

    python3 cupy_peer.py kernels_sm90.ptx [count]
"""
import sys
import time

import cupy as cp
import numpy as np

path = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 5
mod = cp.RawModule(path=path)
empty = mod.get_function("empty")
vadd = mod.get_function("vector_add")
s1 = cp.cuda.Stream(non_blocking=True)
s2 = cp.cuda.Stream(non_blocking=True)
ev = cp.cuda.Event(disable_timing=True)
n = 1 << 26
a = cp.full(n, 1, cp.float32)
b = cp.full(n, 2, cp.float32)
c = cp.zeros(n, cp.float32)
nn = np.int32(n)
one, blk = (1,), (1,)


def launch_sync(iters):
    with s1:
        for _ in range(iters):
            empty(one, blk, ())
            s1.synchronize()


def launch_async(iters):
    with s1:
        for _ in range(iters):
            empty(one, blk, ())
    s1.synchronize()


def cross_queue(iters):
    for _ in range(iters):
        with s1:
            empty(one, blk, ())
        ev.record(s1)
        s2.wait_event(ev)
        with s2:
            empty(one, blk, ())
        s2.synchronize()


def vector_add(iters):
    with s1:
        for _ in range(iters):
            vadd((n // 256,), (256,), (a, b, c, nn))
            s1.synchronize()


def bench(name, f, iters, nbytes=0):
    f(iters // 10 + 1)
    t0 = time.perf_counter_ns()
    f(iters)
    ns = (time.perf_counter_ns() - t0) / iters
    line = "BenchmarkCuPy/%s\t%d\t%.1f ns/op" % (name, iters, ns)
    if nbytes:
        line += "\t%.2f MB/s" % (nbytes / ns * 1e3)
    print(line, flush=True)


for _ in range(count):
    bench("launch_sync", launch_sync, 20000)
    bench("launch_async", launch_async, 100000)
    bench("cross_queue", cross_queue, 20000)
    bench("vector_add", vector_add, 300, 12 * n)
assert float(c[-1]) == 3.0, float(c[-1])
