package module_test

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// printfArgs is the kernarg of test_printf, which stands for an AMDGPU
// kernel that calls printf N times: Buf is where its hidden_printf_buffer
// would be (module.SetPrintfOffset), and the caller passes 0 there.
type printfArgs struct {
	N, V int32
	Buf  uint64
}

const devFormat = "dev %d rec %d\n"

var devHash = func() uint64 { s := md5.Sum([]byte(devFormat)); return binary.LittleEndian.Uint64(s[:8]) }()

// printfBig is test_printf_big, loaded by loadPrintf.
var printfBig *module.Function

// printfSeen collects the buffer addresses the kernel was given.
var printfSeen struct {
	sync.Mutex
	addrs map[uint64]int
}

// test_printf writes, from its first work-group, N records of
// printf(devFormat, V, i) into the printf buffer as clang's buffered
// printf does: __printf_alloc's atomic reservation (dropping a record
// that does not fit and marking the header), the control dword, the
// format's hash, each argument in 8 bytes.
var devicePrintf = kernel.Define("test_printf", func(g *kernel.Block, a *printfArgs) {
	writeRecords(g, a.Buf, a.N, a.V)
})

// printfBigArgs is test_printf_big's kernarg: test_printf's with the
// buffer past a queue slot's kernarg, so the image is a kernarg area.
type printfBigArgs struct {
	N, V int32
	Pad  printfPad
	Buf  uint64
}

type printfPad struct{ B [5000]byte }

var devicePrintfBig = kernel.Define("test_printf_big", func(g *kernel.Block, a *printfBigArgs) {
	writeRecords(g, a.Buf, a.N, a.V)
})

func writeRecords(g *kernel.Block, buf uint64, n, v int32) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	printfSeen.Lock()
	printfSeen.addrs[buf]++
	printfSeen.Unlock()
	if buf == 0 {
		g.Fault("no printf buffer")
		return
	}
	base := g.View(uintptr(buf), core.PrintfBufferSize)
	hdr := (*uint32)(base)
	size := *(*uint32)(unsafe.Add(base, 4))
	const rec = 4 + 8 + 2*8
	for i := range n {
		off := atomic.LoadUint32(hdr)
		for {
			if off&(1<<31) != 0 || 8+uint64(off)+rec > uint64(size) {
				atomicOr(hdr, 1<<31)
				off = ^uint32(0)
				break
			}
			if atomic.CompareAndSwapUint32(hdr, off, off+rec) {
				break
			}
			off = atomic.LoadUint32(hdr)
		}
		if off == ^uint32(0) {
			continue
		}
		r := unsafe.Slice((*byte)(unsafe.Add(base, 8+uintptr(off))), rec)
		binary.LittleEndian.PutUint32(r, rec<<2|2)
		binary.LittleEndian.PutUint64(r[4:], devHash)
		binary.LittleEndian.PutUint64(r[12:], uint64(uint32(v)))
		binary.LittleEndian.PutUint64(r[20:], uint64(uint32(i)))
	}
}

func atomicOr(p *uint32, v uint32) {
	for {
		o := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, o, o|v) {
			return
		}
	}
}

// loadPrintf loads test_printf with its printf buffer at Buf's offset.
func loadPrintf(t *testing.T) (*gpu.Device, *module.Function) {
	t.Helper()
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("printf-test", devicePrintf, devicePrintfBig))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	f, err := m.Function("test_printf")
	require.NoError(t, err)
	module.SetPrintfOffset(f, uint32(unsafe.Offsetof(printfArgs{}.Buf)))
	big, err := m.Function("test_printf_big")
	require.NoError(t, err)
	module.SetPrintfOffset(big, uint32(unsafe.Offsetof(printfBigArgs{}.Buf)))
	t.Cleanup(module.SetKernargLimit(big, 32764))
	printfBig = big
	core.AddPrintfFormat(devHash, devFormat) // as loading its code object would
	printfSeen.Lock()
	printfSeen.addrs = map[uint64]int{}
	printfSeen.Unlock()
	return dev, f
}

