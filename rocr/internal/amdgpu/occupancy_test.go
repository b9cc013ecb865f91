package amdgpu

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

func lookup(t *testing.T, target string) *Limits {
	t.Helper()
	l, err := Lookup(target)
	require.NoError(t, err)
	return l
}

// step is one row of a published waves-per-SIMD table: registers up to
// Max allow Waves waves.
type step struct{ Max, Waves int }

// checkVGPRTable walks every register count from 1 to the last row's
// and one past it, against a table of ascending rows.
func checkVGPRTable(t *testing.T, l *Limits, wave int, rows []step) {
	t.Helper()
	row := 0
	for v := 1; v <= rows[len(rows)-1].Max+1; v++ {
		for row < len(rows) && v > rows[row].Max {
			row++
		}
		want, lim := 0, LimitVGPRs
		if row < len(rows) {
			want = rows[row].Waves
			if want == l.MaxWavesPerSIMD {
				lim = LimitWaves
			}
		}
		got, gotLim, err := l.WavesPerSIMD(Usage{VGPRs: v, Wavefront: wave})
		require.NoError(t, err)
		if !assert.Equal(t, want, got, "%s wave%d, %d VGPRs", l.Processor, wave, v) {
			return
		}
		assert.Equal(t, lim, gotLim, "%s wave%d, %d VGPRs", l.Processor, wave, v)
	}
}

// The MI200/MI300 table: a unified file of 512 registers per SIMD lane,
// allocated in granules of 8, at most 8 waves per SIMD: 512/roundup(v, 8).
func TestVGPRTableCDNA(t *testing.T) {
	rows := []step{{64, 8}, {72, 7}, {80, 6}, {96, 5}, {128, 4}, {168, 3}, {256, 2}, {512, 1}}
	for _, target := range []string{"gfx90a", "gfx942", "gfx940", "gfx941"} {
		checkVGPRTable(t, lookup(t, target), 64, rows)
	}
}

// GCN5 (gfx900/gfx906) and gfx908: 256 registers, granule 4, 10 waves.
func TestVGPRTableGCN(t *testing.T) {
	rows := []step{{24, 10}, {28, 9}, {32, 8}, {36, 7}, {40, 6}, {48, 5}, {64, 4}, {84, 3}, {128, 2}, {256, 1}}
	for _, target := range []string{"gfx900", "gfx906", "gfx908"} {
		checkVGPRTable(t, lookup(t, target), 64, rows)
	}
}

// RDNA2 in wave32: 1024 registers per lane, granule 16, 16 waves per
// SIMD, at most 256 addressable; in wave64 half the file, granule 8.
func TestVGPRTableRDNA2(t *testing.T) {
	l := lookup(t, "gfx1030")
	checkVGPRTable(t, l, 32, []step{{64, 16}, {80, 12}, {96, 10}, {112, 9}, {128, 8}, {144, 7}, {160, 6}, {192, 5}, {256, 4}})
	checkVGPRTable(t, l, 64, []step{{32, 16}, {40, 12}, {48, 10}, {56, 9}, {64, 8}, {72, 7}, {80, 6}, {96, 5}, {128, 4}, {168, 3}, {256, 2}})
}

// RDNA3 gfx1100/gfx1101 in wave32: 1536 registers per lane, granule 24.
func TestVGPRTableRDNA3(t *testing.T) {
	rows := []step{{96, 16}, {120, 12}, {144, 10}, {168, 9}, {192, 8}, {216, 7}, {240, 6}, {256, 5}}
	for _, target := range []string{"gfx1100", "gfx1101"} {
		checkVGPRTable(t, lookup(t, target), 32, rows)
	}
	// Wave64: 768 registers, granule 12.
	checkVGPRTable(t, lookup(t, "gfx1100"), 64, []step{{48, 16}, {60, 12}, {72, 10}, {84, 9}, {96, 8}, {108, 7}, {120, 6}, {144, 5}, {192, 4}, {252, 3}, {256, 2}})
}

