#!/bin/sh
# Rebuilds the NVIDIA fixtures with nvcc (CUDA 13.0 made the committed ones)
# and the cuobjdump listing the tests compare the cubin reading with.
set -eu
cd "$(dirname "$0")"
nvcc -arch=sm_90 -cubin -o k.cubin k.cu
nvcc -arch=sm_90 -ptx -o k.ptx k.cu
nvcc -arch=sm_90 -c -o k.o k.cu
nvcc -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80 -fatbin -o k.fatbin k.cu
nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 -fatbin -o k80.fatbin k.cu
nvcc -gencode arch=compute_100,code=sm_100 -fatbin -o k100.fatbin k.cu
nvcc -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -Xfatbin -compress-all -fatbin -o kz.fatbin k.cu
cuobjdump -elf k.cubin | awk '/^\.nv\.info/{p=1} /^\.nv\.(callgraph|compat)/{p=0} p' >k.cubin.nvinfo.txt
# Kernels past 16 KiB of parameters, which nvcc describes with KPARAM_INFO_V2.
nvcc -arch=sm_90 -cubin -o big.cubin big.cu
cuobjdump -elf big.cubin | awk '/^\.nv\.info/{p=1} /^\.nv\.(callgraph|compat)/{p=0} p' >big.cubin.nvinfo.txt
