// kernels.hip: the one translation unit that kernels/build.sh compiles. Each
// target's code object is one ELF, so the kernel sources are gathered here.
#include "elementwise.hip"
#include "reduce.hip"
#include "sgemm.hip"
#include "transpose.hip"
