package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// usesDynamicShared reports whether a kernel reads memory its launch
// sizes: extern __shared__ (PTX .extern .shared, recorded by codeobj) or
// an OpenCL-style local pointer argument.
func usesDynamicShared(sym *rocr.KernelSymbol) bool {
	if k, ok := sym.Meta.(*codeobj.Kernel); ok && k.UsesDynamicShared {
		return true
	}
	for _, a := range sym.Args {
		if a.Kind == rocr.ArgDynamicSharedPointer {
			return true
		}
	}
	return false
}

// checkDynamicShared refuses, before anything is queued, a launch that
// gives no dynamic shared memory to a kernel that uses it: the kernel's
// accesses would fall outside its window, which faults a GPU and leaves
// the whole context unusable.
func checkDynamicShared(sym *rocr.KernelSymbol, sharedMem int) error {
	if sharedMem > 0 || !usesDynamicShared(sym) {
		return nil
	}
	return gpu.Errorf(gpu.ErrorInvalidValue, "launch", "kernel %s declares dynamic shared memory (extern __shared__) but the launch gives 0 bytes; pass its size as sharedMem", sym.Name)
}
