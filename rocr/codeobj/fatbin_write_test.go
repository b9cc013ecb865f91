package codeobj

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nvcc's cubin and PTX of one source, packed by NVFatbin, read back as a
// fat binary: the cubin is selected for sm_90 and knows from the PTX
// which kernel uses dynamic shared memory, which the cubin alone does not.
func TestNVFatbinRoundTrip(t *testing.T) {
	cubin, err := os.ReadFile("testdata/nv/k.cubin")
	require.NoError(t, err)
	ptx, err := os.ReadFile("testdata/nv/k.ptx")
	require.NoError(t, err)

	alone, err := Parse(cubin)
	require.NoError(t, err)
	k, ok := alone.Objects[0].Kernel("reverse_dyn")
	require.True(t, ok)
	assert.False(t, k.UsesDynamicShared, "a cubin does not record it")

	s, err := Parse(NVFatbin(FatbinCode{Arch: 90, Code: cubin}, FatbinCode{PTX: true, Arch: 90, Code: ptx}))
	require.NoError(t, err)
	assert.Equal(t, "nv-fatbin", s.Container)
	require.Len(t, s.Objects, 2)
	o, err := s.Select("sm_90")
	require.NoError(t, err)
	assert.Equal(t, FormatCubin, o.Format)
	assert.Equal(t, cubin, o.Image)
	k, ok = o.Kernel("reverse_dyn")
	require.True(t, ok)
	assert.True(t, k.UsesDynamicShared)
	k, ok = o.Kernel("axpy")
	require.True(t, ok)
	assert.False(t, k.UsesDynamicShared)
	pair, ok := o.Kernel("pair_axpy")
	require.True(t, ok)
	require.Len(t, pair.Args, 3)
	assert.Equal(t, uint32(16), pair.Args[1].Size)
	assert.Equal(t, uint32(8), pair.Args[1].Align)

	// PTX alone is what a device of a later major architecture selects.
	o, err = s.Select("sm_100")
	require.NoError(t, err)
	assert.Equal(t, FormatPTX, o.Format)
}

func TestParseEmptySaysEmpty(t *testing.T) {
	for _, in := range [][]byte{nil, {}} {
		_, err := Parse(in)
		require.ErrorIs(t, err, ErrFormat)
		assert.Equal(t, "code object: input at offset 0x0: empty: 0 bytes", err.Error())
	}
}
