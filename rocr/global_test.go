package rocr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

var table [8]uint32

// A variable of loaded code is an allocation owned by the agent that
// loaded it: packets may name it, the program can neither free nor
// transfer it, and destroying the code unlists it.
func TestGlobalAllocation(t *testing.T) {
	ags := cputest.Agents(t, 2)
	set := &kernel.Set{Name: "rocr-globals", Globals: []kernel.Global{kernel.Var("table", &table)}}
	exe, err := ags[0].Load(set.Code())
	require.NoError(t, err)
	al, err := rocr.Global(exe, "table")
	require.NoError(t, err)
	again, err := rocr.Global(exe, "table")
	require.NoError(t, err)
	assert.Same(t, al, again)
	assert.Equal(t, uintptr(32), al.Size)
	assert.Same(t, ags[0], al.Owner())
	got, err := rocr.CheckRange(ags[0], al.Base+4, 28)
	require.NoError(t, err)
	assert.Same(t, al, got)
	_, err = rocr.CheckRange(ags[0], al.Base+4, 32)
	assert.Error(t, err, "a packet may not run past the variable")
	assert.ErrorIs(t, al.CheckAccess(ags[1]), hsa.ErrNotOwner, "device memory of its agent, as a buffer is")

	assert.Error(t, al.Free())
	assert.Error(t, al.Transfer(ags[1]))
	assert.NoError(t, al.CheckAccess(ags[0]), "a refused Free or Transfer changes nothing")

	_, err = rocr.Global(exe, "other")
	assert.Equal(t, hsa.StatusErrorInvalidSymbolName, hsa.StatusOf(err), "%v", err)
	_, err = rocr.Global(exe, "")
	assert.Equal(t, hsa.StatusErrorInvalidArgument, hsa.StatusOf(err), "%v", err)
	_, err = rocr.Global(nil, "table")
	assert.Equal(t, hsa.StatusErrorInvalidExecutable, hsa.StatusOf(err), "%v", err)

	// A second load shares the Go variable, listed once.
	exe2, err := ags[0].Load(set.Code())
	require.NoError(t, err)
	al2, err := rocr.Global(exe2, "table")
	require.NoError(t, err)
	assert.Same(t, al, al2)
	require.NoError(t, exe.Destroy())
	assert.Same(t, al, rocr.FindAllocation(al.Base), "listed while a load uses it")
	_, err = rocr.Global(exe, "table")
	assert.Equal(t, hsa.StatusErrorInvalidExecutable, hsa.StatusOf(err), "%v", err)
	require.NoError(t, exe2.Destroy())
	assert.Nil(t, rocr.FindAllocation(al.Base))

	// A load on the other agent shares it: one Go variable, which every
	// agent that loaded the set may use; the last load unlists it.
	exe3, err := ags[0].Load(set.Code())
	require.NoError(t, err)
	al3, err := rocr.Global(exe3, "table")
	require.NoError(t, err)
	exe4, err := ags[1].Load(set.Code())
	require.NoError(t, err)
	al4, err := rocr.Global(exe4, "table")
	require.NoError(t, err)
	assert.Same(t, al3, al4)
	assert.NoError(t, al4.CheckAccess(ags[1]))
	assert.NoError(t, al4.CheckAccess(ags[0]))
	require.NoError(t, exe3.Destroy())
	assert.Same(t, al3, rocr.FindAllocation(al3.Base), "listed while a load uses it")
	require.NoError(t, exe4.Destroy())
	assert.Nil(t, rocr.FindAllocation(al3.Base))
}