func seenAddrs() map[uint64]int {
	printfSeen.Lock()
	defer printfSeen.Unlock()
	out := map[uint64]int{}
	for k, v := range printfSeen.addrs {
		out[k] = v
	}
	return out
}

func lines(v int32, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "dev %d rec %d\n", v, i)
	}
	return b.String()
}

func newStream(t *testing.T, dev *gpu.Device) *stream.Stream {
	t.Helper()
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return s
}

// Every launch of a kernel that takes the printf buffer gets its
// stream's, allocated once; the stream's synchronize prints the records
// in order and empties the buffer.
func TestPrintfBuffer(t *testing.T) {
	dev, f := loadPrintf(t)
	s := newStream(t, dev)
	out := testenv.CaptureStdout(t, func() {
		for v := int32(1); v <= 3; v++ {
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(2), gpu.D1(64), 0, s, v, int32(v), uint64(0)))
		}
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines(1, 1)+lines(2, 2)+lines(3, 3), out)
	seen := seenAddrs()
	require.Len(t, seen, 1, "one buffer for every launch on the stream")
	for a, n := range seen {
		assert.NotZero(t, a)
		assert.Equal(t, 3, n)
	}
	// Emptied: the next synchronize prints only what came since.
	out = testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(1), int32(9), uint64(0)))
		require.NoError(t, s.Synchronize())
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines(9, 1), out)
	// A kernel without the buffer is untouched.
	assert.Zero(t, module.SymbolPrintfOffset(dev, helloSymbol(t, "quiet")))
}

// A kernel whose kernarg image is larger than a queue slot's (a kernarg
// area) gets the buffer too, launched directly and from a graph.
func TestPrintfKernargArea(t *testing.T) {
	dev, _ := loadPrintf(t)
	big := printfBig
	s := newStream(t, dev)
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(big, gpu.D1(1), gpu.D1(1), 0, s, int32(2), int32(6), printfPad{}, uint64(0)))
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines(6, 2), out)
	g := graph.New()
	defer func() { _ = g.Destroy() }()
	_, err := g.AddKernel(graph.Kernel{Func: big, Grid: gpu.D1(1), Block: gpu.D1(1), Args: []any{int32(1), int32(8), printfPad{}, uint64(0)}})
	require.NoError(t, err)
	x, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer func() { _ = x.Destroy() }()
	out = testenv.CaptureStdout(t, func() {
		require.NoError(t, x.Launch(s))
		require.NoError(t, x.Launch(s))
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines(8, 1)+lines(8, 1), out, "each replay prints")
	seen := seenAddrs()
	require.Len(t, seen, 1, "the stream's one buffer")
	for a, n := range seen {
		assert.NotZero(t, a)
		assert.Equal(t, 3, n)
	}
}

// Streams have buffers of their own; each one's synchronize prints its
// own kernels' records, and Device.Synchronize prints them all.
func TestPrintfStreams(t *testing.T) {
	dev, f := loadPrintf(t)
	a, b := newStream(t, dev), newStream(t, dev)
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, a, int32(2), int32(1), uint64(0)))
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, b, int32(1), int32(2), uint64(0)))
		require.NoError(t, a.Synchronize())
	})
	assert.Equal(t, lines(1, 2), out, "a's synchronize prints a's records")
	out = testenv.CaptureStdout(t, func() { require.NoError(t, dev.Synchronize()) })
	assert.Equal(t, lines(2, 1), out)
	assert.Len(t, seenAddrs(), 2)
	// Destroy prints what is left.
	out = testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, b, int32(1), int32(5), uint64(0)))
		require.NoError(t, b.Destroy())
	})
	assert.Equal(t, lines(5, 1), out)
}

// A graph's kernel gets the printf buffer of the stream it is launched
// on, patched at each replay.
func TestPrintfGraph(t *testing.T) {
	dev, f := loadPrintf(t)
	cs, s := newStream(t, dev), newStream(t, dev)
	require.NoError(t, graph.BeginCapture(cs))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, cs, int32(1), int32(4), uint64(0)))
	g, err := graph.EndCapture(cs)
	require.NoError(t, err)
	defer func() { _ = g.Destroy() }()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer func() { _ = e.Destroy() }()
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, e.Launch(s))
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines(4, 1)+lines(4, 1), out)
	assert.Len(t, seenAddrs(), 1)
}

