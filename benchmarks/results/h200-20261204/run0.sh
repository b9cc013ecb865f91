#!/bin/bash
# H200 on the pubsig branch (9a00599, now main): the suite again (tests + peers), misuse and
# allocation tests, the API's and the raw driver's cross-stream phases in
# one call, and a CPU profile of the rocr queue level's cross_queue.
set -u
R=$OUT/r3; mkdir -p $R
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda NCCL_NVLS_ENABLE=0
LANES=6 OUT=$R/suite timeout 360 bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz 5 > $R/suite.log 2>&1
G=$PWD/gpu-tests
t() { local n=$1 d=$2 bin=$3; shift 3; (cd $d && timeout 100 $G/$bin.test "$@") > $R/$n.txt 2>&1; echo "exit $?" >> $R/$n.txt; }
t stress-misuse internal/reliability internal_reliability -test.run 'TestMisuse|Stress|TestShutdown' -test.count 1 -test.v
t allocs benchmarks benchmarks -test.run 'TestAPIAllocs|TestStreamBenchmarks' -test.count 1 -test.v
for i in 1 2 3 4 5; do
  t phases-api-$i benchmarks benchmarks -test.run '^$' -test.bench '^BenchmarkAPI$/^cross_queue_phases$' -test.benchtime 0.5s -test.count 1
  t phases-raw-$i rocr/drivers/cuda rocr_drivers_cuda -test.run '^$' -test.bench '^BenchmarkCall$/^raw_cross_queue_phases$' -test.benchtime 0.5s -test.count 1
done
t prof-rocr-cross_queue rocr/drivers/cuda rocr_drivers_cuda -test.run '^$' -test.bench '^BenchmarkCUDA$/^cross_queue$' -test.benchtime 3s -test.count 1 -test.cpuprofile $R/rocr-cross_queue.cpu
tar -czf $OUT/r3.tgz -C $OUT r3
