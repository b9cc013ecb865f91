package cuda_test

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// The four measurements benchmarks/peers repeats with native C and CuPy on
// the same PTX: launch + wait of `empty`, back-to-back launches, a dependency
// across two queues, and vector_add of 2^26 float32.
func BenchmarkCUDA(b *testing.B) {
	a := setup(b)
	empty, vadd := library(b, a)
	q1, q2 := queue(b, a, 4096), queue(b, a, 4096)
	s1, s2 := signal(b, 1), signal(b, 1)

	b.Run("launch_sync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s1.Store(1, hsa.Release)
			dispatch(q1, empty, nil, 1, 1, s1)
			await(b, s1)
		}
	})
	b.Run("launch_async", func(b *testing.B) {
		b.ReportAllocs()
		s1.Store(1, hsa.Release)
		for i := 0; i < b.N-1; i++ {
			dispatch(q1, empty, nil, 1, 1, nil)
		}
		dispatch(q1, empty, nil, 1, 1, s1)
		await(b, s1)
	})
	b.Run("cross_queue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s1.Store(1, hsa.Release)
			s2.Store(1, hsa.Release)
			dispatch(q1, empty, nil, 1, 1, s1)
			barrier(q2, []*rocr.Signal{s1}, nil)
			dispatch(q2, empty, nil, 1, 1, s2)
			await(b, s2)
		}
	})
	b.Run("vector_add", func(b *testing.B) {
		const n = 1 << 26
		A, B, C := alloc(b, a, hsa.FlagCoarseGrained, 4*n), alloc(b, a, hsa.FlagCoarseGrained, 4*n), alloc(b, a, hsa.FlagCoarseGrained, 4*n)
		defer A.Free()
		defer B.Free()
		defer C.Free()
		args := vaddArgs{A: uint64(A.Base), B: uint64(B.Base), C: uint64(C.Base), N: n}
		kb := args.bytes()
		b.SetBytes(3 * 4 * n)
		b.ReportAllocs()
		for b.Loop() {
			s1.Store(1, hsa.Release)
			dispatch(q1, vadd, kb, n, 256, s1)
			await(b, s1)
		}
	})
	for _, q := range []*rocr.Queue{q1, q2} {
		if err := q.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// await waits for a benchmark's signal; a lost completion fails the
// benchmark instead of hanging it.
func await(b *testing.B, s *rocr.Signal) {
	if v, ok := s.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitActive); !ok {
		b.Fatalf("signal still %d after 10s", v)
	}
}
