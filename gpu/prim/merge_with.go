package prim

import (
	"fmt"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/gpu/internal/instance"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// LessFunc is MergeSortWith's comparator: a functor, a package-level
// struct type without fields whose value method Less is a Go device
// function (the kernel subset of docs/go-kernels.md). Less(a, b) says
// whether a goes strictly before b; it must be a strict weak order (never
// Less(a, a), transitive), as sort.Slice's less must be.
type LessFunc[K Key] interface {
	Less(a, b K) bool
}

// MergeBlockLaunch and MergePassLaunch are the launchers hipgo-gen writes
// for an instance of MergeSortWith: the block sort of tiles of tile keys
// (shared memory: 2*tile keys) and a pass merging runs of w keys.
type (
	MergeBlockLaunch[K Key] = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out buffer.Array[K], outI buffer.Array[uint32], pairs bool, tile int) error
	MergePassLaunch[K Key]  = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, src, dst buffer.Array[K], srcI, dstI buffer.Array[uint32], pairs bool, count, w, tile int) error
)

type (
	mergeKey[F any, K Key]    struct{}
	cpuMergeKey[F any, K Key] struct{}
)

var mergers instance.Registry

// RegisterMergeSortWith registers the launchers of MergeSortWith's
// instance for F; the code hipgo-gen writes calls it at init. A second
// registration of one instance panics.
func RegisterMergeSortWith[F LessFunc[K], K Key](block MergeBlockLaunch[K], pass MergePassLaunch[K]) {
	mergers.Add(any((*mergeKey[F, K])(nil)), mergeKernels[K]{block: block, pass: pass})
}

// MergeSortWith queues a stable merge sort of keysIn into keysOut by
// op.Less (cub::DeviceMergeSort::StableSortKeys with a comparator): keys
// that go before each other in neither direction keep their input order.
// keysOut may be keysIn; at most 2^32-1 keys. The kernels are the ones
// hipgo-gen writes into the calling package's hipgo_inst_gen.go (go
// generate); on a GPU without them the call is an error wrapping
// gpu.ErrNotSupported, while the cpu agent runs the same device functions
// from the library itself.
func MergeSortWith[F LessFunc[K], K Key](s *stream.Stream, op F, keysIn, keysOut buffer.Array[K]) error {
	m, err := mergeWith[F, K](s, op)
	if err != nil {
		return err
	}
	return mergeSort[K, uint32](s, keysIn, keysOut, nil, nil, m, false)
}

// MergeSortPairsWith is MergeSortWith moving values with their keys
// (cub::DeviceMergeSort::StableSortPairs with a comparator): valsOut[i]
// is the value of the key that lands in keysOut[i]. valsOut may be valsIn.
func MergeSortPairsWith[F LessFunc[K], K Key, V Value](s *stream.Stream, op F, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V]) error {
	m, err := mergeWith[F, K](s, op)
	if err != nil {
		return err
	}
	return mergeSort(s, keysIn, keysOut, valsIn, valsOut, m, true)
}

// mergeWith is MergeSortWith's kernels for F and K: the registered ones,
// or on the cpu agent its own (made once).
func mergeWith[F LessFunc[K], K Key](s *stream.Stream, op F) (mergeKernels[K], error) {
	const name = "prim merge sort with"
	if err := checkStream(name, s); err != nil {
		return mergeKernels[K]{}, err
	}
	if unsafe.Sizeof(op) != 0 {
		return mergeKernels[K]{}, gpu.Errorf(gpu.ErrInvalidValue, name, "comparator %T has fields: a functor is a struct type without fields", op)
	}
	if v, ok := mergers.Lookup(any((*mergeKey[F, K])(nil))); ok {
		return v.(mergeKernels[K]), nil
	}
	if !cpuFallback || !s.Device().Properties().IsCPU {
		return mergeKernels[K]{}, notGenerated(name, "MergeSortWith or MergeSortPairsWith", op, *new(K), s)
	}
	if v, ok := mergers.Lookup(any((*cpuMergeKey[F, K])(nil))); ok {
		return v.(mergeKernels[K]), nil
	}
	return mergers.LoadOrAdd(any((*cpuMergeKey[F, K])(nil)), newCPUMerge[F, K]()).(mergeKernels[K]), nil
}

type mergeBlockArgs[K any] struct {
	in    rocr.ConstPtr[K]
	n     int64
	out   rocr.Ptr[K]
	outI  rocr.Ptr[uint32]
	pairs int64
	tile  int64
}

