package kernel

import (
	"fmt"
	"unsafe"
)

// Dim is a three-dimensional index or size: threadIdx, blockIdx, blockDim
// or gridDim. Its fields are Go ints, 64 bits wide, as everywhere in Go.
type Dim struct{ X, Y, Z int }

// Thread is the work-item running a kernel: a CUDA or HIP thread. A kernel
// takes it as its first parameter and asks it where it is. A Thread is
// valid only during the call it was passed to; a kernel must not keep it.
type Thread struct {
	l *lane // the first field: kernelimpl.FrameOf reads it

	x  int // threadIdx.x
	gx int // blockIdx.x*blockDim.x + threadIdx.x
}

// lane is one work-item's state. Barrier-free kernels reuse one lane for
// every work-item of a group; lockstep kernels give each its own.
type lane struct {
	idx   Dim
	flat  int // linear index in the block: x + y*dimX + z*dimX*dimY
	b     *Block
	shOff int // next static shared offset this work-item's Shared takes
	co    *coLane
}

// Nth is the work-item i places after t along x in a one-dimensional
// block (see Block.First).
func (t Thread) Nth(i int) Thread { return Thread{t.l, t.x + i, t.gx + i} }

// ThreadIdx is the work-item's index in its block (threadIdx).
func (t Thread) ThreadIdx() Dim { return Dim{t.x, t.l.idx.Y, t.l.idx.Z} }

// BlockIdx is the block's index in the grid (blockIdx).
func (t Thread) BlockIdx() Dim { return t.l.b.id }

// BlockDim is the block's size in work-items (blockDim).
func (t Thread) BlockDim() Dim { return t.l.b.dim }

// GridDim is the grid's size in blocks (gridDim).
func (t Thread) GridDim() Dim { return t.l.b.grid }

// GlobalX is blockIdx.x*blockDim.x + threadIdx.x, the work-item's index in
// the grid along x.
func (t Thread) GlobalX() int { return t.gx }

// GlobalY is blockIdx.y*blockDim.y + threadIdx.y.
func (t Thread) GlobalY() int { return t.l.b.id.Y*t.l.b.dim.Y + t.l.idx.Y }

// GlobalZ is blockIdx.z*blockDim.z + threadIdx.z.
func (t Thread) GlobalZ() int { return t.l.b.id.Z*t.l.b.dim.Z + t.l.idx.Z }

// WarpSize is the width of the target's warp or wavefront: 32 on NVIDIA
// GPUs and on the cpu agent, 64 on gfx9, 32 on gfx10 and later (warpSize).
func (t Thread) WarpSize() int { return CPUWarpSize }

// Lane is the work-item's lane in its warp: its linear index in the block
// modulo WarpSize.
func (t Thread) Lane() int {
	l := t.l
	return (t.x + (l.idx.Y+l.idx.Z*l.b.dim.Y)*l.b.dim.X) % CPUWarpSize
}

// SyncThreads waits until every work-item of the block has reached it, and
// makes their writes to shared and global memory visible to each other
// (__syncthreads). Every work-item of the block must reach the same
// SyncThreads, as in CUDA.
func (t Thread) SyncThreads() { t.l.sync(evBarrier) }

// SyncWarp waits for the work-items of the warp (__syncwarp).
func (t Thread) SyncWarp() { post(t.l, 0, FullMask, opSync) }

// CPUWarpSize is the warp width the cpu agent runs warp operations at.
const CPUWarpSize = 32

// Shared returns the block's shared variable of type T (a `__shared__ T
// x;`, T often an array): every work-item of the block gets the same
// memory. Shared calls must stand at the top level of the kernel body, so
// that every work-item makes the same calls in the same order; the
// generator checks this.
func Shared[T any](t Thread) *T {
	l := t.l
	size, align := int(unsafe.Sizeof(*new(T))), int(unsafe.Alignof(*new(T)))
	off := (l.shOff + align - 1) &^ (align - 1)
	if off+size > l.b.static {
		sharedOverrun[T](l, off)
	}
	l.shOff = off + size
	if size == 0 {
		return new(T) // no memory to share; not on any path that counts
	}
	return (*T)(unsafe.Pointer(&l.b.shared[off]))
}

// sharedOverrun fails a Shared call past the kernel's static shared
// memory; apart, so Shared itself keeps nothing on the heap.
func sharedOverrun[T any](l *lane, off int) {
	panic(fmt.Errorf("kernel %s: Shared[%T] at offset %d overruns the kernel's %d bytes of static shared memory", l.b.name, *new(T), off, l.b.static))
}

// DynamicShared views the block's dynamic shared memory (`extern
// __shared__ T x[];`): the bytes the launch asked for, as many whole T as
// fit.
func DynamicShared[T any](t Thread) []T {
	b := t.l.b
	var zero T
	size, align := int(unsafe.Sizeof(zero)), int(unsafe.Alignof(zero))
	off := (b.static + align - 1) &^ (align - 1)
	if size == 0 || off >= len(b.shared) {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b.shared[off])), (len(b.shared)-off)/size)
}
