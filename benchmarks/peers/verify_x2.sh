#!/bin/bash
# verify_x2.sh: one short run on the two-GPU machine (nvidia-h200-x2) when
# device time is scarce: the test binaries under the cuda driver in two
# lanes, one per GPU; then what needs both GPUs (the misuse table's
# two-device cases, the stress test, Device.Reset after a fault,
# collectives on NCCL); then the benchmarks beside their peers (NCCL
# through torch.distributed, native C's CUDA graph, CuPy's matmul, native
# C's stream-ordered allocation and pitched copy). Every output goes to
# $OUT as soon as it is written. NVLink multicast stays off everywhere.
#
# Here:  the binaries under gpu-tests/ (see the list below) and
#        kernels_sm90.ptx, packed as gpu-pack/gpu-tests.tar.xz (at most
#        8 files come back from $OUT: tests, tests-output, allreduce,
#        native, graph, gemm, mem, nv-fixtures; syscalln with SYSCALLN=1
#        in place of allreduce on one GPU)
# There: OUT=$OUT bash benchmarks/peers/verify_x2.sh gpu-pack/gpu-tests.tar.xz
set -u
ARCHIVE=${1:-gpu-pack/gpu-tests.tar.xz}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -f "$ARCHIVE" ]; then rm -rf gpu-tests && tar -xJf "$ARCHIVE"; fi
G=$PWD/gpu-tests
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=${HIPGO_REQUIRE:-cuda} NCCL_NVLS_ENABLE=0
# nvcc's fixtures, fresh from k.cu (packed back as nv-fixtures.tar.gz).
HIPGO_NV_DIR=$(bash benchmarks/peers/nv_fixtures.sh "$OUT")
export HIPGO_NV_DIR
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nproc
  ls /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1 | head -2
} > "$OUT/tests.txt" 2>&1

# One GPU: both lanes share it and the benchmarks take turns.
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
L2=0
[ "$NGPU" -gt 1 ] && L2=1

# t NAME RUN SECONDS [ENV...]: one test binary, its result line in tests.txt.
t() {
  local n=$1 run=$2 secs=$3
  shift 3
  if [ ! -x "$G/$n.test" ]; then echo "$n missing" >> "$OUT/tests.txt"; return; fi
  local s=$(date +%s)
  (cd "$G" && env "$@" timeout "$secs" "./$n.test" -test.run "$run" -test.count 1 -test.timeout "$((secs - 3))s" > "/tmp/v-$n.txt" 2>&1; echo "exit $?" >> "/tmp/v-$n.txt")
  { echo "=== $n ($run) $*"; cat "/tmp/v-$n.txt"; } >> "$OUT/tests-output.txt"
  printf '%-28s %-8s %4ss %s %s\n' "$n" "$(tail -1 /tmp/v-$n.txt)" "$(($(date +%s) - s))" "$run" "$*" >> "$OUT/tests.txt"
}

