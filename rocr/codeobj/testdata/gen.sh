#!/bin/sh
# Regenerates the rocr/codeobj test fixtures from k.hip and k.cu with
# Debian's clang-19 (no ROCm or CUDA SDK). Run from anywhere:
#   sh rocr/codeobj/testdata/gen.sh
# OUT=dir writes the outputs there instead (TestFixturesUpToDate does).
set -eu
cd "$(dirname "$0")"
OUT=${OUT:-.}
CLANG=${CLANG:-clang-19}
HIP="-x hip -nogpuinc -nogpulib -O2 -cuid=hipgo"
DEV="$HIP --cuda-device-only"

# Bare code objects, one per code object version.
$CLANG $DEV --offload-arch=gfx90a:sramecc+:xnack- --no-gpu-bundle-output -mcode-object-version=4 -o "$OUT/gfx90a_v4.co" k.hip
$CLANG $DEV --offload-arch=gfx1100 --no-gpu-bundle-output -o "$OUT/gfx1100_v5.co" k.hip
$CLANG $DEV --offload-arch=gfx942 --no-gpu-bundle-output -mcode-object-version=6 -Wno-deprecated -o "$OUT/gfx942_v6.co" k.hip 2>/dev/null

# An uncompressed offload bundle (as hipcc --genco writes) and a compressed one.
$CLANG $DEV --offload-arch=gfx90a:xnack- --offload-arch=gfx1100 -c -o "$OUT/bundle.hipfb" k.hip
$CLANG $DEV --offload-arch=gfx90a:xnack- --offload-arch=gfx90a:xnack+ --offload-arch=gfx1100 --offload-compress -c -o "$OUT/compressed.hipfb" k.hip

# A host object carrying .hip_fatbin (compressed to stay small).
$CLANG $HIP --offload-arch=gfx90a --offload-compress -c -o "$OUT/host.o" k.hip

# PTX.
$CLANG -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O2 -S -o "$OUT/k.ptx" k.cu

# printf: buffered (what hipgo serves) and hostcall (HIP's default, refused).
$CLANG $DEV --offload-arch=gfx90a --no-gpu-bundle-output -mprintf-kind=buffered -o "$OUT/printf_gfx90a.co" printf.hip
$CLANG $DEV --offload-arch=gfx90a --no-gpu-bundle-output -o "$OUT/hostcall_gfx90a.co" hostcall.hip
