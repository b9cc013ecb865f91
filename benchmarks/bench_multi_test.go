package benchmarks

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

// Two devices: a copy from device 0's memory into device 1's, and a
// dependency of device 1's stream on an event of device 0's. They need two
// devices of one driver and are skipped otherwise; on the cpu agent they
// set HIPGO_CPU_AGENTS=2 themselves when it is unset:
//
//	HIPGO_CPU_AGENTS=2 go test -run '^$' -bench Multi ./benchmarks/
//
// On two GPUs, benchmarks/peers/run_h200_x2.sh runs them beside
// native_multi_gpu.c, which prints the same names with impl=native.
// HIPGO_REQUIRE=multi-gpu turns the skip into a failure.

// multiEnv is two devices of one driver, a stream on each, and device 1's
// peer access to device 0's memory (device 0 has none to device 1's).
type multiEnv struct {
	d0, d1 *gpu.Device
	s0, s1 *stream.Stream
}

// openMulti opens the runtime for one benchmark or test and closes it at
// its end.
func openMulti(tb testing.TB) *multiEnv {
	tb.Helper()
	_ = gpu.Shutdown()
	pair, err := devicePair()
	if err == nil && pair == nil && os.Getenv("HIPGO_CPU_AGENTS") == "" && allCPU() {
		// gpu reads the variable when it opens the runtime: open it again.
		_ = gpu.Shutdown()
		tb.Setenv("HIPGO_CPU_AGENTS", "2")
		pair, err = devicePair()
	}
	tb.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			tb.Error(err)
		}
	})
	if err != nil && !errors.Is(err, gpu.ErrNoDevice) {
		tb.Fatal(err)
	}
	if pair == nil {
		testenv.Requiref(tb, "multi-gpu", "fewer than two devices of one driver (%v)", err)
	}
	m := &multiEnv{d0: pair[0], d1: pair[1]}
	if ok, err := gpu.CanAccessPeer(m.d1, m.d0); err != nil || !ok {
		tb.Skipf("%s cannot access the memory of %s (%v)", m.d1, m.d0, err)
	}
	if err := m.d1.EnablePeerAccess(m.d0); err != nil {
		tb.Fatal(err)
	}
	for _, p := range []struct {
		s   **stream.Stream
		dev *gpu.Device
	}{{&m.s0, m.d0}, {&m.s1, m.d1}} {
		s, err := stream.New(p.dev)
		if err != nil {
			tb.Fatal(err)
		}
		*p.s = s
		tb.Cleanup(func() { _ = s.Destroy() })
	}
	return m
}

// devicePair returns the first two devices of one driver, or nil.
func devicePair() ([]*gpu.Device, error) {
	devs, err := gpu.Devices()
	if err != nil {
		return nil, err
	}
	for i, a := range devs {
		for _, b := range devs[i+1:] {
			if a.Properties().Driver == b.Properties().Driver {
				return []*gpu.Device{a, b}, nil
			}
		}
	}
	return nil, nil
}

func allCPU() bool {
	devs, err := gpu.Devices()
	if err != nil {
		return false
	}
	for _, d := range devs {
		if !d.Properties().IsCPU {
			return false
		}
	}
	return true
}

// multiImpl is an impl of the two-device families.
type multiImpl struct {
	name string
	mk   func(m *multiEnv, size int) (*workload, error)
}

// multiFamily is a family of two-device workloads (the suite's family
// opens one device).
type multiFamily struct {
	name  string
	sizes func() []int // nil: one size (0), no size level in the name
	small int          // the size TestMulti runs
	impls []multiImpl
}

func peerSizes() []int {
	s := []int{1 << 20, 4 << 20, 16 << 20, 64 << 20}
	if !testing.Short() {
		s = append(s, 256<<20)
	}
	return s
}

var multiPeerCopy = &multiFamily{
	name:  "MultiPeerCopy",
	sizes: peerSizes,
	small: 1 << 20,
	impls: []multiImpl{
		{"hipgo", func(m *multiEnv, size int) (*workload, error) {
			// Peer access: one copy packet on device 1's stream.
			return newPeerCopy(m.s1, m.d0, m.d1, size, (*stream.Stream).Copy)
		}},
		{"hipgo-staged", func(m *multiEnv, size int) (*workload, error) {
			// Device 0 has no access to device 1: staged through host memory.
			return newPeerCopy(m.s0, m.d1, m.d0, size, (*stream.Stream).CopyPeer)
		}},
		{"memmove", func(_ *multiEnv, size int) (*workload, error) {
			src, dst := make([]byte, size), make([]byte, size)
			fillBytes(src)
			return &workload{
				step:  func() error { copy(dst, src); return nil },
				check: func() error { return checkBytes(dst) },
				bytes: int64(size),
			}, nil
		}},
	},
}

