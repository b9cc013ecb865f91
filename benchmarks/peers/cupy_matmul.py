"""cupy_matmul.py: the CuPy peer of gpu/blas's BenchmarkGemmGPU.

Square matmul of random float32 and float64 matrices (cuBLAS under CuPy),
timed by CUDA events after a warm-up; prints the median of `count` runs of
`iters` products each, as TFLOP/s.

    python3 cupy_matmul.py [sizes=4096,8192] [iters=50] [count=5]
"""
import sys

import cupy as cp

sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "4096,8192").split(",")]
iters = int(sys.argv[2]) if len(sys.argv) > 2 else 50
count = int(sys.argv[3]) if len(sys.argv) > 3 else 5
for dtype in (cp.float32, cp.float64):
    for n in sizes:
        rs = cp.random.RandomState(1)
        a = rs.random_sample((n, n)).astype(dtype)
        b = rs.random_sample((n, n)).astype(dtype)
        c = cp.matmul(a, b)
        for _ in range(5):
            cp.matmul(a, b, out=c)
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(count):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            for _ in range(iters):
                cp.matmul(a, b, out=c)
            e1.record()
            e1.synchronize()
            times.append(cp.cuda.get_elapsed_time(e0, e1) / iters)
        times.sort()
        ms = times[len(times) // 2]
        print(f"cupy matmul {cp.dtype(dtype).name} n={n}: median {ms:.3f} ms, {2 * n**3 / ms / 1e9:.2f} TFLOP/s")
