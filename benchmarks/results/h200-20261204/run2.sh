#!/bin/bash
# H200 on the record branch, second commit (no event query for a fence's Done): the suite (tests + peers, medians of 5),
# misuse/stress, allocation tests, the cuda driver's record tests, and a
# CPU profile of the API's cross-stream round with events.
set -u
R=$OUT/r; mkdir -p $R
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda NCCL_NVLS_ENABLE=0
LANES=6 OUT=$R/suite timeout 360 bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz 5 > $R/suite.log 2>&1
G=$PWD/gpu-tests
t() { local n=$1 d=$2 bin=$3; shift 3; (cd $d && timeout 120 $G/$bin.test "$@") > $R/$n.txt 2>&1; echo "exit $?" >> $R/$n.txt; }
t stress-misuse internal/reliability internal_reliability -test.run 'TestMisuse|Stress|TestShutdown' -test.count 1 -test.v
t allocs benchmarks benchmarks -test.run 'TestAPIAllocs|TestStreamBenchmarks' -test.count 1 -test.v
t records rocr/drivers/cuda rocr_drivers_cuda -test.run 'TestRecord|TestCrossQueue|TestBarrier|TestEvent' -test.count 3 -test.v
t prof-api-cross_queue benchmarks benchmarks -test.run '^$' -test.bench '^BenchmarkAPI$/^cross_queue$' -test.benchtime 3s -test.count 1 -test.cpuprofile $R/api-cross_queue.cpu
tar -czf $OUT/r.tgz -C $OUT r