// A full buffer drops records, never a part of one, and says so once
// per stream on stderr; the records that fit are printed.
func TestPrintfOverflow(t *testing.T) {
	dev, f := loadPrintf(t)
	s := newStream(t, dev)
	const fit = (core.PrintfBufferSize - 8) / 28
	var out string
	errs := testenv.CaptureStderr(t, func() {
		out = testenv.CaptureStdout(t, func() {
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(fit+10), int32(7), uint64(0)))
			require.NoError(t, s.Synchronize())
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(fit+10), int32(8), uint64(0)))
			require.NoError(t, s.Synchronize())
		})
	})
	assert.Equal(t, lines(7, fit)+lines(8, fit), out)
	assert.Equal(t, 1, strings.Count(errs, "printf buffer"), "said once: %q", errs)
	assert.Contains(t, errs, "records were dropped")
}

// After the first, a launch of a printing kernel allocates nothing.
func TestPrintfLaunchAllocs(t *testing.T) {
	dev, f := loadPrintf(t)
	s := newStream(t, dev)
	args := new(module.Args).Value(int32(0)).Value(int32(0)).Value(uint64(0))
	launch := func() {
		if err := f.LaunchArgs(s, gpu.D1(1), gpu.D1(1), 0, args); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(100, launch), "printing launch + Synchronize: allocations")
}

// Launches that print race Synchronize, Query and Destroy of their
// stream: nothing is printed twice, read after it was freed, or lost
// before the stream's end.
func TestPrintfRaces(t *testing.T) {
	dev, f := loadPrintf(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	const n = 50
	var launched atomic.Int32
	out := testenv.CaptureStdout(t, func() {
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n {
					if module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(1), int32(3), uint64(0)) == nil {
						launched.Add(1)
					}
				}
			}()
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range n {
				_ = s.Synchronize()
			}
		}()
		go func() {
			defer wg.Done()
			for range n {
				_ = s.Query()
			}
		}()
		wg.Wait()
		require.NoError(t, s.Destroy())
	})
	assert.Equal(t, int(launched.Load()), strings.Count(out, "dev 3 rec 0\n"))
	assert.Equal(t, 2*n, int(launched.Load()))
}

// helloSymbol is a kernel of the buffered printf fixture.
func helloSymbol(t *testing.T, name string) hsa.KernelSymbol {
	t.Helper()
	b, err := os.ReadFile("../../rocr/codeobj/testdata/printf_gfx90a.co")
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	c, err := module.Loadable(spec.Objects[0], "printf_gfx90a.co")
	require.NoError(t, err)
	for _, k := range c.Kernels {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no kernel %s", name)
	return hsa.KernelSymbol{}
}

// The fixture's printing kernel takes the buffer at its metadata's
// offset, and loading it records its format strings; a hostcall printf
// code object is refused with a reason.
func TestPrintfCodeObjects(t *testing.T) {
	dev := setup(t)
	assert.Equal(t, uint32(32+72+1), module.SymbolPrintfOffset(dev, helloSymbol(t, "hello")))

	b, err := os.ReadFile("../../rocr/codeobj/testdata/hostcall_gfx90a.co")
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	_, err = module.Loadable(spec.Objects[0], "hostcall_gfx90a.co")
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "hostcall_gfx90a.co")
	assert.ErrorContains(t, err, "-mprintf-kind=buffered")
	assert.Equal(t, gpu.ErrInvalidImage, gpu.CodeOf(err))
}

// A synchronize racing gpu.Shutdown reads the printf buffer before the
// runtime frees it or not at all: never after.
func TestPrintfShutdownRace(t *testing.T) {
	for round := range 8 {
		dev, f := loadPrintf(t)
		s, err := stream.New(dev)
		require.NoError(t, err)
		const n = 20000
		var syncErr error
		out := testenv.CaptureStdout(t, func() {
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(n), int32(round), uint64(0)))
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); syncErr = s.Synchronize() }()
			go func() { defer wg.Done(); assert.NoError(t, gpu.Shutdown()) }()
			wg.Wait()
		})
		// All of the records or none, whichever came first.
		if syncErr == nil && out != "" {
			assert.Equal(t, n, strings.Count(out, fmt.Sprintf("dev %d rec ", round)), "round %d", round)
		}
		_ = s.Destroy()
	}
}

