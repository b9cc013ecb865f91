package rocm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

func TestLoadGlobal(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	f.symbols["k.kd"] = fakeSymbol{obj: 1, kind: 1}
	f.symbols["coef"] = fakeSymbol{kind: symKindVariable, addr: 0x7e00_0000_1000, size: 64}
	f.symbols["k"] = fakeSymbol{obj: 1, kind: 1}
	code := &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "g.co", Target: "gfx90a", Data: []byte("\x7fELF\x02\x01\x01\x40 globals"),
		Kernels: []hsa.KernelSymbol{{Name: "k"}}}
	exe, err := ag.Load(code)
	require.NoError(t, err)
	al, err := rocr.Global(exe, "coef")
	require.NoError(t, err)
	assert.Equal(t, uintptr(0x7e00_0000_1000), al.Base)
	assert.Equal(t, uintptr(64), al.Size)
	assert.Same(t, al, rocr.FindAllocation(al.Base+63), "the variable is listed while its code is loaded")

	_, err = rocr.Global(exe, "missing")
	assert.Equal(t, hsa.StatusErrorInvalidSymbolName, hsa.StatusOf(err), "%v", err)
	_, err = rocr.Global(exe, "k")
	assert.Equal(t, hsa.StatusErrorInvalidSymbolName, hsa.StatusOf(err), "%v", err)
	assert.ErrorContains(t, err, "not a variable")

	require.NoError(t, exe.Destroy())
	assert.Nil(t, rocr.FindAllocation(al.Base), "destroying the code unlists its variables")
	_, err = rocr.Global(exe, "coef")
	assert.Equal(t, hsa.StatusErrorInvalidExecutable, hsa.StatusOf(err), "%v", err)
}
