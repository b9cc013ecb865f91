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

// ScanFunc is the operation of InclusiveScanWith and ExclusiveScanWith: a
// functor, a package-level struct type without fields whose value
// methods are Go device functions (the kernel subset of
// docs/go-kernels.md). Apply must be associative (a scan combines
// neighbours in an order of its own, never swapping operands), and
// Identity its identity: Apply(Identity(), x) == x == Apply(x, Identity()).
type ScanFunc[T Number] interface {
	Apply(a, b T) T
	Identity() T
}

// ScanLaunch is the launcher hipgo-gen writes for an instance of the
// scans with an operation: a pass of blocks over tpb tiles of tile
// elements each (mode 0: the whole scan, 1: out[block] = the block's
// elements combined, 2: the scan from offs[block]). Its shared memory is
// tile elements.
type ScanLaunch[T Number] = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out, offs buffer.Array[T], mode int, exclusive bool, tile, tpb int) error

type (
	scanKey[F any, T Number]    struct{}
	cpuScanKey[F any, T Number] struct{}
)

var scanners instance.Registry

// RegisterScanWith registers the launcher of the scans' instance for F;
// the code hipgo-gen writes calls it at init. A second registration of
// one instance panics.
func RegisterScanWith[F ScanFunc[T], T Number](launch ScanLaunch[T]) {
	scanners.Add(any((*scanKey[F, T])(nil)), launch)
}

// InclusiveScanWith queues out[i] = in[0] op in[1] op ... op in[i] on s,
// combined by op's Apply (cub::DeviceScan::InclusiveScan with a custom
// operation). out may be in. The kernel is the one hipgo-gen writes into
// the calling package's hipgo_inst_gen.go (go generate); on a GPU without
// it the call is an error wrapping gpu.ErrNotSupported, while the cpu
// agent runs the same device functions from the library itself.
func InclusiveScanWith[F ScanFunc[T], T Number](s *stream.Stream, op F, in, out buffer.Array[T]) error {
	return scanWith(s, op, in, out, false)
}

// ExclusiveScanWith queues out[0] = op.Identity(), out[i] = in[0] op ...
// op in[i-1] (cub::DeviceScan::ExclusiveScan with the identity as its
// initial value). out may be in.
func ExclusiveScanWith[F ScanFunc[T], T Number](s *stream.Stream, op F, in, out buffer.Array[T]) error {
	return scanWith(s, op, in, out, true)
}

func scanWith[F ScanFunc[T], T Number](s *stream.Stream, op F, in, out buffer.Array[T], exclusive bool) (err error) {
	const name = "prim scan with"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	n := in.Len()
	if err := checkOut(name, "out", out, n); err != nil {
		return err
	}
	if unsafe.Sizeof(op) != 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "operation %T has fields: a functor is a struct type without fields", op)
	}
	launch, ok := scanLauncher[F, T](s)
	if !ok {
		return notGenerated(name, "InclusiveScanWith or ExclusiveScanWith", op, *new(T), s)
	}
	if n == 0 {
		return nil
	}
	var zero T
	p := planScan(shapeOf(s), n, int(unsafe.Sizeof(zero)))
	blk := gpu.D1(uint32(p.block))
	if p.tmp == 0 {
		if p.cpu {
			return launch(s, gpu.D1(1), blk, 0, in, out, out, hipgoScanWhole, exclusive, n, 1)
		}
		return launch(s, gpu.D1(1), blk, p.shared, in, out, out, hipgoScanWhole, exclusive, p.tile, p.tiles)
	}
	sums, err := scratch[T](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, sums, &err)
	offs, err := scratch[T](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, offs, &err)
	tiles := gpu.D1(uint32(p.tiles))
	if err = launch(s, tiles, blk, p.shared, in, sums, sums, hipgoScanUp, false, p.tile, 1); err != nil {
		return err
	}
	if p.cpu {
		err = launch(s, gpu.D1(1), blk, 0, sums, offs, offs, hipgoScanWhole, true, p.tiles, 1)
	} else {
		err = launch(s, gpu.D1(1), blk, p.shared, sums, offs, offs, hipgoScanWhole, true, p.tile, p.spin)
	}
	if err != nil {
		return err
	}
	return launch(s, tiles, blk, p.shared, in, out, offs, hipgoScanDown, exclusive, p.tile, 1)
}

