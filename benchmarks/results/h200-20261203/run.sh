#!/bin/bash
# The H200 pack: the suite (tests + peers), misuse/stress, alloc tests, the
# cross-queue reuse test, profiles of what misses. Everything to $OUT/r.tgz.
set -u
R=$OUT/r; mkdir -p $R
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda NCCL_NVLS_ENABLE=0
LANES=6 OUT=$R/suite timeout 380 bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz 5 > $R/suite.log 2>&1
G=$PWD/gpu-tests
t() { local n=$1 d=$2 bin=$3; shift 3; (cd $d && timeout 150 $G/$bin.test "$@") > $R/$n.txt 2>&1; echo "exit $?" >> $R/$n.txt; }
t stress-misuse internal/reliability internal_reliability -test.run 'TestMisuse|Stress' -test.count 1 -test.v
t allocs benchmarks benchmarks -test.run 'TestAPIAllocs|TestStreamBenchmarks' -test.count 1 -test.v
t graph-allocs gpu/graph gpu_graph -test.run 'TestChainReplayAllocs|TestMemNodeLaunchAllocs' -test.count 1 -test.v
t crossq rocr/drivers/cuda rocr_drivers_cuda -test.run 'TestCrossQueueSignalReuse' -test.count 3 -test.v
t crossq-bench rocr/drivers/cuda rocr_drivers_cuda -test.run '^$' -test.bench 'CUDA/cross_queue' -test.benchtime 0.3s -test.count 5 -test.benchmem
t crossq-prof rocr/drivers/cuda rocr_drivers_cuda -test.run '^$' -test.bench 'CUDA/cross_queue' -test.benchtime 1s -test.count 1 -test.cpuprofile $R/rocr-cross.cpu
t chain gpu/graph gpu_graph -test.run '^$' -test.bench Chain100 -test.count 5 -test.benchmem
t scaling benchmarks benchmarks -test.run '^$' -test.bench '^BenchmarkLaunchScaling' -test.benchtime 0.3s -test.count 3 -test.short -test.benchmem
for c in launch_sync launch_async cross_queue; do
  t prof-$c benchmarks benchmarks -test.run '^$' -test.bench "^BenchmarkAPI\$/^$c\$" -test.benchtime 1s -test.cpuprofile $R/api-$c.cpu
done
tar -czf $OUT/r.tgz -C $OUT r
