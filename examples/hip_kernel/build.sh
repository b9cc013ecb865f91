#!/usr/bin/env bash
# build.sh compiles src/poly.hip for AMD (one offload bundle for gfx90a and
# gfx942) and NVIDIA (PTX for sm_80, which later GPUs JIT) with Debian's
# clang-19, then regenerates the typed launcher and its loader, which
# embeds both, with hipgo-gen. The outputs are committed, so building the
# example needs no compiler. A module of its own runs the installed tool
# (go tool hipgo-gen) where this runs ../../cmd/hipgo-gen.
set -euo pipefail
CLANG=${CLANG:-clang-19}
cd "$(dirname "${BASH_SOURCE[0]}")"
COMMON=(-O3 -std=c++17 -Wall -Werror -fno-ident -cuid=hip_kernel -ffile-compilation-dir=.)
mkdir -p gen
# The header that stands in for the HIP/CUDA SDK headers.
go run ../../cmd/hipgo-gen -header src/hipgo.h
"$CLANG" -x hip --cuda-device-only --offload-arch=gfx90a --offload-arch=gfx942 -nogpuinc -nogpulib \
	-mcode-object-version=5 "${COMMON[@]}" -o gen/poly.hipfb src/poly.hip
"$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
	-Xclang -target-feature -Xclang +ptx78 "${COMMON[@]}" -S -o gen/poly_sm80.ptx src/poly.hip
go run ../../cmd/hipgo-gen -src src/poly.hip -obj gen/poly.hipfb -obj gen/poly_sm80.ptx -cpu cpuKernels -pkg main -o launch_gen.go
