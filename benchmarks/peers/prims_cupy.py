"""prims_cupy.py: the primitives of gpu/prim through CuPy, timed by CUDA
events (cupyx.profiler.benchmark), for the same table as prims_cub.cu.

    python3 prims_cupy.py [runs] [maxlog2]

Each line: "cupy <primitive> <type> <n> <us>", the median GPU time of
runs x 20 calls.
"""
import sys

import cupy as cp
from cupyx.profiler import benchmark

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
maxlog = int(sys.argv[2]) if len(sys.argv) > 2 else 26


def t(f, *a):
    r = benchmark(f, a, n_repeat=20 * runs, n_warmup=3)
    return float(cp.median(cp.asarray(r.gpu_times[0]))) * 1e6


def line(prim, typ, n, us):
    print(f"cupy {prim} {typ} {n} {us:.2f}", flush=True)


for lg in (20, 24, 26, 28):
    if lg > maxlog:
        break
    n = 1 << lg
    rs = cp.random.RandomState(1)
    x = rs.randint(-3, 4, n).astype(cp.float32)
    y = rs.randint(-3, 4, n).astype(cp.float32)
    z = cp.empty_like(x)
    line("add", "float32", n, t(lambda a, b: cp.add(a, b, out=z), x, y))
    for typ, dt in (("float32", cp.float32), ("int32", cp.int32), ("float64", cp.float64)):
        a = x.astype(dt)
        line("sum", typ, n, t(lambda v: v.sum(), a))
        line("min", typ, n, t(lambda v: v.min(), a))
        line("argmin", typ, n, t(lambda v: v.argmin(), a))
    for typ, dt in (("int32", cp.int32), ("float32", cp.float32)):
        a = x.astype(dt)
        line("inclusive_sum", typ, n, t(lambda v: cp.cumsum(v), a))
    k = rs.randint(0, 2**32, n, dtype=cp.uint64).astype(cp.uint32)
    line("sort_keys", "uint32", n, t(lambda v: cp.sort(v), k))
    line("sort_keys", "float32", n, t(lambda v: cp.sort(v), rs.standard_normal(n, dtype=cp.float32)))
    line("sort_keys", "uint64", n, t(lambda v: cp.sort(v), rs.randint(0, 2**63, n, dtype=cp.int64).astype(cp.uint64)))
    # CuPy's sort is CUB's radix sort whatever kind; a stable sort of keys
    # and the indices that order them is what a merge sort's user gets.
    line("merge_sort_keys", "uint32", n, t(lambda v: cp.sort(v, kind="stable"), k))
    line("merge_sort_keys", "float32", n, t(lambda v: cp.sort(v, kind="stable"), rs.standard_normal(n, dtype=cp.float32)))
    line("merge_sort_pairs", "uint32-uint32", n, t(lambda v: cp.argsort(v, kind="stable"), k))
    b = rs.randint(0, 256, n, dtype=cp.int32).astype(cp.uint8)
    line("histogram256", "uint8", n, t(lambda v: cp.histogram(v, bins=256, range=(0, 256)), b))
    line("segmented_sum", "float32", n, t(lambda v: v.reshape(-1, 1024).sum(axis=1), x))
    xi = x.astype(cp.int32)
    fl = (rs.randint(0, 256, n, dtype=cp.int32) & 1).astype(cp.bool_)
    line("select_flagged", "int32", n, t(lambda v, f: v[f], xi, fl))
    del x, y, z, xi, fl
    cp.get_default_memory_pool().free_all_blocks()