// notGenerated is the error of a call whose operation has no kernel on
// s's device.
func notGenerated(name, calls string, op, elem any, s *stream.Stream) error {
	return gpu.Errorf(gpu.ErrNotSupported, name, "no kernel for [%T, %T] on %s: run go generate in the package that declares the operation and calls %s with it, after a line //go:generate go run github.com/hipgo/hipgo/cmd/hipgo-gen -go . -o kernels_gen.go (it writes hipgo_inst_gen.go)", op, elem, s.Device(), calls)
}

// scanLauncher is the scans' launcher for F and T: the registered one,
// or on the cpu agent its own (made once).
func scanLauncher[F ScanFunc[T], T Number](s *stream.Stream) (ScanLaunch[T], bool) {
	if v, ok := scanners.Lookup(any((*scanKey[F, T])(nil))); ok {
		return v.(ScanLaunch[T]), true
	}
	if !cpuFallback || !s.Device().Properties().IsCPU {
		return nil, false
	}
	if v, ok := scanners.Lookup(any((*cpuScanKey[F, T])(nil))); ok {
		return v.(ScanLaunch[T]), true
	}
	return scanners.LoadOrAdd(any((*cpuScanKey[F, T])(nil)), newCPUScan[F, T]()).(ScanLaunch[T]), true
}

type scanWithArgs[T any] struct {
	in        rocr.ConstPtr[T]
	n         int64
	out       rocr.Ptr[T]
	offs      rocr.ConstPtr[T]
	mode      int64
	exclusive int64
	tile, tpb int64
}

type scanWithFrame[T any] struct {
	in, out, offs   []T
	mode, tile, tpb int
	exclusive       bool
}

// newCPUScan is the cpu agent's scan pass for F and T, a library of its
// own: with_device.go's hipgoScanTiles, run by the block's work-items as
// coroutines, so blocks of one (the cpu agent's shape) and GPU shapes
// alike run.
func newCPUScan[F ScanFunc[T], T Number]() ScanLaunch[T] {
	const kname = "prim_scan_with"
	// The work-items' function, made once: a func literal in a generic
	// function, made per block, would allocate per block.
	lanes := func(t kernel.Thread) {
		f := kernelimpl.FrameOf[scanWithFrame[T]](t)
		hipgoScanTiles[F, T](t, f.in, f.out, f.offs, f.mode, f.exclusive, f.tile, f.tpb, kernel.DynamicShared[T](t), kernel.Shared[[32]T](t))
	}
	k := kernel.Define(kname, func(b *kernel.Block, a *scanWithArgs[T]) {
		f := kernelimpl.Frame[scanWithFrame[T]](b)
		f.in = kernelimpl.ConstView(b, a.in, a.n)
		f.out = kernelimpl.ViewRest(b, a.out)
		f.offs = kernelimpl.ConstViewRest(b, a.offs)
		f.mode, f.exclusive, f.tile, f.tpb = int(a.mode), a.exclusive != 0, int(a.tile), int(a.tpb)
		b.Lockstep(lanes)
	}, kernel.StaticShared(uint32(32*unsafe.Sizeof(*new(T)))), kernelimpl.Lockstep())
	lib := gokernel.New(gokernel.Spec{Name: fmt.Sprintf("prim scan with %T", *new(F)), Set: kernel.NewSet(kname, k), Kernels: []string{kname}})
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out, offs buffer.Array[T], mode int, exclusive bool, tile, tpb int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		ex := 0
		if exclusive {
			ex = 1
		}
		var args module.Args
		args.ConstPtr(in).Int64(int64(in.Len())).Ptr(out).ConstPtr(offs).Int64(int64(mode)).Int64(int64(ex)).Int64(int64(tile)).Int64(int64(tpb))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}
