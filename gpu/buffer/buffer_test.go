package buffer_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu")) }

// addOne adds 1 to x[0:n]; work-group 0 does it all.
type addOneArgs struct {
	X rocr.Ptr[int32]
	N int32
}

var addOne = kernel.Define("buffer_test_add_one", func(g *kernel.Block, a *addOneArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i]++
	}
})

var kernelSet = kernel.NewSet("buffer-test", addOne, gatedAdd)

func setup(t *testing.T) *gpu.Device {
	t.Helper()
	return cputest.Device(t)
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// launchAddOne runs addOne over x on a new stream of dev and waits.
func launchAddOne(dev *gpu.Device, x buffer.Object, n int) error {
	m, err := module.Load(dev, kernelSet)
	if err != nil {
		return err
	}
	s, err := stream.New(dev)
	if err != nil {
		return err
	}
	defer s.Destroy()
	f := m.MustFunction("buffer_test_add_one")
	if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x, int32(n)); err != nil {
		return err
	}
	return s.Synchronize()
}

func TestCopies(t *testing.T) {
	dev := setup(t)
	const n = 1000
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i) / 2
	}
	a := must[*buffer.Buffer[float32]](t)(buffer.FromSlice(dev, in))
	if a.Len() != n || a.Bytes() != 4*n || a.Device() != dev || a.Ptr() == 0 {
		t.Errorf("len %d bytes %d device %v ptr %#x", a.Len(), a.Bytes(), a.Device(), a.Ptr())
	}
	out := must[[]float32](t)(a.ToSlice())
	for i := range out {
		if out[i] != in[i] {
			t.Fatalf("round trip: out[%d] = %v", i, out[i])
		}
	}
	b := must[*buffer.Buffer[float32]](t)(buffer.New[float32](dev, n))
	if err := b.CopyFromBuffer(a); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromAt(10, []float32{-1, -2}); err != nil {
		t.Fatal(err)
	}
	part := make([]float32, 4)
	if err := b.CopyToAt(9, part); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(part) != "[4.5 -1 -2 6]" {
		t.Errorf("copies at offsets: %v", part)
	}
	head := make([]float32, 3)
	if err := b.CopyTo(head); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFrom([]float32{7}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(head) != "[0 0.5 1]" {
		t.Errorf("copy of the head: %v", head)
	}
	if err := buffer.Copy(a, 0, b, 1, 2); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(a.ToSlice()); fmt.Sprint(got[:3]) != "[0.5 1 1]" {
		t.Errorf("CopyMem: %v", got[:3])
	}
	// Empty copies are no-ops.
	if err := b.CopyFrom(nil); err != nil {
		t.Errorf("empty copy: %v", err)
	}
	if err := b.CopyToAt(n, nil); err != nil {
		t.Errorf("empty copy at the end: %v", err)
	}
}

func TestFillMemset(t *testing.T) {
	dev := setup(t)
	i32 := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 5))
	if err := i32.Fill(-7); err != nil {
		t.Fatal(err)
	}
	if got := must[[]int32](t)(i32.ToSlice()); fmt.Sprint(got) != "[-7 -7 -7 -7 -7]" {
		t.Errorf("fill int32: %v", got)
	}
	if err := i32.Memset(0xff); err != nil {
		t.Fatal(err)
	}
	if got := must[[]int32](t)(i32.ToSlice()); fmt.Sprint(got) != "[-1 -1 -1 -1 -1]" {
		t.Errorf("memset: %v", got)
	}
	f64 := must[*buffer.Buffer[float64]](t)(buffer.New[float64](dev, 3))
	if err := f64.Fill(math.Pi); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float64](t)(f64.ToSlice()); got[2] != math.Pi {
		t.Errorf("fill float64: %v", got)
	}
	u16 := must[*buffer.Buffer[uint16]](t)(buffer.New[uint16](dev, 3))
	if err := u16.Fill(0xbeef); err != nil {
		t.Fatal(err)
	}
	if got := must[[]uint16](t)(u16.ToSlice()); fmt.Sprint(got) != "[48879 48879 48879]" {
		t.Errorf("fill uint16: %v", got)
	}
	u8 := must[*buffer.Buffer[uint8]](t)(buffer.New[uint8](dev, 3))
	if err := u8.Fill(9); err != nil {
		t.Fatal(err)
	}
	if got := must[[]uint8](t)(u8.ToSlice()); fmt.Sprint(got) != "[9 9 9]" {
		t.Errorf("fill uint8: %v", got)
	}
	odd := must[*buffer.Buffer[[3]byte]](t)(buffer.New[[3]byte](dev, 3))
	if err := odd.Fill([3]byte{1, 2, 3}); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("fill of 3-byte elements: %v", err)
	}
	if err := odd.Memset(1); err != nil {
		t.Errorf("memset of 3-byte elements: %v", err)
	}
}

