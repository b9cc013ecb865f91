package amdgpu

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownTarget is returned for a processor with no limits table.
var ErrUnknownTarget = errors.New("no occupancy table for this AMDGPU target")

// RegisterFile is a per-lane register budget of one SIMD and the
// granule a wave's registers are allocated in.
type RegisterFile struct {
	Size    int // registers per lane of one SIMD
	Granule int // a wave's registers are rounded up to a multiple of this
}

// SGPRStep says that a wave using at most MaxSGPRs scalar registers lets
// Waves waves share one SIMD.
type SGPRStep struct{ MaxSGPRs, Waves int }

// Limits are one target's occupancy limits per compute unit.
type Limits struct {
	Processor       string // "gfx90a"
	SIMDsPerCU      int    // SIMDs whose waves share one work-group's CU
	MaxWavesPerSIMD int    // wave slots per SIMD
	Wavefront       int    // the wavefront size kernels use unless they say otherwise
	// VGPRs is the vector register file per wavefront size (32, 64); a
	// size missing here cannot run on the target.
	VGPRs map[int]RegisterFile
	// MaxVGPRs is the most vector registers one wave can address.
	MaxVGPRs int
	// VGPREncodingGranule is the unit of the kernel descriptor's
	// GRANULATED_WORKITEM_VGPR_COUNT, per wavefront size.
	VGPREncodingGranule map[int]int
	// UnifiedAGPRs: accumulation registers live in the VGPR file, after
	// the architected VGPRs rounded up to AGPRAlignment.
	UnifiedAGPRs bool
	// SGPRWaves is the waves-per-SIMD limit by scalar registers used,
	// ascending; nil where scalar registers do not limit occupancy.
	SGPRWaves   []SGPRStep
	LDSPerCU    int // bytes of LDS the work-groups on one CU share
	LDSPerGroup int // bytes of LDS one work-group may use
	LDSGranule  int // a work-group's LDS is allocated in blocks of this many bytes
	// MaxBarrierGroups bounds the work-groups of more than one wave on a
	// CU: each needs one of the CU's barriers. A one-wave work-group
	// needs none.
	MaxBarrierGroups int
	MaxGroupSize     int // work-items per work-group
}

// The limits below come from LLVM's AMDGPU backend (AMDGPUBaseInfo.cpp,
// namespace IsaInfo: getMaxWavesPerEU, getEUsPerCU, getTotalNumVGPRs,
// getVGPRAllocGranule, getVGPREncodingGranule, getOccupancyWithNumSGPRs,
// getLocalMemorySize, getMaxWorkGroupsPerCU, getMaxFlatWorkGroupSize),
// which the compiler uses to choose each kernel's register budget, and
// from LLVM's AMDGPUUsage (kernel descriptor fields, LDS granularity).
// They reproduce AMD's published CDNA2/CDNA3 occupancy table (waves per
// SIMD by VGPRs: 64 or fewer 8, 72 7, 80 6, 96 5, 128 4, 168 3, 256 2,
// 512 1), which the tests check.
const (
	// SIMDs per CU: four on GCN and CDNA; two per CU on RDNA, whose
	// work-group processor pairs two CUs (CU mode keeps a work-group on
	// one of them). getEUsPerCU.
	simdsGCN    = 4
	simdsRDNACU = 2

	// Wave slots per SIMD: 10 on GCN5 and gfx908, 8 on gfx90a and the
	// gfx94x family (CDNA2/3 ISA: 32 waves per CU), 16 on gfx10.3 and
	// gfx11. getMaxWavesPerEU.
	wavesGCN  = 10
	wavesCDNA = 8
	wavesRDNA = 16

	// Vector registers per lane of a SIMD and their allocation granule.
	// GCN5/gfx908: 256 in granules of 4 (gfx908's AGPRs are a second
	// file of the same size). gfx90a/gfx94x: one unified file of 512 for
	// VGPRs and AGPRs, granule 8. gfx10.3: 1024 in wave32 (granule 16),
	// 512 in wave64 (granule 8). gfx1100/gfx1101 have a file half as
	// large again (LLVM's FeatureGFX11FullVGPRs, formerly 1_5xVGPRs):
	// 1536 in wave32 (granule 24), 768 in wave64 (granule 12).
	// getTotalNumVGPRs, getVGPRAllocGranule.
	vgprsGCN, vgprGranuleGCN                   = 256, 4
	vgprsCDNA, vgprGranuleCDNA                 = 512, 8
	vgprsRDNA2W32, vgprGranuleRDNA2W32         = 1024, 16
	vgprsRDNA2W64, vgprGranuleRDNA2W64         = 512, 8
	vgprsRDNA3FullW32, vgprGranuleRDNA3FullW32 = 1536, 24
	vgprsRDNA3FullW64, vgprGranuleRDNA3FullW64 = 768, 12

	// A wave addresses at most 256 VGPRs, and on gfx90a and gfx94x 512
	// VGPRs and AGPRs together. getAddressableNumVGPRs.
	addressableVGPRs, addressableVGPRsUnified = 256, 512

	// The kernel descriptor counts VGPRs in blocks of 8 on gfx90a and
	// later CDNA and in wave32, of 4 otherwise. getVGPREncodingGranule;
	// AMDGPUUsage, compute_pgm_rsrc1 GRANULATED_WORKITEM_VGPR_COUNT.
	vgprEncodingCDNA, vgprEncodingW32, vgprEncodingW64 = 8, 8, 4

	// AGPRAlignment: on gfx90a and gfx94x the AGPRs follow the VGPRs at
	// an offset rounded up to 4 (AMDGPUUsage: compute_pgm_rsrc3
	// ACCUM_OFFSET; LLVM getTotalNumVGPRs(has90AInsts, agprs, vgprs)).
	AGPRAlignment = 4

	// LDS: 64 KiB per CU on GCN and CDNA, and per CU in CU mode on RDNA
	// (128 KiB per work-group processor); at most 64 KiB per work-group.
	// getLocalMemorySize, getAddressableLocalMemorySize.
	ldsPerCU    = 64 << 10
	ldsPerGroup = 64 << 10
	// LDS granule: 128 dwords on GFX7 to GFX9 (AMDGPUUsage,
	// compute_pgm_rsrc2 LDS_SIZE); gfx10.3 and gfx11 allocate 1 KiB
	// blocks though they encode 512-byte ones (LLVM getLDSAllocGranule).
	ldsGranuleGCN  = 512
	ldsGranuleRDNA = 1024

	// Work-groups of several waves per CU: 16 barriers per CU, and per
	// RDNA CU in CU mode (32 per work-group processor). getMaxWorkGroupsPerCU.
	barriersPerCU = 16

	// Work-items per work-group. getMaxFlatWorkGroupSize.
	maxGroupSize = 1024
)

