package kernels_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/kernels"
)

// These tests run the typed launchers at the edges of their sizes (0, 1,
// around a block, primes, 1<<20, thin and odd shapes), in place where the
// kernel allows it, on buffers longer than the data, against plain loops.
// The elements past the data hold a sentinel that must survive.

const sentinel = -1234.5

// edgeSizes are element counts around the launchers' block of 256.
var edgeSizes = []int{0, 1, 2, kernels.ElementwiseBlock - 1, kernels.ElementwiseBlock, kernels.ElementwiseBlock + 1, 7919, 1 << 20}

// tail is how many sentinels follow the data in each buffer.
const tail = 5

// withTail returns v followed by tail sentinels.
func withTail(v []float32) []float32 {
	out := append(make([]float32, 0, len(v)+tail), v...)
	for range tail {
		out = append(out, sentinel)
	}
	return out
}

// small returns n random integers in [-8, 8] as float32: sums of up to 1<<21
// of them are exact in float32, so a sum kernel must match to the bit.
func small(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.IntN(17) - 8)
	}
	return v
}

// assertNear asserts that got is want to within delta, element by element,
// and reports the first element that is not (testify's slice assertions
// take seconds on a million elements under the race detector).
func assertNear(t *testing.T, want, got []float32, delta float64, format string, args ...any) bool {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	if !assert.Len(t, got, len(want), what) {
		return false
	}
	for i := range want {
		if math.Abs(float64(want[i])-float64(got[i])) > delta {
			return assert.InDelta(t, want[i], got[i], delta, "%s: element %d", what, i)
		}
	}
	return true
}

func TestElementwiseEdges(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range edgeSizes {
		ha, hb := withTail(random(r, n)), withTail(random(r, n))
		a, b := upload(t, dev, ha), upload(t, dev, hb)
		c := upload(t, dev, withTail(make([]float32, n)))

		require.NoError(t, kernels.VectorAdd(s, a, b, c, n), "n=%d", n)
		want := withTail(make([]float32, n))
		for i := range n {
			want[i] = ha[i] + hb[i] // one rounding, the same on every agent
		}
		assertNear(t, want, download(t, s, c), 0, "vector_add n=%d", n)

		// In place: c = c + c.
		require.NoError(t, kernels.VectorAdd(s, c, c, c, n), "n=%d", n)
		for i := range n {
			want[i] += want[i]
		}
		assertNear(t, want, download(t, s, c), 0, "vector_add in place n=%d", n)

		// |alpha·x| + |y| ≤ 3.5, so a kernel that fuses the multiply-add
		// differs from two roundings by under 2 ulp of 4, 1e-6.
		const alpha = 2.5
		require.NoError(t, kernels.Saxpy(s, alpha, a, b, n), "n=%d", n)
		want = append([]float32(nil), hb...)
		for i := range n {
			want[i] = alpha*ha[i] + hb[i]
		}
		assertNear(t, want, download(t, s, b), 1e-6, "saxpy n=%d", n)

		// In place: y = alpha·y + y.
		require.NoError(t, kernels.Saxpy(s, -0.5, b, b, n), "n=%d", n)
		for i := range n {
			want[i] = -0.5*want[i] + want[i]
		}
		assertNear(t, want, download(t, s, b), 1e-6, "saxpy in place n=%d", n)

		require.NoError(t, kernels.FillF32(s, a, 3.25, n), "n=%d", n)
		want = withTail(make([]float32, n))
		for i := range n {
			want[i] = 3.25
		}
		assertNear(t, want, download(t, s, a), 0, "fill_f32 n=%d", n)
		require.NoError(t, a.Free())
		require.NoError(t, b.Free())
		require.NoError(t, c.Free())
	}
}

func TestSumEdges(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range append(edgeSizes, 1023*kernels.ReduceBlock+1, 1024*kernels.ReduceBlock+3) {
		h := withTail(small(r, n))
		in := upload(t, dev, h)
		var want float32
		for _, v := range h[:n] {
			want += v
		}
		got, err := kernels.Sum(s, in, n)
		require.NoError(t, err, "n=%d", n)
		assert.Equal(t, want, got, "sum n=%d", n)

		// Random values: the sum's error is at most the rounding of its
		// float32 additions, each work-item's ceil(n/stride) and the 8
		// levels of the tree, each under 2^-24 of the magnitudes summed.
		h = withTail(random(r, n))
		require.NoError(t, in.CopyFrom(h))
		var ref, mag float64
		for _, v := range h[:n] {
			ref += float64(v)
			mag += math.Abs(float64(v))
		}
		got, err = kernels.Sum(s, in, n)
		require.NoError(t, err, "n=%d", n)
		depth := float64(n/(1024*kernels.ReduceBlock) + 1 + 8 + 1)
		assert.InDelta(t, ref, float64(got), depth*0x1p-24*mag+1e-30, "sum of random values n=%d", n)
		require.NoError(t, in.Free())
	}
}

