package kernels

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Library is the kernel library in every form: Go kernels for the cpu
// agent, AMDGPU code objects and PTX. module.Load picks the form that
// matches a device.
func Library() module.Library {
	return module.Library{CPUSet(), AMDGPUBundle, PTXsm90, PTXsm80}
}

// CPUSet is the cpu agent's build of the library: the Go kernels
// themselves, under their C names.
func CPUSet() *kernel.Set { return kernelsSet }

// kernelsSet is the library's Go kernels (kernels_gen.go).
var kernelsSet = kernel.NewSet("kernels", emptyKernel, vectorAddKernel, saxpyKernel, fillF32Kernel, reduceSumKernel, transposeKernel, sgemmKernel)

// Functions holds the library's kernels as loaded in one module, a field
// per kernel.
type Functions struct {
	Empty     *module.Function // empty()
	VectorAdd *module.Function // vector_add(const float *a, const float *b, float *c, int n)
	Saxpy     *module.Function // saxpy(float alpha, const float *x, float *y, int n)
	FillF32   *module.Function // fill_f32(float *p, float value, int n)
	ReduceSum *module.Function // reduce_sum(const float *in, float *partial, int n)
	Sgemm     *module.Function // sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
	Transpose *module.Function // transpose(const float *in, float *out, int rows, int cols)
}

// Set is the library loaded onto one device, with its functions looked up:
// Empty, VectorAdd, Saxpy, FillF32, ReduceSum, Transpose and Sgemm, one
// *module.Function per kernel.
type Set struct {
	Module *module.Module
	Functions
}

// SetChecked switches checked mode for the library's launches on GPUs:
// on in test binaries and off in programs by default, HIPGO_CHECKED=1 or
// 0 over both (see gpu/gokernel). A benchmark that measures what programs
// run switches it off.
func SetChecked(on bool) { goLibrary.SetChecked(on) }

// Load returns the library loaded on dev, loading it on first use.
func Load(dev *gpu.Device) (*Set, error) {
	if err := dev.Valid(); err != nil {
		return nil, err
	}
	ld, err := goLibrary.Load(dev)
	if err != nil {
		return nil, err
	}
	// The Set is made per call, from the library's per-device functions:
	// a cache of Sets keyed by the library's loads would keep one for
	// every device view a test ever released.
	s := &Set{Module: ld.Module}
	for _, f := range []struct {
		dst  **module.Function
		name string
	}{
		{&s.Empty, "empty"}, {&s.VectorAdd, "vector_add"}, {&s.Saxpy, "saxpy"}, {&s.FillF32, "fill_f32"},
		{&s.ReduceSum, "reduce_sum"}, {&s.Sgemm, "sgemm"}, {&s.Transpose, "transpose"},
	} {
		if *f.dst, err = ld.Function(f.name); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkStream rejects a nil stream before anything else is checked.
func checkStream(s *stream.Stream) error {
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, "launch", "nil stream")
	}
	return nil
}

// Block sizes the launchers use.
const (
	ElementwiseBlock = 256
	ReduceBlock      = 256
	TileDim          = 32 // transpose tile; blocks are TileDim x TileRows
	TileRows         = 8
	GemmTile         = 16
)

func checkLen(op string, n int, bufs ...int) error {
	if n < 0 || n > 1<<31-1 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "n=%d out of range", n)
	}
	for _, l := range bufs {
		if n > l {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "n=%d exceeds a buffer of %d elements", n, l)
		}
	}
	return nil
}

// The friendly launchers below size the grid for their data, check lengths
// and shapes, then call the generated Launch* functions.

// Empty launches the empty kernel: one block of one thread.
func Empty(s *stream.Stream) error {
	return LaunchEmpty(s, gpu.D1(1), gpu.D1(1), 0)
}

// VectorAdd computes c[i] = a[i] + b[i] for i < n on s.
func VectorAdd(s *stream.Stream, a, b, c *buffer.Buffer[float32], n int) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if a == nil || b == nil || c == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "vector_add", "nil buffer")
	}
	if err := checkLen("vector_add", n, a.Len(), b.Len(), c.Len()); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return LaunchVectorAdd(s, gpu.D1(gpu.Blocks(n, ElementwiseBlock)), gpu.D1(ElementwiseBlock), 0, a, b, c, int32(n))
}

