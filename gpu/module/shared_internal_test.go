package module

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
)

func TestCheckDynamicShared(t *testing.T) {
	dyn := &hsa.KernelSymbol{Name: "reverse_dyn", Meta: &codeobj.Kernel{UsesDynamicShared: true}}
	local := &hsa.KernelSymbol{Name: "cl", Args: []hsa.KernelArg{{Kind: hsa.ArgDynamicSharedPointer}}}
	plain := &hsa.KernelSymbol{Name: "axpy", Meta: &codeobj.Kernel{}}
	for _, sym := range []*hsa.KernelSymbol{dyn, local} {
		err := checkDynamicShared(sym, 0)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, sym.Name)
		assert.ErrorContains(t, err, "extern __shared__")
		assert.NoError(t, checkDynamicShared(sym, 256), sym.Name)
	}
	assert.NoError(t, checkDynamicShared(plain, 0))
}
