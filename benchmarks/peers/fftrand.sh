#!/bin/bash
# fftrand.sh: on a GPU machine, gpu/fft's and gpu/rand's tests
# (HIPGO_DRIVER=cuda) and benchmarks beside cupy.fft (cuFFT) and cuRAND's
# Philox through CuPy, in ROUNDS interleaved rounds (hipgo FFT, CuPy FFT,
# hipgo RNG, CuPy RNG, then again), so that clocks and neighbours weigh
# on both alike. The pack beside this script holds fft.test.xz and
# rand.test.xz, built on the development machine:
#
#   make fftrand-pack   (the binaries and these scripts in fftrand-pack/)
#
# and there: OUT=out bash fftrand-pack/fftrand.sh
#
# Files back: machine.txt, tests.txt, hipgo.txt (go test -bench, every
# round), cupy.txt (every round) and fftrand.txt (the table: medians over
# the rounds, ratio peer/hipgo per case). ROUNDS (3), BT (benchtime,
# 0.2s), TESTS (a -test.run pattern; "none" skips the tests) tune it.
set -u
P=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  python3 -c "import cupy; print('cupy', cupy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion())"
} > "$OUT/machine.txt" 2>&1
for t in fft rand; do
  { xz -dc "$P/$t.test.xz" || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$P/$t.test.xz"; } > /tmp/$t.test && chmod +x /tmp/$t.test
done
mkdir -p /tmp/w && cd /tmp/w || exit 1
: > "$OUT/tests.txt"
if [ "${TESTS:-.}" != none ]; then
  for t in fft rand; do
    echo "== $t" >> "$OUT/tests.txt"
    HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda timeout "${TEST_S:-200}" /tmp/$t.test -test.count 1 -test.v -test.run "${TESTS:-.}" >> "$OUT/tests.txt" 2>&1
    echo "exit $?" >> "$OUT/tests.txt"
  done
  grep -E "^(--- FAIL|ok|FAIL|PASS|exit|panic|==)|Error:|expected|actual" "$OUT/tests.txt" | head -40
fi
: > "$OUT/hipgo.txt"
: > "$OUT/cupy.txt"
for r in $(seq 1 "${ROUNDS:-3}"); do
  echo "round $r" | tee -a "$OUT/hipgo.txt" >> "$OUT/cupy.txt"
  HIPGO_CHECKED=0 HIPGO_DRIVER=cuda timeout "${BENCH_S:-200}" /tmp/fft.test -test.run '^$' \
    -test.bench '^Benchmark(C2C|R2C|C2C2D)$' -test.benchtime "${BT:-0.2s}" -test.count 1 >> "$OUT/hipgo.txt" 2>&1
  timeout "${CUPY_S:-200}" python3 "$P/fftrand_cupy.py" "${RUNS:-3}" "${REPS:-20}" fft >> "$OUT/cupy.txt" 2>&1
  HIPGO_CHECKED=0 HIPGO_DRIVER=cuda timeout "${BENCH_S:-200}" /tmp/rand.test -test.run '^$' \
    -test.bench '^Benchmark(Uniform|Normal|Bits)$' -test.benchtime "${BT:-0.2s}" -test.count 1 >> "$OUT/hipgo.txt" 2>&1
  timeout "${CUPY_S:-200}" python3 "$P/fftrand_cupy.py" "${RUNS:-3}" "${REPS:-20}" rand >> "$OUT/cupy.txt" 2>&1
done
python3 "$P/fftrand_summary.py" "$OUT/hipgo.txt" "$OUT/cupy.txt" > "$OUT/fftrand.txt" 2>&1
grep -E "FAIL|panic|error" "$OUT/hipgo.txt" "$OUT/cupy.txt" | head -10
cat "$OUT/fftrand.txt"