// Saxpy computes y[i] = alpha*x[i] + y[i] for i < n on s.
func Saxpy(s *stream.Stream, alpha float32, x, y *buffer.Buffer[float32], n int) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if x == nil || y == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "saxpy", "nil buffer")
	}
	if err := checkLen("saxpy", n, x.Len(), y.Len()); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return LaunchSaxpy(s, gpu.D1(gpu.Blocks(n, ElementwiseBlock)), gpu.D1(ElementwiseBlock), 0, alpha, x, y, int32(n))
}

// FillF32 sets p[i] = value for i < n on s.
func FillF32(s *stream.Stream, p *buffer.Buffer[float32], value float32, n int) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if p == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "fill_f32", "nil buffer")
	}
	if err := checkLen("fill_f32", n, p.Len()); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return LaunchFillF32(s, gpu.D1(gpu.Blocks(n, ElementwiseBlock)), gpu.D1(ElementwiseBlock), 0, p, value, int32(n))
}

// ReduceSum writes one partial sum per block into partial: partial.Len()
// blocks of ReduceBlock threads stride over the n elements of in. Summing
// the partials gives the total.
func ReduceSum(s *stream.Stream, in, partial *buffer.Buffer[float32], n int) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if in == nil || partial == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "reduce_sum", "nil buffer")
	}
	if err := checkLen("reduce_sum", n, in.Len()); err != nil {
		return err
	}
	blocks := partial.Len()
	return LaunchReduceSum(s, gpu.D1(uint32(blocks)), gpu.D1(ReduceBlock), ReduceBlock*4, in, partial, int32(n))
}

// Sum returns the sum of in's first n elements: ReduceSum, then the
// partials added on the host. It synchronizes s.
func Sum(s *stream.Stream, in *buffer.Buffer[float32], n int) (float32, error) {
	if s == nil {
		return 0, gpu.Errorf(gpu.ErrInvalidHandle, "sum", "nil stream")
	}
	blocks := min(max(int(gpu.Blocks(n, ReduceBlock)), 1), 1024)
	partial, err := buffer.New[float32](s.Device(), blocks)
	if err != nil {
		return 0, err
	}
	defer partial.Free()
	if err := ReduceSum(s, in, partial, n); err != nil {
		return 0, err
	}
	if err := s.Synchronize(); err != nil {
		return 0, err
	}
	host, err := partial.ToSlice()
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, v := range host {
		sum += float64(v)
	}
	return float32(sum), nil
}

// Transpose writes the cols x rows transpose of the rows x cols matrix in
// (row-major) into out.
func Transpose(s *stream.Stream, in, out *buffer.Buffer[float32], rows, cols int) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if in == nil || out == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "transpose", "nil buffer")
	}
	if rows <= 0 || cols <= 0 || rows > 1<<30/cols {
		return gpu.Errorf(gpu.ErrInvalidValue, "transpose", "bad shape %dx%d", rows, cols)
	}
	if err := checkLen("transpose", rows*cols, in.Len(), out.Len()); err != nil {
		return err
	}
	grid := gpu.D2(gpu.Blocks(cols, TileDim), gpu.Blocks(rows, TileDim))
	return LaunchTranspose(s, grid, gpu.D2(TileDim, TileRows), 0, in, out, int32(rows), int32(cols))
}

// Sgemm computes C = alpha*A*B + beta*C for row-major A (m x k), B (k x n)
// and C (m x n).
func Sgemm(s *stream.Stream, m, n, k int, alpha float32, a, b *buffer.Buffer[float32], beta float32, c *buffer.Buffer[float32]) error {
	if err := checkStream(s); err != nil {
		return err
	}
	if a == nil || b == nil || c == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "sgemm", "nil buffer")
	}
	if m <= 0 || n <= 0 || k <= 0 || m > 1<<15 || n > 1<<15 || k > 1<<15 {
		return gpu.Errorf(gpu.ErrInvalidValue, "sgemm", "bad shape m=%d n=%d k=%d", m, n, k)
	}
	if a.Len() < m*k || b.Len() < k*n || c.Len() < m*n {
		return gpu.Errorf(gpu.ErrInvalidValue, "sgemm", "buffers of %d, %d, %d elements are too small for m=%d n=%d k=%d", a.Len(), b.Len(), c.Len(), m, n, k)
	}
	grid := gpu.D2(gpu.Blocks(n, GemmTile), gpu.Blocks(m, GemmTile))
	return LaunchSgemm(s, grid, gpu.D2(GemmTile, GemmTile), 0, int32(m), int32(n), int32(k), alpha, a, b, beta, c)
}
