package kernels_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// These tests run the typed launchers on the default device: the cpu agent
// here, a GPU where HIPGO_DRIVER selects one (the H200 run checks every
// kernel of the library against these references there).

func device(t *testing.T) (*gpu.Device, *stream.Stream) {
	t.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			t.Error(err)
		}
	})
	dev, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	s, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device: %s", dev)
	return dev, s
}

func random(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	return x
}

func upload(t *testing.T, dev *gpu.Device, x []float32) *buffer.Buffer[float32] {
	b, err := buffer.FromSlice(dev, x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func download(t *testing.T, s *stream.Stream, b *buffer.Buffer[float32]) []float32 {
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	out, err := b.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func near(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func TestLaunchersOnDefaultDevice(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 100_003 // not a multiple of any block size

	ha, hb := random(r, n), random(r, n)
	a, b := upload(t, dev, ha), upload(t, dev, hb)
	c, err := buffer.New[float32](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.VectorAdd(s, a, b, c, n); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = ha[i] + hb[i]
	}
	near(t, "vector_add", download(t, s, c), want, 0)

	if err := kernels.Saxpy(s, 2.5, a, b, n); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i] = 2.5*ha[i] + hb[i]
	}
	near(t, "saxpy", download(t, s, b), want, 1e-6)

	if err := kernels.FillF32(s, c, 7, n-3); err != nil {
		t.Fatal(err)
	}
	got := download(t, s, c)
	for i := 0; i < n-3; i++ {
		if got[i] != 7 {
			t.Fatalf("fill_f32[%d] = %v", i, got[i])
		}
	}

	sum, err := kernels.Sum(s, a, n)
	if err != nil {
		t.Fatal(err)
	}
	var ref float64
	for _, v := range ha {
		ref += float64(v)
	}
	if math.Abs(float64(sum)-ref) > 1e-2 {
		t.Fatalf("reduce_sum = %v, want %v", sum, ref)
	}
	if err := kernels.Empty(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestTransposeAndSgemm(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols = 70, 45
	hin := random(r, rows*cols)
	in := upload(t, dev, hin)
	out, err := buffer.New[float32](dev, rows*cols)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.Transpose(s, in, out, rows, cols); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			want[j*rows+i] = hin[i*cols+j]
		}
	}
	near(t, "transpose", download(t, s, out), want, 0)

	const m, n, k = 37, 29, 41
	ha, hb, hc := random(r, m*k), random(r, k*n), random(r, m*n)
	A, B, C := upload(t, dev, ha), upload(t, dev, hb), upload(t, dev, hc)
	if err := kernels.Sgemm(s, m, n, k, 1.5, A, B, -0.5, C); err != nil {
		t.Fatal(err)
	}
	ref := blas32.General{Rows: m, Cols: n, Stride: n, Data: append([]float32(nil), hc...)}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1.5,
		blas32.General{Rows: m, Cols: k, Stride: k, Data: ha},
		blas32.General{Rows: k, Cols: n, Stride: n, Data: hb}, -0.5, ref)
	near(t, "sgemm", download(t, s, C), ref.Data, 1e-4)
}

func TestLaunchChecks(t *testing.T) {
	dev, s := device(t)
	lib, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	a, err := buffer.New[float32](dev, 64)
	if err != nil {
		t.Fatal(err)
	}
	ints, err := buffer.New[int32](dev, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want error
		args []any
	}{
		{"too few", gpu.ErrInvalidValue, []any{a, a, a}},
		{"int for int32", gpu.ErrInvalidValue, []any{a, a, a, 64}},
		{"float32 for int32", gpu.ErrInvalidValue, []any{a, a, a, float32(64)}},
		{"wrong element type", gpu.ErrInvalidValue, []any{a, ints, a, int32(64)}},
		{"value for pointer", gpu.ErrInvalidValue, []any{a, int64(0), a, int32(64)}},
		{"nil", gpu.ErrInvalidValue, []any{a, nil, a, int32(64)}},
	} {
		err := module.LaunchKernelGGL(lib.VectorAdd, gpu.D1(1), gpu.D1(64), 0, s, c.args...)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if err := kernels.VectorAdd(s, a, a, a, 65); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("n past the buffers: %v", err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestLibraryTargets(t *testing.T) {
	dev, _ := device(t)
	if !dev.Properties().IsCPU {
		t.Skip("checks the cpu agent's refusal of GPU code")
	}
	_, err := module.Load(dev, kernels.AMDGPUBundle)
	if !errors.Is(err, gpu.ErrNoBinaryForGpu) {
		t.Fatalf("GPU code on the cpu agent: %v", err)
	}
	t.Log(err)
}
