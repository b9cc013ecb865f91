package amdgpu

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

// The kernel library's code objects, through rocr/codeobj, at 256
// work-items per group. Register counts are those `gpuinfo codeobj -v
// kernels/gen/kernels.hipfb` prints (VGPRs/SGPRs, static LDS):
//
//	           gfx90a          gfx942          gfx1030        gfx1100
//	empty      0/4             0/6             0/0            0/0
//	vector_add 8/12            8/14            6/9            6/18
//	saxpy      4/11            6/14            4/9            4/18
//	fill_f32   3/11            3/12            3/9            3/18
//	reduce_sum 8/16            6/18            6/12           6/18
//	sgemm      38/20, 2048 B   38/22, 2048 B   28/18, 2048 B  28/18, 2048 B
//	transpose  9/18, 4224 B    10/20, 4224 B   8/14, 4224 B   9/18, 4224 B
//
// gfx90a and gfx942: 256 items are 4 waves of 64; a CU has 4 SIMDs of 8
// wave slots, 32 in all, so at most 8 groups. The most VGPRs, sgemm's 38,
// round to 40 of the 512-register file: 12 waves per SIMD, more than 8;
// empty's descriptor allocates one block of 8. No kernel uses over 100
// SGPRs. sgemm's 2048 B of LDS allow 32 groups of the 64 KiB, transpose's
// 4224 B (4608 in 512-byte blocks) 14. So every kernel: 8 groups, bound
// by wave slots.
//
// gfx1030 and gfx1100, wave32 in CU mode: 256 items are 8 waves; a CU has
// 2 SIMDs of 16 slots, 32 in all, so at most 4 groups. sgemm's 28 VGPRs
// round to 32 of 1024 (gfx1030: 32 waves) or to 48 of 1536 (gfx1100: 32
// waves), more than 16. transpose's 4224 B are 5120 in 1 KiB blocks: 12
// groups. So every kernel: 4 groups, bound by wave slots.
func TestKernelLibrary(t *testing.T) {
	b, err := os.ReadFile("../../../kernels/gen/kernels.hipfb")
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	want := map[string]int{"gfx90a": 8, "gfx942": 8, "gfx1030": 4, "gfx1100": 4}
	seen := map[string]int{}
	for _, obj := range spec.Objects {
		l, err := Lookup(obj.Target)
		require.NoError(t, err)
		for i := range obj.Kernels {
			k := &obj.Kernels[i]
			o, err := l.Occupancy(l.KernelUsage(k), 256, 0)
			require.NoError(t, err, "%s %s", obj.Target, k.Name)
			assert.Equal(t, want[l.Processor], o.Groups, "%s %s: %+v", obj.Target, k.Name, o)
			assert.Equal(t, LimitWaves, o.Limit, "%s %s", obj.Target, k.Name)
			seen[l.Processor]++
		}
	}
	assert.Equal(t, map[string]int{"gfx90a": 14, "gfx942": 14, "gfx1030": 14, "gfx1100": 14}, seen, "7 kernels and their checked entry points")
}

// Where the library's kernels stop being bound by wave slots.
func TestKernelLibraryLimits(t *testing.T) {
	b, err := os.ReadFile("../../../kernels/gen/kernels.hipfb")
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	for _, tc := range []struct {
		target, kernel string
		group, dyn     int
		groups         int
		lim            Limit
	}{
		// 4224 + 16384 = 20608 B, 20992 in 512-byte blocks: 3 per 64 KiB.
		{"gfx90a", "transpose", 256, 16 << 10, 3, LimitLDS},
		{"gfx942", "transpose", 256, 16 << 10, 3, LimitLDS},
		// 1024 items: 16 waves, 2 groups in 32 slots; 3 by LDS.
		{"gfx90a", "transpose", 1024, 16 << 10, 2, LimitWaves},
		// reduce_sum's dynamic LDS, one float per item: 1 KiB, 64 groups by LDS.
		{"gfx942", "reduce_sum", 256, 1024, 8, LimitWaves},
		// gfx1030: 4224 + 8192 = 12416 B, 13312 in 1 KiB blocks: 4.9.
		{"gfx1030", "transpose", 128, 8 << 10, 4, LimitLDS},
		// sgemm at 64 items: 1 wave64 needs no barrier; 32 groups by
		// slots, 32 by its 2048 B of LDS.
		{"gfx90a", "sgemm", 64, 0, 32, LimitWaves},
		// 128 items, 2 waves: 16 groups in 32 slots, the 16 barriers too.
		{"gfx90a", "sgemm", 128, 0, 16, LimitWaves},
		// 1025 items: beyond .max_flat_workgroup_size 1024.
		{"gfx1100", "sgemm", 1025, 0, 0, LimitGroupSize},
	} {
		obj, err := spec.Select(tc.target)
		require.NoError(t, err)
		k, ok := obj.Kernel(tc.kernel)
		require.True(t, ok, tc.kernel)
		l := lookup(t, tc.target)
		o, err := l.Occupancy(l.KernelUsage(k), tc.group, tc.dyn)
		require.NoError(t, err)
		assert.Equal(t, tc.groups, o.Groups, "%+v", tc)
		assert.Equal(t, tc.lim, o.Limit, "%+v", tc)
	}
	// The best group size of each: every light kernel fills 32 slots
	// with two 1024-item groups (16 waves each) per CU.
	for _, target := range []string{"gfx90a", "gfx942"} {
		obj, err := spec.Select(target)
		require.NoError(t, err)
		l := lookup(t, target)
		for i := range obj.Kernels {
			minGrid, size, err := l.MaxPotentialGroupSize(l.KernelUsage(&obj.Kernels[i]), 0, 0, 104)
			require.NoError(t, err)
			assert.Equal(t, 1024, size, "%s %s", target, obj.Kernels[i].Name)
			assert.Equal(t, 208, minGrid, "%s %s", target, obj.Kernels[i].Name)
		}
	}
}
