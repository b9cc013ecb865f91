package module

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Unexported plumbing for the package's external tests.
var (
	FromCodeObject = fromCodeObject
	Loadable       = loadable
	RefinePTX      = refinePTX
)

// CheckArgs checks args against sym as a launch on dev would, and returns
// the kernarg image they make, without queueing anything: signatures of
// code the device cannot run (PTX on the cpu agent) are checked this way.
func CheckArgs(dev *gpu.Device, sym hsa.KernelSymbol, args ...any) ([]byte, error) {
	f := newFunction(&Module{dev: dev}, sym)
	var a Args
	for _, x := range args {
		if m, ok := core.MemOf(x); ok {
			a.add(argVal{mem: m, buf: true})
		} else {
			a.Value(x)
		}
	}
	if a.n != len(f.visible) {
		return nil, f.countErr(a.n)
	}
	ka := make([]byte, sym.KernargSize)
	vals := a.list()
	for i := range vals {
		v := &vals[i]
		if err := f.checkArg(dev, i, v); err != nil {
			return nil, err
		}
		p := &f.visible[i]
		switch {
		case v.lay != nil && v.inBig:
			copy(ka[p.Offset:], a.big.b[v.off:int(v.off)+int(v.size)])
		case v.lay != nil:
			copy(ka[p.Offset:], a.blob[v.off:int(v.off)+int(v.size)])
		default:
			writeBits(unsafe.Pointer(&ka[p.Offset]), v.bits, v.size)
		}
	}
	a.Release()
	return ka, nil
}

// SetPrintfOffset makes f's kernarg hold the printf buffer's address at
// byte off, as hidden_printf_buffer does in an AMDGPU kernel's metadata,
// so a Go kernel on the cpu agent can stand for one that prints.
func SetPrintfOffset(f *Function, off uint32) { f.printf = off + 1 }

// SymbolPrintfOffset is 1 + the kernarg offset of the hidden printf
// buffer of the function sym makes on dev, 0 if it has none.
func SymbolPrintfOffset(dev *gpu.Device, sym hsa.KernelSymbol) uint32 {
	return newFunction(&Module{dev: dev}, sym).printf
}

// SetKernargLimit makes f take kernarg segments of up to n bytes, as a
// cuda device with a CUDA 12.1 driver does, so that the kernarg areas past
// a queue slot run on the cpu agent; the returned func restores the limit.
func SetKernargLimit(f *Function, n int) (restore func()) {
	old := f.kernargMax
	f.kernargMax = uint32(n)
	return func() { f.kernargMax = old }
}

// SetClusterLimit makes f's device look as if it launched clusters of up
// to n blocks (nonPortable: the kernel allows 16), so that the checks of
// a launch in clusters run on the cpu agent; the returned func restores
// the limits.
func SetClusterLimit(f *Function, n int, nonPortable bool) (restore func()) {
	old, oldNP := f.clusterMax, f.nonPortable.Load()
	f.clusterMax = n
	f.nonPortable.Store(nonPortable)
	return func() { f.clusterMax = old; f.nonPortable.Store(oldNP) }
}

// LaunchArgsWithoutRanges is LaunchArgs on s without the check for an
// attached profiler: the launch as it was before profiler ranges, which
// BenchmarkLaunchRanges prices that check against.
func (f *Function) LaunchArgsWithoutRanges(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args) error {
	if err := f.validAs("launch", entry{}.handleCode()); err != nil {
		return err
	}
	return f.logged(f.dispatch(s, grid, block, sharedMem, args, entry{}))
}

// AttributesOf is the attributes of a function of sym on dev.
func AttributesOf(dev *gpu.Device, sym hsa.KernelSymbol) Attributes {
	return newFunction(&Module{dev: dev}, sym).Attributes()
}
