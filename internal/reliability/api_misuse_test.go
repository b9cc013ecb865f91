package reliability_test

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// misuse is one wrong use of the API: run must return an error that
// errors.Is want and whose message holds every word (nil want: the use is
// allowed and must succeed).
type misuse struct {
	name  string
	run   func(f *fixture) error
	want  error
	words []string
	// stale: the case shuts the runtime down, so the devices cannot be
	// checked afterwards.
	stale bool
	// devices is how many devices the case needs (0: one); with fewer it
	// skips.
	devices int
	// cpuOnly, when set, is why the case skips on other drivers: it
	// depends on what only the cpu agent does.
	cpuOnly string
}

// TestMisuse runs every case on a fresh runtime of two cpu agents (or the
// devices of HIPGO_RELIABILITY_DRIVER: see doc.go), under a recover and a
// timeout, then checks that every device still runs new work correctly.
func TestMisuse(t *testing.T) {
	probeDriver(t)
	cases := misuseCases()
	if len(cases) < 40 {
		t.Fatalf("only %d misuse cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := openDriver(t, 2)
			if c.cpuOnly != "" && !f.onCPU() {
				t.Skipf("on %s: %s", f.driver, c.cpuOnly)
			}
			if len(f.devs) < max(c.devices, 1) {
				t.Skipf("needs %d devices; the %s driver has %d here", c.devices, f.driver, len(f.devs))
			}
			err := reliability.Guard(t, 10*time.Second, func() error { return c.run(f) })
			wantErr(t, err, c.want, c.words...)
			if !c.stale && !t.Failed() {
				f.healthy()
			}
		})
	}
}

