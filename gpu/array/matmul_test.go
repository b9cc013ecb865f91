package array

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/stream"
)

// refMatMul is op(a) @ op(b) in plain Go, in float64, with the batch
// broadcast as MatMul does it.
func refMatMul[T Float](tA, tB blas.Transpose, a []T, sa []int, b []T, sb []int) ([]float64, []int) {
	ba, ra, ca, _ := matrixOperand(sa)
	bb, rb, cb, _ := matrixOperand(sb)
	m, k, n := ra, ca, cb
	if tA == blas.Trans {
		m, k = ca, ra
	}
	if tB == blas.Trans {
		n = rb
	}
	batch := max(ba, bb)
	at := func(p int, i, j int) float64 { // op(a)[p][i][j]
		if ba == 1 {
			p = 0
		}
		if tA == blas.Trans {
			i, j = j, i
		}
		return float64(a[p*ra*ca+i*ca+j])
	}
	bt := func(p int, i, j int) float64 {
		if bb == 1 {
			p = 0
		}
		if tB == blas.Trans {
			i, j = j, i
		}
		return float64(b[p*rb*cb+i*cb+j])
	}
	out := make([]float64, batch*m*n)
	for p := range batch {
		for i := range m {
			for j := range n {
				var s float64
				for l := range k {
					s += at(p, i, l) * bt(p, l, j)
				}
				out[p*m*n+i*n+j] = s
			}
		}
	}
	shape := []int{m, n}
	if len(sa) == 3 || len(sb) == 3 {
		shape = []int{batch, m, n}
	}
	return out, shape
}

func TestMatMul(t *testing.T) {
	s := newStream(t)
	t.Run("float32", func(t *testing.T) { testMatMul[float32](t, s) })
	t.Run("float64", func(t *testing.T) { testMatMul[float64](t, s) })
}

func testMatMul[T Float](t *testing.T, s *stream.Stream) {
	r := rand.New(rand.NewPCG(7, 8))
	no, tr := blas.NoTrans, blas.Trans
	for _, c := range []struct {
		tA, tB blas.Transpose
		sa, sb []int
	}{
		{no, no, []int{3, 4}, []int{4, 5}},
		{tr, no, []int{4, 3}, []int{4, 5}},
		{no, tr, []int{3, 4}, []int{5, 4}},
		{tr, tr, []int{4, 3}, []int{5, 4}},
		{no, no, []int{1, 1}, []int{1, 1}},
		{no, no, []int{33, 17}, []int{17, 65}},
		{no, no, []int{2, 3, 4}, []int{2, 4, 5}},
		{tr, tr, []int{3, 4, 3}, []int{3, 5, 4}},
		{no, no, []int{3, 4}, []int{2, 4, 5}},    // a used by every matrix of b
		{no, tr, []int{2, 3, 4}, []int{5, 4}},    // b used by every matrix of a
		{no, no, []int{1, 3, 4}, []int{3, 4, 5}}, // a batch of one
		{no, no, []int{3, 0}, []int{0, 5}},       // k = 0: zeros
		{no, no, []int{0, 4}, []int{4, 5}},       // no rows
		{no, no, []int{2, 3, 0}, []int{2, 0, 2}},
	} {
		na, nb := 1, 1
		for _, d := range c.sa {
			na *= d
		}
		for _, d := range c.sb {
			nb *= d
		}
		ha, hb := make([]T, na), make([]T, nb)
		for i := range ha {
			ha[i] = T(r.NormFloat64())
		}
		for i := range hb {
			hb[i] = T(r.NormFloat64())
		}
		a, b := mustFromE(t, s, ha, c.sa...), mustFromE(t, s, hb, c.sb...)
		var out *Array[T]
		var err error
		if c.tA == no && c.tB == no {
			out, err = MatMul(a, b)
		} else {
			out, err = MatMulTrans(c.tA, c.tB, a, b)
		}
		require.NoError(t, err, "%v %v %v %v", c.tA, c.tB, c.sa, c.sb)
		want, shape := refMatMul(c.tA, c.tB, ha, c.sa, hb, c.sb)
		assert.Equal(t, shape, out.Shape(), "%v %v", c.sa, c.sb)
		got := hostOf[T](t)(out, nil)
		require.Len(t, got, len(want))
		for i := range want {
			if !assert.InDelta(t, want[i], float64(got[i]), 1e-4*max(1, math.Abs(want[i])), "%v %v %v %v [%d]", c.tA, c.tB, c.sa, c.sb, i) {
				break
			}
		}
	}
}