// AGPRs on gfx90a/gfx942 follow the VGPRs rounded up to 4 in the same
// file: UnifiedVGPRs, then the CDNA table.
func TestAGPRCombinations(t *testing.T) {
	l := lookup(t, "gfx90a")
	for _, tc := range []struct{ arch, acc, total, waves int }{
		{9, 32, 44, 8},     // LLVM's agpr-register-count test: .vgpr_count 44
		{1, 63, 67, 7},     // 4 + 63
		{64, 0, 64, 8},     // no AGPRs: no rounding
		{65, 0, 65, 7},     //
		{61, 4, 68, 7},     // 64 + 4
		{128, 128, 256, 2}, //
		{129, 127, 259, 1}, // 132 + 127 crosses 256
		{256, 256, 512, 1}, // the whole file
		{256, 257, 513, 0}, // more than a wave can address
	} {
		total := UnifiedVGPRs(tc.arch, tc.acc)
		assert.Equal(t, tc.total, total, "%d VGPRs + %d AGPRs", tc.arch, tc.acc)
		w, _, err := l.WavesPerSIMD(Usage{VGPRs: total})
		require.NoError(t, err)
		assert.Equal(t, tc.waves, w, "%d VGPRs + %d AGPRs", tc.arch, tc.acc)
	}
}

// KernelUsage trusts the descriptor's allocation where it says more than
// the metadata, and counts AGPRs from the accumulation offset.
func TestKernelUsageDescriptor(t *testing.T) {
	l := lookup(t, "gfx90a")
	// As LLVM writes it: .vgpr_count 44 (9 VGPRs, AGPRs from 12), 6 blocks.
	k := &codeobj.Kernel{VGPRCount: 44, AGPRCount: 32, SGPRCount: 10, WavefrontSize: 64,
		Descriptor: &codeobj.KernelDescriptor{ComputePgmRsrc1: 5, ComputePgmRsrc3: 2}}
	assert.Equal(t, Usage{VGPRs: 48, SGPRs: 10, Wavefront: 64}, l.KernelUsage(k))
	// A writer that counts the two files apart: the offset recovers it.
	k = &codeobj.Kernel{VGPRCount: 9, AGPRCount: 32, Descriptor: &codeobj.KernelDescriptor{ComputePgmRsrc3: 2}}
	assert.Equal(t, 44, l.KernelUsage(k).VGPRs)
	assert.Equal(t, 64, l.KernelUsage(k).Wavefront)
	// No metadata counts at all: the descriptor's one block, its LDS and
	// its wave32 flag (gfx1030).
	r := lookup(t, "gfx1030")
	k = &codeobj.Kernel{Descriptor: &codeobj.KernelDescriptor{ComputePgmRsrc1: 3, GroupSegmentFixedSize: 4096, EnableWavefrontSize32: true}}
	assert.Equal(t, Usage{VGPRs: 32, GroupSegment: 4096, Wavefront: 32}, r.KernelUsage(k))
	// No descriptor: the metadata as it is.
	k = &codeobj.Kernel{VGPRCount: 7, SGPRCount: 3, GroupSegmentSize: 100, MaxFlatWorkgroup: 256}
	assert.Equal(t, Usage{VGPRs: 7, SGPRs: 3, GroupSegment: 100, MaxGroupSize: 256}, r.KernelUsage(k))
}

// GFX9's published SGPR table (800 per SIMD): <=80: 10, <=88: 9,
// <=100: 8, more: 7. From gfx10 on scalar registers never limit.
func TestSGPRLimits(t *testing.T) {
	gfx900 := lookup(t, "gfx900")
	for _, tc := range []struct{ sgprs, waves int }{{0, 10}, {80, 10}, {81, 9}, {88, 9}, {89, 8}, {100, 8}, {101, 7}, {102, 7}} {
		w, lim, err := gfx900.WavesPerSIMD(Usage{VGPRs: 8, SGPRs: tc.sgprs})
		require.NoError(t, err)
		assert.Equal(t, tc.waves, w, "gfx900, %d SGPRs", tc.sgprs)
		if tc.waves < 10 {
			assert.Equal(t, LimitSGPRs, lim, "gfx900, %d SGPRs", tc.sgprs)
		}
	}
	// gfx90a holds 8 waves anyway: only more than 100 SGPRs bind.
	gfx90a := lookup(t, "gfx90a")
	for _, tc := range []struct{ sgprs, waves int }{{100, 8}, {101, 7}, {102, 7}} {
		w, _, err := gfx90a.WavesPerSIMD(Usage{VGPRs: 8, SGPRs: tc.sgprs})
		require.NoError(t, err)
		assert.Equal(t, tc.waves, w, "gfx90a, %d SGPRs", tc.sgprs)
	}
	for _, target := range []string{"gfx1030", "gfx1100"} {
		w, lim, err := lookup(t, target).WavesPerSIMD(Usage{VGPRs: 8, SGPRs: 106})
		require.NoError(t, err)
		assert.Equal(t, 16, w, target)
		assert.Equal(t, LimitWaves, lim, target)
	}
}