func misuseCases() []misuse {
	const n = 64
	va := func(f *fixture, args ...any) error {
		return f.lib.VectorAdd.Launch(nil, gpu.D1(1), gpu.D1(n), 0, args...)
	}
	bufs := func(f *fixture) (a, b, c *buffer.Buffer[float32]) {
		return newBuf[float32](f.t, f.dev, n), newBuf[float32](f.t, f.dev, n), newBuf[float32](f.t, f.dev, n)
	}
	axpb := func(f *fixture, s *stream.Stream, grid, block gpu.Dim3, shared int, args ...any) error {
		return f.fn["reliability_axpb"].Launch(s, grid, block, shared, args...)
	}
	return []misuse{
		// Kernel arguments.
		{name: "too few arguments", want: gpu.ErrInvalidValue, words: []string{"vector_add", "takes 4 arguments, got 3"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c) }},
		{name: "too many arguments", want: gpu.ErrInvalidValue, words: []string{"vector_add", "got 5"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c, int32(n), int32(1)) }},
		{name: "scalar of the wrong type", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 3", "n", "int64"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c, int64(n)) }},
		{name: "scalar of the wrong size", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 3", "int16", "4 bytes"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c, int16(n)) }},
		{name: "float for an int", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 3", "float32"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c, float32(n)) }},
		{name: "scalar where a buffer goes", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 0", "takes a buffer"},
			run: func(f *fixture) error { _, b, c := bufs(f); return va(f, float32(1), b, c, int32(n)) }},
		{name: "buffer where a scalar goes", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 3", "takes a value"},
			run: func(f *fixture) error { a, b, c := bufs(f); return va(f, a, b, c, a) }},
		{name: "buffer of the wrong element type", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 1", "holds int32"},
			run: func(f *fixture) error {
				a, _, c := bufs(f)
				return va(f, a, newBuf[int32](f.t, f.dev, n), c, int32(n))
			}},
		{name: "unsupported argument type", want: gpu.ErrInvalidValue, words: []string{"reliability_axpb", "argument 1", "string"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1), gpu.D1(1), 0, newBuf[uint32](f.t, f.dev, 1), "3", uint32(1), int32(1))
			}},
		{name: "nil argument", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 1", "nil"},
			run: func(f *fixture) error { a, _, c := bufs(f); return va(f, a, nil, c, int32(n)) }},
		{name: "typed nil buffer argument", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 2", "nil buffer"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				return va(f, a, b, (*buffer.Buffer[float32])(nil), int32(n))
			}},
		{name: "freed buffer argument", want: gpu.ErrInvalidValue, words: []string{"vector_add", "argument 0", "was freed"},
			run: func(f *fixture) error {
				a, b, c := bufs(f)
				if err := a.Free(); err != nil {
					return err
				}
				return va(f, a, b, c, int32(n))
			}},
		{name: "buffer of another device", want: gpu.ErrNotOwner, devices: 2, words: []string{"vector_add", "argument 2", "device 1", "not on device 0"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				return va(f, a, b, newBuf[float32](f.t, f.devs[1], n), int32(n))
			}},
		{name: "buffer transferred away", want: gpu.ErrNotOwner, devices: 2, words: []string{"reliability_axpb", "argument 0", "device 1"},
			run: func(f *fixture) error {
				b := newBuf[uint32](f.t, f.dev, n)
				if err := b.Transfer(f.devs[1]); err != nil {
					return err
				}
				return axpb(f, nil, gpu.D1(1), gpu.D1(n), 0, b, uint32(1), uint32(1), int32(n))
			}},
		{name: "async copy of a buffer another device owns", want: gpu.ErrNotOwner, devices: 2, words: []string{"memcpy async", "device 1"},
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				return s.Copy(newBuf[uint32](f.t, f.dev, n), 0, newBuf[uint32](f.t, f.devs[1], n), 0, n)
			}},
		{name: "host read of a buffer another device owns", want: gpu.ErrNotOwner, devices: 2, words: []string{"memcpy", "device 1"},
			run: func(f *fixture) error {
				b := newBuf[uint32](f.t, f.dev, n)
				if err := b.Transfer(f.devs[1]); err != nil {
					return err
				}
				// The buffer now belongs to device 1: a kernel of device 0
				// may not read it, and neither may device 0's copy.
				return stream.CopyToHost(f.stream(f.dev), make([]uint32, n), b, 0)
			}},

		// Memory lifetime and ranges.
		{name: "double free", want: gpu.ErrInvalidValue, words: []string{"free", "already freed"},
			run: func(f *fixture) error {
				b := newBuf[float32](f.t, f.dev, n)
				if err := b.Free(); err != nil {
					return err
				}
				return b.Free()
			}},
		{name: "double free of host memory", want: gpu.ErrInvalidValue, words: []string{"host buffer", "already freed"},
			run: func(f *fixture) error {
				h := newHost[float32](f.t, f.dev, n)
				if err := h.Free(); err != nil {
					return err
				}
				if h.Slice() != nil {
					f.t.Error("Slice of freed host memory is not nil")
				}
				return h.Free()
			}},
		{name: "copy from a freed buffer", want: gpu.ErrInvalidValue, words: []string{"memcpy", "was freed"},
			run: func(f *fixture) error {
				b := newBuf[float32](f.t, f.dev, n)
				_ = b.Free()
				return b.CopyTo(make([]float32, n))
			}},
		{name: "copy past the end", want: gpu.ErrInvalidValue, words: []string{"memcpy host to device", "[60, 70)", "64 elements"},
			run: func(f *fixture) error { return newBuf[float32](f.t, f.dev, n).CopyFromAt(60, make([]float32, 10)) }},
		{name: "copy at a negative offset", want: gpu.ErrInvalidValue, words: []string{"memcpy device to host", "negative offset -1"},
			run: func(f *fixture) error { return newBuf[float32](f.t, f.dev, n).CopyToAt(-1, make([]float32, 2)) }},
		{name: "copy at an overflowing offset", want: gpu.ErrInvalidValue, words: []string{"memcpy device to host", "outside"},
			run: func(f *fixture) error {
				return newBuf[float32](f.t, f.dev, n).CopyToAt(math.MaxInt-1, make([]float32, 4))
			}},
		{name: "device copy of a negative count", want: gpu.ErrInvalidValue, words: []string{"memcpy", "negative", "-5"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				return buffer.Copy(a, 0, b, 0, -5)
			}},
		{name: "device copy of an overflowing count", want: gpu.ErrInvalidValue, words: []string{"memcpy", "outside"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				return buffer.Copy(a, 8, b, 0, math.MaxInt-4)
			}},
		{name: "async copy past the end", want: gpu.ErrInvalidValue, words: []string{"memcpy async host to device", "[32, 96)"},
			run: func(f *fixture) error {
				return stream.CopyToDevice(f.stream(f.dev), newBuf[float32](f.t, f.dev, n), 32, make([]float32, n))
			}},
		{name: "async device copy at an overflowing offset", want: gpu.ErrInvalidValue, words: []string{"memcpy async device to device", "outside"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				return f.stream(f.dev).Copy(a, 0, b, math.MaxInt, 2)
			}},
		{name: "async copy with host elements of another size", want: gpu.ErrInvalidValue, words: []string{"memcpy async device to host", "8 bytes", "4-byte"},
			run: func(f *fixture) error {
				return stream.CopyToHost(f.stream(f.dev), make([]float64, 4), newBuf[float32](f.t, f.dev, n), 0)
			}},
		{name: "device copy of different element types", want: gpu.ErrInvalidValue, words: []string{"memcpy", "float32", "int32"},
			run: func(f *fixture) error {
				return newBuf[float32](f.t, f.dev, n).CopyFromBuffer(newBuf[int32](f.t, f.dev, n))
			}},
		{name: "zero-length buffer is empty, as hipMalloc(0) is", want: nil,
			run: func(f *fixture) error {
				b, err := buffer.FromSlice(f.dev, []float32{})
				if err == nil && b.Len() != 0 {
					return fmt.Errorf("an empty buffer of %d elements", b.Len())
				}
				if err == nil {
					err = b.Free()
				}
				return err
			}},
		{name: "negative length buffer", want: gpu.ErrInvalidValue, words: []string{"malloc"},
			run: func(f *fixture) error { _, err := buffer.New[float32](f.dev, -1); return err }},
		{name: "element type with Go pointers", want: gpu.ErrInvalidValue, words: []string{"malloc", "*int", "cannot live in device memory"},
			run: func(f *fixture) error { _, err := buffer.New[*int](f.dev, 4); return err }},
		{name: "fill of 3-byte elements", want: gpu.ErrInvalidValue, words: []string{"memset", "3-byte"},
			run: func(f *fixture) error { return newBuf[[3]byte](f.t, f.dev, n).Fill([3]byte{1, 2, 3}) }},
		{name: "zero-length async copies are no-ops", want: nil,
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				b := newBuf[float32](f.t, f.dev, n)
				q := queueOf(f.t, s)
				before := q.LoadWriteIndex()
				if err := stream.CopyToDevice(s, b, n, []float32{}); err != nil {
					return err
				}
				if err := stream.CopyToHost[float32](s, nil, b, 0); err != nil {
					return err
				}
				if err := s.Copy(b, 0, b, 0, 0); err != nil {
					return err
				}
				if w := q.LoadWriteIndex(); w != before {
					f.t.Errorf("zero-length copies queued %d packets", w-before)
				}
				return s.Synchronize()
			}},

		// Launch configuration.
		{name: "grid of zero", want: gpu.ErrInvalidConfiguration, words: []string{"reliability_axpb", "grid"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D2(1, 0), gpu.D1(1), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "block of zero", want: gpu.ErrInvalidConfiguration, words: []string{"reliability_axpb", "block"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1), gpu.Dim3{}, 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "block over the dimension limit", want: gpu.ErrInvalidConfiguration, words: []string{"reliability_axpb", "block dimension 0 is 1025"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1), gpu.D1(1025), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "block over the thread limit", want: gpu.ErrInvalidConfiguration, words: []string{"reliability_axpb", "2048 threads"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1), gpu.D3(32, 32, 2), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "block over the kernel's launch bounds", want: gpu.ErrInvalidConfiguration, words: []string{"sgemm", "512 threads", "256"},
			run: func(f *fixture) error {
				a, b, c := bufs(f)
				return f.lib.Sgemm.Launch(nil, gpu.D1(1), gpu.D2(32, 16), 0, a, b, c, int32(8), int32(8), int32(1), float32(1), float32(0))
			}},
		{name: "grid over the device limit", want: gpu.ErrInvalidConfiguration, words: []string{"reliability_axpb", "grid dimension 0"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1<<31), gpu.D1(4), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "shared memory over the limit", want: gpu.ErrInvalidValue, words: []string{"reduce_sum", "dynamic shared memory"},
			run: func(f *fixture) error {
				a, b, _ := bufs(f)
				// 64 KiB + 1 on the cpu agent; a GPU's limit is its opt-in one.
				p := f.dev.Properties()
				over := max(p.SharedMemPerBlock, p.MaxSharedMemPerBlockOptin) + 1
				err := f.lib.ReduceSum.Launch(nil, gpu.D1(1), gpu.D1(64), over, a, b, int32(n))
				wantErr(f.t, err, gpu.ErrInvalidValue, strconv.Itoa(over))
				return err
			}},
		{name: "negative shared memory", want: gpu.ErrInvalidValue, words: []string{"reliability_axpb", "negative dynamic shared memory"},
			run: func(f *fixture) error {
				return axpb(f, nil, gpu.D1(1), gpu.D1(1), -1, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "function of another device's module", want: gpu.ErrInvalidHandle, devices: 2, words: []string{"reliability_axpb", "device 0", "device 1"},
			run: func(f *fixture) error {
				return axpb(f, f.stream(f.devs[1]), gpu.D1(1), gpu.D1(1), 0, newBuf[uint32](f.t, f.devs[1], 1), uint32(1), uint32(1), int32(1))
			}},

		// Modules.
		{name: "unknown kernel name", want: gpu.ErrNotFound, words: []string{"no_such_kernel", "vector_add"},
			run: func(f *fixture) error { _, err := f.lib.Module.Function("no_such_kernel"); return err }},
		{name: "AMDGPU bundle on the cpu agent", want: gpu.ErrNoBinaryForGpu, words: []string{"gfx90a"},
			run: func(f *fixture) error {
				// The cpu agent's target is "go"; a cuda device's is sm_XX.
				_, err := module.Load(f.dev, kernels.AMDGPUBundle)
				wantErr(f.t, err, gpu.ErrNoBinaryForGpu, f.dev.Target())
				return err
			}},
		{name: "PTX on the cpu agent", want: gpu.ErrNoBinaryForGpu, words: []string{"sm_90", "go"}, cpuOnly: "the device runs PTX",
			run: func(f *fixture) error { _, err := module.Load(f.dev, kernels.PTXsm90); return err }},
		{name: "garbage code object", want: gpu.ErrInvalidImage, words: []string{"module load"},
			run: func(f *fixture) error { _, err := module.Load(f.dev, []byte("\x7fELF not really")); return err }},
		{name: "function of an unloaded module", want: gpu.ErrInvalidHandle, words: []string{"reliability_axpb", "unloaded"},
			run: func(f *fixture) error {
				m, err := module.Load(f.dev, testLib)
				if err != nil {
					return err
				}
				fn := m.MustFunction("reliability_axpb")
				if err := m.Unload(); err != nil {
					return err
				}
				return fn.Launch(nil, gpu.D1(1), gpu.D1(1), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},

		// rocr: queues and signals.
		{name: "queue size not a power of two", want: hsa.ErrInvalidArgument, words: []string{"queue create", "1000", "power of two"},
			run: func(f *fixture) error { _, err := f.dev.Agent().CreateQueue(1000, hsa.QueueMulti, nil); return err }},
		{name: "queue size zero", want: hsa.ErrInvalidArgument, words: []string{"queue create", "size 0"},
			run: func(f *fixture) error { _, err := f.dev.Agent().CreateQueue(0, hsa.QueueMulti, nil); return err }},
		{name: "queue size over the agent's limit", want: hsa.ErrInvalidArgument, words: []string{"queue create", "262144", "limits"},
			run: func(f *fixture) error { _, err := f.dev.Agent().CreateQueue(1<<18, hsa.QueueMulti, nil); return err }},
		{name: "barrier on a destroyed signal", want: hsa.ErrInvalidSignal, words: []string{"barrier", "dependency 0"},
			run: barrierOnDestroyedSignal},
		{name: "handle of a destroyed signal", want: hsa.ErrInvalidSignal, words: []string{"signal"},
			run: func(f *fixture) error {
				s, err := rocr.NewSignal(1)
				if err != nil {
					return err
				}
				h := s.Handle()
				if err := s.Destroy(); err != nil {
					return err
				}
				_, err = rocr.SignalFromHandle(h)
				return err
			}},
		{name: "submit to a destroyed queue", want: hsa.ErrInvalidQueue, words: []string{"submit", "destroyed"},
			run: func(f *fixture) error {
				q, err := f.dev.Agent().CreateQueue(smallQueue(f.dev.Agent()), hsa.QueueMulti, nil)
				if err != nil {
					return err
				}
				if err := q.Destroy(); err != nil {
					return err
				}
				var p aql.BarrierAnd
				_, err = q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
				return err
			}},
		{name: "pool allocation of zero bytes", want: hsa.ErrInvalidArgument, words: []string{"allocate", "size 0"},
			run: func(f *fixture) error {
				p, err := f.dev.Agent().Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
				if err != nil {
					return err
				}
				_, err = p.Allocate(0)
				return err
			}},

		// Events across devices: allowed on cpu agents (every agent can
		// wait on every signal), and the order holds. With one device the
		// event orders two of its streams.
		{name: "event of one device waited on another", want: nil, run: crossDeviceEvent},

		// Sticky stream errors.
		{name: "launch on a stream after its error", want: gpu.ErrLaunchFailure, words: []string{"reliability_panic", "panic 7"}, cpuOnly: gpuFault,
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				if err := f.fn["reliability_panic"].Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(7)); err != nil {
					return err
				}
				err := s.Synchronize()
				wantErr(f.t, err, gpu.ErrLaunchFailure, "reliability_panic")
				return axpb(f, s, gpu.D1(1), gpu.D1(1), 0, newBuf[uint32](f.t, f.dev, 1), uint32(1), uint32(1), int32(1))
			}},
		{name: "copy, record and query after a stream's error", want: gpu.ErrLaunchFailure, words: []string{"reliability_panic"}, cpuOnly: gpuFault,
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				if err := f.fn["reliability_panic"].Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(8)); err != nil {
					return err
				}
				_ = s.Synchronize()
				wantErr(f.t, s.Record(f.event(f.dev)), gpu.ErrLaunchFailure, "reliability_panic")
				wantErr(f.t, s.Query(), gpu.ErrLaunchFailure, "reliability_panic")
				wantErr(f.t, s.LaunchHostFunc(func() error { return nil }), gpu.ErrLaunchFailure, "reliability_panic")
				return stream.CopyToDevice(s, newBuf[uint32](f.t, f.dev, 4), 0, []uint32{1, 2, 3, 4})
			}},

		// Use after shutdown.
		{name: "rocr after ShutDown", want: hsa.ErrNotInitialized, words: []string{"agents"}, stale: true,
			run: func(f *fixture) error {
				a := f.dev.Agent()
				if err := gpu.Shutdown(); err != nil {
					return err
				}
				wantErr(f.t, rocr.ShutDown(), hsa.ErrNotInitialized, "shut down")
				_, err := a.CreateQueue(16, hsa.QueueMulti, nil)
				wantErr(f.t, err, hsa.ErrNotInitialized, "queue create")
				_, err = rocr.Agents()
				return err
			}},
		{name: "gpu objects after Shutdown", want: gpu.ErrContextIsDestroyed, words: []string{"device 0", "shut down"}, stale: true,
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				b := newBuf[uint32](f.t, f.dev, 4)
				ev := f.event(f.dev)
				if err := gpu.Shutdown(); err != nil {
					return err
				}
				_, err := buffer.New[float32](f.dev, 4)
				wantErr(f.t, err, gpu.ErrContextIsDestroyed, "shut down")
				_, err = stream.New(f.dev)
				wantErr(f.t, err, gpu.ErrContextIsDestroyed, "shut down")
				wantErr(f.t, b.CopyFrom([]uint32{1}), gpu.ErrContextIsDestroyed, "shut down")
				wantErr(f.t, s.Record(ev), gpu.ErrContextIsDestroyed, "shut down")
				wantErr(f.t, f.dev.Synchronize(), gpu.ErrContextIsDestroyed)
				_, err = module.Load(f.dev, testLib)
				wantErr(f.t, err, gpu.ErrContextIsDestroyed, "shut down")
				return axpb(f, s, gpu.D1(1), gpu.D1(1), 0, b, uint32(1), uint32(1), int32(1))
			}},

		// Destroyed handles.
		{name: "destroyed stream", want: gpu.ErrInvalidHandle, words: []string{"memset async", "destroyed"},
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				if err := s.Destroy(); err != nil {
					return err
				}
				wantErr(f.t, s.Destroy(), gpu.ErrInvalidHandle, "already destroyed")
				wantErr(f.t, s.Synchronize(), gpu.ErrInvalidHandle, "destroyed")
				return s.Memset(newBuf[uint32](f.t, f.dev, 4), 0)
			}},
		{name: "destroyed event", want: gpu.ErrInvalidHandle, words: []string{"stream wait event", "destroyed"},
			run: func(f *fixture) error {
				ev := f.event(f.dev)
				if err := ev.Destroy(); err != nil {
					return err
				}
				wantErr(f.t, ev.Synchronize(), gpu.ErrInvalidHandle, "destroyed")
				return f.stream(f.dev).WaitEvent(ev)
			}},
		{name: "default stream destroyed by the user", want: gpu.ErrInvalidHandle, words: []string{"default stream"},
			run: func(f *fixture) error {
				s, err := stream.DefaultStream(f.dev)
				if err != nil {
					return err
				}
				return s.Destroy()
			}},
		{name: "timing of events without timing", want: gpu.ErrInvalidHandle, words: []string{"EventDisableTiming"},
			run: func(f *fixture) error {
				s := f.stream(f.dev)
				a, _ := stream.NewEvent(f.dev, stream.EventDisableTiming)
				b := f.event(f.dev)
				_ = s.Record(a)
				_ = s.Record(b)
				_ = s.Synchronize()
				_, err := stream.Elapsed(a, b)
				return err
			}},

		// Nil and zero values.
		{name: "nil device", want: gpu.ErrInvalidDevice, words: []string{"nil device"},
			run: func(f *fixture) error {
				_, err := buffer.New[float32](nil, 4)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "nil device")
				_, err = buffer.NewHost[float32](nil, 4)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "nil device")
				_, err = stream.NewEvent(nil, 0)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "nil device")
				_, err = stream.DefaultStream(nil)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "nil device")
				_, err = module.Load(nil, testLib)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "nil device")
				_, err = kernels.Load(nil)
				wantErr(f.t, err, gpu.ErrInvalidDevice)
				wantErr(f.t, newBuf[float32](f.t, f.dev, 1).Transfer(nil), gpu.ErrInvalidDevice, "nil device")
				_, err = stream.New(nil)
				return err
			}},
		{name: "device ordinal out of range", want: gpu.ErrInvalidDevice,
			run: func(f *fixture) error {
				_, err := gpu.Get(-1)
				wantErr(f.t, err, gpu.ErrInvalidDevice, "ordinal -1")
				// Ordinal 2 of [0, 2) on the two cpu agents.
				n := len(f.devs)
				_, err = gpu.Get(n)
				wantErr(f.t, err, gpu.ErrInvalidDevice, fmt.Sprintf("ordinal %d", n), fmt.Sprintf("[0, %d)", n))
				return err
			}},
		{name: "nil stream", want: gpu.ErrInvalidHandle, words: []string{"memcpy async host to device", "nil stream"},
			run: func(f *fixture) error {
				var s *stream.Stream
				b := newBuf[uint32](f.t, f.dev, 4)
				wantErr(f.t, s.Synchronize(), gpu.ErrInvalidHandle, "stream synchronize", "nil stream")
				wantErr(f.t, s.Query(), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.Destroy(), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.Record(f.event(f.dev)), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.WaitEvent(f.event(f.dev)), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.LaunchHostFunc(func() error { return nil }), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.Memset(b, 0), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, stream.Fill(s, b, uint32(1)), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.Copy(b, 0, b, 0, 1), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, stream.CopyToHost(s, make([]uint32, 4), b, 0), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, s.SetKernelTimeout(time.Second), gpu.ErrInvalidHandle, "nil stream")
				wantErr(f.t, kernels.VectorAdd(s, nil, nil, nil, 0), gpu.ErrInvalidHandle, "nil stream")
				return stream.CopyToDevice(s, b, 0, []uint32{1})
			}},
		{name: "nil buffer", want: gpu.ErrInvalidValue, words: []string{"nil buffer"},
			run: func(f *fixture) error {
				var b *buffer.Buffer[uint32]
				s := f.stream(f.dev)
				wantErr(f.t, b.CopyFrom([]uint32{1}), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, b.CopyTo(make([]uint32, 1)), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, b.Fill(1), gpu.ErrInvalidValue, "nil buffer")
				if err := b.Free(); err != nil { // hipFree(nullptr) succeeds
					f.t.Errorf("nil buffer's Free: %v", err)
				}
				wantErr(f.t, b.Transfer(f.dev), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, newBuf[uint32](f.t, f.dev, 1).CopyFromBuffer(b), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, s.Memset(b, 0), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, s.Memset(nil, 0), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, stream.CopyToHost(s, make([]uint32, 1), b, 0), gpu.ErrInvalidValue, "nil buffer")
				wantErr(f.t, buffer.Copy(nil, 0, nil, 0, 1), gpu.ErrInvalidValue, "nil buffer")
				var h *buffer.Host[uint32]
				if h.Slice() != nil {
					f.t.Error("nil host buffer has a slice")
				}
				if err := h.Free(); err != nil { // hipHostFree(nullptr) succeeds
					f.t.Errorf("nil host buffer's Free: %v", err)
				}
				return s.Copy(b, 0, newBuf[uint32](f.t, f.dev, 1), 0, 1)
			}},
		{name: "nil function", want: gpu.ErrInvalidDeviceFunction, words: []string{"launch", "nil function"},
			run: func(f *fixture) error {
				var fn *module.Function
				return module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(1), 0, nil)
			}},
		{name: "nil event", want: gpu.ErrInvalidHandle, words: []string{"nil event"},
			run: func(f *fixture) error {
				var ev *stream.Event
				s := f.stream(f.dev)
				wantErr(f.t, s.Record(nil), gpu.ErrInvalidHandle, "event record", "nil event")
				wantErr(f.t, ev.Synchronize(), gpu.ErrInvalidHandle, "nil event")
				wantErr(f.t, ev.Query(), gpu.ErrInvalidHandle, "nil event")
				wantErr(f.t, ev.Destroy(), gpu.ErrInvalidHandle, "nil event")
				_, err := stream.Elapsed(nil, nil)
				wantErr(f.t, err, gpu.ErrInvalidHandle, "nil event")
				return s.WaitEvents(f.event(f.dev), nil)
			}},
		{name: "nil module", want: gpu.ErrInvalidHandle, words: []string{"nil module"},
			run: func(f *fixture) error {
				var m *module.Module
				wantErr(f.t, m.Unload(), gpu.ErrInvalidHandle, "module unload", "nil module")
				_, err := m.Function("vector_add")
				return err
			}},
		{name: "nil module source", want: gpu.ErrInvalidValue, words: []string{"module load", "nil code"},
			run: func(f *fixture) error { _, err := module.Load(f.dev, nil); return err }},
		{name: "nil host function", want: gpu.ErrInvalidValue, words: []string{"launch host func", "nil function"},
			run: func(f *fixture) error { return f.stream(f.dev).LaunchHostFunc(nil) }},
		{name: "bad stream and event flags", want: gpu.ErrInvalidValue, words: []string{"stream create", "0x40"},
			run: func(f *fixture) error {
				_, err := stream.NewEvent(f.dev, 0x80)
				wantErr(f.t, err, gpu.ErrInvalidValue, "event create", "0x80")
				// An out-of-range priority is clamped, as HIP does.
				if s, err := stream.NewWithFlags(f.dev, stream.Default, 5); err != nil {
					f.t.Errorf("priority 5: %v", err)
				} else {
					_ = s.Destroy()
				}
				_, err = stream.NewWithFlags(f.dev, 0x40, 0)
				return err
			}},
		{name: "negative kernel timeout", want: gpu.ErrInvalidValue, words: []string{"kernel timeout", "negative"},
			run: func(f *fixture) error { return f.stream(f.dev).SetKernelTimeout(-time.Second) }},
	}
}