# PHASES picks phases (default "1 2 3"); NO_BENCH=1 drops phase 3.
PHASES=${PHASES:-1 2 3}
[ -n "${NO_BENCH:-}" ] && PHASES=${PHASES//3/}
has() { [[ " $PHASES " == *" $1 "* ]]; }

# Phase 1: two lanes, one GPU each.
has 1 && (
  t rocr_drivers_cuda . 60 CUDA_VISIBLE_DEVICES=0
  t gpu_graph . 40 CUDA_VISIBLE_DEVICES=0
  t kernels . 40 CUDA_VISIBLE_DEVICES=0
  t examples_hip_kernel . 30 CUDA_VISIBLE_DEVICES=0
) &
(
  t gpu_module . 60 CUDA_VISIBLE_DEVICES=$L2
  t gpu_blas . 40 CUDA_VISIBLE_DEVICES=$L2
  t gpu_rtc . 40 CUDA_VISIBLE_DEVICES=$L2
  t gpu_gputest . 40 CUDA_VISIBLE_DEVICES=$L2
) &
wait
# Phase 2: both GPUs.
has 2 && t internal_reliability 'TestMisuse|TestStress' 90 HIPGO_RELIABILITY_DRIVER=cuda
# A kernel fault poisons the CUDA process for good: its own process, last.
has 2 && t internal_reliability 'TestGPUResetAfterFault' 30 HIPGO_RELIABILITY_DRIVER=cuda
# On one GPU the many-rank tests skip: only NCCL itself is required there.
COLL_REQUIRE=cuda,nccl
[ "$NGPU" -gt 1 ] || COLL_REQUIRE=nccl
has 2 && t gpu_collective . 60 HIPGO_REQUIRE=$COLL_REQUIRE
has 2 && t examples_allreduce . 30

# Phase 3: benchmarks beside their peers.
has 3 || { cat "$OUT/tests.txt"; exit 0; }
if [ "$NGPU" -gt 1 ]; then
  (cd "$G" && timeout 60 ./gpu_collective.test -test.run '^$' -test.bench '^BenchmarkAllReduce$' -test.benchtime 1s -test.count 3) > "$OUT/allreduce.txt" 2>&1
  timeout 60 python3 benchmarks/peers/nccl_torch.py 2 3 >> "$OUT/allreduce.txt" 2>&1
fi
(
  nvcc -O2 -o /tmp/native benchmarks/peers/native_cuda.c -lcuda > "$OUT/native.txt" 2>&1 &&
    CUDA_VISIBLE_DEVICES=0 CHAIN_ONLY=1 timeout 60 /tmp/native "$G/kernels_sm90.ptx" 3 >> "$OUT/native.txt" 2>&1
  (cd "$G" && CUDA_VISIBLE_DEVICES=0 timeout 40 ./gpu_graph.test -test.run '^$' -test.bench 'Chain100|Instantiate100' -test.benchtime 1000x -test.count 3 -test.benchmem) >> "$OUT/graph.txt" 2>&1
  (cd "$G" && CUDA_VISIBLE_DEVICES=0 HIPGO_CUDA_GRAPHS=0 timeout 30 ./gpu_graph.test -test.run '^$' -test.bench 'Chain100/graph' -test.benchtime 1000x -test.count 3) >> "$OUT/graph.txt" 2>&1
  # The launch path's foreign call: purego's public SyscallN beside the
  # linked call (SYSCALLN=1; measured 2026-12-01).
  [ -n "${SYSCALLN:-}" ] && for v in 0 1; do
    (cd "$G" && CUDA_VISIBLE_DEVICES=0 HIPGO_CUDA_SYSCALLN=$v timeout 30 ./benchmarks.test -test.run '^$' -test.bench '^BenchmarkAPI$/^launch_(sync|async)$' -test.benchtime 0.3s -test.count 3 -test.benchmem; echo "HIPGO_CUDA_SYSCALLN=$v done") >> "$OUT/syscalln.txt" 2>&1
  done
) &
[ "$NGPU" -gt 1 ] || wait
(
  (cd "$G" && CUDA_VISIBLE_DEVICES=$L2 timeout 60 ./gpu_blas.test -test.run '^$' -test.bench 'GemmGPU/[sd]gemm/n=4096/impl=blas' -test.benchtime 50x -test.count 3) > "$OUT/gemm.txt" 2>&1
  CUDA_VISIBLE_DEVICES=$L2 timeout 60 python3 benchmarks/peers/cupy_matmul.py 4096 50 3 >> "$OUT/gemm.txt" 2>&1
  # What each side asks cuBLAS for: the first gemm call of each, logged.
  (cd "$G" && CUDA_VISIBLE_DEVICES=$L2 CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=/tmp/cublas-hipgo.log timeout 30 ./gpu_blas.test -test.run '^$' -test.bench 'GemmGPU/sgemm/n=4096/impl=blas' -test.benchtime 1x) > /dev/null 2>&1
  CUDA_VISIBLE_DEVICES=$L2 CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=/tmp/cublas-cupy.log timeout 60 python3 benchmarks/peers/cupy_matmul.py 4096 1 1 > /dev/null 2>&1
  for f in hipgo cupy; do
    echo "== cuBLAS log ($f): first gemm call, gemm calls in all"
    grep -i -m1 -A16 'function.*gemm' /tmp/cublas-$f.log
    grep -ci 'function.*gemm' /tmp/cublas-$f.log
  done >> "$OUT/gemm.txt" 2>&1
  (cd "$G" && CUDA_VISIBLE_DEVICES=$L2 timeout 30 ./benchmarks.test -test.run '^$' -test.bench 'AllocAsync4K' -test.benchtime 20000x -test.count 3 -test.benchmem; CUDA_VISIBLE_DEVICES=$L2 timeout 90 ./benchmarks.test -test.run '^$' -test.bench 'Copy2D|VectorAddStream/impl=hipgo/n=67108864|VectorAddBackToBack' -test.benchtime 50x -test.count 3) > "$OUT/mem.txt" 2>&1
) &
wait
cat "$OUT/tests.txt"
