#!/bin/bash
# H200, main at 9946e1f: the suite (tests + peers) on the test pack, misuse
# and allocation tests, and an A/B of three builds in one call, 5 rounds
# alternating: 9a00599 (before the record change), e653066 (record) and
# 9946e1f (devstate.Of).
set -u
R=$OUT/r; mkdir -p $R
export HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda NCCL_NVLS_ENABLE=0
(cd gpu-pack2 && xz -d *.xz && chmod +x *.test)
LANES=6 OUT=$R/suite timeout 300 bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz 5 > $R/suite.log 2>&1
G=$PWD/gpu-tests
(cd internal/reliability && timeout 100 $G/internal_reliability.test -test.run 'TestMisuse|Stress|TestShutdown' -test.count 1) > $R/stress-misuse.txt 2>&1; echo "exit $?" >> $R/stress-misuse.txt
(cd benchmarks && timeout 100 $G/benchmarks.test -test.run 'TestAPIAllocs|TestStreamBenchmarks' -test.count 1 -test.v) > $R/allocs.txt 2>&1; echo "exit $?" >> $R/allocs.txt
cd benchmarks
for i in 1 2 3 4 5; do for v in 9a00599 e653066 9946e1f; do
  timeout 60 ../gpu-pack2/bench_$v.test -test.run '^$' -test.bench '^BenchmarkAPI(GGL)?$/^(launch_sync|launch_async|cross_queue|cross_queue_phases)$' -test.benchtime 0.3s -test.count 1 >> $R/ab-$v.txt 2>&1
done; done
tar -czf $OUT/r.tgz -C $OUT r
