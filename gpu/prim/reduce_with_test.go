package prim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The test's reductions: a maximum of absolute values, an integer
// product that wraps, and a bitwise or.
type (
	maxAbs    struct{}
	wrapMul   struct{}
	bitOr     struct{}
	withState struct{ k int32 }
)

func (maxAbs) Apply(a, b float64) float64 { return max(math.Abs(a), math.Abs(b)) }
func (maxAbs) Identity() float64          { return 0 }

func (wrapMul) Apply(a, b int32) int32 { return a * b }
func (wrapMul) Identity() int32        { return 1 }

func (bitOr) Apply(a, b uint64) uint64 { return a | b }
func (bitOr) Identity() uint64         { return 0 }

func (w withState) Apply(a, b int32) int32 { return a + b + w.k }
func (withState) Identity() int32          { return 0 }

// cpuAgent skips a test that runs the test's functors on a GPU: go
// generate reads no test files, so they have kernels only on the cpu
// agent; examples/fuse runs a generated one on GPUs.
func cpuAgent(t testing.TB, dev *gpu.Device) {
	if !dev.Properties().IsCPU {
		t.Skip("the test's functors have no generated kernels on a GPU (examples/fuse runs a generated one)")
	}
}

// foldGo is the sequential reduction in plain Go.
func foldGo[F ReduceFunc[T], T Number](op F, x []T) T {
	acc := op.Identity()
	for _, v := range x {
		acc = op.Apply(acc, v)
	}
	return acc
}

// ReduceWith on the cpu agent (its own kernel, the functor's methods
// called from Go) gives what a Go loop gives; the three operations are
// exact in any order.
func TestReduceWithMatchesGo(t *testing.T) {
	dev, s := newStream(t)
	cpuAgent(t, dev)
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range sizes {
		f := random[float64](r, n)
		i := random[int32](r, n)
		for k := range i {
			i[k] |= 1 // odd factors: the product does not become 0
		}
		u := random[uint64](r, n)
		of, oi, ou := upload(t, dev, []float64{-1}), upload(t, dev, []int32{-1}), upload(t, dev, []uint64{7})
		require.NoError(t, ReduceWith(s, maxAbs{}, upload(t, dev, f), of))
		require.NoError(t, ReduceWith(s, wrapMul{}, upload(t, dev, i), oi))
		require.NoError(t, ReduceWith(s, bitOr{}, upload(t, dev, u), ou))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, foldGo(maxAbs{}, f), download(t, s, of)[0], "maxAbs n=%d", n)
		assert.Equal(t, foldGo(wrapMul{}, i), download(t, s, oi)[0], "wrapMul n=%d", n)
		assert.Equal(t, foldGo(bitOr{}, u), download(t, s, ou)[0], "bitOr n=%d", n)
	}
}

// Bad calls are errors that queue nothing; a GPU without the generated
// kernel says which go generate to run.
func TestReduceWithErrors(t *testing.T) {
	dev, s := newStream(t)
	in, out := upload(t, dev, []int32{1, 2, 3}), upload(t, dev, []int32{0})
	assert.ErrorIs(t, ReduceWith(nil, wrapMul{}, in, out), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, ReduceWith(s, wrapMul{}, nil, out), gpu.ErrInvalidValue)
	assert.ErrorIs(t, ReduceWith(s, wrapMul{}, in, upload(t, dev, []int32{})), gpu.ErrInvalidValue)
	err := ReduceWith(s, withState{k: 1}, in, out)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "has fields")

	cpuFallback = false
	defer func() { cpuFallback = true }()
	type unseen struct{ wrapMul }
	err = ReduceWith(s, unseen{}, in, out)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "go generate")
	assert.ErrorContains(t, err, "unseen")
}

// A registered launcher is what a call runs; a second registration of
// one instance panics.
func TestReduceWithRegistry(t *testing.T) {
	dev, s := newStream(t)
	type marked struct{ wrapMul }
	var spans []int
	RegisterReduceWith[marked](func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out buffer.Array[int32], span int) error {
		spans = append(spans, span)
		return nil
	})
	require.NoError(t, ReduceWith(s, marked{}, upload(t, dev, []int32{1, 2}), upload(t, dev, []int32{0})))
	assert.Len(t, spans, 1)
	assert.Panics(t, func() {
		RegisterReduceWith[marked](func(*stream.Stream, gpu.Dim3, gpu.Dim3, int, buffer.Array[int32], buffer.Array[int32], int) error {
			return nil
		})
	})
}
