#!/bin/bash
# prims.sh: on a GPU machine, gpu/prim's tests (HIPGO_DRIVER=cuda) and
# benchmarks beside CUB (prims_cub.cu, built here by nvcc) and CuPy, in
# one run. The pack beside this script holds prim.test.xz, built on the
# development machine:
#
#   make prims-pack   (prim.test.xz and these scripts in prims-pack/)
#
# Files back: machine.txt, tests.txt, hipgo.txt (go test -bench), cub.txt,
# cupy.txt and prims.txt (the table).
set -u
P=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export NCCL_NVLS_ENABLE=0
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -2
} > "$OUT/machine.txt" 2>&1
(nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/prims_cub "$P/prims_cub.cu" > "$OUT/nvcc.txt" 2>&1) &
NV=$!
{ xz -dc "$P/prim.test.xz" || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$P/prim.test.xz"; } > /tmp/prim.test && chmod +x /tmp/prim.test
mkdir -p /tmp/w && cd /tmp/w || exit 1
HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda timeout "${TEST_S:-200}" /tmp/prim.test -test.count 1 -test.v -test.run "${TESTS:-.}" > "$OUT/tests.txt" 2>&1
echo "exit $?" >> "$OUT/tests.txt"
grep -E "^(--- FAIL|ok|FAIL|PASS|exit|panic)|Error:|expected|actual" "$OUT/tests.txt" | head -40
HIPGO_CHECKED=0 HIPGO_DRIVER=cuda timeout "${BENCH_S:-300}" /tmp/prim.test -test.run '^$' \
  -test.bench "${BENCH:-^Benchmark(TransformAdd|Copy|Reduce|Scan|Scan3Pass|ScanLookBack|SortKeys|SortPairs|SortKeysLSD|SortPairsLSD|MergeSortKeys|MergeSortPairs|Histogram|SegmentedReduce|Select|RunLengthEncode|ScanByKey|ScanByKey3Pass|Small)$}" \
  -test.benchtime "${BT:-0.3s}" -test.count "${COUNT:-3}" > "$OUT/hipgo.txt" 2>&1
wait $NV
timeout "${CUB_S:-200}" /tmp/prims_cub "${RUNS:-5}" "${MAXLOG:-26}" > "$OUT/cub.txt" 2>&1
timeout "${CUPY_S:-200}" python3 "$P/prims_cupy.py" "${RUNS:-5}" "${MAXLOG:-26}" > "$OUT/cupy.txt" 2>&1
python3 "$P/prims_summary.py" "$OUT/hipgo.txt" "$OUT/cub.txt" "$OUT/cupy.txt" > "$OUT/prims.txt" 2>&1
tail -5 "$OUT/hipgo.txt"; tail -3 "$OUT/cub.txt" "$OUT/cupy.txt"
cat "$OUT/prims.txt"
# The cpu agent on this machine's cores: the sort beside slices.Sort, the
# reduction and scan beside a parallel Go loop, at 2^24.
if [ -n "${CPU_BENCH:-}" ]; then
  cd /tmp/w
  for b in 'SortKeys/uint32' 'SlicesSort' 'Reduce/sum/float32' 'ParallelGoSum' 'Scan/inclusive_sum/int32' 'ParallelGoScan'; do
    HIPGO_CHECKED=0 HIPGO_DRIVER=cpu HIPGO_PRIM_SIZES=24 timeout "${CPU_S:-60}" /tmp/prim.test -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime "${CPU_BT:-5x}" -test.count "${CPU_COUNT:-3}"
  done > "$OUT/cpu.txt" 2>&1
  grep -E "^Benchmark" "$OUT/cpu.txt"
fi
