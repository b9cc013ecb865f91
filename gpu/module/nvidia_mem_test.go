package module_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// cudaDevice returns the NVIDIA device, skipping (or failing, under
// HIPGO_REQUIRE=cuda) where there is none.
func cudaDevice(t testing.TB) *gpu.Device {
	if os.Getenv("HIPGO_DRIVER") != "cuda" {
		testenv.Requiref(t, "cuda", "set HIPGO_DRIVER=cuda on an NVIDIA GPU")
	}
	t.Cleanup(func() { assert.NoError(t, gpu.Shutdown()) })
	dev, err := gpu.Default()
	require.NoError(t, err)
	if !strings.HasPrefix(dev.Target(), "sm_") {
		testenv.Requiref(t, "cuda", "no NVIDIA device: %s", dev)
	}
	return dev
}

// Every pair of 2-D copy ends on an NVIDIA GPU (cuMemcpy2DAsync), and a
// fill (cuMemsetD2D8Async).
func TestCopy2DCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	const rows, w, h = 6, 5, 4
	type end struct {
		view  buffer.View[float32]
		pitch int
		load  func([]float32)
		read  func() []float32
	}
	mk := func(kind string) end {
		switch kind {
		case "slice":
			x := make([]float32, 9*rows)
			return end{buffer.SliceView(x, 36), 9, func(v []float32) { copy(x, v) }, func() []float32 { return x }}
		case "host":
			x, err := buffer.NewHost[float32](dev, 10*rows)
			require.NoError(t, err)
			t.Cleanup(func() { x.Free() })
			return end{buffer.ObjectView[float32](x, 0, 40), 10, func(v []float32) { copy(x.Slice(), v) }, func() []float32 { return append([]float32(nil), x.Slice()...) }}
		case "buffer":
			x, err := buffer.New[float32](dev, 8*rows)
			require.NoError(t, err)
			t.Cleanup(func() { x.Free() })
			return end{buffer.ObjectView[float32](x, 0, 32), 8, func(v []float32) { require.NoError(t, x.CopyFrom(v)) }, func() []float32 { v, err := x.ToSlice(); require.NoError(t, err); return v }}
		}
		x, err := buffer.NewPitched[float32](dev, 7, rows)
		require.NoError(t, err)
		t.Cleanup(func() { x.Free() })
		tmp, err := buffer.New[float32](dev, x.Len())
		require.NoError(t, err)
		t.Cleanup(func() { tmp.Free() })
		return end{x.View(), x.Pitch() / 4,
			func(v []float32) {
				require.NoError(t, tmp.CopyFrom(v))
				require.NoError(t, buffer.Copy(x, 0, tmp, 0, x.Len()))
			},
			func() []float32 {
				require.NoError(t, buffer.Copy(tmp, 0, x, 0, x.Len()))
				v, err := tmp.ToSlice()
				require.NoError(t, err)
				return v
			}}
	}
	kinds := []string{"slice", "host", "buffer", "pitched"}
	for _, async := range []bool{false, true} {
		for _, dk := range kinds {
			for _, sk := range kinds {
				name := fmt.Sprintf("%s<-%s/async=%v", dk, sk, async)
				dst, src := mk(dk), mk(sk)
				sv := make([]float32, src.pitch*rows)
				for i := range sv {
					sv[i] = float32(i)
				}
				src.load(sv)
				dv := make([]float32, dst.pitch*rows)
				for i := range dv {
					dv[i] = -1
				}
				dst.load(dv)
				if async {
					require.NoError(t, stream.Copy2D(s, dst.view.At(2, 1), src.view.At(1, 1), w, h), name)
					require.NoError(t, s.Synchronize(), name)
				} else {
					require.NoError(t, buffer.Copy2D(dst.view.At(2, 1), src.view.At(1, 1), w, h), name)
				}
				got := dst.read()
				for y := range rows {
					for x := range dst.pitch {
						want := float32(-1)
						if x >= 2 && x < 2+w && y >= 1 && y < 1+h {
							want = sv[y*src.pitch+x-1]
						}
						require.Equal(t, want, got[y*dst.pitch+x], "%s row %d column %d", name, y, x)
					}
				}
			}
		}
	}
	p, err := buffer.NewPitched[uint8](dev, 10, 3)
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, buffer.Memset2D(p.View(), 0, 10, 3))
	require.NoError(t, stream.Memset2D(s, p.View().At(2, 1), 7, 3, 2))
	require.NoError(t, s.Synchronize())
	got := make([]uint8, 30)
	require.NoError(t, buffer.Copy2D(buffer.SliceView(got, 10), p.View(), 10, 3))
	assert.Equal(t, []uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7, 0, 0, 0, 0, 0}, got)
}

