package cuda_test

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// TestZZKernelFault runs last in this binary: a kernel that reads far past
// its buffers faults the GPU, which leaves the CUDA context unusable. The
// fault must reach the waiter as an error on the packet's signal and on the
// queue, within a bounded time, instead of a hang.
func TestZZKernelFault(t *testing.T) {
	a := setupFault(t, true)
	_, vadd := library(t, a)
	q := queue(t, a, 64)
	A := alloc(t, a, hsa.FlagCoarseGrained, 4096)
	const n = 1 << 30
	args := vaddArgs{A: uint64(A.Base), B: uint64(A.Base), C: uint64(A.Base), N: n}
	s := signal(t, 1)
	dispatch(q, vadd, args.bytes(), n, 256, s)
	if v, ok := s.WaitTimed(hsa.CondEQ, 0, 20*time.Second, hsa.WaitActive); !ok {
		t.Fatalf("signal still %d after 20s: the fault was not reported", v)
	}
	if s.Err() == nil {
		t.Skip("the out-of-bounds kernel did not fault on this GPU")
	}
	t.Logf("packet: %v", s.Err())
	deadline := time.Now().Add(5 * time.Second)
	for q.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if q.Err() == nil {
		t.Fatal("queue did not fail")
	}
	t.Logf("queue: %v", q.Err())
}