// barrierOnDestroyedSignal submits a BARRIER_AND whose dependency is a
// destroyed signal: the queue fails with ErrInvalidSignal and the packet's
// completion signal completes with it; nothing waits forever.
func barrierOnDestroyedSignal(f *fixture) error {
	errs := make(chan error, 1)
	q, err := f.dev.Agent().CreateQueue(smallQueue(f.dev.Agent()), hsa.QueueMulti, func(_ *rocr.Queue, err error) { errs <- err })
	if err != nil {
		return err
	}
	defer q.Destroy()
	dep, err := rocr.NewSignal(1)
	if err != nil {
		return err
	}
	done, err := rocr.NewSignal(1)
	if err != nil {
		return err
	}
	defer done.Destroy()
	h := dep.Handle()
	if err := dep.Destroy(); err != nil {
		return err
	}
	var p aql.BarrierAnd
	p.DepSignal[0] = h
	p.CompletionSignal = done.Handle()
	if _, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
		return err
	}
	if v := done.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked); v != 0 {
		return hsa.Errorf(hsa.StatusErrorFatal, "test", "the barrier's completion signal never completed (value %d)", v)
	}
	select {
	case cb := <-errs:
		wantErr(f.t, cb, hsa.ErrInvalidSignal, "dependency 0")
	case <-time.After(5 * time.Second):
		f.t.Error("the queue's error callback never ran")
	}
	wantErr(f.t, done.Err(), hsa.ErrInvalidSignal)
	return q.Err()
}

