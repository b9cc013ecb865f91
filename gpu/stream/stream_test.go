package stream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

func TestCreateFlagsPriority(t *testing.T) {
	e := setup(t)
	s, err := stream.NewWithFlags(e.dev, stream.NonBlocking, stream.PriorityHigh)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flags() != stream.NonBlocking || s.Priority() != stream.PriorityHigh || s.Device() != e.dev {
		t.Errorf("flags %v priority %d device %v", s.Flags(), s.Priority(), s.Device())
	}
	for _, c := range []struct {
		flags    stream.Flags
		priority int
	}{{4, stream.PriorityLow}, {stream.NonBlocking | 8, stream.PriorityLow}} {
		if _, err := stream.NewWithFlags(e.dev, c.flags, c.priority); !errors.Is(err, gpu.ErrInvalidValue) {
			t.Errorf("flags %#x priority %d: got %v, want ErrInvalidValue", c.flags, c.priority, err)
		}
	}
	if _, err := stream.New(nil); !errors.Is(err, gpu.ErrInvalidDevice) {
		t.Errorf("nil device: %v", err)
	}

	d1, err := stream.DefaultStream(e.dev)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := stream.DefaultStream(e.dev)
	if err != nil || d1 != d2 {
		t.Fatalf("default stream: %p %p %v", d1, d2, err)
	}
	if err := d1.Destroy(); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("destroying the default stream: %v", err)
	}
	// A nil stream in a launch is the default stream.
	x := newBuf(t, e.dev, 4)
	f, _ := e.mod.Function("stream_test_inc")
	if err := f.Launch(nil, gpu.D1(1), gpu.D1(4), 0, x, int32(4)); err != nil {
		t.Fatal(err)
	}
	sync(t, d1)
	if got, _ := x.ToSlice(); fmt.Sprint(got) != "[1 1 1 1]" {
		t.Errorf("launch on the default stream: %v", got)
	}

	if err := s.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("second destroy: %v", err)
	}
	if err := s.Synchronize(); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("synchronize after destroy: %v", err)
	}
	if err := e.tryLaunch(s, "test_empty"); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("launch after destroy: %v", err)
	}
	if err := s.Memset(x, 0); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("memset after destroy: %v", err)
	}
	var nilStream *stream.Stream
	if err := nilStream.Synchronize(); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("nil stream: %v", err)
	}
}

func TestSynchronizeContext(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 8)
	// The kernel stays pending until the gate opens, so an expired context
	// must return while it still is: an order of events, not a clock bound.
	open := closeGate(t)
	e.launch(s, "stream_test_gated_write", x, int32(7), int32(8))
	if err := s.Query(); err != gpu.ErrNotReady {
		t.Errorf("query while busy: %v, want ErrNotReady", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := s.SynchronizeContext(ctx)
	if !errors.Is(err, gpu.ErrNotReady) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: %v, want ErrNotReady and DeadlineExceeded", err)
	}
	if err := s.Query(); err != gpu.ErrNotReady {
		t.Errorf("the expired context returned only once the kernel had finished: query %v", err)
	}
	open()
	if err := s.Synchronize(); err != nil {
		t.Fatalf("later synchronize: %v", err)
	}
	if err := s.Query(); err != nil {
		t.Errorf("query when idle: %v", err)
	}
	if got, _ := x.ToSlice(); got[7] != 7 {
		t.Errorf("slow kernel's result: %v", got)
	}
	// A cancelled context with nothing pending is not an error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := s.SynchronizeContext(ctx2); err != nil {
		t.Errorf("idle stream, cancelled context: %v", err)
	}
}