func TestHost(t *testing.T) {
	dev := setup(t)
	h := must[*buffer.Host[int32]](t)(buffer.NewHost[int32](dev, 8))
	s := h.Slice()
	if len(s) != 8 || h.Len() != 8 || h.Bytes() != 32 {
		t.Fatalf("host buffer: len %d bytes %d", len(s), h.Bytes())
	}
	for i := range s {
		s[i] = int32(10 * i)
	}
	// A kernel reads and writes host memory directly.
	if err := launchAddOne(dev, h, 8); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.Slice()) != "[1 11 21 31 41 51 61 71]" {
		t.Errorf("kernel on host memory: %v", h.Slice())
	}
	// Copies between host and device buffers.
	d := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 8))
	if err := d.CopyFromBuffer(h); err != nil {
		t.Fatal(err)
	}
	if err := d.Fill(3); err != nil {
		t.Fatal(err)
	}
	if err := buffer.Copy(h, 6, d, 0, 2); err != nil {
		t.Fatal(err)
	}
	if got := h.Slice(); got[5] != 51 || got[6] != 3 || got[7] != 3 {
		t.Errorf("device to host memory copy: %v", got)
	}
	if err := h.Free(); err != nil {
		t.Fatal(err)
	}
	if h.Slice() != nil {
		t.Error("Slice of freed host memory is not nil")
	}
	if err := h.Free(); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("double free of host memory: %v", err)
	}
}

func TestFreeAndUseAfterFree(t *testing.T) {
	dev := setup(t)
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 4))
	other := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 4))
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	err := b.Free()
	if !errors.Is(err, gpu.ErrInvalidValue) || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("double free: %v", err)
	}
	calls := map[string]func() error{
		"copy from":        func() error { return b.CopyFrom([]int32{1}) },
		"copy to":          func() error { return b.CopyTo(make([]int32, 1)) },
		"copy from at":     func() error { return b.CopyFromAt(1, []int32{1}) },
		"copy to at":       func() error { return b.CopyToAt(1, make([]int32, 1)) },
		"to slice":         func() error { _, err := b.ToSlice(); return err },
		"fill":             func() error { return b.Fill(1) },
		"memset":           func() error { return b.Memset(1) },
		"copy from buffer": func() error { return b.CopyFromBuffer(other) },
		"copy into other":  func() error { return other.CopyFromBuffer(b) },
		"transfer":         func() error { return b.Transfer(dev) },
		"launch":           func() error { return launchAddOne(dev, b, 4) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, gpu.ErrInvalidValue) || !strings.Contains(err.Error(), "freed") {
			t.Errorf("%s after free: %v", name, err)
		}
	}
	var nilBuf *buffer.Buffer[int32]
	if err := nilBuf.Free(); err != nil {
		t.Errorf("nil free (hipFree(nullptr) succeeds): %v", err)
	}
	if err := nilBuf.CopyFrom([]int32{1}); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("nil copy: %v", err)
	}
}

func TestRangesChecked(t *testing.T) {
	dev := setup(t)
	const n = 16
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	c := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	f := must[*buffer.Buffer[float32]](t)(buffer.New[float32](dev, n))
	big := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 2*n))
	maxInt := int(^uint(0) >> 1)
	calls := map[string]func() error{
		"copy from past the end":    func() error { return b.CopyFrom(make([]int32, n+1)) },
		"copy from at past the end": func() error { return b.CopyFromAt(n-1, make([]int32, 2)) },
		"copy from at negative":     func() error { return b.CopyFromAt(-1, make([]int32, 1)) },
		"copy from at huge":         func() error { return b.CopyFromAt(maxInt, make([]int32, 1)) },
		"copy to past the end":      func() error { return b.CopyTo(make([]int32, n+1)) },
		"copy to at past the end":   func() error { return b.CopyToAt(n, make([]int32, 1)) },
		"copy to at negative":       func() error { return b.CopyToAt(-5, make([]int32, 1)) },
		"copy from a larger buffer": func() error { return b.CopyFromBuffer(big) },
		"copy of another type":      func() error { return b.CopyFromBuffer(f) },
		"copy mem negative count":   func() error { return buffer.Copy(b, 0, c, 0, -1) },
		"copy mem huge count":       func() error { return buffer.Copy(b, 0, c, 0, maxInt) },
		"copy mem overflowing":      func() error { return buffer.Copy(b, maxInt, c, 0, 2) },
		"copy mem negative offset":  func() error { return buffer.Copy(b, 0, c, -1, 1) },
		"copy mem src past the end": func() error { return buffer.Copy(b, 0, c, 10, 7) },
		"negative elements":         func() error { _, err := buffer.New[int32](dev, -1); return err },
		"nil device":                func() error { _, err := buffer.New[int32](nil, 1); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, gpu.ErrInvalidValue) && !errors.Is(err, gpu.ErrInvalidDevice) {
			t.Errorf("%s: %v, want ErrInvalidValue", name, err)
		}
	}
	// A size above what a device holds is HIP's hipErrorOutOfMemory.
	_, err := buffer.New[float64](dev, maxInt/4)
	assert.ErrorIs(t, err, gpu.ErrOutOfMemory, "overflowing size")
	_, err = buffer.NewHost[[64]byte](dev, maxInt/32)
	assert.ErrorIs(t, err, gpu.ErrOutOfMemory, "overflowing host size")
	if got := must[[]int32](t)(b.ToSlice()); fmt.Sprint(got) != fmt.Sprint(make([]int32, n)) {
		t.Errorf("a refused copy wrote: %v", got)
	}
}

