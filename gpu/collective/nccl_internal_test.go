package collective

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/spi"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
)

// fakeLib stands in for libnccl or librccl: it records each call by
// name with its arguments and answers as told.
type fakeLib struct {
	mu      sync.Mutex
	calls   []string
	results map[string]uintptr // result of a call by name (0 when absent)
	async   int32              // what ncclCommGetAsyncError reports
	names   map[uintptr]string
}

const fakeErrString, fakeLastError = 0x7000, 0x8000

func newFake(t *testing.T, rccl bool) (*fakeLib, *ncclAPI) {
	f := &fakeLib{results: map[string]uintptr{}, names: map[uintptr]string{}}
	a := &ncclAPI{lib: "NCCL", fns: map[string]uintptr{}, version: 22703}
	for i, s := range append(append([]string{}, ncclSymbols...), append(ncclOptional, "hipSetDevice", "hipStreamSynchronize")...) {
		a.fns[s] = uintptr(0x100 + i)
		f.names[uintptr(0x100+i)] = s
	}
	a.call = f.call
	a.str = func(p uintptr) string {
		switch {
		case p >= fakeLastError:
			return "the library's last error"
		case p >= fakeErrString:
			return fmt.Sprintf("error string of %d", p-fakeErrString)
		}
		t.Errorf("a C string at %#x that the fake never returned", p)
		return ""
	}
	a.onDevice = func(_ *rocr.Agent, _ int, g func() error) error { return g() }
	if rccl {
		a.lib = "RCCL"
		rcclHIP(a, a.fns["hipSetDevice"], a.fns["hipStreamSynchronize"])
	}
	return f, a
}

func (f *fakeLib) call(fn uintptr, args ...uintptr) uintptr {
	name := f.names[fn]
	f.mu.Lock()
	defer f.mu.Unlock()
	switch name {
	case "GetErrorString":
		return fakeErrString + args[0]
	case "GetLastError":
		return fakeLastError
	case "CommGetAsyncError":
		*(*int32)(hostmem.At(args[1])) = f.async
		return 0
	}
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprintf("%#x", a)
	}
	f.calls = append(f.calls, name+"("+strings.Join(s, ",")+")")
	return f.results[name]
}

func (f *fakeLib) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

const fakeComm = 0xc0

func fakeRank(t *testing.T, a *ncclAPI) (*Comm, *stream.Stream) {
	devs, err := gpu.Devices()
	require.NoError(t, err)
	if devs[0].Agent().Info().Driver != "cpu" {
		t.Skip("the fake library runs on a cpu agent")
	}
	c := newComm(devs[0], 0, 2, newVendorRank(a, fakeComm, devs[0].Agent(), 3))
	t.Cleanup(func() { _ = c.Destroy() }) // a second Destroy is an error, and harmless
	s, err := stream.New(devs[0])
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return c, s
}

func addr[T Element](b *buffer.Buffer[T]) string {
	m, _ := core.MemOf(b)
	return fmt.Sprintf("%#x", m.Addr())
}

func TestNCCLCalls(t *testing.T) {
	f, a := newFake(t, false)
	c, s := fakeRank(t, a)
	x, err := buffer.New[float32](c.Device(), 4)
	require.NoError(t, err)
	defer x.Free()
	y, err := buffer.New[int64](c.Device(), 8)
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, AllReduce(c, s, x, x, Avg))
	require.NoError(t, Reduce(c, s, x, x, Max, 0))
	require.NoError(t, Broadcast(c, s, x, x, 0))
	require.NoError(t, ReduceScatter(c, s, y, y2(t, c), Sum))
	g, err := GroupStart(c)
	require.NoError(t, err)
	require.NoError(t, Send(c, s, x, 1))
	require.NoError(t, Recv(c, s, x, 1))
	require.NoError(t, g.End())
	require.NoError(t, s.Synchronize())
	X := addr(x)
	log := f.log()
	require.Len(t, log, 8)
	// The cpu agent has no native stream: 0 stands for it.
	assert.Equal(t, "AllReduce("+X+","+X+",0x4,0x7,0x4,0xc0,0x0)", log[0], "float32 is 7, avg is 4")
	assert.Equal(t, "Reduce("+X+","+X+",0x4,0x7,0x2,0x0,0xc0,0x0)", log[1])
	assert.Equal(t, "Broadcast("+X+","+X+",0x4,0x7,0x0,0xc0,0x0)", log[2])
	assert.Contains(t, log[3], "ReduceScatter("+addr(y)+",")
	assert.Contains(t, log[3], ",0x4,0x4,0x0,0xc0,0x0)", "4 int64 (type 4) each")
	assert.Equal(t, []string{"GroupStart()", "Send(" + X + ",0x4,0x7,0x1,0xc0,0x0)", "Recv(" + X + ",0x4,0x7,0x1,0xc0,0x0)", "GroupEnd()"}, log[4:8],
		"a group is one ncclGroupStart/ncclGroupEnd around the rank's operations")
	require.NoError(t, c.Destroy())
	assert.Equal(t, "CommDestroy(0xc0)", f.log()[len(f.log())-1])
}