// BenchmarkMultiPeerCopy is hipMemcpyPeerAsync + hipStreamSynchronize from
// device 0's memory to device 1's, 1 MiB to 256 MiB (64 MiB under -short).
func BenchmarkMultiPeerCopy(b *testing.B) { runMulti(b, multiPeerCopy) }

// newPeerCopy copies size bytes from a buffer of src to one of dst on s.
func newPeerCopy(s *stream.Stream, src, dst *gpu.Device, size int, cp func(*stream.Stream, buffer.Object, int, buffer.Object, int, int) error) (*workload, error) {
	from, err := buffer.New[byte](src, size)
	if err != nil {
		return nil, err
	}
	to, err := buffer.New[byte](dst, size)
	if err != nil {
		return nil, errors.Join(err, from.Free())
	}
	pattern := make([]byte, size)
	fillBytes(pattern)
	if err := errors.Join(from.CopyFrom(pattern), to.Memset(0)); err != nil {
		return nil, errors.Join(err, from.Free(), to.Free())
	}
	return &workload{
		step: func() error {
			if err := cp(s, to, 0, from, 0, size); err != nil {
				return err
			}
			return s.Synchronize()
		},
		check: func() error {
			got, err := to.ToSlice()
			if err != nil {
				return err
			}
			return checkBytes(got)
		},
		close: func() error { return errors.Join(from.Free(), to.Free()) },
		bytes: int64(size),
	}, nil
}

var multiDependency = &multiFamily{
	name: "MultiDependency",
	impls: []multiImpl{
		{"hipgo", newMultiDependency},
		{"channel", func(*multiEnv, int) (*workload, error) {
			x := make(chan struct{}, 1)
			var wg sync.WaitGroup
			return &workload{step: func() error {
				wg.Add(2)
				go func() { x <- struct{}{}; wg.Done() }()
				go func() { <-x; wg.Done() }()
				wg.Wait()
				return nil
			}}, nil
		}},
	},
}

// BenchmarkMultiDependency is the empty kernel on device 0, hipEventRecord
// there, hipStreamWaitEvent on device 1's stream, the empty kernel on
// device 1 and a synchronize: the latency of a dependency across devices.
func BenchmarkMultiDependency(b *testing.B) { runMulti(b, multiDependency) }

func newMultiDependency(m *multiEnv, _ int) (*workload, error) {
	ev, err := stream.NewEvent(m.d0, stream.EventDisableTiming)
	if err != nil {
		return nil, err
	}
	return &workload{
		step: func() error {
			if err := kernels.Empty(m.s0); err != nil {
				return err
			}
			if err := m.s0.Record(ev); err != nil {
				return err
			}
			if err := m.s1.WaitEvent(ev); err != nil {
				return err
			}
			if err := kernels.Empty(m.s1); err != nil {
				return err
			}
			return m.s1.Synchronize()
		},
		check: func() error { return ev.Query() },
		close: ev.Destroy,
	}, nil
}

// runMulti runs every impl of f at every size, as runFamily does: host
// peers only on cpu agents unless HIPGO_BENCH_PEERS=1.
func runMulti(b *testing.B, f *multiFamily) {
	m := openMulti(b)
	peers := m.d0.Properties().IsCPU || os.Getenv("HIPGO_BENCH_PEERS") == "1"
	e := &env{dev: m.d0}
	for _, mi := range f.impls {
		im := impl{name: mi.name, mk: func(_ *env, size int) (*workload, error) { return mi.mk(m, size) }}
		if im.isPeer() && !peers {
			continue
		}
		b.Run("impl="+im.name, func(b *testing.B) {
			if f.sizes == nil {
				measure(b, e, im, 0)
				return
			}
			for _, size := range f.sizes() {
				b.Run(byteLabel(size), func(b *testing.B) { measure(b, e, im, size) })
			}
		})
	}
}

// TestMulti runs each two-device workload a few steps at its smallest size
// and checks the result; on two GPUs it is the functional check of peer
// access, peer copies and cross-device events.
func TestMulti(t *testing.T) {
	m := openMulti(t)
	for _, f := range []*multiFamily{multiPeerCopy, multiDependency} {
		for _, im := range f.impls {
			name := f.name + "/impl=" + im.name
			if f.sizes != nil {
				name += "/" + byteLabel(f.small)
			}
			t.Run(name, func(t *testing.T) {
				w, err := im.mk(m, f.small)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.run(3); err != nil {
					t.Error(err)
				}
				if err := w.release(); err != nil {
					t.Error(err)
				}
			})
		}
	}
	if s := fmt.Sprint(m.d1.PeerAccessEnabled(m.d0), m.d0.PeerAccessEnabled(m.d1)); s != "true false" {
		t.Errorf("peer access 1->0, 0->1: %s", s)
	}
}
