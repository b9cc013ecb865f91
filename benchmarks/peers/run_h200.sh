#!/bin/bash
# run_h200.sh: the cuda driver's tests, then hipgo, native C and CuPy side by
# side on the same PTX, on the GPU machine (which has nvcc and CuPy, no Go).
#
# Here (with Go):
#   mkdir -p gpu-tests && CGO_ENABLED=0 go test -c -ldflags='-s -w' -o gpu-tests/cuda.test ./rocr/drivers/cuda
#   cp kernels/gen/kernels_sm90.ptx gpu-tests/
# There, from the repository root (OUT defaults to ./out):
#   bash benchmarks/peers/run_h200.sh [gpu-tests] [count]
# Back here: out/'s files go into benchmarks/results/h200-<date>/.
set -u
G=${1:-gpu-tests}
COUNT=${2:-5}
OUT=${OUT:-out}
mkdir -p "$OUT"
PTX=$G/kernels_sm90.ptx
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,uuid,clocks.max.sm --format=csv
  nvcc --version | tail -1
  python3 -c 'import cupy; print("cupy", cupy.__version__)'
  echo "command: bash benchmarks/peers/run_h200.sh $G $COUNT"
} > "$OUT/machine.txt" 2>&1

export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda
(cd "$G" && timeout 110 ./cuda.test -test.v -test.count 1 -test.timeout 100s) > "$OUT/tests.txt" 2>&1
echo "tests: exit $?" >> "$OUT/tests.txt"
# Batched completion writes unless only the unbatched ones passed.
if grep -q -- '--- FAIL: TestCompletionWrite/batch' "$OUT/tests.txt" && grep -q -- '--- PASS: TestCompletionWrite/nobatch' "$OUT/tests.txt"; then
  export HIPGO_CUDA_BATCH=0
  echo "benchmarks with HIPGO_CUDA_BATCH=0" >> "$OUT/machine.txt"
fi

nvcc -O2 -o /tmp/native benchmarks/peers/native_cuda.c -lcuda > "$OUT/nvcc.txt" 2>&1 &&
  timeout 60 /tmp/native "$PTX" "$COUNT" > "$OUT/native.txt" 2>&1
timeout 90 python3 benchmarks/peers/cupy_peer.py "$PTX" "$COUNT" > "$OUT/cupy.txt" 2>&1
(cd "$G" && timeout 200 ./cuda.test -test.run '^$' -test.bench . -test.benchtime 0.5s -test.count "$COUNT" -test.benchmem -test.timeout 150s) > "$OUT/hipgo.txt" 2>&1
python3 benchmarks/peers/summarize.py "$OUT/native.txt" "$OUT/cupy.txt" "$OUT/hipgo.txt" > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
