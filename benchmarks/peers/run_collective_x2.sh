#!/bin/bash
# run_collective_x2.sh: on the two-GPU machine (nvidia-h200-x2; no Go):
# gpu/collective's tests on NCCL (one process over both GPUs, two
# processes, one rank), then BenchmarkAllReduce beside the same all-reduce
# through torch.distributed (benchmarks/peers/nccl_torch.py), in one run.
#
# Here (with Go), from the repository root:
#   mkdir -p gpu-tests
#   CGO_ENABLED=0 go test -c -o gpu-tests/collective.test ./gpu/collective
# There, from the repository root (OUT defaults to ./out):
#   OUT=$OUT bash benchmarks/peers/run_collective_x2.sh [gpu-tests] [count]
# NVLink multicast stays off in every process this starts.
set -u
G=${1:-gpu-tests}
COUNT=${2:-5}
OUT=${OUT:-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda,nccl
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv
  nvidia-smi topo -m
  ls -l /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())' 2>&1
} > "$OUT/machine.txt" 2>&1
"$G/collective.test" -test.count=1 -test.v -test.timeout=8m \
  -test.run '^(TestScriptInOneProcess|TestTwoProcesses|TestNewRankOverTCP|TestBadArguments|TestDestroyed|TestGroupErrors|TestGroupDrivesAllRanks|TestDependencies|TestGroupRacesOperations|ExampleAllReduce)$' \
  > "$OUT/collective-tests.txt" 2>&1
echo "tests: exit $?" >> "$OUT/collective-tests.txt"
"$G/collective.test" -test.run '^$' -test.bench '^BenchmarkAllReduce$' -test.benchtime 2s -test.count "$COUNT" \
  > "$OUT/hipgo-allreduce.txt" 2>&1
python3 benchmarks/peers/nccl_torch.py 2 "$COUNT" > "$OUT/torch-allreduce.txt" 2>&1
tail -n 3 "$OUT"/*.txt
