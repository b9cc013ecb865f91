#!/bin/bash
# nv_fixtures.sh OUT: on the GPU machine, rebuild the NVIDIA fixtures of
# rocr/codeobj/testdata/nv with that machine's nvcc (gen.sh) in a scratch
# folder, pack them as OUT/nv-fixtures.tar.gz (to commit them back when
# k.cu changed) and print the folder for HIPGO_NV_DIR. Without nvcc, or if
# the build fails, it prints the committed fixtures' folder.
set -u
src=$(cd "$(dirname "$0")/../../rocr/codeobj/testdata/nv" && pwd)
PATH=$PATH:/usr/local/cuda/bin
if ! command -v nvcc > /dev/null; then
  echo "$src"
  exit 0
fi
dir=/tmp/nv-fixtures
rm -rf "$dir" && mkdir -p "$dir"
cp "$src/k.cu" "$src/gen.sh" "$dir/"
if sh "$dir/gen.sh" > "$dir/gen.log" 2>&1; then
  tar -czf "${1:-.}/nv-fixtures.tar.gz" -C "$dir" --exclude gen.log .
  echo "$dir"
else
  cat "$dir/gen.log" >&2
  echo "$src"
fi
