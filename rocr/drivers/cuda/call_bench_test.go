package cuda

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
)

// BenchmarkCall measures what one driver call costs on the launch path:
// cuCtxSetCurrent through the executor's argument block (what an inline
// submission pays to make the context current), and, for comparison,
// the gettid system call that a per-thread cache of the current context
// would need instead.
func BenchmarkCall(b *testing.B) {
	a, err := load()
	if err != nil {
		b.Skip(err)
	}
	if r := call(a.cuInit, 0); r != cudaSuccess {
		b.Skipf("cuInit: %v", r)
	}
	var dev int32
	var ctx uintptr
	if r := res(purego.SyscallN(a.cuDeviceGet, uintptr(unsafe.Pointer(&dev)), 0)); r != cudaSuccess {
		b.Skipf("cuDeviceGet: %v", r)
	}
	if r := res(purego.SyscallN(a.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&ctx)), uintptr(dev))); r != cudaSuccess {
		b.Skipf("cuDevicePrimaryCtxRetain: %v", r)
	}
	defer call(a.cuDevicePrimaryCtxRelease, uintptr(dev))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sa sysArgs
	b.Run("ctx_set_current", func(b *testing.B) {
		for b.Loop() {
			sa.call(a.cuCtxSetCurrent, ctx)
		}
	})
	b.Run("lock_set_unlock", func(b *testing.B) {
		for b.Loop() {
			runtime.LockOSThread()
			sa.call(a.cuCtxSetCurrent, ctx)
			runtime.UnlockOSThread()
		}
	})
	// The peers' launch + synchronize and back-to-back launches with
	// nothing of hipgo around them: the floor of a Go program's driver
	// calls (needs kernels_sm90.ptx in the working directory).
	ptx, err := os.ReadFile("kernels_sm90.ptx")
	if err != nil {
		b.Logf("no PTX for the raw launches: %v", err)
	} else {
		img, err := spi.MapAnonymous(uintptr(len(ptx) + 1))
		if err != nil {
			b.Fatal(err)
		}
		copy(hostmem.Bytes(img, uintptr(len(ptx))), ptx)
		var mod, fn, stream uintptr
		sa.call(a.cuCtxSetCurrent, ctx)
		if r := res(purego.SyscallN(a.cuModuleLoadDataEx, uintptr(unsafe.Pointer(&mod)), img, 0, 0, 0)); r != cudaSuccess {
			b.Fatalf("cuModuleLoadDataEx: %v", r)
		}
		name := []byte("empty\x00")
		if r := res(purego.SyscallN(a.cuModuleGetFunction, uintptr(unsafe.Pointer(&fn)), mod, uintptr(unsafe.Pointer(&name[0])))); r != cudaSuccess {
			b.Fatalf("cuModuleGetFunction: %v", r)
		}
		if r := res(purego.SyscallN(a.cuStreamCreate, uintptr(unsafe.Pointer(&stream)), streamNonBlocking)); r != cudaSuccess {
			b.Fatalf("cuStreamCreate: %v", r)
		}
		b.Run("raw_launch_sync", func(b *testing.B) {
			for b.Loop() {
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
				sa.call(a.cuStreamSynchronize, stream)
			}
		})
		b.Run("raw_launch_async", func(b *testing.B) {
			for b.Loop() {
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
			}
			sa.call(a.cuStreamSynchronize, stream)
		})
		b.Run("raw_set_launch_sync", func(b *testing.B) {
			for b.Loop() {
				sa.call(a.cuCtxSetCurrent, ctx)
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
				sa.call(a.cuCtxSetCurrent, ctx)
				sa.call(a.cuStreamSynchronize, stream)
			}
		})
		var s2, ev uintptr
		if r := res(purego.SyscallN(a.cuStreamCreate, uintptr(unsafe.Pointer(&s2)), streamNonBlocking)); r != cudaSuccess {
			b.Fatalf("cuStreamCreate: %v", r)
		}
		if r := res(purego.SyscallN(a.cuEventCreate, uintptr(unsafe.Pointer(&ev)), eventDisableTiming)); r != cudaSuccess {
			b.Fatalf("cuEventCreate: %v", r)
		}
		b.Run("raw_cross_queue_phases", func(b *testing.B) {
			var ph [5]time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
				t1 := time.Now()
				sa.call(a.cuEventRecord, ev, stream)
				t2 := time.Now()
				sa.call(a.cuStreamWaitEvent, s2, ev, 0)
				t3 := time.Now()
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, s2, 0, 0)
				t4 := time.Now()
				sa.call(a.cuStreamSynchronize, s2)
				t5 := time.Now()
				ph[0] += t1.Sub(t0)
				ph[1] += t2.Sub(t1)
				ph[2] += t3.Sub(t2)
				ph[3] += t4.Sub(t3)
				ph[4] += t5.Sub(t4)
				n++
			}
			for i, name := range []string{"launch-ns", "record-ns", "wait-ns", "launch2-ns", "sync-ns"} {
				b.ReportMetric(float64(ph[i].Nanoseconds())/float64(n), name)
			}
		})
		b.Run("raw_cross_queue", func(b *testing.B) {
			for b.Loop() {
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
				sa.call(a.cuEventRecord, ev, stream)
				sa.call(a.cuStreamWaitEvent, s2, ev, 0)
				sa.call(a.cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0, s2, 0, 0)
				sa.call(a.cuStreamSynchronize, s2)
			}
		})
		sa.call(a.cuEventDestroy, ev)
		sa.call(a.cuStreamDestroy, s2)
		sa.call(a.cuStreamDestroy, stream)
		sa.call(a.cuModuleUnload, mod)
	}
	b.Run("gettid", func(b *testing.B) {
		for b.Loop() {
			syscall.Gettid()
		}
	})
}
