package kernelgen

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	sem "github.com/hipgo/hipgo/internal/gosemantics"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// The promised semantics, run: internal/gosemantics's kernels exercise every rule
// of the subset's integer semantics (wrapping at every width, narrow
// unsigned types included; shifts at and past the width; division by
// zero, MinInt / -1; indexes, slice bounds and shift counts out of range
// in checked mode; float conversions) as plain Go, on the cpu agent, and
// as the emitted C++ compiled for the host by clang-19 and run one
// work-item at a time (testdata/host/hg_host.h stands in for CUDA's
// built-ins). Every agent must give plain Go's results.

// fault is what went wrong, as Go says it and as the checked C++ records
// it: kind (sem.FaultIndex ...), the index and the length (-1 where Go's
// message gives none).
type fault struct {
	kind       int
	index, len int64
}

// parseFault classifies a Go panic message or a launch's error.
func parseFault(msg string) (fault, bool) {
	k, i, n, ok := sem.ParseFault(msg)
	return fault{k, i, n}, ok
}

var faultCases = sem.FaultCases

// goFaults runs each fault case as plain Go: the fault it panics with, or
// none, and out[0].
func goFaults(t *testing.T) ([]fault, []int32) {
	var fs []fault
	var outs []int32
	for _, c := range faultCases {
		x, out := aligned16(5), []int32{0}
		copy(x, []int32{10, 11, 12, 13, 14})
		f := func() (f fault) {
			defer func() {
				if r := recover(); r != nil {
					var ok bool
					f, ok = parseFault(fmt.Sprint(r))
					require.True(t, ok, "case %v: unexpected panic %v", c, r)
				}
			}()
			sem.Faults(kernel.Thread{}, x, c.Which, c.K, out)
			return fault{}
		}()
		if f.kind == 4 {
			f.index = int64(c.K)
		}
		fs, outs = append(fs, f), append(outs, out[0])
	}
	return fs, outs
}

// aligned16 is n int32s starting on a 16-byte boundary, as a buffer does.
func aligned16(n int) []int32 {
	mem := make([]int32, n+4)
	off := int(uintptr(unsafe.Pointer(&mem[0])) % 16 / 4)
	if off != 0 {
		off = 4 - off
	}
	return mem[off : off+n]
}

// hostArgs spells the arguments of k's entry point (checked or not) from
// the C names of each parameter's value, pointer and length.
func hostArgs(k Kernel, checked bool, val map[string]string) string {
	var args, lens []string
	for _, p := range k.Params {
		switch {
		case p.Kind != Slice:
			args = append(args, val[p.Name])
		case p.Len:
			args = append(args, val[p.Name], val[p.Name+"_n"])
		default:
			args = append(args, val[p.Name])
			lens = append(lens, val[p.Name+"_n"])
		}
	}
	if checked {
		args = append(append(args, lens...), "&flt")
	}
	return strings.Join(args, ", ")
}

func kernelNamed(t *testing.T, r *Result, goName string) Kernel {
	for _, k := range r.Kernels {
		if k.GoName == goName {
			return k
		}
	}
	require.FailNow(t, "no kernel "+goName)
	return Kernel{}
}