func TestHostFuncOrderAndStickyError(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 1)
	var order []string
	host := func(tag string) func() error {
		return func() error { order = append(order, tag); return nil }
	}
	if err := s.LaunchHostFunc(host("a")); err != nil {
		t.Fatal(err)
	}
	e.launch(s, "stream_test_slow_write", x, int32(5), int32(20), int32(1))
	var seen int32 = -1
	if err := s.LaunchHostFunc(func() error {
		// The slow kernel before it in the stream has finished: read its
		// result with a synchronous copy (another queue).
		v, err := x.ToSlice()
		if err != nil {
			return err
		}
		seen = v[0]
		order = append(order, "b")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.LaunchHostFunc(host("c")); err != nil {
		t.Fatal(err)
	}
	sync(t, s)
	if strings.Join(order, "") != "abc" || seen != 5 {
		t.Errorf("host functions ran as %q and saw %d; want \"abc\" and 5", order, seen)
	}
	if err := s.LaunchHostFunc(nil); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("nil host func: %v", err)
	}

	errBoom := errors.New("host callback failed")
	if err := s.LaunchHostFunc(func() error { return errBoom }); err != nil {
		t.Fatal(err)
	}
	ran := false
	_ = s.LaunchHostFunc(func() error { ran = true; return nil })
	err := s.Synchronize()
	if !errors.Is(err, errBoom) {
		t.Fatalf("synchronize after a failing host func: %v", err)
	}
	if ran {
		t.Error("a host func after the failure ran")
	}
	if err := s.Query(); !errors.Is(err, errBoom) {
		t.Errorf("query: %v", err)
	}
	if err := s.LaunchHostFunc(host("d")); !errors.Is(err, errBoom) {
		t.Errorf("later host func: %v", err)
	}
	if err := s.Synchronize(); !errors.Is(err, errBoom) {
		t.Errorf("second synchronize: %v", err)
	}
}

func TestStickyKernelFailure(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 4)
	e.launch(s, "test_panic")
	err := s.Synchronize()
	if err == nil || !strings.Contains(err.Error(), "test_panic") || !errors.Is(err, gpu.ErrLaunchFailure) {
		t.Fatalf("synchronize after a panicking kernel: %v; want ErrLaunchFailure naming the kernel", err)
	}
	var ge *gpu.Error
	if !errors.As(err, &ge) || ge.Status() == 0 {
		t.Errorf("no HSA status kept: %#v", err)
	}
	for name, call := range map[string]func() error{
		"launch":      func() error { return e.tryLaunch(s, "stream_test_inc", x, int32(4)) },
		"memset":      func() error { return s.Memset(x, 1) },
		"fill":        func() error { return stream.Fill(s, x, int32(1)) },
		"record":      func() error { return s.Record(e.event(0)) },
		"synchronize": s.Synchronize,
		"query":       s.Query,
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "test_panic") {
			t.Errorf("%s on the failed stream: %v; want the kernel's failure", name, err)
		}
	}
	if err := e.dev.Synchronize(); err == nil || !strings.Contains(err.Error(), "test_panic") {
		t.Errorf("device synchronize: %v", err)
	}

	// A fresh stream works, and so do synchronous copies.
	s2 := e.stream()
	e.launch(s2, "stream_test_inc", x, int32(4))
	sync(t, s2)
	if got, err := x.ToSlice(); err != nil || fmt.Sprint(got) != "[1 1 1 1]" {
		t.Errorf("fresh stream: %v %v", got, err)
	}
	if err := s.Destroy(); err != nil {
		t.Errorf("destroying a failed stream: %v", err)
	}
}

// A kernel that reads past its buffer fails its stream with
// hipErrorIllegalAddress, naming the kernel.
func TestKernelOutOfBounds(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 8)
	e.launch(s, "test_overrun", x, int32(8))
	err := s.Synchronize()
	if !errors.Is(err, gpu.ErrIllegalAddress) || !strings.Contains(err.Error(), "test_overrun") {
		t.Errorf("out-of-bounds kernel: %v; want ErrIllegalAddress naming the kernel", err)
	}
}

