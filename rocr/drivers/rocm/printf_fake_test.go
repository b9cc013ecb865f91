package rocm_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/drivers/rocm"
)

// printfKernel is what the fake GPU runs for the fixture's hello(int v,
// double x, const char* name, const char* fmt): each work-item makes
// hello's three printf calls, writing their records into the buffer that
// hidden_printf_buffer points at as clang's -mprintf-kind=buffered code
// does (printf.hip's __printf_alloc: an atomic reservation, a record that
// does not fit dropped and the header's high bit set).
type printfKernel struct {
	hashes  map[string]uint64 // the fixture's amdhsa.printf
	printf  uint32            // hidden_printf_buffer's kernarg offset
	name    string
	kernarg uint32
}

func loadFixture(t *testing.T, file string) ([]byte, *codeobj.CodeObject) {
	t.Helper()
	b, err := os.ReadFile("../../codeobj/testdata/" + file)
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	require.Len(t, spec.Objects, 1)
	return b, spec.Objects[0]
}

func newPrintfKernel(t *testing.T, obj *codeobj.CodeObject) *printfKernel {
	t.Helper()
	k := &printfKernel{hashes: map[string]uint64{}, name: "hello"}
	for _, f := range obj.Printf {
		k.hashes[f.Format] = f.Hash
	}
	require.Len(t, k.hashes, 2, "the fixture's constant formats")
	for i := range obj.Kernels {
		if kn := &obj.Kernels[i]; kn.Name == "hello" {
			k.kernarg = kn.KernargSize
			for _, a := range kn.Args {
				if a.Kind == codeobj.KindHiddenPrintfBuffer {
					k.printf = a.Offset
				}
			}
		}
	}
	require.NotZero(t, k.printf, "hello takes hidden_printf_buffer")
	return k
}

// record is one printf record: the control dword (size, constant
// format), the format's hash or the format itself, the arguments.
type record struct{ b []byte }

func (r *record) word(v uint64) { r.b = binary.LittleEndian.AppendUint64(r.b, v) }
func (r *record) str(s string) {
	r.b = append(r.b, s...)
	r.b = append(r.b, make([]byte, 8-len(s)%8)...) // NUL-terminated, padded to 8
}

func cstring(addr uint64) string {
	var b []byte
	for p := uintptr(addr); *(*byte)(hostmem.At(p)) != 0; p++ {
		b = append(b, *(*byte)(hostmem.At(p)))
	}
	return string(b)
}

func (k *printfKernel) run(p *aql.KernelDispatch) {
	ka := hostmem.Bytes(uintptr(p.KernargAddress), uintptr(k.kernarg))
	v := int32(binary.LittleEndian.Uint32(ka))
	x := binary.LittleEndian.Uint64(ka[8:])
	name, format := cstring(binary.LittleEndian.Uint64(ka[16:])), cstring(binary.LittleEndian.Uint64(ka[24:]))
	buf := uintptr(binary.LittleEndian.Uint64(ka[k.printf:]))
	if buf == 0 {
		return // the fault a real kernel would take
	}
	for range p.GridSizeX {
		var a, b, c record
		a.word(k.hashes["hello %d from %s\n"])
		a.word(uint64(uint32(v)))
		a.str("hipgo")
		b.word(k.hashes["%5.2f|%-4d|%c|%s|%llx|%e|%g\n"])
		for _, w := range []uint64{x, uint64(uint32(v)), 'A'} {
			b.word(w)
		}
		b.str(name)
		for _, w := range []uint64{uint64(v), x, x} {
			b.word(w)
		}
		c.str(format) // a format that is not constant travels in the record
		c.word(uint64(uint32(v)))
		put(buf, a.b, true)
		put(buf, b.b, true)
		put(buf, c.b, false)
	}
}

// put is __printf_alloc and the record's store.
func put(buf uintptr, body []byte, constant bool) {
	hdr := (*uint32)(hostmem.At(buf))
	size := *(*uint32)(hostmem.At(buf + 4))
	n := uint32(4 + len(body))
	off := atomic.LoadUint32(hdr)
	for {
		if off >= 1<<31 || 8+uint64(off)+uint64(n) > uint64(size) {
			for o := atomic.LoadUint32(hdr); !atomic.CompareAndSwapUint32(hdr, o, o|1<<31); o = atomic.LoadUint32(hdr) {
			}
			return
		}
		if atomic.CompareAndSwapUint32(hdr, off, off+n) {
			break
		}
		off = atomic.LoadUint32(hdr)
	}
	r := hostmem.Bytes(buf+8+uintptr(off), uintptr(n))
	ctrl := n << 2
	if constant {
		ctrl |= 2
	}
	binary.LittleEndian.PutUint32(r, ctrl)
	copy(r[4:], body)
}