type withPointer struct {
	N int
	P *int
}

type flat struct {
	A [4]float32
	B int64
	C bool
}

func TestElementTypes(t *testing.T) {
	dev := setup(t)
	refused := map[string]func() error{
		"*int":           func() error { _, err := buffer.New[*int](dev, 1); return err },
		"string":         func() error { _, err := buffer.New[string](dev, 1); return err },
		"[]int":          func() error { _, err := buffer.New[[]int](dev, 1); return err },
		"map":            func() error { _, err := buffer.New[map[int]int](dev, 1); return err },
		"any":            func() error { _, err := buffer.New[any](dev, 1); return err },
		"chan":           func() error { _, err := buffer.New[chan int](dev, 1); return err },
		"func":           func() error { _, err := buffer.New[func()](dev, 1); return err },
		"struct pointer": func() error { _, err := buffer.New[withPointer](dev, 1); return err },
		"array pointer":  func() error { _, err := buffer.New[[2]*int](dev, 1); return err },
		"host string":    func() error { _, err := buffer.NewHost[string](dev, 1); return err },
		"from slice":     func() error { _, err := buffer.FromSlice(dev, []*int{nil}); return err },
	}
	for name, call := range refused {
		if err := call(); !errors.Is(err, gpu.ErrInvalidValue) || !strings.Contains(err.Error(), "cannot live in device memory") {
			t.Errorf("%s: %v", name, err)
		}
	}
	v := flat{A: [4]float32{1, 2, 3, 4}, B: -9, C: true}
	b := must[*buffer.Buffer[flat]](t)(buffer.FromSlice(dev, []flat{v, v}))
	if got := must[[]flat](t)(b.ToSlice()); got[1] != v {
		t.Errorf("struct elements: %+v", got)
	}
}

// GPU_MAX_HEAP_SIZE caps the device pool: past it, allocation is
// ErrOutOfMemory with the HSA status kept.
func TestOutOfMemory(t *testing.T) {
	t.Setenv("GPU_MAX_HEAP_SIZE", "0.001")
	dev := setup(t)
	pool, err := dev.Agent().Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	if err != nil {
		t.Fatal(err)
	}
	limit := int(pool.Limit())
	if limit <= 0 || uint64(limit) >= pool.Info().Size {
		t.Fatalf("GPU_MAX_HEAP_SIZE=0.001 gave a limit of %d of %d bytes", limit, pool.Info().Size)
	}
	_, err = buffer.New[byte](dev, limit+1)
	if !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("allocation over the limit: %v", err)
	}
	var ge *gpu.Error
	if !errors.As(err, &ge) || ge.Status() != hsa.StatusErrorOutOfResources || ge.Code != gpu.ErrOutOfMemory {
		t.Errorf("error %#v: want code hipErrorOutOfMemory and status HSA_STATUS_ERROR_OUT_OF_RESOURCES", err)
	}
	if !errors.Is(err, hsa.ErrOutOfResources) {
		t.Errorf("the rocr sentinel is lost: %v", err)
	}
	half := limit/2 + 4096
	a := must[*buffer.Buffer[byte]](t)(buffer.New[byte](dev, half))
	if _, err := buffer.New[byte](dev, half); !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Errorf("second allocation past the limit: %v", err)
	}
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	b := must[*buffer.Buffer[byte]](t)(buffer.New[byte](dev, half))
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	// Host memory is not device heap.
	h := must[*buffer.Host[byte]](t)(buffer.NewHost[byte](dev, limit+1))
	if err := h.Free(); err != nil {
		t.Fatal(err)
	}
}

