package core

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// The core's tests run on the cpu agent, built through package gpu as
// the public packages build it; no goroutine may outlive gpu.Shutdown.
func TestMain(m *testing.M) { testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu")) }

// hang bounds every wait a test does for work that should end, so that a
// broken dependency fails the test instead of hanging it.
const hang = 20 * time.Second

// device opens the gpu layer on the cpu agent for t.
func device(t *testing.T) *gpu.Device {
	t.Helper()
	return cputest.Device(t)
}

// newStream makes a submitter of queue size packets, destroyed when t
// ends unless the test destroyed it.
func newStream(t *testing.T, dev *gpu.Device, size uint32) *Stream {
	t.Helper()
	s := new(Stream)
	require.NoError(t, s.Init(dev, size))
	t.Cleanup(func() {
		if !s.Destroyed() {
			assert.NoError(t, s.Destroy())
		}
	})
	return s
}

// newMem allocates n int32 of device memory, freed when t ends unless
// the test freed it.
func newMem(t *testing.T, dev *gpu.Device, n int) *Mem {
	t.Helper()
	m := new(Mem)
	require.NoError(t, InitMem[int32](m, dev, n, false))
	t.Cleanup(func() {
		if m.Live() {
			assert.NoError(t, m.Free())
		}
	})
	return m
}

// view is the view of elements [off, off+n) of m.
func view(m *Mem, off, n int) *Mem {
	v := new(Mem)
	m.View(v, off, n)
	return v
}

// hostOp submits an AGENT_DISPATCH host callback running f on s, after
// the barriers uses need.
func hostOp(s *Stream, f func() error, uses ...MemUse) error {
	id := hostref.RegisterCallback(f)
	if err := s.Agent("host op", aql.CallbackWork{ID: id}.Call(), 0, uses...); err != nil {
		hostref.TakeCallback(id) // refused before a packet took it
		return err
	}
	return nil
}

// gate holds host callbacks until the test opens it (or t ends).
type gate struct {
	ch      chan struct{}
	once    sync.Once
	started chan struct{}
	start   sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{ch: make(chan struct{}), started: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// wait is a callback's wait for the gate; a gate never opened fails it.
func (g *gate) wait() error {
	g.start.Do(func() { close(g.started) })
	select {
	case <-g.ch:
		return nil
	case <-time.After(hang):
		return errors.New("gate never opened")
	}
}

// gated submits a host callback on s that waits for g, then runs f, and
// returns once the callback is running.
func gated(t *testing.T, s *Stream, g *gate, f func(), uses ...MemUse) {
	t.Helper()
	require.NoError(t, hostOp(s, func() error {
		if err := g.wait(); err != nil {
			return err
		}
		f()
		return nil
	}, uses...))
	select {
	case <-g.started:
	case <-time.After(hang):
		t.Fatal("the gated callback never started")
	}
}

// runLog records what callbacks and kernels ran, in the order they ran.
type runLog struct {
	mu  sync.Mutex
	got []int
}

func (l *runLog) add(v int) {
	l.mu.Lock()
	l.got = append(l.got, v)
	l.mu.Unlock()
}

func (l *runLog) take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

// Test kernels.

type tagArgs struct{ Tag int64 }

// kernelLog is the log kernelTag appends its tag to.
var kernelLog runLog

var kernelTag = kernel.Define("core_test_tag", func(g *kernel.Block, a *tagArgs) { kernelLog.add(int(a.Tag)) })

var kernelPanic = kernel.Define("core_test_panic", func(g *kernel.Block, a *tagArgs) { panic("core test kernel failed on purpose") })

// launch dispatches k as one work-item with args as its kernarg image,
// using mems as uses says, the way gpu/module launches.
func launch[A any](s *Stream, k *kernel.Kernel, args *A, uses ...MemUse) error {
	l, err := s.BeginLaunch("launch")
	if err != nil {
		return err
	}
	l.Name(k.Symbol().Name)
	n := int(unsafe.Sizeof(*args))
	ka, err := l.KernargFor(n)
	if err != nil {
		l.Abort()
		return err
	}
	copy(ka, unsafe.Slice((*byte)(unsafe.Pointer(args)), n))
	for _, u := range uses {
		if err := l.Use(u.M, u.Acc); err != nil {
			l.Abort()
			return err
		}
	}
	d := Dispatch{Object: k.Symbol().Object, Grid: [3]uint32{1, 1, 1}, Block: [3]uint16{1, 1, 1}, Dims: 1, KernargSize: n}
	return l.Commit(&d)
}

// within is a context that ends when a test would otherwise hang.
func within(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	t.Cleanup(cancel)
	return ctx
}

// fenceOn is a fence for a packet of s that is never submitted: a
// pending use the dependency tests record by hand. It completes (Cancel)
// when t ends, before the memory that holds it is freed.
func fenceOn(t *testing.T, s *Stream, op string) *Fence {
	t.Helper()
	s.mu.Lock()
	f, err := s.newFence(op)
	s.mu.Unlock()
	require.NoError(t, err)
	t.Cleanup(func() {
		f.Cancel()
		f.Release()
	})
	return f
}

// use is Mem.Use with fresh deps, under the recording lock as useAll
// takes it; it returns the operations of the fences f must wait for.
func use(t *testing.T, m *Mem, s *Stream, f *Fence, acc Access) []string {
	t.Helper()
	recording.Lock()
	deps, err := m.Use(s, f, acc, nil)
	recording.Unlock()
	require.NoError(t, err)
	for _, d := range deps {
		d.Release() // the reference Use gave the caller
	}
	return names(deps...)
}

// names are the operations of fs, which tests name uniquely.
func names(fs ...*Fence) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.op)
	}
	return out
}
