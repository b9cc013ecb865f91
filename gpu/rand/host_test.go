package rand

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// The kernels' C++ (gen/rand.cu, what NVIDIA and AMD GPUs run), compiled
// for the host by clang with internal/kernelgen's stand-in for CUDA's
// built-ins and run one work-item at a time on the GPU launch shape
// (grid-stride, span 0), gives the reference's bits for every call: the
// translation keeps the integer and float64 arithmetic that makes the
// numbers the same on every agent. (Contraction into FMAs is the GPU
// compilers' part: hipgo-gen rounds each product on its own there.)
func TestEmittedCppMatchesReference(t *testing.T) {
	cc := testenv.Clang(t)
	hdr, err := filepath.Abs(filepath.Join("..", "..", "internal", "kernelgen", "testdata", "host", "hg_host.h"))
	require.NoError(t, err)
	if _, err := os.Stat(hdr); err != nil {
		t.Skipf("no source tree here (a test binary on its own): %v", err)
	}
	dir := t.TempDir()
	// The embedded C++, which the code objects were built from.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unit.cu"), []byte(goKernelsSource), 0o644))

	const n, grid = 1001, 7
	var seed uint64 = 0x1234abcd5678ef90
	type run struct {
		fn, ctype, op string
		off           uint64
		a, b          string
		want          []uint64
	}
	bits32 := func(v []float32) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = uint64(math.Float32bits(x))
		}
		return out
	}
	bits64 := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	u32 := func(v []uint32) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = uint64(x)
		}
		return out
	}
	r32 := refRange64(seed, 3, n, 3, 1000)
	runs := []run{
		{"fill_u32", "unsigned", "opBits", 1, "0", "0", u32(refBits32(seed, 1, n))},
		{"fill_u64", "unsigned long long", "opBits", 1, "0", "0", refBits64(seed, 1, n)},
		{"fill_u32", "unsigned", "opRange", 3, "3", "997", r32},
		{"fill_f32", "float", "opUniform", 2, "0", "0", bits32(refUniform32(seed, 2, n))},
		{"fill_f64", "double", "opUniform", 3, "0", "0", bits64(refUniform64(seed, 3, n))},
		{"fill_f32", "float", "opNormal", 1, "1.5", "2", bits32(refNormal32(seed, 1, n, 1.5, 2, false))},
		{"fill_f64", "double", "opNormal", 5, "-1", "0.5", bits64(refNormal64(seed, 5, n, -1, 0.5, false))},
		{"fill_f32", "float", "opLogNormal", 0, "0", "1", bits32(refNormal32(seed, 0, n, 0, 1, true))},
		{"fill_f64", "double", "opLogNormal", 7, "0.25", "0.75", bits64(refNormal64(seed, 7, n, 0.25, 0.75, true))},
		// At a multiple of 4 words: whole blocks as 16-byte stores.
		{"fill_u32", "unsigned", "opBits", 0, "0", "0", u32(refBits32(seed, 0, n))},
		{"fill_u64", "unsigned long long", "opBits", 4, "0", "0", refBits64(seed, 4, n)},
		{"fill_u64", "unsigned long long", "opRange", 8, "3", "997", refRange64(seed, 8, n, 3, 1000)},
		{"fill_f32", "float", "opUniform", 8, "0", "0", bits32(refUniform32(seed, 8, n))},
		{"fill_f32", "float", "opNormal", 4, "-0.5", "3", bits32(refNormal32(seed, 4, n, -0.5, 3, false))},
		{"fill_f64", "double", "opUniform", 0, "0", "0", bits64(refUniform64(seed, 0, n))},
	}
	ops := map[string]int32{"opUniform": opUniform, "opNormal": opNormal, "opLogNormal": opLogNormal, "opBits": opBits, "opRange": opRange}
	var m strings.Builder
	fmt.Fprintf(&m, "extern \"C\" double sqrt(double);\nextern \"C\" float sqrtf(float);\nextern \"C\" float fmaf(float, float, float);\n#include %q\n\nint main() {\n  blockDim.x = 1;\n  gridDim.x = %d;\n", filepath.Join(dir, "unit.cu"), grid)
	for i, r := range runs {
		kind := ops[r.op]
		w, outs := unitWords(kind, r.ctype == "double" || r.ctype == "unsigned long long")
		start := align(r.off, uint64(w))
		units := (n + outs - 1) / outs
		fmt.Fprintf(&m, "  {\n    alignas(16) static %s out[%d];\n    for (unsigned b = 0; b < %d; b++) {\n      blockIdx.x = b;\n", r.ctype, n, grid)
		// The integer kernels never read len(out): no length argument.
		length := fmt.Sprintf("%d, ", n)
		if strings.HasPrefix(r.fn, "fill_u") {
			length = ""
		}
		// vec as the host sets it: out is 16-byte aligned.
		fmt.Fprintf(&m, "      %s(out, %s%du, %du, %dULL, %d, %d, %s, %s, 0, %v);\n    }\n", r.fn, length, uint32(seed), uint32(seed>>32), start, units, kind, r.a, r.b, start%4 == 0)
		fmt.Fprintf(&m, "    printf(\"run %d\\n\");\n    for (int i = 0; i < %d; i++) { unsigned long long v = 0; memcpy(&v, &out[i], sizeof out[i]); printf(\"%%llu\\n\", v); }\n  }\n", i, n)
	}
	m.WriteString("  return 0;\n}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(m.String()), 0o644))
	bin := filepath.Join(dir, "rand")
	msg, err := exec.Command(cc, "-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-include", hdr, "-o", bin, filepath.Join(dir, "main.cpp"), "-lm").CombinedOutput()
	require.NoError(t, err, "%s", msg)
	stdout, err := exec.Command(bin).Output()
	require.NoError(t, err)
	got := make([][]uint64, len(runs))
	cur := -1
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "run "); ok {
			cur, _ = strconv.Atoi(rest)
			continue
		}
		v, err := strconv.ParseUint(line, 10, 64)
		require.NoError(t, err, line)
		got[cur] = append(got[cur], v)
	}
	for i, r := range runs {
		assert.Equal(t, r.want, got[i], "%s %s at offset %d", r.fn, r.op, r.off)
	}
}
