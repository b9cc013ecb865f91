#!/bin/bash
# profile_prims.sh: on a GPU machine, where gpu/prim's time goes: each
# kernel's time (nsys) for the sort, the scans, the selection and RLE at
# 2^24 elements, and Nsight Compute's sections for their main kernels
# where ncu may read the counters. The pack: prim.test.xz (make
# prims-pack) beside this script.
#
# There: OUT=out bash prims-pack/profile_prims.sh
set -u
P=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda-13.0/bin:$(ls -d /opt/nvidia/nsight-systems/*/bin /opt/nvidia/nsight-compute/* 2> /dev/null | tr '\n' ':')
[ -x /tmp/prim.test ] || { xz -dc "$P/prim.test.xz" > /tmp/prim.test && chmod +x /tmp/prim.test; }
export HIPGO_DRIVER=cuda HIPGO_CHECKED=0 HIPGO_PRIM_SIZES=${SIZES:-24}
BENCH=${BENCH:-'^Benchmark(SortKeys/uint32|SortPairs|Scan/inclusive_sum/int32|Scan3Pass|ScanLookBack|Select/flagged|Select/unique|RunLengthEncode)$'}
{ command -v nsys; command -v ncu; } > "$OUT/profile-tools.txt" 2>&1
mkdir -p /tmp/pw && cd /tmp/pw || exit 1
if command -v nsys > /dev/null; then
  timeout "${NSYS_S:-200}" nsys profile --trace=cuda --force-overwrite true -o /tmp/prims \
    /tmp/prim.test -test.run '^$' -test.bench "$BENCH" -test.benchtime 5x > "$OUT/nsys-run.txt" 2>&1
  timeout 120 nsys stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum --format csv -o /tmp/prims-stats /tmp/prims.nsys-rep >> "$OUT/nsys-run.txt" 2>&1
  cat /tmp/prims-stats*.csv > "$OUT/nsys-kernels.csv" 2> /dev/null
fi
if command -v ncu > /dev/null; then
  for k in ${KERNELS:-sweep_keys_u32 sort_hist_u32 scan_lbi32 scan_i32 scan_up_i32 select_count_i32 select_scatter_i32}; do
    timeout "${NCU_S:-60}" ncu -k "regex:^$k\$" -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
      /tmp/prim.test -test.run '^$' -test.bench "$BENCH" -test.benchtime 1x > "/tmp/ncu-$k.txt" 2>&1
    { echo "=== $k"; grep -v '^Benchmark\|^goos\|^goarch\|^pkg\|^cpu' "/tmp/ncu-$k.txt" | tail -150; } >> "$OUT/ncu.txt"
  done
fi
ls -l "$OUT"
