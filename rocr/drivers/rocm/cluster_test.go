package rocm

import (
	"testing"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AMD agents have neither thread-block clusters nor parameters past the
// 4 KB kernarg segment: the agent says so, and its cluster calls answer
// ErrNotSupported naming it.
func TestNoClusters(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	exe := loadKernelLibrary(t, f, ag, ag.Info().ISA)
	ks := exe.Kernels()
	require.NotEmpty(t, ks)
	assert.Zero(t, ag.Info().MaxClusterSize)
	assert.Zero(t, ag.Info().MaxKernargSize, "KernargSlotSize")
	err := ag.AllowNonPortableClusters(&ks[0], true)
	assert.ErrorIs(t, err, hsa.ErrNotSupported)
	assert.ErrorContains(t, err, ag.String())
	_, err = ag.MaxPotentialClusterSize(&ks[0], [3]uint32{8, 1, 1}, [3]uint32{64, 1, 1}, 0)
	assert.ErrorIs(t, err, hsa.ErrNotSupported)
}
