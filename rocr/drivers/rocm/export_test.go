package rocm

import (
	"testing"

	"github.com/hipgo/hipgo/rocr/aql"
)

// FakeHSA is the fake ROCR for tests outside the package, which reach the
// driver through gpu.
type FakeHSA = fakeHSA

// UseFake makes the driver open a new fake ROCR, and the runtime open
// this driver alone, until tb ends; the caller shuts the runtime down
// (gpu.Shutdown) in a cleanup of its own, which runs first.
func UseFake(tb testing.TB) *FakeHSA {
	tb.Helper()
	f := newFake()
	old := theDriver.open
	theDriver.open = func() (hsaAPI, error) { return f, nil }
	tb.Setenv("HIPGO_DRIVER", Name)
	tb.Cleanup(func() { theDriver.open = old })
	return f
}

// AddKernel makes name a kernel symbol of every executable, with a
// kernarg segment of kernargSize bytes, whose dispatches the fake command
// processor runs by calling run.
func (f *fakeHSA) AddKernel(name string, kernargSize uint32, run func(p *aql.KernelDispatch)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	obj := 0x7f00_0000_0000 + f.h()
	f.symbols[name+".kd"] = fakeSymbol{obj: obj, kaSize: kernargSize, kaAlign: 8}
	f.kernels[obj] = run
}
