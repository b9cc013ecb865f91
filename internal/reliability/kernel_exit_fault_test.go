package reliability_test

import (
	"io/fs"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Kernels that leave their work-group in ways Go allows but a kernel should
// not: a panic with a typed-nil error, and runtime.Goexit.
type exitArgs struct{ Code int32 }

var nilPanicK = kernel.Define("reliability_nil_panic", func(g *kernel.Block, a *exitArgs) {
	var pe *fs.PathError
	panic(pe)
})

var goexitK = kernel.Define("reliability_goexit", func(g *kernel.Block, a *exitArgs) {
	runtime.Goexit()
})

var exitSet = kernel.NewSet("reliability_exit", nilPanicK, goexitK)

// TestKernelExitFault: a kernel that panics with a typed-nil error or calls
// runtime.Goexit fails its launch with an error naming it, on the queue's
// own goroutine (one work-group) and on the workers (many); the process
// lives, the stream's sticky error names the kernel, and the device keeps
// running new work.
func TestKernelExitFault(t *testing.T) {
	for _, kernel := range []string{"reliability_nil_panic", "reliability_goexit"} {
		for _, groups := range []uint32{1, 256} {
			t.Run(kernel+"/"+groupsName(groups), func(t *testing.T) {
				f := open(t, 1)
				mod, err := module.Load(f.dev, exitSet)
				require.NoError(t, err)
				fn := mod.MustFunction(kernel)
				s := f.stream(f.dev)
				err = reliability.Guard(t, 10*time.Second, func() error {
					require.NoError(t, fn.Launch(s, gpu.D1(groups), gpu.D1(4), 0, int32(1)))
					return s.Synchronize()
				})
				wantErr(t, err, gpu.ErrLaunchFailure, kernel)
				wantErr(t, reliability.Guard(t, 10*time.Second, s.Synchronize), gpu.ErrLaunchFailure, kernel)
				assert.NoError(t, s.Destroy())
				f.healthy()
			})
		}
	}
}

// TestHostFuncTypedNilError: a host function returning a typed-nil error
// fails its stream with an error that says so; nothing panics.
func TestHostFuncTypedNilError(t *testing.T) {
	f := open(t, 1)
	s := f.stream(f.dev)
	err := reliability.Guard(t, 10*time.Second, func() error {
		require.NoError(t, s.LaunchHostFunc(func() error {
			var pe *fs.PathError
			return pe
		}))
		return s.Synchronize()
	})
	wantErr(t, err, gpu.ErrLaunchFailure, "host", "nil *fs.PathError")
	assert.NoError(t, s.Destroy())
	f.healthy()
}

func groupsName(n uint32) string {
	if n == 1 {
		return "one-group"
	}
	return "many-groups"
}
