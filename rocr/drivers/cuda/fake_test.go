package cuda_test

import (
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/fakecuda"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// gpuTests are this package's tests that need a CUDA device. Each runs
// as it is on a GPU, and again here against the fake libcuda (a twin), so
// that the executor, its completions, barriers, event records and fault
// paths run where there is no GPU.
var gpuTests = []string{
	"TestAgentProperties",
	"TestCompletionWrite",
	"TestCopiesAndFills",
	"TestVectorAdd",
	"TestBarrierAcrossQueues",
	"TestEventTimestamps",
	"TestHostCallback",
	"TestLoadErrors",
	"TestCrossQueueSignalReuse",
	"TestRecordPassesBeforeTheWorkAfterIt",
	"TestRecordsInFlight",
	"TestRecordSettledByAWait",
	"TestZZKernelFault",
}

// fakeTests drive the fake itself: injected failures and faults, and
// the driver calls a launch costs.
var fakeTests = []string{
	"TestFakeOpenFailures",
	"TestFakeLaunchFailure",
	"TestFakeLaunchCalls",
	"TestFakeCrossQueueWithoutEvents",
	"TestFakeFaultThenReset",
	"TestFakeFaultKeptByDriver",
	"TestFakeContextSets",
}

// TestFakeCUDA runs the GPU tests and the fake's own, each in a process
// of its own whose driver opens the fake libcuda.
func TestFakeCUDA(t *testing.T) {
	so := fakecuda.Build(t)
	fakecuda.Run(t, so, append(gpuTests, fakeTests...)...)
}

// fakePTX declares the kernels the fake runs by name beside vector_add.
const fakePTX = `.version 7.8
.target sm_90
.address_size 64
.visible .entry fakecuda_fill(.param .u64 dst, .param .u32 value, .param .u32 n)
{
	.reg .b32 %r<2>;
	ret;
}
`

// fillKernel loads fakecuda_fill(dst, value, n), which the fake carries
// out: dst[i] = value for i < n.
func fillKernel(tb testing.TB, a *rocr.Agent) *hsa.KernelSymbol {
	tb.Helper()
	exe, err := a.Load(&hsa.Code{Kind: hsa.CodePTX, Name: "fake.ptx", Target: a.ISA(), Data: []byte(fakePTX), Kernels: []hsa.KernelSymbol{{
		Name: "fakecuda_fill",
		Args: []hsa.KernelArg{{Name: "dst", Offset: 0, Size: 8, Kind: hsa.ArgGlobalBuffer}, {Name: "value", Offset: 8, Size: 4}, {Name: "n", Offset: 12, Size: 4}},
	}}})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = exe.Destroy() })
	k, err := rocr.FindKernel(exe, "fakecuda_fill")
	require.NoError(tb, err)
	return k
}

func fill(q *rocr.Queue, k *hsa.KernelSymbol, dst uint64, value, n uint32, sig *rocr.Signal) {
	args := struct {
		dst      uint64
		value, n uint32
	}{dst, value, n}
	dispatch(q, k, unsafe.Slice((*byte)(unsafe.Pointer(&args)), 16), (n+63)/64*64, 64, sig)
}

// readBack copies n uint32 of device memory at src to the host.
func readBack(tb testing.TB, q *rocr.Queue, src uint64, n int) []uint32 {
	tb.Helper()
	out := make([]uint32, n)
	copyHost(tb, q, 0, src, uint64(4*n), unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n), true)
	return out
}