// LDS: 64 KiB per CU, granule 512 bytes on CDNA and 1 KiB on RDNA, at
// most 64 KiB per work-group.
func TestLDSLimits(t *testing.T) {
	for _, tc := range []struct {
		target             string
		group, static, dyn int
		groups             int
		lim                Limit
	}{
		// gfx90a, 4-wave groups: 32 wave slots allow 8.
		{"gfx90a", 256, 0, 0, 8, LimitWaves},
		{"gfx90a", 256, 8 << 10, 0, 8, LimitWaves},         // 65536/8192 = 8
		{"gfx90a", 256, 8 << 10, 1, 7, LimitLDS},           // 8704 bytes: 7.5
		{"gfx90a", 256, 0, 16 << 10, 4, LimitLDS},          // dynamic LDS counts the same
		{"gfx90a", 256, 16 << 10, 1, 3, LimitLDS},          // 16896 bytes: 3.9
		{"gfx90a", 256, 32 << 10, 0, 2, LimitLDS},          //
		{"gfx90a", 256, 32 << 10, 32 << 10, 1, LimitLDS},   // all of it
		{"gfx90a", 256, 32 << 10, 32<<10 + 1, 0, LimitLDS}, // more than a work-group may have
		{"gfx942", 64, 1, 0, 32, LimitWaves},               // 512 bytes: 128 by LDS, 32 by waves
		{"gfx942", 64, 2048, 0, 32, LimitWaves},            // exactly 32
		{"gfx942", 64, 2049, 0, 25, LimitLDS},              // 2560 bytes: 25.6
		{"gfx1030", 256, 1025, 0, 4, LimitWaves},           // 2048 bytes: 32 by LDS; 8-wave groups: 4
		{"gfx1030", 32, 4097, 0, 12, LimitLDS},             // 5120 bytes: 12.8
		{"gfx1100", 32, 3000, 0, 21, LimitLDS},             // 3072 bytes: 21.3
		{"gfx1100", 1024, 64 << 10, 0, 1, LimitWaves},      // 32 waves: 1 group by waves and by LDS
	} {
		o, err := lookup(t, tc.target).Occupancy(Usage{VGPRs: 8, GroupSegment: tc.static}, tc.group, tc.dyn)
		require.NoError(t, err)
		assert.Equal(t, tc.groups, o.Groups, "%+v", tc)
		assert.Equal(t, tc.lim, o.Limit, "%+v", tc)
	}
}

func TestGroupLimits(t *testing.T) {
	gfx900 := lookup(t, "gfx900")
	// 40 wave slots: 40 one-wave groups, but only 16 barriers for 2-wave ones.
	o, err := gfx900.Occupancy(Usage{VGPRs: 8}, 64, 0)
	require.NoError(t, err)
	assert.Equal(t, Occupancy{Groups: 40, WavesPerGroup: 1, WavesPerSIMD: 10, Limit: LimitWaves}, o)
	o, err = gfx900.Occupancy(Usage{VGPRs: 8}, 128, 0)
	require.NoError(t, err)
	assert.Equal(t, Occupancy{Groups: 16, WavesPerGroup: 2, WavesPerSIMD: 10, Limit: LimitBarriers}, o)
	// 3-wave groups share wave slots across SIMDs: 32/3.
	o, err = lookup(t, "gfx90a").Occupancy(Usage{VGPRs: 8}, 129, 0)
	require.NoError(t, err)
	assert.Equal(t, 10, o.Groups)
	assert.Equal(t, 30, o.Waves())
	// Beyond the kernel's .max_flat_workgroup_size, or the target's 1024.
	o, err = lookup(t, "gfx90a").Occupancy(Usage{VGPRs: 8, MaxGroupSize: 256}, 257, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, o.Groups)
	assert.Equal(t, LimitGroupSize, o.Limit)
	o, err = lookup(t, "gfx1030").Occupancy(Usage{}, 1025, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, o.Groups)
	// A register-heavy kernel: 2 waves per SIMD leave 8 slots, so a
	// 1024-item group (16 waves) cannot run at all.
	o, err = lookup(t, "gfx90a").Occupancy(Usage{VGPRs: 256}, 1024, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, o.Groups)
	assert.Equal(t, LimitVGPRs, o.Limit)
}