// crossDeviceEvent records an event on device 0 after a slow store into
// host memory, makes a stream of device 1 wait on it, then reads the
// stored value there: allowed on cpu agents, and the order must hold.
func crossDeviceEvent(f *fixture) error {
	h := newHost[uint32](f.t, f.dev, 2)
	other := f.devs[min(1, len(f.devs)-1)]
	s0, s1 := f.stream(f.devs[0]), f.stream(other)
	ev := f.event(f.devs[0])
	if err := f.fn["reliability_store"].Launch(s0, gpu.D1(1), gpu.D1(1), 0, h, int32(0), uint32(7), int32(50), int32(0)); err != nil {
		return err
	}
	if err := s0.Record(ev); err != nil {
		return err
	}
	if err := s1.WaitEvent(ev); err != nil {
		return err
	}
	// Host memory carries no device-side last-writer barrier from s0 to
	// s1 here only because the event orders them; the move reads x[0].
	if err := f.function(other, "reliability_move").Launch(s1, gpu.D1(1), gpu.D1(1), 0, h, int32(1), int32(0)); err != nil {
		return err
	}
	if err := s1.Synchronize(); err != nil {
		return err
	}
	if got := h.Slice()[1]; got != 7 {
		f.t.Errorf("device 1 read %d before device 0's store of 7: the event did not order them", got)
	}
	return nil
}

// smallQueue is the smallest queue the agent takes, at least 16 slots
// (a cuda agent's minimum is 64).
func smallQueue(a *rocr.Agent) uint32 { return max(16, a.Info().QueueMinSize) }