type mergeBlockFrame[K any] struct {
	in, out []K
	outI    []uint32
	pairs   bool
	tile    int
}

type mergePassArgs[K any] struct {
	src, dst            rocr.Ptr[K]
	srcI, dstI          rocr.Ptr[uint32]
	pairs, count, w, tl int64
}

type mergePassFrame[K any] struct {
	src, dst       []K
	srcI, dstI     []uint32
	pairs          bool
	count, w, tile int
}

// mergeStatic is the merge kernels' static shared memory: the indices
// (2048 uint32) and the pass's merge-path partition (2 int).
const mergeStatic = 2048*4 + 2*8

// newCPUMerge is the cpu agent's MergeSortWith kernels for F and K, a
// library of their own: with_device.go's hipgoMergeSortTiles and
// hipgoMergeRuns, run by the block's work-items as coroutines, so blocks
// of one (the cpu agent's shape) and GPU shapes alike run.
func newCPUMerge[F LessFunc[K], K Key]() mergeKernels[K] {
	const bname, pname = "prim_merge_block_with", "prim_merge_pass_with"
	// The work-items' functions, made once: func literals in a generic
	// function, made per block, would allocate per block.
	blockLanes := func(t kernel.Thread) {
		f := kernelimpl.FrameOf[mergeBlockFrame[K]](t)
		si := kernel.Shared[[2048]uint32](t)
		hipgoMergeSortTiles[F, K](t, f.in, f.out, f.outI, f.pairs, f.tile, kernel.DynamicShared[K](t), si)
	}
	passLanes := func(t kernel.Thread) {
		f := kernelimpl.FrameOf[mergePassFrame[K]](t)
		si := kernel.Shared[[2048]uint32](t)
		part := kernel.Shared[[2]int](t)
		hipgoMergeRuns[F, K](t, f.src, f.dst, f.srcI, f.dstI, f.pairs, f.count, f.w, f.tile, kernel.DynamicShared[K](t), si, part)
	}
	kb := kernel.Define(bname, func(b *kernel.Block, a *mergeBlockArgs[K]) {
		f := kernelimpl.Frame[mergeBlockFrame[K]](b)
		f.in = kernelimpl.ConstView(b, a.in, a.n)
		f.out = kernelimpl.ViewRest(b, a.out)
		f.outI = kernelimpl.ViewRest(b, a.outI)
		f.pairs, f.tile = a.pairs != 0, int(a.tile)
		b.Lockstep(blockLanes)
	}, kernel.StaticShared(mergeStatic), kernelimpl.Lockstep())
	kp := kernel.Define(pname, func(b *kernel.Block, a *mergePassArgs[K]) {
		f := kernelimpl.Frame[mergePassFrame[K]](b)
		f.src = kernelimpl.ViewRest(b, a.src)
		f.dst = kernelimpl.ViewRest(b, a.dst)
		f.srcI = kernelimpl.ViewRest(b, a.srcI)
		f.dstI = kernelimpl.ViewRest(b, a.dstI)
		f.pairs, f.count, f.w, f.tile = a.pairs != 0, int(a.count), int(a.w), int(a.tl)
		b.Lockstep(passLanes)
	}, kernel.StaticShared(mergeStatic), kernelimpl.Lockstep())
	lib := gokernel.New(gokernel.Spec{Name: fmt.Sprintf("prim merge sort with %T", *new(F)), Set: kernel.NewSet(bname, kb, kp), Kernels: []string{bname, pname}})
	flag := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	return mergeKernels[K]{
		block: func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out buffer.Array[K], outI buffer.Array[uint32], pairs bool, tile int) error {
			ld, _, err := lib.Prepare(s, 0)
			if err != nil {
				return err
			}
			var args module.Args
			args.ConstPtr(in).Int64(int64(in.Len())).Ptr(out).Ptr(outI).Int64(flag(pairs)).Int64(int64(tile))
			return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
		},
		pass: func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, src, dst buffer.Array[K], srcI, dstI buffer.Array[uint32], pairs bool, count, w, tile int) error {
			ld, _, err := lib.Prepare(s, 1)
			if err != nil {
				return err
			}
			var args module.Args
			args.Ptr(src).Ptr(dst).Ptr(srcI).Ptr(dstI).Int64(flag(pairs)).Int64(int64(count)).Int64(int64(w)).Int64(int64(tile))
			return ld.Launch(s, 1, false, grid, block, sharedMem, &args)
		},
	}
}