// BenchmarkCopy2DCUDA times, by events on the GPU, an 8192 x 8192 float32
// sub-matrix copied on a stream between pitched allocations (impl=2d)
// beside a linear copy of the same bytes (impl=linear), in the same run.
// On the H200 the 2-D copy took 1.5x (2026-11-30, wall clock) and 2.6x
// (2026-12-01, GPU time; native cuMemcpy2DAsync 2.4x) a linear copy; a
// copy that fell back to one call per row, 8192 of them, would take about
// a hundred times as long.
func BenchmarkCopy2DCUDA(b *testing.B) {
	dev := cudaDevice(b)
	const n = 8192
	src, err := buffer.NewPitched[float32](dev, n+64, n)
	require.NoError(b, err)
	defer src.Free()
	dst, err := buffer.NewPitched[float32](dev, n, n)
	require.NoError(b, err)
	defer dst.Free()
	la, err := buffer.New[float32](dev, n*n)
	require.NoError(b, err)
	defer la.Free()
	lb, err := buffer.New[float32](dev, n*n)
	require.NoError(b, err)
	defer lb.Free()
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	start, err := stream.NewEvent(dev, 0)
	require.NoError(b, err)
	defer start.Destroy()
	end, err := stream.NewEvent(dev, 0)
	require.NoError(b, err)
	defer end.Destroy()
	for _, c := range []struct {
		name string
		copy func() error
	}{
		{"2d", func() error { return stream.Copy2D(s, dst.View(), src.View().At(32, 0), n, n) }},
		{"linear", func() error { return s.Copy(lb, 0, la, 0, n*n) }},
	} {
		b.Run("impl="+c.name, func(b *testing.B) {
			require.NoError(b, c.copy()) // warm-up
			b.SetBytes(n * n * 4)
			require.NoError(b, s.Record(start))
			for b.Loop() {
				if err := c.copy(); err != nil {
					b.Fatal(err)
				}
			}
			require.NoError(b, s.Record(end))
			require.NoError(b, s.Synchronize())
			d, err := stream.Elapsed(start, end)
			require.NoError(b, err)
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "gpu_ns/op")
		})
	}
}

// Stream-ordered allocate + free on an NVIDIA GPU: the reused memory's
// contents (BenchmarkAllocAsyncCUDA times it beside New + Free).
func TestAllocAsyncCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	for i := range 3 {
		b, err := buffer.NewAsync[int32](s, 1024)
		require.NoError(t, err)
		require.NoError(t, stream.Fill(s, b, int32(i)))
		out := make([]int32, 1024)
		require.NoError(t, stream.CopyToHost(s, out, b, 0))
		require.NoError(t, b.FreeAsync(s))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, int32(i), out[1023])
	}
}

// BenchmarkAllocAsyncCUDA is a stream-ordered 4 KiB allocate + free
// (impl=async) beside buffer.New + Free (impl=plain), in the same run.
func BenchmarkAllocAsyncCUDA(b *testing.B) {
	dev := cudaDevice(b)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	b.Run("impl=async", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := buffer.NewAsync[byte](s, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.FreeAsync(s); err != nil {
				b.Fatal(err)
			}
		}
		require.NoError(b, s.Synchronize())
	})
	b.Run("impl=plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := buffer.New[byte](dev, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Free(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
