package reliability_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// forge writes V through a pointer it makes itself: X plus Off bytes.
type forgeArgs struct {
	X   rocr.Ptr[uint32]
	Off int64
	V   uint32
	_   uint32
}

var forgeK = kernel.Define("reliability_forge", func(g *kernel.Block, a *forgeArgs) {
	*rocr.Ptr[uint32](a.X.Addr()+uintptr(a.Off)).At(g, 0) = a.V
})

var forgeSet = kernel.NewSet("reliability_forge", forgeK)

// TestStrictPtr: a kernel given buffer 1 that writes into buffer 2 through
// a pointer it made from its argument is caught with HIPGO_STRICT_PTR=1:
// the launch fails with ErrIllegalAddress naming the kernel, and buffer 2
// keeps its bytes. Without it the write lands (the fast default); kernels
// that use only their arguments run the same in both modes.
func TestStrictPtr(t *testing.T) {
	for _, strict := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "strict"}[strict]
		t.Run(name, func(t *testing.T) {
			var env []string
			if strict {
				env = []string{"HIPGO_STRICT_PTR", "1"}
			}
			f := open(t, 1, env...)
			mod, err := module.Load(f.dev, forgeSet)
			require.NoError(t, err)
			b1 := fromSlice(t, f.dev, iota32(256, 0))
			b2 := fromSlice(t, f.dev, iota32(256, 1000))
			off := int64(b2.Ptr()) - int64(b1.Ptr())
			s := f.stream(f.dev)
			err = reliability.Guard(t, 10*time.Second, func() error {
				require.NoError(t, mod.MustFunction("reliability_forge").Launch(s, gpu.D1(1), gpu.D1(1), 0, b1, off, uint32(7), uint32(0)))
				return s.Synchronize()
			})
			got, gerr := b2.ToSlice()
			if strict {
				wantErr(t, err, gpu.ErrIllegalAddress, "reliability_forge", "HIPGO_STRICT_PTR")
				require.NoError(t, gerr)
				assert.Equal(t, iota32(256, 1000), got, "buffer 2 was written through a forged pointer")
			} else {
				require.NoError(t, err)
				require.NoError(t, gerr)
				assert.Equal(t, uint32(7), got[0], "the forged write did not land: the test no longer shows what strict mode catches")
			}
			assert.NoError(t, s.Destroy())
			f.healthy()
		})
	}
}

// A HIPGO_STRICT_PTR that is not a boolean fails stream creation, naming it.
func TestStrictPtrBadValue(t *testing.T) {
	f := open(t, 1, "HIPGO_STRICT_PTR", "maybe")
	_, err := stream.New(f.dev)
	wantErr(t, err, gpu.ErrInvalidValue, "HIPGO_STRICT_PTR")
}
