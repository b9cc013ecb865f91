package kernelgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// TestUserCompile compiles testdata/user, kernels of the shapes users
// found faults in, with clang-19 for gfx90a, sm_80 and sm_90, warnings
// as errors, as hipgo-gen compiles them.
func TestUserCompile(t *testing.T) {
	cc, err := clang()
	testenv.Require(t, "clang", err)
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "user"))
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "user.cu")
	require.NoError(t, os.WriteFile(src, []byte(r.Source), 0o644))
	if p := os.Getenv("KERNELGEN_DUMP"); p != "" {
		require.NoError(t, os.WriteFile(p, []byte(r.Source), 0o644))
	}
	for name, flags := range map[string][]string{
		"gfx90a": {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib"},
		"sm_80":  {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx78"},
		"sm_90":  {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx78"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{}, flags...), "-O3", "-std=c++17", "-Wall", "-Werror", "-S", "-o", filepath.Join(dir, name+".s"), src)
			msg, err := exec.Command(cc, args...).CombinedOutput()
			require.NoError(t, err, "%s", msg)
		})
	}
}

// TestUserHostRun runs testdata/user's Rows, a 2-D shared array, as the
// emitted C++ compiled for the host by clang-19 (testdata/host/hg_host.h),
// one work-item at a time, unchecked and checked: a row out of range
// records Go's index fault and its write goes to the scratch cell, the
// array keeps its values.
func TestUserHostRun(t *testing.T) {
	cc, err := clang()
	testenv.Require(t, "clang", err)
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "user"))
	require.NoError(t, err)
	const n = 8
	dir := t.TempDir()
	main := fmt.Sprintf(`#include %q
static uint32_t out[%[2]d];

int main() {
  blockDim.x = %[2]d;
  for (unsigned i = 0; i < %[2]d; i++) {
    threadIdx.x = i;
    rows(out, 3);
    printf("%%u\n", out[i]);
  }
  static const long long rowsOf[] = {3, 16, -1};
  for (long long row : rowsOf) {
    hg_fault f = {};
    threadIdx.x = 5;
    rows_checked(out, row, %[2]d, &f);
    printf("%%u fault %%u %%u %%lld %%lld\n", out[5], f.kind, f.line, f.index, f.len);
  }
  return 0;
}
`, filepath.Join(dir, "unit.cu"), n)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unit.cu"), []byte(r.Source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(main), 0o644))
	hdr, err := filepath.Abs(filepath.Join("testdata", "host", "hg_host.h"))
	require.NoError(t, err)
	bin := filepath.Join(dir, "u")
	msg, err := exec.Command(cc, "-x", "c++", "-std=c++17", "-O1", "-w", "-include", hdr, "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	out, err := exec.Command(bin).Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, n+3)
	for i := 0; i < n; i++ {
		assert.Equal(t, fmt.Sprint(120000+16*i+7), lines[i], "work-item %d", i)
	}
	assert.Equal(t, fmt.Sprintf("%d fault 0 0 0 0", 120000+16*5+7), lines[n])
	assert.Equal(t, fmt.Sprintf("%d fault 1 61 16 16", 120000+16*5), lines[n+1], "row 16 of 16 at user.go:61")
	assert.Equal(t, fmt.Sprintf("%d fault 1 61 -1 16", 120000+16*5), lines[n+2], "row -1 of 16 at user.go:61")
}
