#!/bin/bash
# gokernels.sh: on the H200 machine, the Go kernels beside their nvcc
# peers in one run. Build here:
#
#   make gokernels-pack
#
# There: tar -xJf gpu-pack/gokernels.tar.xz && OUT=out bash gokernels-pack/gokernels.sh [count]
#
# The pack carries this script, the peer's source and the summary, so it
# runs from any checkout.
#
# Files back: peer.txt (nvcc's kernel times), bench.txt (the Go kernels'
# gpu-ns/op, count runs each), tests.txt (the differential tests, cpu
# agent against the GPU, and the checked-mode tests), summary.txt.
set -u
COUNT=${1:-5}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
P=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -2
} > "$OUT/peer.txt" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/gokernels_peer "$P/gokernels_peer.cu" >> "$OUT/peer.txt" 2>&1 &&
  /tmp/gokernels_peer "$COUNT" >> "$OUT/peer.txt" 2>&1
# The differential tests need the cpu agent beside the GPU: no driver forced.
{
  for t in "$P"/*.test; do
    n=$(basename "$t" .test)
    d=$(awk -v n="$n" '$1 == n { print $2 }' "$P/packages.txt")
    echo "=== $n"
    mkdir -p "$d"
    (cd "$d" && HIPGO_REQUIRE=cuda timeout 300 "$t" -test.count 1 -test.v 2>&1 | grep -v '^=== RUN' | tail -60; echo "exit ${PIPESTATUS[0]}")
  done
} > "$OUT/tests.txt" 2>&1
# The benchmarks on the GPU alone.
(mkdir -p benchmarks/gokernels && cd benchmarks/gokernels && HIPGO_DRIVER=cuda timeout 400 "$P/benchmarks_gokernels.test" -test.run '^$' -test.bench . -test.count "$COUNT" -test.benchtime 50x) > "$OUT/bench.txt" 2>&1
python3 "$P/gokernels_summary.py" "$OUT/peer.txt" "$OUT/bench.txt" > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
