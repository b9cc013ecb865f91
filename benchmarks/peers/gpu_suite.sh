#!/bin/bash
# gpu_suite.sh: on the H200 machine (no Go there), run every package's test
# binary with the cuda driver forced (LANES at a time, default 4), the
# vector add, and the benchmarks of hipgo beside native C and CuPy on the
# same PTX. Nine files come back: tests (the machine, then a line per
# package), tests-output, peers (nvcc, native C, CuPy), hipgo, api (and the
# vector add), compared (pairs timed in one run), suite (with SUITE),
# summary, nv-fixtures.tar.gz.
#
# Here:   make gpu-tests-pack
# There:  OUT=out bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz [count]
# Back here: out/'s files go into benchmarks/results/h200-<date>/.
set -u
ARCHIVE=${1:-gpu-tests.tar.xz}
COUNT=${2:-5}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -f "$ARCHIVE" ]; then rm -rf gpu-tests && tar -xJf "$ARCHIVE"; fi
G=gpu-tests
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  nproc
  python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1
  echo "command: bash benchmarks/peers/gpu_suite.sh $ARCHIVE $COUNT"
} > "$OUT/tests.txt" 2>&1

export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda NCCL_NVLS_ENABLE=0
# nvcc's fixtures, fresh from k.cu (packed back as nv-fixtures.tar.gz).
HIPGO_NV_DIR=$(bash benchmarks/peers/nv_fixtures.sh "$OUT")
export HIPGO_NV_DIR
# Every package's tests (those that pin the cpu agent run there), LANES at
# a time, each in its package's folder (packages.txt, from make gpu-tests)
# as go test runs it, so testdata is found; each binary's output is kept
# whole. On one GPU the collectives need NCCL, not a second device.
one() {
  local n=$1 s=$(date +%s) dir env=()
  dir=$(awk -v n="$n" '$1 == n { print $2 }' "$G/packages.txt" 2> /dev/null)
  [ -d "$ROOT/$dir" ] || dir=gpu-tests
  [ "$n" = gpu_collective ] && [ "$NGPU" -lt 2 ] && env=(HIPGO_REQUIRE=nccl)
  (cd "$ROOT/$dir" && env "${env[@]}" timeout 300 "$G/$n.test" -test.count 1 -test.timeout 290s ${TESTFLAGS:-} > "/tmp/test-$n.txt" 2>&1; echo "exit $?" >> "/tmp/test-$n.txt")
  printf '%-40s %-8s %4ss\n' "$n" "$(tail -1 "/tmp/test-$n.txt")" "$(($(date +%s) - s))" > "/tmp/line-$n.txt"
}
export -f one
ROOT=$PWD G=$PWD/$G NGPU=$(nvidia-smi -L 2> /dev/null | wc -l)
export ROOT G NGPU TESTFLAGS=${TESTFLAGS:-}
for t in "$G"/${TESTS:-*}.test; do
  n=$(basename "$t" .test)
  [ "$n" = benchmarks ] || echo "$n"
done | xargs -P "${LANES:-4}" -I{} bash -c 'one {}'
for t in "$G"/${TESTS:-*}.test; do
  n=$(basename "$t" .test)
  [ -f "/tmp/line-$n.txt" ] || continue
  cat "/tmp/line-$n.txt" >> "$OUT/tests.txt"
  { echo "=== $n"; cat "/tmp/test-$n.txt"; } >> "$OUT/tests-output.txt"
done
# What the pack left out, and why (make gpu-tests, gpu-tests-pack).
if [ -f "$G/left-out.txt" ]; then
  { echo "left out of the pack:"; sed 's/^/  /' "$G/left-out.txt"; } >> "$OUT/tests.txt"
fi
(cd "$G" && timeout 60 ./vector_add) > "$OUT/api.txt" 2>&1

# The comparisons that were timed tests once, each pair in one run:
# stream-ordered vs plain allocation and 2-D vs linear copy (gpu/module),
# a cache hit of runtime compilation (gpu/rtc).
{
  (cd "$ROOT/gpu/module" && timeout 120 "$G/gpu_module.test" -test.run '^$' -test.bench '^Benchmark(AllocAsync|Copy2D)CUDA$' -test.benchtime 0.3s -test.count 3 -test.benchmem)
  (cd "$ROOT/gpu/rtc" && timeout 60 "$G/gpu_rtc.test" -test.run '^$' -test.bench '^BenchmarkCacheHit$/target=device' -test.count 3 -test.benchmem)
} > "$OUT/compared.txt" 2>&1

# Benchmarks: hipgo (rocr level and gpu API), native C, CuPy.
nvcc -O2 -o /tmp/native benchmarks/peers/native_cuda.c -lcuda > "$OUT/peers.txt" 2>&1 &&
  timeout 60 /tmp/native "$G/kernels_sm90.ptx" "$COUNT" > /tmp/native.txt 2>&1
timeout 90 python3 benchmarks/peers/cupy_peer.py "$G/kernels_sm90.ptx" "$COUNT" > /tmp/cupy.txt 2>&1
cat /tmp/native.txt /tmp/cupy.txt >> "$OUT/peers.txt"
(cd "$G" && timeout 150 ./rocr_drivers_cuda.test -test.run '^$' -test.bench . -test.benchtime 0.3s -test.count "$COUNT" -test.benchmem) > "$OUT/hipgo.txt" 2>&1
# The same four measurements through the public API (typed launchers and LaunchKernelGGL).
(cd "$G" && timeout 150 ./benchmarks.test -test.run '^$' -test.bench '^BenchmarkAPI' -test.benchtime 0.3s -test.count "$COUNT" -test.benchmem) > /tmp/api.txt 2>&1
cat /tmp/api.txt >> "$OUT/api.txt"
if [ -x "$G/benchmarks.test" ] && [ -n "${SUITE:-}" ]; then
  (cd "$G" && timeout 240 ./benchmarks.test -test.run '^$' -test.bench "$SUITE" -test.benchtime 0.2s -test.count 3 -test.benchmem -test.short) > "$OUT/suite.txt" 2>&1
fi
python3 benchmarks/peers/summarize.py /tmp/native.txt /tmp/cupy.txt "$OUT/hipgo.txt" /tmp/api.txt > "$OUT/summary.txt" 2>&1
cat "$OUT/tests.txt" "$OUT/summary.txt"