func y2(t *testing.T, c *Comm) *buffer.Buffer[int64] {
	b, err := buffer.New[int64](c.Device(), 4)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func TestNCCLErrorCarriesItsWords(t *testing.T) {
	f, a := newFake(t, false)
	f.results["AllReduce"] = 5 // ncclInvalidUsage
	c, s := fakeRank(t, a)
	x, err := buffer.New[float64](c.Device(), 2)
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, AllReduce(c, s, x, x, Sum))
	err = s.Synchronize()
	assert.ErrorContains(t, err, "NCCL ncclAllReduce: error string of 5: the library's last error (ncclInvalidUsage)")
	assert.NoError(t, c.Abort())
	assert.Contains(t, f.log(), "CommAbort(0xc0)")
}

func TestNCCLAsyncErrorFailsStreams(t *testing.T) {
	f, a := newFake(t, false)
	c, s := fakeRank(t, a)
	x, err := buffer.New[int32](c.Device(), 2)
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, AllReduce(c, s, x, x, Sum))
	require.NoError(t, s.Synchronize())
	f.mu.Lock()
	f.async = 6 // ncclRemoteError: a peer failed
	f.mu.Unlock()
	require.Eventually(t, func() bool { return s.Err() != nil }, 5*time.Second, 10*time.Millisecond, "the watchdog fails the stream")
	assert.ErrorContains(t, s.Synchronize(), "ncclRemoteError")
	assert.Contains(t, f.log(), "CommAbort(0xc0)", "the communicator is aborted so its kernels return")
	s2, err := stream.New(c.Device())
	require.NoError(t, err)
	defer s2.Destroy()
	require.NoError(t, AllReduce(c, s2, x, x, Sum))
	assert.ErrorContains(t, s2.Synchronize(), "ncclRemoteError", "later work fails too")
	assert.NoError(t, c.Destroy(), "the aborted communicator is not released twice")
	assert.NotContains(t, f.log(), "CommDestroy(0xc0)")
}

func TestRCCLRunsOnHIPNullStream(t *testing.T) {
	f, a := newFake(t, true)
	c, s := fakeRank(t, a)
	x, err := buffer.New[uint8](c.Device(), 3)
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, AllGather(c, s, x, y8(t, c)))
	require.NoError(t, s.Synchronize())
	log := f.log()
	require.Len(t, log, 3)
	assert.Equal(t, "hipSetDevice(0x3)", log[0], "the device's HIP ordinal")
	assert.True(t, strings.HasPrefix(log[1], "AllGather("+addr(x)+","), log[1])
	assert.True(t, strings.HasSuffix(log[1], ",0x3,0x1,0xc0,0x0)"), "3 uint8 (type 1) on the null stream: %s", log[1])
	assert.Equal(t, "hipStreamSynchronize(0x0)", log[2])
}

func y8(t *testing.T, c *Comm) *buffer.Buffer[uint8] {
	b, err := buffer.New[uint8](c.Device(), 6)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func TestCString(t *testing.T) {
	b := []byte("ncclSuccess\x00tail")
	assert.Equal(t, "ncclSuccess", cString(uintptr(unsafe.Pointer(&b[0]))))
	assert.Equal(t, "", cString(0))
}

// NCCL's calls without a stream need the agent's CUDA context; an agent
// without one is refused before the call.
func TestCUDAContextNeedsContextRunner(t *testing.T) {
	devs, err := gpu.Devices()
	require.NoError(t, err)
	ag := devs[0].Agent()
	if _, ok := ag.Driver().(spi.ContextRunner); ok {
		ran := false
		require.NoError(t, cudaContext(ag, 0, func() error { ran = true; return nil }))
		assert.True(t, ran)
		return
	}
	err = cudaContext(ag, 0, func() error { t.Error("ran without a context"); return nil })
	assert.ErrorIs(t, err, gpu.ErrInvalidDevice)
	assert.ErrorContains(t, err, "no CUDA context")
}

// Without the libraries, loading says what it tried and how to point at
// them.
func TestVendorLibraryMissing(t *testing.T) {
	for drv, name := range map[string]string{"cuda": "NCCL", "rocm": "RCCL"} {
		if _, err := loadAPI(drv); err != nil {
			assert.ErrorIs(t, err, gpu.ErrNotSupported, name)
			assert.ErrorContains(t, err, "no "+name+": cannot open", name)
			assert.ErrorContains(t, err, "tried", name)
			assert.Regexp(t, `set HIPGO_(NCCL|HIP|RCCL)_LIBRARY`, err.Error(), name)
		} else {
			t.Logf("%s is installed here", name)
		}
	}
}