// sgprWavesGFX9 is the published GFX8/GFX9 scalar register table: each
// SIMD has 800 SGPRs, so a wave using at most 80 lets 10 waves share it,
// 88 lets 9 and 100 lets 8; more lets 7. LLVM getOccupancyWithNumSGPRs.
// From gfx10 on, every wave has its own SGPRs and they never limit.
var sgprWavesGFX9 = []SGPRStep{{80, 10}, {88, 9}, {100, 8}, {1 << 30, 7}}

var targets = map[string]*Limits{}

func init() {
	gcn := func(name string, waves int, vgprs RegisterFile, encoding int, unified bool) {
		addressable := addressableVGPRs
		if unified {
			addressable = addressableVGPRsUnified
		}
		targets[name] = &Limits{
			MaxVGPRs:  addressable,
			Processor: name, SIMDsPerCU: simdsGCN, MaxWavesPerSIMD: waves, Wavefront: 64,
			VGPRs:               map[int]RegisterFile{64: vgprs},
			VGPREncodingGranule: map[int]int{64: encoding},
			UnifiedAGPRs:        unified, SGPRWaves: sgprWavesGFX9,
			LDSPerCU: ldsPerCU, LDSPerGroup: ldsPerGroup, LDSGranule: ldsGranuleGCN,
			MaxBarrierGroups: barriersPerCU, MaxGroupSize: maxGroupSize,
		}
	}
	for _, n := range []string{"gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90c"} {
		gcn(n, wavesGCN, RegisterFile{vgprsGCN, vgprGranuleGCN}, vgprEncodingW64, false)
	}
	for _, n := range []string{"gfx90a", "gfx940", "gfx941", "gfx942"} {
		gcn(n, wavesCDNA, RegisterFile{vgprsCDNA, vgprGranuleCDNA}, vgprEncodingCDNA, true)
	}
	rdna := func(name string, w32, w64 RegisterFile) {
		targets[name] = &Limits{
			MaxVGPRs:  addressableVGPRs,
			Processor: name, SIMDsPerCU: simdsRDNACU, MaxWavesPerSIMD: wavesRDNA, Wavefront: 32,
			VGPRs:               map[int]RegisterFile{32: w32, 64: w64},
			VGPREncodingGranule: map[int]int{32: vgprEncodingW32, 64: vgprEncodingW64},
			LDSPerCU:            ldsPerCU, LDSPerGroup: ldsPerGroup, LDSGranule: ldsGranuleRDNA,
			MaxBarrierGroups: barriersPerCU, MaxGroupSize: maxGroupSize,
		}
	}
	for _, n := range []string{"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"} {
		rdna(n, RegisterFile{vgprsRDNA2W32, vgprGranuleRDNA2W32}, RegisterFile{vgprsRDNA2W64, vgprGranuleRDNA2W64})
	}
	for _, n := range []string{"gfx1100", "gfx1101"} {
		rdna(n, RegisterFile{vgprsRDNA3FullW32, vgprGranuleRDNA3FullW32}, RegisterFile{vgprsRDNA3FullW64, vgprGranuleRDNA3FullW64})
	}
}

// Lookup returns the limits of a target, named by processor ("gfx90a")
// or by target ID ("gfx90a:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx942").
// The result is shared: do not modify it.
func Lookup(target string) (*Limits, error) {
	p := target
	if i := strings.LastIndex(p, "--"); i >= 0 {
		p = p[i+2:]
	}
	p, _, _ = strings.Cut(p, ":")
	if l, ok := targets[p]; ok {
		return l, nil
	}
	return nil, fmt.Errorf("%q: %w", target, ErrUnknownTarget)
}

// UnifiedVGPRs is the vector registers a wave holds on gfx90a and gfx94x
// for arch VGPRs and acc AGPRs: the AGPRs start after the VGPRs rounded
// up to AGPRAlignment. (LLVM's .vgpr_count metadata is already this sum.)
func UnifiedVGPRs(arch, acc int) int {
	if acc <= 0 {
		return arch
	}
	return alignUp(arch, AGPRAlignment) + acc
}

func alignUp(n, to int) int { return (n + to - 1) / to * to }