// reduce_sum's partial b is the sum of the elements i with
// (i/ReduceBlock) mod blocks = b, whatever the number of blocks.
func TestReduceSumPartials(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(25, 26))
	for _, n := range []int{0, 1, 255, 256, 257, 5000} {
		for _, blocks := range []int{1, 2, 3, 7, 40} {
			h := withTail(small(r, n))
			in := upload(t, dev, h)
			// ReduceSum runs partial.Len() blocks, each of which must write
			// its sum over the sentinel.
			partial := upload(t, dev, slices.Repeat([]float32{sentinel}, blocks))
			require.NoError(t, kernels.ReduceSum(s, in, partial, n))
			want := make([]float32, blocks)
			for i, v := range h[:n] {
				want[(i/kernels.ReduceBlock)%blocks] += v
			}
			assert.Equal(t, want, download(t, s, partial), "n=%d blocks=%d", n, blocks)
			require.NoError(t, in.Free())
			require.NoError(t, partial.Free())
		}
	}
}

func TestTransposeEdges(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(27, 28))
	for _, sh := range [][2]int{{1, 1}, {1, 33}, {33, 1}, {2, 3}, {7, 5}, {31, 32}, {32, 32}, {33, 31}, {8, 1000}, {1000, 8}, {64, 97}, {1024, 1025}} {
		rows, cols := sh[0], sh[1]
		h := withTail(random(r, rows*cols))
		in := upload(t, dev, h)
		out := upload(t, dev, withTail(make([]float32, rows*cols)))
		require.NoError(t, kernels.Transpose(s, in, out, rows, cols))
		want := withTail(make([]float32, rows*cols))
		for i := range rows {
			for j := range cols {
				want[j*rows+i] = h[i*cols+j]
			}
		}
		assertNear(t, want, download(t, s, out), 0, "transpose %dx%d", rows, cols)
		require.NoError(t, in.Free())
		require.NoError(t, out.Free())
	}
}

func TestSgemmEdges(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(29, 30))
	shapes := [][3]int{
		{1, 1, 1}, {1, 17, 3}, {17, 1, 3}, {2, 3, 4}, {15, 16, 17}, {16, 16, 16}, {16, 16, 1},
		{17, 33, 16}, {31, 47, 257}, {32, 48, 513}, {3, 5, 1000}, {48, 16, 255},
	}
	for _, sh := range shapes {
		for _, ab := range [][2]float32{{1, 0}, {0.5, -1.5}, {0, 1}, {-1, 1}} {
			m, n, k := sh[0], sh[1], sh[2]
			alpha, beta := ab[0], ab[1]
			ha, hb, hc := withTail(random(r, m*k)), withTail(random(r, k*n)), withTail(random(r, m*n))
			a, b, c := upload(t, dev, ha), upload(t, dev, hb), upload(t, dev, hc)
			require.NoError(t, kernels.Sgemm(s, m, n, k, alpha, a, b, beta, c))
			got := download(t, s, c)
			checkSgemm(t, fmt.Sprintf("sgemm m=%d n=%d k=%d alpha=%v beta=%v", m, n, k, alpha, beta), m, n, k, alpha, ha, hb, beta, hc, got)
			require.NoError(t, a.Free())
			require.NoError(t, b.Free())
			require.NoError(t, c.Free())
		}
	}
}

// checkSgemm compares got with C = alpha·A·B + beta·C worked out in
// float64. A float32 sum of k products may differ from the exact one by k
// roundings of at most 2^-24 of the magnitudes summed (fused or not), and
// the scaling by alpha and beta adds two more.
func checkSgemm(t *testing.T, name string, m, n, k int, alpha float32, a, b []float32, beta float32, c, got []float32) {
	t.Helper()
	require.Len(t, got, len(c))
	for i := range m {
		for j := range n {
			var sum, mag float64
			for l := range k {
				p := float64(a[i*k+l]) * float64(b[l*n+j])
				sum += p
				mag += math.Abs(p)
			}
			want := float64(alpha)*sum + float64(beta)*float64(c[i*n+j])
			bound := float64(k+2)*0x1p-24*(math.Abs(float64(alpha))*mag+math.Abs(float64(beta)*float64(c[i*n+j]))) + 1e-30
			if !assert.InDelta(t, want, float64(got[i*n+j]), bound, "%s: C[%d][%d]", name, i, j) {
				return
			}
		}
	}
	assert.Equal(t, c[m*n:], got[m*n:], "%s: wrote past C", name)
}
