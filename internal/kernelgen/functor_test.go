package kernelgen

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// A generic kernel takes its operation as a type parameter, a functor: a
// type of the package whose value method the kernel calls through the
// type parameter. Each instance's C++ calls its functor's method through
// an overload on the receiver type, as a C++ template calls a functor's
// operator().
func TestFunctorKernels(t *testing.T) {
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "functor"))
	require.NoError(t, err)
	var names []string
	for _, k := range r.Kernels {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"fold_float32_max_abs", "fold_int32_wrap_mul"}, names)
	for _, want := range []string{
		"acc = hg_m_Apply<Checked>(o, acc, v, hg_f);",
		"template <bool Checked> HG_DEV float hg_m_Apply(maxAbs m, float a, float b, hg_fault* hg_f);",
		"template <bool Checked> HG_DEV int32_t hg_m_Apply(wrapMul m, int32_t a, int32_t b, hg_fault* hg_f);",
		"Fold<false, float, maxAbs>(",
	} {
		assert.Contains(t, r.Source, want)
	}
}

// The functor kernels compile with clang-19 for sm_90 and gfx90a, and
// run on the host (testdata/host/hg_host.h) as plain Go computes them:
// max of absolute values, and int32 products that wrap.
func TestFunctorHostRun(t *testing.T) {
	cc, err := clang()
	testenv.Require(t, "clang", err)
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "functor"))
	require.NoError(t, err)
	dir := t.TempDir()
	unit := filepath.Join(dir, "unit.cu")
	require.NoError(t, os.WriteFile(unit, []byte(r.Source), 0o644))
	for name, flags := range map[string][]string{
		"gfx90a": {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib"},
		"sm_90":  {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx78"},
	} {
		msg, err := exec.Command(cc, append(append([]string{}, flags...), "-O2", "-Wall", "-Werror", "-S", "-o", filepath.Join(dir, name+".s"), unit)...).CombinedOutput()
		require.NoError(t, err, "%s: %s", name, msg)
	}

	fs := []float32{1.5, -7.25, 3, -0.5, 6.75, -7.5, 2}
	is := []int32{3, -5, 7, 11, 13, 1 << 20, -17}
	var fl, il []string
	wantF, wantI := float32(0), int32(1)
	for i := range fs {
		fl = append(fl, fmt.Sprintf("%#x", math.Float32bits(fs[i])))
		il = append(il, fmt.Sprint(is[i]))
		if a := float32(math.Abs(float64(fs[i]))); a > wantF {
			wantF = a
		}
		wantI *= is[i]
	}
	main := fmt.Sprintf(`#include %q
static const unsigned fbits[%[2]d] = {%[3]s};
static int32_t iv[%[2]d] = {%[4]s};
static float fv[%[2]d];

int main() {
  for (int i = 0; i < %[2]d; i++) memcpy(&fv[i], &fbits[i], 4);
  float fo[1] = {-1};
  int32_t io[1] = {0};
  fold_float32_max_abs(fv, %[2]d, fo, 0.0f);
  fold_int32_wrap_mul(iv, %[2]d, io, 1);
  unsigned b;
  memcpy(&b, &fo[0], 4);
  printf("%%u %%d\n", b, io[0]);
  return 0;
}
`, unit, len(fs), strings.Join(fl, ", "), strings.Join(il, ", "))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(main), 0o644))
	hdr, err := filepath.Abs(filepath.Join("testdata", "host", "hg_host.h"))
	require.NoError(t, err)
	bin := filepath.Join(dir, "f")
	msg, err := exec.Command(cc, "-x", "c++", "-std=c++17", "-O1", "-w", "-include", hdr, "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	out, err := exec.Command(bin).Output()
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%d %d", math.Float32bits(wantF), wantI), strings.TrimSpace(string(out)))
}
