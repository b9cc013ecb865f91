package codeobj

import (
	"fmt"
)

// Launch describes one dispatch, for filling hidden arguments.
type Launch struct {
	Grid          [3]uint32 // work-items per dimension (HIP: gridDim * blockDim)
	Block         [3]uint32 // work-items per work-group
	Dims          int       // 1, 2 or 3; 0 means the highest dimension above 1
	DynamicShared uint32    // dynamic group segment bytes (hipLaunchKernel's sharedMemBytes)
	GlobalOffset  [3]uint64 // always zero in HIP

	// Runtime-owned addresses; zero where the runtime provides none (clr
	// writes zero or leaves the slot zero in that case too).
	PrintfBuffer     uint64
	HostcallBuffer   uint64
	DefaultQueue     uint64
	CompletionAction uint64
	MultigridSync    uint64
	Heap             uint64
	QueuePtr         uint64
	PrivateBase      uint32 // hidden_private_base: the aperture's high 32 bits
	SharedBase       uint32 // hidden_shared_base
}

func (l *Launch) dims() int {
	if l.Dims != 0 {
		return l.Dims
	}
	d := 1
	for i := 1; i < 3; i++ {
		if l.Grid[i] > 1 || l.Block[i] > 1 {
			d = i + 1
		}
	}
	return d
}

// FillHidden writes the hidden arguments the kernel's metadata lists into
// kernarg, the kernarg image of one launch, at the offsets the metadata
// gives, with the values the HIP runtime (clr) writes: block counts are
// grid/block rounded down, remainders grid%block, group sizes the block,
// unused dimensions 1 (counts, sizes) or 0 (remainders, offsets). Code
// object v4 kernels list only hidden_global_offset_*, hidden_none and the
// pointer slots, so only those are written. Explicit arguments are not
// touched. It does not allocate.
func (k *Kernel) FillHidden(kernarg []byte, l *Launch) error {
	d := l.dims()
	if d < 1 || d > 3 {
		return fmt.Errorf("kernel %s: launch has %d dimensions, want 1-3", k.Name, d)
	}
	var grid, block [3]uint32
	for i := range 3 {
		grid[i], block[i] = 1, 1
		if i < d {
			grid[i], block[i] = l.Grid[i], l.Block[i]
		}
		if block[i] == 0 || block[i] > 0xffff {
			return fmt.Errorf("kernel %s: block dimension %d is %d, want 1..65535", k.Name, i, block[i])
		}
	}
	for i := range k.Args {
		a := &k.Args[i]
		if !a.Kind.Hidden() {
			continue
		}
		var v uint64
		switch a.Kind {
		case KindHiddenNone:
			continue
		case KindHiddenGlobalOffsetX, KindHiddenGlobalOffsetY, KindHiddenGlobalOffsetZ:
			if j := int(a.Kind - KindHiddenGlobalOffsetX); j < d {
				v = l.GlobalOffset[j]
			}
		case KindHiddenBlockCountX, KindHiddenBlockCountY, KindHiddenBlockCountZ:
			j := a.Kind - KindHiddenBlockCountX
			v = uint64(grid[j] / block[j])
		case KindHiddenGroupSizeX, KindHiddenGroupSizeY, KindHiddenGroupSizeZ:
			v = uint64(block[a.Kind-KindHiddenGroupSizeX])
		case KindHiddenRemainderX, KindHiddenRemainderY, KindHiddenRemainderZ:
			j := a.Kind - KindHiddenRemainderX
			v = uint64(uint16(grid[j] % block[j]))
		case KindHiddenGridDims:
			v = uint64(d)
		case KindHiddenDynamicLDSSize:
			v = uint64(l.DynamicShared)
		case KindHiddenPrintfBuffer:
			v = l.PrintfBuffer
		case KindHiddenHostcallBuffer:
			v = l.HostcallBuffer
		case KindHiddenDefaultQueue:
			v = l.DefaultQueue
		case KindHiddenCompletionAction:
			v = l.CompletionAction
		case KindHiddenMultigridSyncArg:
			v = l.MultigridSync
		case KindHiddenHeapV1:
			v = l.Heap
		case KindHiddenQueuePtr:
			v = l.QueuePtr
		case KindHiddenPrivateBase:
			v = uint64(l.PrivateBase)
		case KindHiddenSharedBase:
			v = uint64(l.SharedBase)
		}
		if uint64(a.Offset)+uint64(a.Size) > uint64(len(kernarg)) {
			return fmt.Errorf("kernel %s: %s at offset %d size %d is past the %d-byte kernarg image", k.Name, a.Kind, a.Offset, a.Size, len(kernarg))
		}
		putLE(kernarg[a.Offset:a.Offset+a.Size], v)
	}
	return nil
}

// putLE writes v little-endian into b, truncated or zero-extended to len(b).
func putLE(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v)
		v >>= 8
	}
}
