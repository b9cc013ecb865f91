package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/clangtool"
	"github.com/hipgo/hipgo/internal/testenv"
)

// helpersSource calls every device helper hipgo.h gives, for every type
// HIP gives it for.
const helpersSource = `#include "hipgo.h"
template <typename T> __device__ void common(T *p, T v) {
  T r = atomicAdd(p, v) + atomicSub(p, v) + atomicExch(p, v) + atomicCAS(p, v, v) +
        atomicMax(p, v) + atomicMin(p, v);
  p[1] = r + min(v, r) + max(v, r);
}
template <typename T> __device__ void integer(T *p, T v) {
  common(p, v);
  p[2] = atomicAnd(p, v) | atomicOr(p, v) | atomicXor(p, v);
}
HIPGO_KERNEL void helpers(int *i, unsigned *u, unsigned long long *ull, long long *ll, float *f, double *d) {
  integer(i, 3);
  integer(u, 3u);
  integer(ull, 3ull);
  ll[0] = atomicMax(ll, 3ll) + atomicMin(ll, 4ll) + min(ll[1], 2ll) + max(ll[1], 2ll);
  common(f, 1.5f);
  common(d, 2.5);
}
`

// hipgo.h has HIP's device helpers (min, max and the atomics), and a
// kernel that uses them compiles for AMDGPU and NVPTX without warnings.
func TestHeaderDeviceHelpers(t *testing.T) {
	t.Parallel()
	clang := testenv.Clang(t, clangtool.LLD)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"-header", filepath.Join(dir, "hipgo.h")}, &stdout, &stderr), stderr.String())
	src := filepath.Join(dir, "helpers.hip")
	require.NoError(t, os.WriteFile(src, []byte(helpersSource), 0o666))
	common := []string{"-O2", "-std=c++17", "-Wall", "-Werror"}
	for _, target := range []struct {
		name string
		args []string
		want []string
	}{
		{"amdgpu", []string{"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib", "--no-gpu-bundle-output", "-S", "-o", "-"},
			// Float adds are compare-and-swap loops unless -munsafe-fp-atomics, as in HIP.
			[]string{"global_atomic_smax", "global_atomic_umin", "global_atomic_cmpswap_x2", "global_atomic_xor_x2", "v_min_f64"}},
		{"nvptx", []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib", "-S", "-o", "-"},
			[]string{"atom.global.add.f32", "atom.global.add.f64", "atom.global.max.s32", "atom.global.min.u64", "atom.global.cas.b32", "atom.global.xor.b64"}},
	} {
		args := append(append(append([]string{}, target.args...), common...), src)
		out, err := exec.Command(clang, args...).CombinedOutput()
		require.NoError(t, err, "%s: %s", target.name, out)
		for _, w := range target.want {
			assert.True(t, strings.Contains(string(out), w), "%s: no %s in the assembly", target.name, w)
		}
	}
}