// The legacy stream and the default stream print as any stream does,
// at their synchronize or the device's.
func TestPrintfLegacyStream(t *testing.T) {
	dev, f := loadPrintf(t)
	leg, err := stream.Legacy(dev)
	require.NoError(t, err)
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, leg, int32(1), int32(11), uint64(0)))
		require.NoError(t, leg.Synchronize())
	})
	assert.Equal(t, lines(11, 1), out)
	out = testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, leg, int32(1), int32(12), uint64(0)))
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, nil, int32(1), int32(13), uint64(0)))
		require.NoError(t, dev.Synchronize())
	})
	assert.ElementsMatch(t, strings.SplitAfter(lines(12, 1)+lines(13, 1), "\n"), strings.SplitAfter(out, "\n"))
}

// Destroy racing Synchronize and Query of its stream: the records print
// once, by whichever came first.
func TestPrintfDestroyRace(t *testing.T) {
	dev, f := loadPrintf(t)
	for round := range 10 {
		s, err := stream.New(dev)
		require.NoError(t, err)
		const n = 2000
		out := testenv.CaptureStdout(t, func() {
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(n), int32(round), uint64(0)))
			var wg sync.WaitGroup
			wg.Add(3)
			go func() { defer wg.Done(); _ = s.Synchronize() }()
			go func() { defer wg.Done(); _ = s.Query() }()
			go func() { defer wg.Done(); assert.NoError(t, s.Destroy()) }()
			wg.Wait()
		})
		assert.Equal(t, n, strings.Count(out, fmt.Sprintf("dev %d rec ", round)), "round %d", round)
	}
}

// Concurrent synchronizes of one stream write its records in the order
// its kernels wrote them.
func TestPrintfOrder(t *testing.T) {
	dev, f := loadPrintf(t)
	s := newStream(t, dev)
	const n = 300
	out := testenv.CaptureStdout(t, func() {
		var wg sync.WaitGroup
		var done atomic.Bool
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !done.Load() {
					_ = s.Synchronize()
				}
			}()
		}
		for v := range int32(n) {
			require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(1), v, uint64(0)))
		}
		done.Store(true)
		wg.Wait()
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, lines0(n), out)
}

func lines0(n int) string {
	var b strings.Builder
	for v := range n {
		fmt.Fprintf(&b, "dev %d rec 0\n", v)
	}
	return b.String()
}

// A kernel that writes over the buffer's header (its size word, a used
// count past the end) is not trusted: the host reads no more than the
// buffer and gives the next kernel the true size again.
func TestPrintfBadHeader(t *testing.T) {
	dev, f := loadPrintf(t)
	s := newStream(t, dev)
	testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, int32(1), int32(1), uint64(0)))
		require.NoError(t, s.Synchronize())
	})
	var addr uint64
	for a := range seenAddrs() {
		addr = a
	}
	require.NotZero(t, addr)
	hdr := unsafe.Slice((*uint32)(hostmem.At(uintptr(addr))), 2)
	atomic.StoreUint32(&hdr[0], core.PrintfBufferSize*4) // used: past the end
	atomic.StoreUint32(&hdr[1], 1<<31-1)                 // size: a lie
	var out string
	errs := testenv.CaptureStderr(t, func() {
		out = testenv.CaptureStdout(t, func() { require.NoError(t, s.Synchronize()) })
	})
	assert.Equal(t, lines(1, 1), out, "the stale record, then zeros")
	assert.Contains(t, errs, "could not be decoded")
	assert.Equal(t, uint32(0), atomic.LoadUint32(&hdr[0]))
	assert.Equal(t, uint32(core.PrintfBufferSize), atomic.LoadUint32(&hdr[1]), "the true size again")
}