// A driver that cannot start fails Init clearly, and the next Init
// works; entry points that fail fail the call that made them, naming
// them.
func TestFakeOpenFailures(t *testing.T) {
	f := fakecuda.Open(t)
	t.Setenv("HIPGO_DRIVER", "cuda")
	f.Fail(t, "cuInit", 1, fakecuda.ErrorNoDevice)
	err := rocr.Init()
	if err == nil {
		_ = rocr.ShutDown()
	}
	require.Error(t, err, "Init with cuInit failing")
	assert.True(t, errors.Is(err, hsa.ErrNotSupported) || errors.Is(err, hsa.ErrNoAgent), "%v", err)
	assert.Contains(t, err.Error(), "cuInit")

	a := setup(t)
	f.Fail(t, "cuMemAlloc_v2", 1, fakecuda.ErrorOutOfMemory)
	p, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	require.NoError(t, err)
	_, err = p.Allocate(4096)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuMemAlloc")
	assert.Contains(t, err.Error(), "CUDA_ERROR_OUT_OF_MEMORY")
	assert.Equal(t, hsa.StatusErrorOutOfResources, hsa.StatusOf(err))

	f.Fail(t, "cuStreamCreate", 1, fakecuda.ErrorOutOfMemory)
	_, err = a.CreateQueue(64, hsa.QueueMulti, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuStreamCreate")

	f.Fail(t, "cuModuleGetFunction", 1, fakecuda.ErrorInvalidValue)
	_, err = a.Load(&hsa.Code{Kind: hsa.CodePTX, Name: "fake.ptx", Data: []byte(fakePTX), Kernels: []hsa.KernelSymbol{{Name: "fakecuda_fill"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuModuleGetFunction")

	// Every failure was one call: the agent works on.
	q := queue(t, a, 64)
	k := fillKernel(t, a)
	X := alloc(t, a, hsa.FlagCoarseGrained, 4*256)
	s := signal(t, 1)
	fill(q, k, uint64(X.Base), 7, 256, s)
	require.NoError(t, wait(t, s))
	assert.Equal(t, uint32(7), readBack(t, q, uint64(X.Base), 256)[255])
}

// A launch the driver refuses fails its packet and its queue, naming the
// call and the CUresult; it is not a lost device, and another queue runs.
func TestFakeLaunchFailure(t *testing.T) {
	f := fakecuda.Open(t)
	a := setup(t)
	empty, _ := library(t, a)
	q := queue(t, a, 64)
	f.Fail(t, "cuLaunchKernel", 1, fakecuda.ErrorInvalidValue)
	s := signal(t, 1)
	dispatch(q, empty, nil, 1, 1, s)
	err := wait(t, s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuLaunchKernel")
	assert.Contains(t, err.Error(), "CUDA_ERROR_INVALID_VALUE")
	assert.NotErrorIs(t, err, hsa.ErrDeviceLost)
	assert.Error(t, q.Err())

	q2 := queue(t, a, 64)
	s.Store(1, hsa.Release)
	dispatch(q2, empty, nil, 1, 1, s)
	assert.NoError(t, wait(t, s))
	assert.NoError(t, q2.Err())

	// A copy the driver refuses fails the same way.
	dev, pinned := alloc(t, a, hsa.FlagCoarseGrained, 4096), alloc(t, a, hsa.FlagFineGrained, 4096)
	f.Fail(t, "cuMemcpyAsync", 1, fakecuda.ErrorInvalidValue)
	s.Store(1, hsa.Release)
	agentPacket(q2, aql.CopyWork{Dst: uint64(pinned.Base), Src: uint64(dev.Base), Bytes: 4096}.Call(), s)
	err = wait(t, s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuMemcpyAsync")
	assert.Error(t, q2.Err())
}

// A launch is one driver call, and a run of launches waited for at its
// end costs no other stream work; with HIPGO_CUDA_PROFILE=1 the packet
// with a completion signal is bracketed by two timestamp kernels.
func TestFakeLaunchCalls(t *testing.T) {
	for _, profile := range []string{"0", "1"} {
		t.Run("profile="+profile, func(t *testing.T) {
			f := fakecuda.Open(t)
			t.Setenv("HIPGO_CUDA_PROFILE", profile)
			a := setup(t)
			empty, _ := library(t, a)
			q := queue(t, a, 256)
			s := signal(t, 1)
			dispatch(q, empty, nil, 1, 1, s) // warm: the first launch may make the context current
			require.NoError(t, wait(t, s))
			const n = 100
			launches, copies, records := f.Calls("cuLaunchKernel"), f.Calls("cuMemcpyAsync"), f.Calls("cuEventRecord")
			ran := len(f.Ran())
			s.Store(1, hsa.Release)
			for i := 0; i < n-1; i++ {
				dispatch(q, empty, nil, 1, 1, nil)
			}
			dispatch(q, empty, nil, 1, 1, s)
			require.NoError(t, wait(t, s))
			want := int64(n)
			if profile == "1" {
				want += 2
			}
			assert.Equal(t, want, f.Calls("cuLaunchKernel")-launches, "launches")
			assert.Equal(t, copies, f.Calls("cuMemcpyAsync"), "copies")
			assert.Equal(t, records, f.Calls("cuEventRecord"), "event records")
			got := f.Ran()[ran:]
			require.Len(t, got, int(want))
			if profile == "1" {
				assert.Equal(t, []string{"hipgo_stamp", "empty", "hipgo_stamp"}, got[len(got)-3:])
			} else {
				assert.NotContains(t, got, "hipgo_stamp")
			}
			assert.Zero(t, f.Pending(), "stream work left after the wait")
		})
	}
}

// Where the driver gives a queue no CUDA event, a barrier on another
// queue's kernel waits on the GPU for that queue's progress word
// (cuStreamWaitValue64 GEQ), and still orders the work: each round's copy
// reads what the other queue's fill wrote just before.
func TestFakeCrossQueueWithoutEvents(t *testing.T) {
	f := fakecuda.Open(t)
	a := setup(t)
	k := fillKernel(t, a)
	f.Fail(t, "cuEventCreate", 1, fakecuda.ErrorOutOfMemory) // q1's
	f.Fail(t, "cuEventCreate", 2, fakecuda.ErrorOutOfMemory) // q2's
	q1, q2 := queue(t, a, 256), queue(t, a, 256)
	const n = 1 << 12
	X := alloc(t, a, hsa.FlagCoarseGrained, 4*n)
	waits, events := f.Calls("cuStreamWaitValue64_v2"), f.Calls("cuStreamWaitEvent")
	gate, s1, s2 := signal(t, 1), signal(t, 1), signal(t, 1)
	got := make([]uint32, n)
	id := hostref.PinHost(unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), 4*n))
	defer hostref.UnpinHost(id)
	const rounds = 20
	for i := uint32(1); i <= rounds; i++ {
		gate.Store(1, hsa.Release)
		s1.Store(1, hsa.Release)
		s2.Store(1, hsa.Release)
		// The fill waits for the gate, so the copy is queued before it
		// runs: only the barrier keeps the copy behind it.
		barrier(q1, []*rocr.Signal{gate}, nil)
		fill(q1, k, uint64(X.Base), i, n, s1)
		barrier(q2, []*rocr.Signal{s1}, nil)
		agentPacket(q2, aql.CopyWork{Dst: id, Src: uint64(X.Base), Bytes: 4 * n, Flags: aql.CopyDstHost}.Call(), s2)
		time.Sleep(2 * time.Millisecond)
		gate.Store(0, hsa.Release)
		require.NoError(t, wait(t, s2))
		require.Equal(t, i, got[n-1], "round %d: the copy ran before the fill it waited for", i)
	}
	assert.Equal(t, events, f.Calls("cuStreamWaitEvent"), "stream waits on events, with no events")
	assert.Greater(t, f.Calls("cuStreamWaitValue64_v2")-waits, int64(0), "GPU waits on the progress word")
	assert.NoError(t, q1.Err())
	assert.NoError(t, q2.Err())
}

// faultInFlight queues, behind a gate, kernels on q1 with a signal each,
// an event record, and a kernel on q2 after that record; the second
// kernel to run faults. Every signal completes, each behind the fault
// with an error wrapping ErrDeviceLost, and both queues fail.
func faultInFlight(t *testing.T, f *fakecuda.Fake, a *rocr.Agent) {
	k := fillKernel(t, a)
	q1, q2 := queue(t, a, 64), queue(t, a, 64)
	X := alloc(t, a, hsa.FlagCoarseGrained, 4*1024)
	gate, rec, last := signal(t, 1), signal(t, 1), signal(t, 1)
	barrier(q1, []*rocr.Signal{gate}, nil)
	sigs := []*rocr.Signal{signal(t, 1), signal(t, 1), signal(t, 1)}
	for i, s := range sigs {
		fill(q1, k, uint64(X.Base), uint32(i+1), 1024, s)
	}
	barrier(q1, nil, rec)
	barrier(q2, []*rocr.Signal{rec}, nil)
	fill(q2, k, uint64(X.Base), 9, 1024, last)
	f.Fault(2, fakecuda.ErrorIllegalAddress)
	gate.Store(0, hsa.Release)
	for i, s := range append(sigs[1:], rec, last) {
		err := wait(t, s)
		require.Error(t, err, "signal %d behind the fault", i+1)
		assert.ErrorIs(t, err, hsa.ErrDeviceLost, "signal %d", i+1)
	}
	for _, q := range []*rocr.Queue{q1, q2} {
		deadline := time.Now().Add(5 * time.Second)
		for q.Err() == nil && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		assert.ErrorIs(t, q.Err(), hsa.ErrDeviceLost, "queue %d", q.ID())
	}
}

// After a fault, Reset makes the agent work again where the driver clears
// the fault, as CUDA documents.
func TestFakeFaultThenReset(t *testing.T) {
	f := fakecuda.Open(t)
	a := setupFault(t, true)
	faultInFlight(t, f, a)
	require.NoError(t, a.Reset())
	assert.NoError(t, a.Lost())
	k := fillKernel(t, a)
	q := queue(t, a, 64)
	X := alloc(t, a, hsa.FlagCoarseGrained, 4*256)
	s := signal(t, 1)
	fill(q, k, uint64(X.Base), 5, 256, s)
	require.NoError(t, wait(t, s))
	assert.Equal(t, []uint32{5, 5}, []uint32(readBack(t, q, uint64(X.Base), 256)[254:]))
}

// Where the driver keeps a fault for the life of the process (driver 580
// on an H200), Reset says so, and the agent stays lost.
func TestFakeFaultKeptByDriver(t *testing.T) {
	f := fakecuda.Open(t)
	f.KeepFaults(true)
	a := setupFault(t, true)
	faultInFlight(t, f, a)
	err := a.Reset()
	require.Error(t, err)
	assert.ErrorIs(t, err, hsa.ErrDeviceLost)
	assert.Contains(t, err.Error(), "restart the process")
	assert.Error(t, a.Lost())
}

// A barrier on another queue of the same context makes no context
// current again: the context a flush of that queue needs is the one
// already current on the barrier's thread. Counted without the queues'
// events (the progress-word wait flushes the other queue), and logged
// with them.
func TestFakeContextSets(t *testing.T) {
	for _, events := range []bool{true, false} {
		t.Run(fmt.Sprintf("events=%v", events), func(t *testing.T) {
			f := fakecuda.Open(t)
			a := setup(t)
			k := fillKernel(t, a)
			if !events {
				f.Fail(t, "cuEventCreate", 1, fakecuda.ErrorOutOfMemory)
				f.Fail(t, "cuEventCreate", 2, fakecuda.ErrorOutOfMemory)
			}
			q1, q2 := queue(t, a, 256), queue(t, a, 256)
			X := alloc(t, a, hsa.FlagCoarseGrained, 4*64)
			s1, s2 := signal(t, 1), signal(t, 1)
			round := func(i uint32) {
				s1.Store(1, hsa.Release)
				s2.Store(1, hsa.Release)
				fill(q1, k, uint64(X.Base), i, 64, s1)
				barrier(q2, []*rocr.Signal{s1}, nil)
				fill(q2, k, uint64(X.Base), i, 64, s2)
				require.NoError(t, wait(t, s2))
			}
			round(1) // warm
			const rounds = 50
			sets, waits := f.Calls("cuCtxSetCurrent"), f.Calls("cuStreamWaitValue64_v2")+f.Calls("cuStreamWaitEvent")
			for i := uint32(2); i < 2+rounds; i++ {
				round(i)
			}
			perRound := float64(f.Calls("cuCtxSetCurrent")-sets) / rounds
			t.Logf("cuCtxSetCurrent per round: %.2f, GPU waits %d", perRound, f.Calls("cuStreamWaitValue64_v2")+f.Calls("cuStreamWaitEvent")-waits)
			if !events {
				// Three packets run on the caller's goroutine, which is not
				// locked to its thread, and the wait: about one each (a
				// settle may add one), and none for the flush of q1's
				// progress from q2's barrier (it was one more per round).
				assert.Less(t, perRound, 4.5, "cuCtxSetCurrent per round")
			}
			assert.Greater(t, f.Calls("cuStreamWaitValue64_v2")+f.Calls("cuStreamWaitEvent")-waits, int64(0), "the barriers wait on the GPU")
			assert.NoError(t, q1.Err())
			assert.NoError(t, q2.Err())
		})
	}
}
