package module

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr"
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
func CheckArgs(dev *gpu.Device, sym rocr.KernelSymbol, args ...any) ([]byte, error) {
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
	for i := range a.vals[:a.n] {
		v := &a.vals[i]
		if err := f.checkArg(dev, i, v); err != nil {
			return nil, err
		}
		p := &f.visible[i]
		if v.lay != nil {
			copy(ka[p.Offset:], a.blob[v.off:int(v.off)+int(v.size)])
		} else {
			writeBits(unsafe.Pointer(&ka[p.Offset]), v.bits, v.size)
		}
	}
	return ka, nil
}

// SetPrintfOffset makes f's kernarg hold the printf buffer's address at
// byte off, as hidden_printf_buffer does in an AMDGPU kernel's metadata,
// so a Go kernel on the cpu agent can stand for one that prints.
func SetPrintfOffset(f *Function, off uint32) { f.printf = off + 1 }

// PrintfOffset is 1 + the kernarg offset of f's hidden printf buffer, 0
// if it has none.
func PrintfOffset(f *Function) uint32 { return f.printf }

// SymbolPrintfOffset is PrintfOffset of the function sym makes on dev.
func SymbolPrintfOffset(dev *gpu.Device, sym rocr.KernelSymbol) uint32 {
	return newFunction(&Module{dev: dev}, sym).printf
}
