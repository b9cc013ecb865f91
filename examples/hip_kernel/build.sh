#!/usr/bin/env bash
# build.sh compiles src/poly.hip for AMD (one offload bundle for gfx90a and
# gfx942) and NVIDIA (PTX for sm_80, which later GPUs JIT) with Debian's
# clang-19, then regenerates the typed launcher with hipgo-gen. The outputs
# are committed, so building the example needs no compiler.
set -euo pipefail
CLANG=${CLANG:-clang-19}
cd "$(dirname "${BASH_SOURCE[0]}")"
COMMON=(-O3 -std=c++17 -Wall -Werror -fno-ident -cuid=hip_kernel -ffile-compilation-dir=.)
mkdir -p gen
"$CLANG" -x hip --cuda-device-only --offload-arch=gfx90a --offload-arch=gfx942 -nogpuinc -nogpulib \
	-mcode-object-version=5 "${COMMON[@]}" -o gen/poly.hipfb src/poly.hip
"$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
	-Xclang -target-feature -Xclang +ptx78 "${COMMON[@]}" -S -o gen/poly_sm80.ptx src/poly.hip
go run ../../cmd/hipgo-gen -src src/poly.hip -obj gen/poly.hipfb -obj gen/poly_sm80.ptx -pkg main -loader load -o launch_gen.go
