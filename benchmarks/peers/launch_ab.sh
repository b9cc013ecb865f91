#!/bin/bash
# launch_ab.sh: an A/B of the API's launch benchmarks between two builds of
# the benchmarks package (say main and a branch) on one machine, in one
# call: ROUNDS rounds, each running A then B (B then A in odd rounds, so
# neither always runs on a warmer machine), and the median of each
# measurement per build with the ratio B/A. Every ns/op and every phase
# metric (cross_queue_phases' launch-ns, record-ns, wait-ns, launch2-ns,
# sync-ns) is compared; B/A < 1 means B is faster.
#
# Here:   go test -c -o a.test ./benchmarks   (on main)
#         go test -c -o b.test ./benchmarks   (on the branch)
# There:  HIPGO_DRIVER=cuda bash benchmarks/peers/launch_ab.sh a.test b.test [rounds]
# BENCH overrides the benchmarks run (a -test.bench pattern), BENCHTIME
# their time per round.
set -u
A=${1:?usage: launch_ab.sh A.test B.test [rounds]}
B=${2:?usage: launch_ab.sh A.test B.test [rounds]}
ROUNDS=${3:-7}
BENCH=${BENCH:-'^BenchmarkAPI(GGL)?$/^(launch_sync|launch_async|cross_queue|cross_queue_phases|cross_queue_auto)$'}
BENCHTIME=${BENCHTIME:-0.3s}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() { # run BUILD BINARY
  "$2" -test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" -test.count 1 -test.benchmem 2>&1 |
    awk -v b="$1" '/^Benchmark/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      for (i = 3; i < NF; i++) if ($(i+1) == "ns/op" || $(i+1) ~ /-ns$/ || $(i+1) == "allocs/op") print b, name, $(i+1), $i
    }' >> "$TMP/all"
}
echo "launch_ab: A=$A B=$B rounds=$ROUNDS bench=$BENCH benchtime=$BENCHTIME"
date -u +%Y-%m-%dT%H:%M:%SZ
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then run A "$A"; run B "$B"; else run B "$B"; run A "$A"; fi
done
# Medians per build, measurement and unit; then B/A.
sort -k1,1 -k2,2 -k3,3 -k4,4g "$TMP/all" | awk '
  { k = $2 " " $3; v[$1, k, ++n[$1, k]] = $4; keys[k] = 1 }
  function med(b, k,   c) { c = n[b, k]; if (c == 0) return ""; return c % 2 ? v[b, k, (c + 1) / 2] : (v[b, k, c / 2] + v[b, k, c / 2 + 1]) / 2 }
  END {
    printf "%-52s %-10s %12s %12s %8s\n", "benchmark", "unit", "A median", "B median", "B/A"
    for (k in keys) {
      split(k, p, " "); a = med("A", k); b = med("B", k)
      r = (a != "" && b != "" && a + 0 > 0) ? sprintf("%.3f", b / a) : "-"
      printf "%-52s %-10s %12s %12s %8s\n", p[1], p[2], a, b, r
    }
  }' | (read -r h; echo "$h"; sort)
