package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// FindKernel looks a kernel up by name in an executable.
func FindKernel(e spi.Executable, name string) (*hsa.KernelSymbol, error) {
	ks := e.Kernels()
	for i := range ks {
		if ks[i].Name == name {
			return &ks[i], nil
		}
	}
	names := make([]string, 0, len(ks))
	for _, k := range ks {
		names = append(names, k.Name)
	}
	return nil, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "kernel", "no kernel %q (have %v)", name, names)
}
