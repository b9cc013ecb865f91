package amdgpu

import "fmt"

// Limit names what bounds an Occupancy.
type Limit string

const (
	LimitWaves     Limit = "wave slots"
	LimitVGPRs     Limit = "VGPRs"
	LimitSGPRs     Limit = "SGPRs"
	LimitLDS       Limit = "LDS"
	LimitBarriers  Limit = "barriers"
	LimitGroupSize Limit = "work-group size"
)

// Occupancy is how much of one compute unit a kernel's work-groups of
// one size fill.
type Occupancy struct {
	Groups        int   // work-groups resident on one CU at once
	WavesPerGroup int   // waves of one work-group
	WavesPerSIMD  int   // wave slots per SIMD the kernel's registers leave
	Limit         Limit // what bounds Groups
}

// Waves is the waves resident on one CU.
func (o Occupancy) Waves() int { return o.Groups * o.WavesPerGroup }

// Occupancy computes how many work-groups of groupSize work-items, each
// with dynLDS bytes of dynamic LDS besides the kernel's static LDS, one
// compute unit holds at once.
//
// The model, from LLVM's AMDGPU occupancy functions (AMDGPUBaseInfo.cpp
// getNumWavesPerEUWithNumVGPRs, getOccupancyWithNumSGPRs,
// getMaxWorkGroupsPerCU; AMDGPUSubtarget getOccupancyWithWorkGroupSizes)
// and the register and LDS tables of AMD's ISA references:
//
//	waves/SIMD = min(MaxWavesPerSIMD,
//	                 VGPRfile / roundup(VGPRs, granule),
//	                 SGPR table (GFX9 only))
//	groups/CU  = min(SIMDs × waves/SIMD / ceil(groupSize / wavefront),
//	                 16 barriers (work-groups of more than one wave),
//	                 LDSPerCU / roundup(static + dynamic LDS, LDS granule))
//
// A work-group's waves may spread over the CU's SIMDs, so wave slots are
// counted per CU as HIP's own calculator does, not per SIMD as LLVM's
// conservative estimate does. Scratch memory, which can limit waves when
// the device runs short of it, is not modelled.
func (l *Limits) Occupancy(u Usage, groupSize, dynLDS int) (Occupancy, error) {
	if groupSize <= 0 || dynLDS < 0 {
		return Occupancy{}, fmt.Errorf("%s: work-group size %d, dynamic LDS %d: want a positive size and non-negative LDS", l.Processor, groupSize, dynLDS)
	}
	wave, file, err := l.vgprFile(u)
	if err != nil {
		return Occupancy{}, err
	}
	o := Occupancy{WavesPerGroup: (groupSize + wave - 1) / wave}
	if groupSize > l.maxGroupSize(u) {
		o.Limit = LimitGroupSize
		return o, nil
	}
	lds := u.GroupSegment + dynLDS
	if lds > l.LDSPerGroup {
		o.Limit = LimitLDS
		return o, nil
	}
	o.WavesPerSIMD, o.Limit = l.wavesPerSIMD(u, file)
	o.Groups = l.SIMDsPerCU * o.WavesPerSIMD / o.WavesPerGroup
	if o.WavesPerGroup > 1 && o.Groups > l.MaxBarrierGroups {
		o.Groups, o.Limit = l.MaxBarrierGroups, LimitBarriers
	}
	if lds > 0 {
		if n := l.LDSPerCU / alignUp(lds, l.LDSGranule); n < o.Groups {
			o.Groups, o.Limit = n, LimitLDS
		}
	}
	return o, nil
}

// WavesPerSIMD is the waves of a kernel one SIMD holds at once, and what
// bounds them.
func (l *Limits) WavesPerSIMD(u Usage) (int, Limit, error) {
	_, file, err := l.vgprFile(u)
	if err != nil {
		return 0, "", err
	}
	n, lim := l.wavesPerSIMD(u, file)
	return n, lim, nil
}

func (l *Limits) wavesPerSIMD(u Usage, file RegisterFile) (int, Limit) {
	waves, lim := l.MaxWavesPerSIMD, LimitWaves
	v := max(u.VGPRs, 1) // a wave holds at least one granule
	if v > l.MaxVGPRs || v > file.Size {
		return 0, LimitVGPRs
	}
	if n := file.Size / alignUp(v, file.Granule); n < waves {
		waves, lim = n, LimitVGPRs
	}
	for _, s := range l.SGPRWaves {
		if u.SGPRs <= s.MaxSGPRs {
			if s.Waves < waves {
				waves, lim = s.Waves, LimitSGPRs
			}
			break
		}
	}
	return waves, lim
}

// MaxPotentialGroupSize is the work-group size, a multiple of the
// wavefront size up to limit (when positive) and the kernel's largest,
// that keeps the most waves resident on a CU, the largest such size when
// several tie (as CUDA's calculator prefers); minGrid is the work-groups
// that fill computeUnits CUs at that size. Both are 0 when no work-group
// fits.
func (l *Limits) MaxPotentialGroupSize(u Usage, dynLDS, limit, computeUnits int) (minGrid, groupSize int, err error) {
	if dynLDS < 0 || limit < 0 || computeUnits < 0 {
		return 0, 0, fmt.Errorf("%s: dynamic LDS %d, size limit %d, compute units %d: want non-negative values", l.Processor, dynLDS, limit, computeUnits)
	}
	wave, _, err := l.vgprFile(u)
	if err != nil {
		return 0, 0, err
	}
	most := l.maxGroupSize(u)
	if limit > 0 {
		most = min(most, limit)
	}
	sizes := func(yield func(int) bool) {
		if most < wave {
			yield(most)
			return
		}
		for s := wave; s <= most && yield(s); s += wave {
		}
	}
	var best Occupancy
	for s := range sizes {
		o, err := l.Occupancy(u, s, dynLDS)
		if err != nil {
			return 0, 0, err
		}
		if o.Groups > 0 && o.Waves() >= best.Waves() {
			best, groupSize = o, s
		}
	}
	return best.Groups * computeUnits, groupSize, nil
}

func (l *Limits) vgprFile(u Usage) (int, RegisterFile, error) {
	wave := u.Wavefront
	if wave == 0 {
		wave = l.Wavefront
	}
	f, ok := l.VGPRs[wave]
	if !ok {
		return 0, f, fmt.Errorf("%s runs no wavefronts of %d work-items", l.Processor, wave)
	}
	return wave, f, nil
}

func (l *Limits) maxGroupSize(u Usage) int {
	if u.MaxGroupSize > 0 {
		return min(u.MaxGroupSize, l.MaxGroupSize)
	}
	return l.MaxGroupSize
}
