package rocm

import (
	"errors"
	"testing"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	_ spi.ManagedMemory = (*agent)(nil)
	_ spi.ManagedHints  = (*agent)(nil)
)

// Managed memory is mapped host memory made SVM: coarse-grained and
// accessible to the GPU (ROCR here does not make it so by default);
// prefetches and hints become SVM calls on the right agents.
func TestManagedSVM(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	cpu, gpu := f.agents[0], f.agents[1]
	p, err := ag.ManagedPool()
	require.NoError(t, err)
	assert.True(t, p.Info().Managed)
	al, err := p.Allocate(10000)
	require.NoError(t, err)
	require.NoError(t, al.CheckAccess(ag), "managed memory has no owner")
	b := hostmem.Bytes(al.Base, al.Size)
	b[0], b[len(b)-1] = 1, 2
	f.mu.Lock()
	svm := append([]fakeSVM(nil), f.svm...)
	f.mu.Unlock()
	require.Len(t, svm, 1)
	assert.Equal(t, al.Base, svm[0].ptr)
	assert.EqualValues(t, 12288, svm[0].size, "whole pages")
	assert.Equal(t, []svmAttribute{{svmAttribGlobalFlag, svmGlobalFlagCoarseGrained}, {svmAttribAgentAccessible, uint64(gpu.h)}}, svm[0].attrs)

	require.NoError(t, ag.Prefetch(uint64(al.Base), 4096, ag, 0))
	require.NoError(t, ag.Prefetch(uint64(al.Base), 4096, nil, 0))
	f.mu.Lock()
	pre := append([]fakeSVM(nil), f.prefetches...)
	f.mu.Unlock()
	require.Len(t, pre, 2)
	assert.Equal(t, gpu.h, pre[0].to)
	assert.Equal(t, cpu.h, pre[1].to, "the host is the CPU agent")

	want := map[hsa.Advice]svmAttribute{
		hsa.AdviseSetReadMostly:          {svmAttribReadMostly, 1},
		hsa.AdviseUnsetReadMostly:        {svmAttribReadMostly, 0},
		hsa.AdviseSetPreferredLocation:   {svmAttribPreferredLocation, uint64(gpu.h)},
		hsa.AdviseUnsetPreferredLocation: {svmAttribPreferredLocation, 0},
		hsa.AdviseSetAccessedBy:          {svmAttribAccessibleInPlace, uint64(gpu.h)},
		hsa.AdviseUnsetAccessedBy:        {svmAttribAgentAccessible, uint64(gpu.h)},
	}
	for adv, at := range want {
		f.mu.Lock()
		f.svm = nil
		f.mu.Unlock()
		require.NoError(t, ag.Advise(uint64(al.Base), 100, adv, ag), "%v", adv)
		f.mu.Lock()
		assert.Equal(t, []svmAttribute{at}, f.svm[0].attrs, "%v", adv)
		f.mu.Unlock()
	}
	err = ag.Advise(uint64(al.Base)+100000, 1, hsa.AdviseSetReadMostly, nil)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument, "outside the allocation")
	require.NoError(t, al.Free())
	err = ag.Prefetch(uint64(al.Base), 1, nil, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument, "freed")

	f.mu.Lock()
	f.fail["svm_attributes_set"] = hsaStatus(hsa.StatusErrorOutOfResources)
	f.mu.Unlock()
	_, err = p.Allocate(4096)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hsa_amd_svm_attributes_set")
}

func TestManagedSVMVariants(t *testing.T) {
	f := newFake()
	f.svmDefault = true
	ag := initFake(t, f)
	p, err := ag.ManagedPool()
	require.NoError(t, err)
	al, err := p.Allocate(4096)
	require.NoError(t, err)
	defer al.Free()
	f.mu.Lock()
	assert.Len(t, f.svm[0].attrs, 1, "accessible by default: only the global flag")
	f.mu.Unlock()

	t.Run("no SVM", func(t *testing.T) {
		f := newFake()
		f.noSVM = true
		d, ads, err := openFake(t, f)
		require.NoError(t, err)
		_ = d
		_, err = ads[0].(*agent).ManagedPool()
		require.Error(t, err)
		assert.True(t, errors.Is(err, hsa.ErrNotSupported))
	})
}