// fakePrintf opens the fake ROCR with the fixture's hello as a kernel the
// fake GPU runs, loads the fixture and gives hello, a stream and the
// strings hello takes.
func fakePrintf(t *testing.T) (*module.Function, *stream.Stream, *buffer.Host[byte], *buffer.Host[byte]) {
	t.Helper()
	f := rocm.UseFake(t)
	img, obj := loadFixture(t, "printf_gfx90a.co")
	k := newPrintfKernel(t, obj)
	f.AddKernel("hello", k.kernarg, k.run)
	f.AddKernel("quiet", 8, func(*aql.KernelDispatch) {})
	t.Cleanup(func() { assert.NoError(t, gpu.Shutdown()) })
	dev, err := gpu.Get(0)
	require.NoError(t, err)
	require.Equal(t, "rocm", dev.Properties().Driver)
	m, err := module.Load(dev, img)
	require.NoError(t, err)
	fn, err := m.Function("hello")
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	hostString := func(v string) *buffer.Host[byte] {
		h, err := buffer.NewHost[byte](dev, len(v)+1)
		require.NoError(t, err)
		copy(h.Slice(), v+"\x00")
		t.Cleanup(func() { _ = h.Free() })
		return h
	}
	return fn, s, hostString("gpu"), hostString("fmt %03d\n")
}

func helloLines(v int32, x float64, n int) string {
	one := fmt.Sprintf("hello %d from hipgo\n%5.2f|%-4d|%c|%s|%x|%e|%g\nfmt %03d\n", v, x, v, 'A', "gpu", uint64(int64(v)), x, x, v)
	return strings.Repeat(one, n)
}

// printf through the rocm driver: hello's records, written by the fake
// GPU into the stream's printf buffer, reach stdout at the synchronize,
// rendered as C's printf renders them.
func TestPrintfFakeHSA(t *testing.T) {
	fn, s, name, format := fakePrintf(t)
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(2), gpu.D1(2), 0, s, int32(7), 3.14159, name, format))
		require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(1), 0, s, int32(-2), 1e10, name, format))
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, helloLines(7, 3.14159, 4)+helloLines(-2, 1e10, 1), out, "a record per work-item")
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 5*3+1)
	assert.Equal(t, " 3.14|7   |A|gpu|7|3.141590e+00|3.14159", lines[1], "C's rendering")
	assert.Equal(t, "10000000000.00|-2  |A|gpu|fffffffffffffffe|1.000000e+10|1e+10", lines[13], "C's rendering")
	out = testenv.CaptureStdout(t, func() { require.NoError(t, s.Synchronize()) })
	assert.Empty(t, out, "the buffer was emptied")
}

// A graph's kernel prints at each replay.
func TestPrintfFakeHSAGraph(t *testing.T) {
	fn, s, name, format := fakePrintf(t)
	g := graph.New()
	defer func() { _ = g.Destroy() }()
	_, err := g.AddKernel(graph.Kernel{Func: fn, Grid: gpu.D1(1), Block: gpu.D1(1), Args: []any{int32(5), 0.5, name, format}})
	require.NoError(t, err)
	x, err := g.Instantiate(s.Device())
	require.NoError(t, err)
	defer func() { _ = x.Destroy() }()
	out := testenv.CaptureStdout(t, func() {
		for range 3 {
			require.NoError(t, x.Launch(s))
		}
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, helloLines(5, 0.5, 3), out)
}

// Records that do not fit are dropped whole, and stderr says so once.
func TestPrintfFakeHSAOverflow(t *testing.T) {
	fn, s, name, format := fakePrintf(t)
	const items = 20000 // about 2 MiB of records
	var out string
	errs := testenv.CaptureStderr(t, func() {
		out = testenv.CaptureStdout(t, func() {
			require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(items), gpu.D1(1), 0, s, int32(1), 2.0, name, format))
			require.NoError(t, s.Synchronize())
			require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(items), gpu.D1(1), 0, s, int32(1), 2.0, name, format))
			require.NoError(t, s.Synchronize())
		})
	})
	n := strings.Count(out, "hello 1 from hipgo\n")
	assert.Greater(t, n, items/4)
	assert.Less(t, n, 2*items)
	for i, l := range strings.SplitAfter(out, "\n") {
		if l != "" {
			require.Contains(t, helloLines(1, 2.0, 1), l, "line %d is whole", i)
		}
	}
	assert.Equal(t, 1, strings.Count(errs, "records were dropped"), "said once: %q", errs)
}

// A code object whose printf goes through hostcall is refused at load.
func TestPrintfFakeHSAHostcall(t *testing.T) {
	rocm.UseFake(t)
	t.Cleanup(func() { assert.NoError(t, gpu.Shutdown()) })
	dev, err := gpu.Get(0)
	require.NoError(t, err)
	img, _ := loadFixture(t, "hostcall_gfx90a.co")
	_, err = module.Load(dev, img)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.Equal(t, gpu.ErrInvalidImage, gpu.CodeOf(err))
	assert.ErrorContains(t, err, "hostcall")
	assert.ErrorContains(t, err, "-mprintf-kind=buffered")
}
