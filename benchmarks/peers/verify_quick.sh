#!/bin/bash
# verify_quick.sh: one short device run after a change to a launch, copy,
# signal or driver path, for when device time is scarce: the named test
# binaries under the cuda driver (each with its own -test.run filter and a
# time limit), then gpu/graph's chain benchmark beside native C's CUDA
# graph of the same chain.
#
# Here:  make gpu-tests-pack (or build only the binaries listed below)
# There: OUT=out bash benchmarks/peers/verify_quick.sh gpu-pack/gpu-tests.tar.xz
set -u
ARCHIVE=${1:-gpu-pack/gpu-tests.tar.xz}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -f "$ARCHIVE" ]; then rm -rf gpu-tests && tar -xJf "$ARCHIVE"; fi
G=$PWD/gpu-tests
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nproc
  echo "command: bash benchmarks/peers/verify_quick.sh $ARCHIVE"
} > "$OUT/machine.txt" 2>&1
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=${HIPGO_REQUIRE:-cuda} NCCL_NVLS_ENABLE=0
export HIPGO_NV_DIR=$PWD/rocr/codeobj/testdata/nv

# name|run filter|seconds, one per line in $VERIFY_TESTS (default: all of
# each binary found, 100 s each).
if [ -z "${VERIFY_TESTS:-}" ]; then
  VERIFY_TESTS=$(cd "$G" && for t in *.test; do echo "${t%.test}|.|100"; done)
fi
while IFS='|' read -r n run secs; do
  [ -z "$n" ] && continue
  [ -x "$G/$n.test" ] || { printf '%-32s %s\n' "$n" "missing" >> "$OUT/tests.txt"; continue; }
  start=$(date +%s.%N)
  (cd "$G" && timeout "$secs" "./$n.test" -test.run "$run" -test.count 1 -test.timeout "$((secs - 5))s" > "/tmp/v-$n.txt" 2>&1; echo "exit $?" >> "/tmp/v-$n.txt")
  { echo "=== $n ($run)"; cat "/tmp/v-$n.txt"; } >> "$OUT/tests-output.txt"
  printf '%-32s %-10s %6.1fs  %s\n' "$n" "$(tail -1 /tmp/v-$n.txt)" "$(echo "$(date +%s.%N) - $start" | bc)" "$run" >> "$OUT/tests.txt"
done <<< "$VERIFY_TESTS"

# The 100-kernel chain: hipgo (direct, graph) and native C (direct, CUDA graph).
if [ -x "$G/gpu_graph.test" ] && [ -z "${NO_BENCH:-}" ]; then
  nvcc -O2 -o /tmp/native benchmarks/peers/native_cuda.c -lcuda > "$OUT/nvcc.txt" 2>&1 &&
    CHAIN_ONLY=1 timeout 60 /tmp/native "$G/kernels_sm90.ptx" 3 > "$OUT/native-chain.txt" 2>&1
  (cd "$G" && timeout 60 ./gpu_graph.test -test.run '^$' -test.bench 'Chain100|Instantiate100' -test.benchtime 1000x -test.count 3 -test.benchmem) > "$OUT/graph-chain.txt" 2>&1
  (cd "$G" && HIPGO_CUDA_GRAPHS=0 timeout 60 ./gpu_graph.test -test.run 'TestKernelChain|TestReplay' -test.bench 'Chain100/graph' -test.benchtime 1000x -test.count 3 -test.benchmem) > "$OUT/graph-chain-packets.txt" 2>&1
fi
# gputest's GPU time for vector_add 2^26 beside native C's event time
# (native-chain.txt has BenchmarkNative/vector_add_events).
if [ -x "$G/benchmarks.test" ] && [ -z "${NO_BENCH:-}" ]; then
  (cd "$G" && timeout 90 ./benchmarks.test -test.run '^$' -test.bench 'VectorAddStream/impl=hipgo/n=67108864' -test.count 3 -test.benchmem) > "$OUT/gputest-vector_add.txt" 2>&1
fi
# gpu/blas gemm at 4096 beside CuPy's matmul (cuBLAS), both warmed up.
if [ -x "$G/gpu_blas.test" ] && [ -z "${NO_BENCH:-}" ]; then
  (cd "$G" && timeout 120 ./gpu_blas.test -test.run '^$' -test.bench "GemmGPU/[sd]gemm/n=${GEMM_N:-4096}/impl=blas" -test.benchtime 100x -test.count 3 -test.benchmem) > "$OUT/blas-gemm.txt" 2>&1
  timeout 120 python3 benchmarks/peers/cupy_matmul.py "${GEMM_N:-4096}" 100 3 > "$OUT/cupy-matmul.txt" 2>&1
fi
# Stream-ordered 4 KiB allocation and the pitched 8192x8192 copy, beside
# native C's (native-chain.txt: alloc_async_4k, memcpy2d_8192).
if [ -z "${NO_BENCH:-}" ]; then
  [ -x "$G/benchmarks.test" ] && (cd "$G" && timeout 40 ./benchmarks.test -test.run '^$' -test.bench 'AllocAsync4K' -test.benchtime 20000x -test.count 3 -test.benchmem; timeout 60 ./benchmarks.test -test.run '^$' -test.bench 'Copy2D' -test.benchtime 50x -test.count 3) > "$OUT/pool-copy2d.txt" 2>&1
fi
cat "$OUT/tests.txt"
