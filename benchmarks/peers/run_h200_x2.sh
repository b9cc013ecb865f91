#!/bin/bash
# run_h200_x2.sh: on the two-GPU machine (nvidia-h200-x2; nvcc, no Go):
# hipgo's two-device check (TestMulti), then peer copy bandwidth and
# cross-device dependency latency, hipgo and native CUDA C in one run.
#
# Here (with Go), from the repository root:
#   mkdir -p gpu-tests
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o gpu-tests/benchmarks.test ./benchmarks
#   cp kernels/gen/kernels_sm90.ptx gpu-tests/
# There, from the repository root (OUT defaults to ./out):
#   OUT=$OUT bash benchmarks/peers/run_h200_x2.sh [gpu-tests] [count]
# Here again, with $OUT's files copied into benchmarks/results/h200x2-<date>/:
#   go -C benchmarks/report run . -o ../results/h200x2-<date> \
#     ../results/h200x2-<date>/hipgo-multi.txt ../results/h200x2-<date>/native-multi.txt
set -u
G=${1:-gpu-tests}
COUNT=${2:-5}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PTX=$G/kernels_sm90.ptx
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id,clocks.max.sm --format=csv
  nvidia-smi topo -m # NVLink or PCIe between the two
  nvcc --version | tail -1
  nproc
  echo "command: bash benchmarks/peers/run_h200_x2.sh $G $COUNT"
} > "$OUT/machine.txt" 2>&1

export HIPGO_DRIVER=cuda
# The functional check first: peer access, a peer copy, a staged copy and
# a cross-device event wait on the two GPUs (fails, not skips, with fewer).
(cd "$G" && HIPGO_REQUIRE=cuda,multi-gpu timeout 120 ./benchmarks.test -test.run 'TestMulti' -test.v -test.count 1 -test.timeout 110s) > "$OUT/tests.txt" 2>&1
echo "tests: exit $?" >> "$OUT/tests.txt"

# native C with CUDA's own peer calls, then hipgo's benchmarks, same sizes.
nvcc -O2 -o /tmp/native_multi benchmarks/peers/native_multi_gpu.c -lcuda > "$OUT/nvcc.txt" 2>&1 &&
  timeout 240 /tmp/native_multi "$PTX" "$COUNT" > "$OUT/native-multi.txt" 2>&1
echo "native: exit $?" >> "$OUT/nvcc.txt"
(cd "$G" && timeout 400 ./benchmarks.test -test.run '^$' -test.bench 'Multi' -test.benchmem -test.count "$COUNT" -test.timeout 390s) > "$OUT/hipgo-multi.txt" 2>&1
echo "hipgo: exit $?" >> "$OUT/nvcc.txt"

# A quick look; benchmarks/report makes the table from the two files.
grep -h '^Benchmark' "$OUT/native-multi.txt" "$OUT/hipgo-multi.txt" | sort | awk '{ printf "%-60s %14s ns/op %12s %s\n", $1, $3, $5, $6 }'
tail -3 "$OUT/tests.txt" "$OUT/nvcc.txt"
