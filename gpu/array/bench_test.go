package array

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gputest"
)

// The new element-wise calls beside Add, a gpu/prim transform of the
// same bytes per element or more: each includes its result's allocation
// and Free (both in the stream's order), as a user's call does. On a
// GPU: go test -run '^$' -bench 'Mask|MatMul' ./gpu/array.
func BenchmarkMask(b *testing.B) {
	s := newStream(b)
	for _, l := range []int{20, 24} {
		n := 1 << l
		r := rand.New(rand.NewPCG(1, 2))
		hx, hy := randomOf[float32](r, n), randomOf[float32](r, n)
		x, y := mustFromE(b, s, hx), mustFromE(b, s, hy)
		m, err := Less(x, y)
		require.NoError(b, err)
		b.Cleanup(func() { _ = m.Free() })
		free := func(a interface{ Free() error }, err error) error {
			if err != nil {
				return err
			}
			return a.Free()
		}
		for _, c := range []struct {
			name  string
			bytes int // moved per element
			f     func() error
		}{
			{"add", 12, func() error { return free(Add(x, y)) }},
			{"less", 9, func() error { return free(Less(x, y)) }},
			{"greater-scalar", 5, func() error { return free(GreaterScalar(x, 0)) }},
			{"where", 13, func() error { return free(Where(m, x, y)) }},
			{"clip", 8, func() error { return free(Clip(x, -1, 1)) }},
			{"astype-int32", 8, func() error { return free(AsType[int32](x)) }},
			{"count-nonzero", 12, func() error { return free(CountNonzero(x)) }},
			{"any", 12, func() error { return free(Any(x)) }},
		} {
			b.Run(fmt.Sprintf("%s/2^%d", c.name, l), func(b *testing.B) {
				b.ReportAllocs()
				gputest.Benchmark(b, s, c.f, gputest.Bytes(int64(c.bytes*n)))
			})
		}
	}
}

// BenchmarkMatMul is MatMul of square float32 matrices and a batch of
// 64 smaller ones, against the GEMM's 2·m·n·k flops (flop/s as bytes/s).
func BenchmarkMatMul(b *testing.B) {
	s := newStream(b)
	for _, c := range [][4]int{{1, 1024, 1024, 1024}, {64, 128, 128, 128}} {
		batch, m, k, n := c[0], c[1], c[2], c[3]
		sa, sb := []int{m, k}, []int{k, n}
		if batch > 1 {
			sa, sb = []int{batch, m, k}, []int{batch, k, n}
		}
		a := mustFromE(b, s, make([]float32, batch*m*k), sa...)
		bb := mustFromE(b, s, make([]float32, batch*k*n), sb...)
		b.Run(fmt.Sprintf("%dx%dx%dx%d", batch, m, k, n), func(b *testing.B) {
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error {
				p, err := MatMul(a, bb)
				if err != nil {
					return err
				}
				return errors.Join(p.Free())
			}, gputest.Bytes(int64(2*batch*m*n*k)))
		})
	}
}