// A kernel that panics on a stream poisons only that stream, even when a
// later launch races with the failure being noticed.
func TestStickyErrorRace(t *testing.T) {
	e := setup(t)
	for i := 0; i < 20; i++ {
		s := e.stream()
		e.launch(s, "test_panic")
		_ = e.tryLaunch(s, "test_empty")
		if err := s.Synchronize(); err == nil || !strings.Contains(err.Error(), "test_panic") {
			t.Fatalf("round %d: synchronize returned %v", i, err)
		}
		if err := s.Destroy(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAsyncCopiesAndFills(t *testing.T) {
	e := setup(t)
	s := e.stream()
	const n = 1000
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i)
	}
	a := newBuf(t, e.dev, n)
	b := newBuf(t, e.dev, n)
	h, err := buffer.NewHost[int32](e.dev, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.CopyToDevice(s, a, 0, src); err != nil {
		t.Fatal(err)
	}
	if err := s.Copy(b, 10, a, 0, n-10); err != nil {
		t.Fatal(err)
	}
	if err := stream.Fill(s, h, int32(-1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Copy(h, 0, b, 0, 5); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, n)
	if err := stream.CopyToHost(s, got, b, 0); err != nil {
		t.Fatal(err)
	}
	part := make([]int32, 3)
	if err := stream.CopyToHost(s, part, a, 500); err != nil {
		t.Fatal(err)
	}
	sync(t, s)
	for i := 10; i < n; i++ {
		if got[i] != int32(i-10) {
			t.Fatalf("copy: b[%d] = %d", i, got[i])
		}
	}
	if fmt.Sprint(part) != "[500 501 502]" {
		t.Errorf("copy at an offset: %v", part)
	}
	hs := h.Slice()
	if hs[5] != -1 || hs[n-1] != -1 {
		t.Errorf("fill of host memory: %v", hs[:8])
	}

	if err := s.Memset(a, 0x01); err != nil {
		t.Fatal(err)
	}
	if err := stream.Fill(s, b, int32(42)); err != nil {
		t.Fatal(err)
	}
	if err := stream.CopyToHost(s, got, a, 0); err != nil {
		t.Fatal(err)
	}
	got2 := make([]int32, n)
	if err := stream.CopyToHost(s, got2, b, 0); err != nil {
		t.Fatal(err)
	}
	sync(t, s)
	if got[0] != 0x01010101 || got[n-1] != 0x01010101 || got2[0] != 42 || got2[n-1] != 42 {
		t.Errorf("memset %#x, fill %d", got[n-1], got2[n-1])
	}

	bad := []struct {
		name string
		call func() error
	}{
		{"to device past the end", func() error { return stream.CopyToDevice(s, a, n-1, src[:2]) }},
		{"to device negative offset", func() error { return stream.CopyToDevice(s, a, -1, src[:2]) }},
		{"to device wrong element size", func() error { return stream.CopyToDevice(s, a, 0, []int64{1}) }},
		{"to host past the end", func() error { return stream.CopyToHost(s, make([]int32, n+1), a, 0) }},
		{"copy past the end", func() error { return s.Copy(a, 1, b, 0, n) }},
		{"copy negative count", func() error { return s.Copy(a, 0, b, 0, -1) }},
		{"copy huge count", func() error { return s.Copy(a, 0, b, 0, int(^uint(0)>>1)) }},
		{"copy element types", func() error {
			f, _ := buffer.New[float32](e.dev, n)
			return s.Copy(f, 0, a, 0, 1)
		}},
		{"fill 3-byte elements", func() error {
			c, _ := buffer.New[[3]byte](e.dev, 4)
			return stream.Fill(s, c, [3]byte{})
		}},
		{"nil buffer", func() error { return s.Memset(nil, 0) }},
	}
	for _, c := range bad {
		if err := c.call(); !errors.Is(err, gpu.ErrInvalidValue) {
			t.Errorf("%s: %v, want ErrInvalidValue", c.name, err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Errorf("a refused operation failed the stream: %v", err)
	}
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	if err := s.Memset(a, 0); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("memset of a freed buffer: %v", err)
	}
}

// Freeing a buffer waits for the stream work that uses it.
func TestFreeWaitsForStreamWork(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 4)
	e.launch(s, "stream_test_slow_write", x, int32(1), int32(50), int32(4))
	start := time.Now()
	if err := x.Free(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("free returned after %v, before the kernel using the buffer ended", d)
	}
	sync(t, s)
}

func TestDeviceSynchronizeWaitsForAllStreams(t *testing.T) {
	e := setup(t)
	s1, s2 := e.stream(), e.stream()
	d, err := stream.DefaultStream(e.dev)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e.launch(s1, "test_sleep", int32(40))
	e.launch(s2, "test_sleep", int32(60))
	e.launch(d, "test_sleep", int32(50))
	if err := e.dev.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 55*time.Millisecond {
		t.Errorf("device synchronize returned after %v", took)
	}
	for i, s := range []*stream.Stream{s1, s2, d} {
		if err := s.Query(); err != nil {
			t.Errorf("stream %d after device synchronize: %v", i, err)
		}
	}
}

// After gpu.Shutdown, every call on an old object is an error that says
// the runtime is gone, never a panic or a hang.
func TestUseAfterShutdown(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 4)
	ev := e.event(0)
	e.launch(s, "stream_test_inc", x, int32(4))
	if err := s.Record(ev); err != nil {
		t.Fatal(err)
	}
	if err := gpu.Shutdown(); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"synchronize": s.Synchronize,
		"query":       s.Query,
		"launch":      func() error { return e.tryLaunch(s, "stream_test_inc", x, int32(4)) },
		"memset":      func() error { return s.Memset(x, 0) },
		"record":      func() error { return s.Record(ev) },
		"wait event":  func() error { return s.WaitEvent(ev) },
		"event sync":  ev.Synchronize,
		"new stream":  func() error { _, err := stream.New(e.dev); return err },
		"new event":   func() error { _, err := stream.NewEvent(e.dev, 0); return err },
		"default":     func() error { _, err := stream.DefaultStream(e.dev); return err },
		"copy":        func() error { return x.CopyFrom([]int32{1}) },
		"device sync": e.dev.Synchronize,
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, gpu.ErrContextIsDestroyed) {
			t.Errorf("%s after shutdown: %v, want ErrContextIsDestroyed", name, err)
		}
	}
	if err := x.Free(); err != nil {
		t.Errorf("free after shutdown: %v", err)
	}
	if err := s.Destroy(); err != nil {
		t.Errorf("destroy after shutdown: %v", err)
	}
	if err := ev.Destroy(); err != nil {
		t.Errorf("event destroy after shutdown: %v", err)
	}
}