func TestMaxPotentialGroupSize(t *testing.T) {
	gfx90a := lookup(t, "gfx90a")
	const cus = 104
	for _, tc := range []struct {
		name               string
		u                  Usage
		dyn, limit         int
		minGrid, groupSize int
	}{
		// Every multiple of 64 that divides 32 waves fills the CU; the
		// largest wins: 1024 items, 2 groups per CU.
		{"light", Usage{VGPRs: 8}, 0, 0, 2 * cus, 1024},
		{"limit", Usage{VGPRs: 8}, 0, 100, 32 * cus, 64},
		{"limit below a wave", Usage{VGPRs: 8}, 0, 32, 32 * cus, 32},
		{"kernel maximum", Usage{VGPRs: 8, MaxGroupSize: 256}, 0, 0, 8 * cus, 256},
		// 2 waves per SIMD: 8 slots, 512 items in one group is the largest that fills them.
		{"heavy", Usage{VGPRs: 256}, 0, 0, cus, 512},
		// 40 KiB of LDS: one group per CU, so the largest group.
		{"LDS", Usage{VGPRs: 8, GroupSegment: 40 << 10}, 0, 0, cus, 1024},
		{"too much LDS", Usage{VGPRs: 8}, 64<<10 + 1, 0, 0, 0},
	} {
		minGrid, size, err := gfx90a.MaxPotentialGroupSize(tc.u, tc.dyn, tc.limit, cus)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.groupSize, size, tc.name)
		assert.Equal(t, tc.minGrid, minGrid, tc.name)
	}
	// gfx1030 wave32, CU mode: 32 slots; 1024 items are 32 waves.
	minGrid, size, err := lookup(t, "gfx1030").MaxPotentialGroupSize(Usage{VGPRs: 8}, 0, 0, 40)
	require.NoError(t, err)
	assert.Equal(t, 1024, size)
	assert.Equal(t, 40, minGrid)
}

func TestErrors(t *testing.T) {
	_, err := Lookup("gfx1200")
	assert.True(t, errors.Is(err, ErrUnknownTarget), "%v", err)
	_, err = Lookup("")
	assert.ErrorIs(t, err, ErrUnknownTarget)
	for _, id := range []string{"gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx942", "amdgcn-amd-amdhsa--gfx942:xnack+"} {
		l, err := Lookup(id)
		require.NoError(t, err, id)
		assert.Equal(t, "gfx942", l.Processor)
	}
	l := lookup(t, "gfx90a")
	_, err = l.Occupancy(Usage{Wavefront: 32}, 64, 0)
	assert.ErrorContains(t, err, "wavefronts of 32")
	_, _, err = l.WavesPerSIMD(Usage{Wavefront: 16})
	assert.Error(t, err)
	_, _, err = l.MaxPotentialGroupSize(Usage{Wavefront: 32}, 0, 0, 1)
	assert.Error(t, err)
	for _, args := range [][2]int{{0, 0}, {-1, 0}, {64, -1}} {
		_, err = l.Occupancy(Usage{}, args[0], args[1])
		assert.Error(t, err, "%v", args)
	}
	for _, args := range [][3]int{{-1, 0, 1}, {0, -1, 1}, {0, 0, -1}} {
		_, _, err = l.MaxPotentialGroupSize(Usage{}, args[0], args[1], args[2])
		assert.Error(t, err, "%v", args)
	}
}
