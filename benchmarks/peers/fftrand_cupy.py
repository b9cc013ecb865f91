"""fftrand_cupy.py: the CuPy peers of gpu/fft's and gpu/rand's benchmarks,
timed by CUDA events (median of RUNS rounds of REPS calls each), one line
per case, named as the Go benchmarks are:

  cupy C2C/n=2^10/batch=4096 us=12.3
  cupy curand-philox-uniform/float32/2^24 us=45.6

Usage (on the GPU machine): python3 fftrand_cupy.py [runs] [reps] [fft|rand|all]
cupy.fft runs cuFFT underneath (plans cached by CuPy); the generators are
cuRAND's Philox4x32-10 through cupy.cuda.curand (the host API, as
curandGenerate* callers and CuPy's RandomState use it), and, where this
CuPy has it, cupy.random.Generator over its Philox4x3210 bit generator
(else XORWOW, the default), printed as cupy-generator-*. The case names
are gpu/fft's and gpu/rand's benchmark names (fftrand_summary.py pairs
them); benchmarks/peers/fftrand.sh runs this interleaved with them.
"""
import statistics
import sys

import cupy as cp
from cupy.cuda import curand

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
PART = sys.argv[3] if len(sys.argv) > 3 else "all"


def timed(name, fn):
    try:
        fn()  # warm: plans, memory pool
        cp.cuda.Device().synchronize()
    except Exception as e:  # a peer this CuPy lacks: say so, go on
        print(f"cupy {name} error={type(e).__name__}: {e}", flush=True)
        return
    rounds = []
    for _ in range(RUNS):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(REPS):
            fn()
        end.record()
        end.synchronize()
        rounds.append(cp.cuda.get_elapsed_time(start, end) * 1000.0 / REPS)
    print(f"cupy {name} us={statistics.median(rounds):.2f} rounds={','.join(f'{r:.2f}' for r in rounds)}", flush=True)


def fft_cases():
    # gpu/fft's BenchmarkC2C, BenchmarkR2C (2^10 to 2^24 points, every
    # even power, about 2^22 points a call) and BenchmarkC2C2D.
    for l in range(10, 25, 2):
        n = 1 << l
        batch = max(1, (1 << 22) // n)
        x = (cp.random.rand(batch, n, dtype=cp.float32) + 1j * cp.random.rand(batch, n, dtype=cp.float32)).astype(cp.complex64)
        timed(f"C2C/n=2^{l}/batch={batch}", lambda x=x: cp.fft.fft(x, axis=-1))
        del x
        r = cp.random.rand(batch, n, dtype=cp.float32)
        timed(f"R2C/n=2^{l}/batch={batch}", lambda r=r: cp.fft.rfft(r, axis=-1))
        del r
    for n in (1024, 4096):
        x = (cp.random.rand(n, n, dtype=cp.float32) + 1j * cp.random.rand(n, n, dtype=cp.float32)).astype(cp.complex64)
        timed(f"C2C2D/{n}x{n}", lambda x=x: cp.fft.fft2(x))
        del x
    cp.get_default_memory_pool().free_all_blocks()


def rand_cases():
    g = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    curand.setPseudoRandomGeneratorSeed(g, 1)
    bitgen = getattr(cp.random, "Philox4x3210", None)
    gname = "philox" if bitgen is not None else "xorwow"
    gen = cp.random.Generator(bitgen(1) if bitgen is not None else cp.random.XORWOW(1)) if hasattr(cp.random, "Generator") else None
    for l in (20, 24, 26, 28):
        n = 1 << l
        f32 = cp.empty(n, dtype=cp.float32)
        f64 = cp.empty(n, dtype=cp.float64)
        u32 = cp.empty(n, dtype=cp.uint32)
        timed(f"curand-philox-uniform/float32/2^{l}", lambda: curand.generateUniform(g, f32.data.ptr, n))
        timed(f"curand-philox-uniform/float64/2^{l}", lambda: curand.generateUniformDouble(g, f64.data.ptr, n))
        timed(f"curand-philox-normal/float32/2^{l}", lambda: curand.generateNormal(g, f32.data.ptr, n, 0.0, 1.0))
        timed(f"curand-philox-normal/float64/2^{l}", lambda: curand.generateNormalDouble(g, f64.data.ptr, n, 0.0, 1.0))
        timed(f"curand-philox-bits/uint32/2^{l}", lambda: curand.generate(g, u32.data.ptr, n))
        if gen is not None:
            timed(f"cupy-generator-{gname}-uniform/float32/2^{l}", lambda: gen.random(n, dtype=cp.float32, out=f32))
            timed(f"cupy-generator-{gname}-normal/float32/2^{l}", lambda: gen.standard_normal(n, dtype=cp.float32, out=f32))
        # the write bandwidth the target is a share of: a plain fill
        timed(f"fill/float32/2^{l}", lambda: f32.fill(1.0))
        del f32, f64, u32
        cp.get_default_memory_pool().free_all_blocks()
    curand.destroyGenerator(g)


if __name__ == "__main__":
    print("cupy", cp.__version__, cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
    if PART in ("fft", "all"):
        fft_cases()
    if PART in ("rand", "all"):
        rand_cases()