// hostRun compiles the unit with the harness for the host and runs it: the
// checked and the plain variants' Ops results, the fault each case
// records, and the cases' out[0].
func hostRun(t *testing.T, cc string, r *Result, xs, ys []int64, fs []float64) (checked, plain []uint64, faults []fault, outs []int32) {
	dir := t.TempDir()
	np := len(xs)
	var h strings.Builder
	// The integers as their bits: -9223372036854775808LL is a negated
	// literal too large for long long.
	fmt.Fprintf(&h, "#include %q\n\nstatic const unsigned long long xs[%d] = {", filepath.Join(dir, "unit.cu"), np)
	for _, x := range xs {
		fmt.Fprintf(&h, "%#xULL, ", uint64(x))
	}
	fmt.Fprintf(&h, "};\nstatic const unsigned long long ys[%d] = {", np)
	for _, y := range ys {
		fmt.Fprintf(&h, "%#xULL, ", uint64(y))
	}
	fmt.Fprintf(&h, "};\nstatic const unsigned long long fbits[%d] = {", np)
	for _, f := range fs {
		fmt.Fprintf(&h, "%#xULL, ", math.Float64bits(f))
	}
	ops, flts := kernelNamed(t, r, "Ops"), kernelNamed(t, r, "Faults")
	n := strconv.Itoa(np)
	opsVal := map[string]string{"a": "(const long long*)xs", "a_n": n, "b": "(const long long*)ys", "b_n": n, "f": "fs", "f_n": n, "out": "out", "out_n": strconv.Itoa(np * sem.N)}
	fltVal := map[string]string{"x": "x", "x_n": "5", "which": "(long long)cases[c][0]", "k": "(long long)cases[c][1]", "out": "fo", "out_n": "1"}
	fmt.Fprintf(&h, `};
static unsigned long long out[%[1]d * %[2]d];
static double fs[%[1]d];
static const long long cases[][2] = {`, np, sem.N)
	for _, c := range faultCases {
		fmt.Fprintf(&h, "{%d, %d}, ", c.Which, c.K)
	}
	fmt.Fprintf(&h, `};

int main() {
  memcpy(fs, fbits, sizeof fs);
  hg_fault flt = {};
  blockDim.x = 1;
  gridDim.x = %[1]d;
  for (int v = 0; v < 2; v++) {
    memset(out, 0, sizeof out);
    for (unsigned i = 0; i < %[1]d; i++) {
      blockIdx.x = i;
      if (v == 0) %[2]s_checked(%[3]s);
      else %[2]s(%[4]s);
    }
    for (unsigned i = 0; i < %[1]d * %[5]d; i++) printf("%%llu\n", out[i]);
    printf("fault %%u\n", flt.set);
  }
  blockIdx.x = 0;
  gridDim.x = 1;
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    // x sits inside a larger array: a read past it stays in memory.
    alignas(16) static int mem[16];
    int* x = mem + 4;
    for (int i = 0; i < 5; i++) x[i] = 10 + i;
    int fo[1] = {0};
    flt = hg_fault{};
    %[6]s_checked(%[7]s);
    printf("%%u %%u %%lld %%lld %%d\n", flt.set ? flt.kind : 0u, flt.set, flt.index, flt.len, fo[0]);
  }
  return 0;
}
`, np, ops.Name, hostArgs(ops, true, opsVal), hostArgs(ops, false, opsVal), sem.N, flts.Name, hostArgs(flts, true, fltVal))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unit.cu"), []byte(r.Source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(h.String()), 0o644))
	hdr, err := filepath.Abs(filepath.Join("testdata", "host", "hg_host.h"))
	require.NoError(t, err)
	bin := filepath.Join(dir, "sem")
	msg, err := exec.Command(cc, "-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-include", hdr, "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	stdout, err := exec.Command(bin).Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	read := func() []uint64 {
		var vs []uint64
		for i := 0; i < np*sem.N && sc.Scan(); i++ {
			v, err := strconv.ParseUint(sc.Text(), 10, 64)
			require.NoError(t, err)
			vs = append(vs, v)
		}
		require.True(t, sc.Scan())
		assert.Equal(t, "fault 0", sc.Text(), "Ops records no fault")
		return vs
	}
	checked, plain = read(), read()
	for sc.Scan() {
		var f fault
		var set uint
		var o int32
		_, err := fmt.Sscan(sc.Text(), &f.kind, &set, &f.index, &f.len, &o)
		require.NoError(t, err)
		if f.kind == 2 || f.kind == 4 {
			f.len = 0
		}
		if f.kind == 2 {
			f.index = 0
		}
		faults, outs = append(faults, f), append(outs, o)
	}
	return checked, plain, faults, outs
}

// The float-to-integer slots: Go and C++ leave an out-of-range
// conversion to the implementation, so they are compared only where the
// value fits.
const semFloatSlots = sem.FloatSlots