// As in HIP, a priority outside the device's range is clamped into it.
func TestPriorityClamped(t *testing.T) {
	e := setup(t)
	for _, c := range []struct{ give, want int }{
		{stream.PriorityLow + 1, stream.PriorityLow},
		{100, stream.PriorityLow},
		{stream.PriorityHigh - 1, stream.PriorityHigh},
		{-100, stream.PriorityHigh},
	} {
		s, err := stream.NewWithFlags(e.dev, stream.Default, c.give)
		require.NoError(t, err, "priority %d", c.give)
		assert.Equal(t, c.want, s.Priority(), "priority %d", c.give)
		require.NoError(t, s.Destroy())
	}
}

// Device.SynchronizeContext gives up on an expired context while a
// kernel is pending, and waits for every stream with a live one.
func TestDeviceSynchronizeContext(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 8)
	open := closeGate(t)
	e.launch(s, "stream_test_gated_write", x, int32(3), int32(8))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := e.dev.SynchronizeContext(ctx)
	if !errors.Is(err, gpu.ErrNotReady) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: %v, want ErrNotReady and DeadlineExceeded", err)
	}
	if err := s.Query(); err != gpu.ErrNotReady {
		t.Errorf("the device's expired context returned only once the kernel had finished: query %v", err)
	}
	open()
	if err := e.dev.SynchronizeContext(context.Background()); err != nil {
		t.Fatalf("synchronize with a live context: %v", err)
	}
	if err := s.Query(); err != nil {
		t.Errorf("query after the device synchronized: %v", err)
	}
	if got, _ := x.ToSlice(); got[3] != 3 {
		t.Errorf("gated kernel's result: %v", got)
	}
}