func TestMatMulErrors(t *testing.T) {
	s := newStream(t)
	a := mustFromE(t, s, make([]float32, 12), 3, 4)
	b := mustFromE(t, s, make([]float32, 12), 3, 4)
	v := mustFromE(t, s, make([]float32, 4))
	b2 := mustFromE(t, s, make([]float32, 24), 2, 3, 4)
	b3 := mustFromE(t, s, make([]float32, 36), 3, 4, 3)
	freed, err := Zeros[float32](s, 4, 4)
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	var nilArr *Array[float32]
	for name, f := range map[string]func() error{
		"inner":         func() error { _, err := MatMul(a, b); return err },
		"vector":        func() error { _, err := MatMul(a, v); return err },
		"batches":       func() error { _, err := MatMulTrans(blas.NoTrans, blas.Trans, b2, b3); return err },
		"transpose":     func() error { _, err := MatMulTrans(blas.Transpose(7), blas.NoTrans, a, b); return err },
		"nil":           func() error { _, err := MatMul(a, nilArr); return err },
		"freed":         func() error { _, err := MatMul(freed, a); return err },
		"trans inner":   func() error { _, err := MatMulTrans(blas.Trans, blas.Trans, a, b); return err },
		"shape of four": func() error { r, _ := a.Reshape(1, 1, 3, 4); _, err := MatMul(r, b); return err },
	} {
		err := f()
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		}
	}
	var se *ShapeError
	_, err = MatMul(a, b)
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "inner dimensions 4 and 3")
	assert.NoError(t, s.Synchronize(), "nothing bad was queued")
}

// TestMatMulStreams: each stream keeps its handle until it is destroyed;
// a MatMul on a destroyed stream is an error, and a new stream works.
func TestMatMulStreams(t *testing.T) {
	s := newStream(t)
	dev := s.Device()
	for range 3 {
		s2, err := stream.New(dev)
		require.NoError(t, err)
		a, err := FromSlice(s2, []float64{1, 2, 3, 4}, 2, 2)
		require.NoError(t, err)
		p, err := MatMul(a, a)
		require.NoError(t, err)
		assert.Equal(t, []float64{7, 10, 15, 22}, hostOf[float64](t)(p, nil))
		require.NoError(t, a.Free())
		require.NoError(t, s2.Destroy())
		_, err = handleOf("test", s2)
		assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
		_, ok := handles.Load(s2)
		assert.False(t, ok, "the destroyed stream's handle is gone")
	}
}

func TestVecDense(t *testing.T) {
	s := newStream(t)
	v := mat.NewVecDense(5, []float64{1, 2, 3, 4, 5})
	a, err := FromVecDense(s, v)
	require.NoError(t, err)
	defer a.Free()
	assert.Equal(t, []int{5}, a.Shape())
	w, err := ToVecDense(a)
	require.NoError(t, err)
	assert.True(t, mat.Equal(v, w))

	// A column of a matrix: an increment of 3.
	m := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	col := m.ColView(1).(*mat.VecDense)
	c, err := FromVecDense(s, col)
	require.NoError(t, err)
	defer c.Free()
	assert.Equal(t, []float64{2, 5, 8}, hostOf[float64](t)(c.Copy()))

	_, err = FromVecDense(s, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = FromVecDense(s, &mat.VecDense{})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	sq, err := a.Reshape(1, 5)
	require.NoError(t, err)
	_, err = ToVecDense(sq)
	assert.True(t, errors.Is(err, gpu.ErrInvalidValue))
	require.NoError(t, a.Free())
	_, err = ToVecDense(a)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}