func TestBadHeapSize(t *testing.T) {
	t.Setenv("GPU_MAX_HEAP_SIZE", "lots")
	t.Setenv("HIPGO_DRIVER", "cpu")
	if _, err := gpu.Default(); err == nil || !strings.Contains(err.Error(), "GPU_MAX_HEAP_SIZE") {
		t.Errorf("GPU_MAX_HEAP_SIZE=lots: %v", err)
		_ = gpu.Shutdown()
	}
}

// With two devices, a buffer belongs to the one that allocated it: a
// kernel on the other fails with ErrNotOwner until Transfer.
func TestOwnership(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	setup(t)
	dev0 := must[*gpu.Device](t)(gpu.Get(0))
	dev1 := must[*gpu.Device](t)(gpu.Get(1))
	x := must[*buffer.Buffer[int32]](t)(buffer.FromSlice(dev0, []int32{1, 2, 3}))
	err := launchAddOne(dev1, x, 3)
	if !errors.Is(err, gpu.ErrNotOwner) {
		t.Fatalf("kernel on device 1 using device 0's buffer: %v", err)
	}
	for _, want := range []string{x.String(), "device 0", "device 1", "buffer_test_add_one"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ownership error %q does not name %q", err, want)
		}
	}
	s1 := must[*stream.Stream](t)(stream.New(dev1))
	if err := s1.Memset(x, 0); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("memset on device 1's stream: %v", err)
	}
	if err := stream.CopyToDevice(s1, x, 0, []int32{5}); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("async copy on device 1's stream: %v", err)
	}

	// A copy across devices works (staged through host memory).
	y := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev1, 3))
	if err := y.CopyFromBuffer(x); err != nil {
		t.Fatal(err)
	}
	if got := must[[]int32](t)(y.ToSlice()); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("cross-device copy: %v", got)
	}
	if err := y.Fill(9); err != nil {
		t.Fatal(err)
	}
	if err := buffer.Copy(x, 1, y, 0, 2); err != nil {
		t.Fatal(err)
	}
	if got := must[[]int32](t)(x.ToSlice()); fmt.Sprint(got) != "[1 9 9]" {
		t.Errorf("cross-device copy back: %v", got)
	}

	// Transfer makes it device 1's.
	if err := x.Transfer(dev1); err != nil {
		t.Fatal(err)
	}
	if x.Device() != dev1 {
		t.Errorf("owner after transfer: %v", x.Device())
	}
	if err := launchAddOne(dev1, x, 3); err != nil {
		t.Fatal(err)
	}
	if got := must[[]int32](t)(x.ToSlice()); fmt.Sprint(got) != "[2 10 10]" {
		t.Errorf("after transfer: %v", got)
	}
	if err := launchAddOne(dev0, x, 3); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("device 0 after the transfer away: %v", err)
	}

	// Host memory is visible to both devices.
	h := must[*buffer.Host[int32]](t)(buffer.NewHost[int32](dev0, 3))
	if err := launchAddOne(dev1, h, 3); err != nil {
		t.Errorf("host memory on device 1: %v", err)
	}
	if err := launchAddOne(dev0, h, 3); err != nil {
		t.Errorf("host memory on device 0: %v", err)
	}
	if fmt.Sprint(h.Slice()) != "[2 2 2]" {
		t.Errorf("host memory used by two devices: %v", h.Slice())
	}
	if err := s1.Destroy(); err != nil {
		t.Fatal(err)
	}
}

func TestUseAfterShutdown(t *testing.T) {
	dev := setup(t)
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 4))
	h := must[*buffer.Host[int32]](t)(buffer.NewHost[int32](dev, 4))
	if err := gpu.Shutdown(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"copy":     b.CopyFrom([]int32{1}),
		"fill":     b.Fill(1),
		"transfer": b.Transfer(dev),
		"new":      func() error { _, err := buffer.New[int32](dev, 1); return err }(),
		"new host": func() error { _, err := buffer.NewHost[int32](dev, 1); return err }(),
	} {
		if !errors.Is(err, gpu.ErrContextIsDestroyed) {
			t.Errorf("%s after shutdown: %v", name, err)
		}
	}
	if h.Slice() != nil {
		t.Error("Slice of host memory after shutdown is not nil")
	}
	if err := b.Free(); err != nil {
		t.Errorf("free after shutdown: %v", err)
	}
}