func TestSemanticsRun(t *testing.T) {
	testenv.GoTool(t)
	xs, ys, fs := sem.Inputs()
	want := make([]uint64, len(xs)*sem.N)
	for i := range xs {
		sem.Eval(xs[i], ys[i], fs[i], want[i*sem.N:(i+1)*sem.N])
	}
	wantFaults, wantOuts := goFaults(t)
	// The cases cover every kind of fault and the cases that do not fault.
	kinds := map[int]bool{}
	for _, f := range wantFaults {
		kinds[f.kind] = true
	}
	require.Len(t, kinds, 5, "%v", wantFaults)

	compare := func(agent string, got []uint64, floats bool) {
		require.Len(t, got, len(want), agent)
		bad := 0
		for i := range want {
			slot := i % sem.N
			if slot >= semFloatSlots && !floats {
				continue
			}
			if want[i] != got[i] {
				if bad < 10 {
					t.Errorf("%s: Eval(%d, %d, %v) slot %d = %#x, plain Go %#x", agent, xs[i/sem.N], ys[i/sem.N], fs[i/sem.N], slot, got[i], want[i])
				}
				bad++
			}
		}
		assert.Zero(t, bad, "%s: results that differ from plain Go", agent)
	}

	t.Run("cpu", func(t *testing.T) {
		got, errs := cpuRun(t, xs, ys, fs)
		compare("cpu agent", got, true)
		for i, c := range faultCases {
			if wantFaults[i].kind == 0 {
				assert.NoError(t, errs[i], "case %v", c)
				continue
			}
			if assert.Error(t, errs[i], "case %v", c) {
				f, ok := parseFault(errs[i].Error())
				assert.True(t, ok, "case %v: %v", c, errs[i])
				if f.kind == 4 {
					f.index = int64(c.K)
				}
				assert.Equal(t, wantFaults[i], f, "case %v: %v", c, errs[i])
			}
		}
	})
	t.Run("host", func(t *testing.T) {
		cc, err := clang()
		testenv.Require(t, "clang", err)
		r, err := Load(filepath.Join("..", "gosemantics"), "kernels_gen.go")
		require.NoError(t, err)
		checked, plain, faults, outs := hostRun(t, cc, r, xs, ys, fs)
		compare("emitted C++, checked", checked, false)
		compare("emitted C++, unchecked", plain, false)
		require.Len(t, faults, len(faultCases))
		for i, c := range faultCases {
			got := faults[i]
			if wantFaults[i].len == -1 {
				got.len = -1
			}
			assert.Equal(t, wantFaults[i], got, "case %v: the checked C++ records what Go panics with", c)
			if wantFaults[i].kind == 0 {
				assert.Equal(t, wantOuts[i], outs[i], "case %v", c)
			}
		}
	})
}

// cpuRun runs Ops and each fault case on the cpu agent through the
// package's generated launchers.
func cpuRun(t *testing.T, xs, ys []int64, fs []float64) ([]uint64, []error) {
	dev := gputest.DeviceOf(t, "cpu")
	np := int64(len(xs))
	bx, err := buffer.FromSlice(dev, xs)
	require.NoError(t, err)
	defer bx.Free()
	by, err := buffer.FromSlice(dev, ys)
	require.NoError(t, err)
	defer by.Free()
	bf, err := buffer.FromSlice(dev, fs)
	require.NoError(t, err)
	defer bf.Free()
	out, err := buffer.New[uint64](dev, int(np)*sem.N)
	require.NoError(t, err)
	defer out.Free()
	require.NoError(t, out.Memset(0))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, sem.LaunchOps(s, gpu.D1(gpu.Blocks(int(np), 64)), gpu.D1(64), 0, bx, by, bf, out))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	var errs []error
	for _, c := range faultCases {
		x, err := buffer.FromSlice(dev, []int32{10, 11, 12, 13, 14})
		require.NoError(t, err)
		o, err := buffer.New[int32](dev, 1)
		require.NoError(t, err)
		s, err := stream.New(dev) // a failed launch fails its stream
		require.NoError(t, err)
		require.NoError(t, sem.LaunchFaults(s, gpu.D1(1), gpu.D1(1), 0, x, c.Which, c.K, o))
		errs = append(errs, s.Synchronize())
		_ = s.Destroy()
		x.Free()
		o.Free()
	}
	return got, errs
}
