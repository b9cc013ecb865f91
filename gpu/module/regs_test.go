package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// An AMDGPU kernel's register count (.vgpr_count) reaches
// Attributes.NumRegs; the CUDA driver sets it from NUM_REGS at load.
func TestAttributesNumRegs(t *testing.T) {
	obj := &codeobj.CodeObject{Format: codeobj.FormatELF, Target: "gfx90a",
		Kernels: []codeobj.Kernel{{Name: "k", VGPRCount: 40, SGPRCount: 20, KernargAlign: 8}}}
	c := module.FromCodeObject(obj, "k.co")
	require.Len(t, c.Kernels, 1)
	assert.Equal(t, uint32(40), c.Kernels[0].Registers)
	dev := gputest.Device(t)
	assert.Equal(t, 40, module.AttributesOf(dev, c.Kernels[0]).NumRegs)
}
