package vendorlib

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeEnv is an environment and a file system of listed files.
type fakeEnv struct {
	vars  map[string]string
	files []string
}

func (f fakeEnv) LookupEnv(k string) (string, bool) { v, ok := f.vars[k]; return v, ok }
func (f fakeEnv) Exists(p string) bool              { return slices.Contains(f.files, p) }
func (f fakeEnv) Glob(pattern string) []string {
	var out []string
	for _, p := range f.files {
		// A directory pattern matches the directories of the files.
		for d := p; d != "/"; d = path.Dir(d) {
			if ok, _ := path.Match(pattern, d); ok && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

func env(m map[string]string) fakeEnv { return fakeEnv{vars: m} }

func TestCandidates(t *testing.T) {
	assert.Equal(t, []string{"libhsa-runtime64.so.1", "/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1", "/opt/rocm/lib/libhsa-runtime64.so.1"},
		ROCm.Candidates(env(map[string]string{"ROCM_PATH": " /opt/rocm-6.2.0 "})))
	assert.Equal(t, []string{"libhsa-runtime64.so.1", "/opt/rocm/lib/libhsa-runtime64.so.1"}, ROCm.Candidates(env(nil)))
	assert.Equal(t, []string{"libcuda.so.1"}, CUDA.Candidates(env(nil)), "cuda is opened by name only")
	assert.Equal(t, []string{"librccl.so.1"}, RCCL.Candidates(env(nil)))
}

func TestOverrideAndAliases(t *testing.T) {
	p, from, ok := ROCm.Override(env(map[string]string{"HIPGO_ROCM_LIB": "/x/old.so"}))
	require.True(t, ok, "the old variable name still works")
	assert.Equal(t, "/x/old.so", p)
	assert.Equal(t, "HIPGO_ROCM_LIB", from)

	p, from, _ = ROCm.Override(env(map[string]string{"HIPGO_ROCM_LIB": "/x/old.so", "HIPGO_ROCM_LIBRARY": "/x/new.so"}))
	assert.Equal(t, "/x/new.so", p, "the current name wins")
	assert.Equal(t, "HIPGO_ROCM_LIBRARY", from)
	assert.Equal(t, []string{"/x/new.so"}, ROCm.Candidates(env(map[string]string{"HIPGO_ROCM_LIBRARY": "/x/new.so"})))

	_, _, ok = CUDA.Override(env(map[string]string{"HIPGO_CUDA_LIBRARY": "  "}))
	assert.False(t, ok, "a blank override is no override")
}

// The override alone is tried, even where the library is installed.
func TestOverrideWins(t *testing.T) {
	files := []string{"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libcublas.so.13",
		"/usr/lib/x86_64-linux-gnu/libnccl.so.2", "/opt/rocm/lib/libhiprtc.so.6"}
	for _, l := range All {
		e := fakeEnv{vars: map[string]string{l.Env: "/my/" + l.Name}, files: files}
		assert.Equal(t, []string{"/my/" + l.Name}, l.Candidates(e), l.Env)
	}
}

// The search order of the libraries looked for in many places, on a fake
// file system.
func TestSearchOrder(t *testing.T) {
	e := fakeEnv{
		vars: map[string]string{"CUDA_HOME": "/opt/cuda", "LD_LIBRARY_PATH": "/ld::/ld2"},
		files: []string{
			"/opt/cuda/lib64/libnvrtc.so.12",
			"/usr/local/cuda-12.4/lib64/libnvrtc.so.12.4.99",
			"/usr/local/cuda-13.0/lib64/libnvrtc.so.13.0.88",
			"/usr/local/cuda-13.0/lib64/libnvrtc.so.13",
			"/ld2/libnvrtc.so",
		},
	}
	assert.Equal(t, []string{
		// Known names in each directory, the toolkit's own first.
		"/opt/cuda/lib64/libnvrtc.so.12",
		"/usr/local/cuda-13.0/lib64/libnvrtc.so.13",
		"/ld2/libnvrtc.so",
		// Then any version there, highest first.
		"/usr/local/cuda-13.0/lib64/libnvrtc.so.13.0.88",
		"/usr/local/cuda-12.4/lib64/libnvrtc.so.12.4.99",
		// Then the loader.
		"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
	}, NVRTC.Candidates(e))

	e = fakeEnv{files: []string{"/usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2"}}
	assert.Equal(t, []string{"libnccl.so.2", "libnccl.so", "/usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2"},
		NCCL.Candidates(e), "the loader first, then pip's copy")

	e = fakeEnv{files: []string{"/usr/local/cuda-12/lib64/libcublas.so.12"}}
	assert.Equal(t, []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda-12/lib64/libcublas.so.12"}, CuBLAS.Candidates(e))
}

func TestOpenFromReportsEveryPath(t *testing.T) {
	_, err := ROCm.OpenFrom([]string{"/nonexistent/a.so", "/nonexistent/b.so"})
	require.Error(t, err)
	assert.ErrorContains(t, err, "/nonexistent/a.so")
	assert.ErrorContains(t, err, "/nonexistent/b.so")
	assert.ErrorContains(t, err, "HIPGO_ROCM_LIBRARY")
}

// A missing library's error names every candidate of its search.
func TestMissingListsCandidates(t *testing.T) {
	t.Setenv("LD_LIBRARY_PATH", "")
	t.Setenv("CUDA_PATH", "")
	t.Setenv("CUDA_HOME", "")
	l := *NVRTC
	l.Name, l.Names, l.Patterns = "libhipgo-absent.so.9", []string{"libhipgo-absent.so"}, nil
	_, err := l.Open()
	require.Error(t, err)
	for _, c := range l.Candidates(OS) {
		assert.ErrorContains(t, err, c)
	}
	assert.ErrorContains(t, err, "libhipgo-absent.so.9")
	assert.ErrorContains(t, err, "HIPGO_NVRTC_LIBRARY")
	assert.ErrorContains(t, err, l.Hint)
}

// A library without the probe symbol is passed over, and the error says
// why.
func TestProbe(t *testing.T) {
	l := Library{Name: "libc.so.6", Env: "HIPGO_TEST_LIBRARY", Probe: "hipgoNoSuchSymbol"}
	_, err := l.Open()
	require.Error(t, err)
	assert.ErrorContains(t, err, "libc.so.6 (has no hipgoNoSuchSymbol)")

	l.Probe = "strlen"
	h, err := l.Open()
	require.NoError(t, err)
	assert.Equal(t, "libc.so.6", h.Path)
	var strlen, absent uintptr
	assert.Equal(t, []string{"hipgoAbsent"}, h.Bind(
		Symbol{P: &strlen, Names: []string{"hipgoAbsent2", "strlen"}},
		Symbol{P: &absent, Names: []string{"hipgoAbsent"}},
		Symbol{P: &absent, Names: []string{"hipgoOptional"}, Optional: true}))
	assert.NotZero(t, strlen, "the second name is taken when the first is absent")
}

// Every vendor library is in the table, once, with its override
// variable.
func TestTableHasEveryLibrary(t *testing.T) {
	want := map[string]string{
		"HIPGO_CUDA_LIBRARY": "libcuda.so.1", "HIPGO_ROCM_LIBRARY": "libhsa-runtime64.so.1",
		"HIPGO_NVRTC_LIBRARY": "libnvrtc.so.13", "HIPGO_HIPRTC_LIBRARY": "libhiprtc.so.7",
		"HIPGO_CUBLAS_LIBRARY": "libcublas.so.13", "HIPGO_CUFFT_LIBRARY": "libcufft.so.12", "HIPGO_NCCL_LIBRARY": "libnccl.so.2",
		"HIPGO_HIP_LIBRARY": "libamdhip64.so", "HIPGO_ROCBLAS_LIBRARY": "librocblas.so",
		"HIPGO_ROCFFT_LIBRARY": "librocfft.so.0",
		"HIPGO_RCCL_LIBRARY":   "librccl.so.1", "HIPGO_ROCTX_LIBRARY": "librocprofiler-sdk-roctx.so.1",
	}
	got := map[string]string{}
	for _, l := range All {
		require.NotEmpty(t, l.Hint, l.Name)
		assert.True(t, strings.HasPrefix(l.Env, "HIPGO_") && strings.HasSuffix(l.Env, "_LIBRARY"), l.Env)
		_, dup := got[l.Env]
		assert.False(t, dup, "%s twice", l.Env)
		got[l.Env] = l.Name
	}
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"HIPGO_ROCM_LIBRARY", "HIPGO_ROCM_LIB"}, ROCm.Vars())
}

// The injection library is the path the profiler gives, and nothing
// else.
func TestNVTXInjectionCandidates(t *testing.T) {
	_, _, ok := NVTXInjection.Override(env(nil))
	assert.False(t, ok, "no profiler, no injection library")
	assert.Equal(t, []string{"/nsys/libToolsInjection64.so"},
		NVTXInjection.Candidates(env(map[string]string{"NVTX_INJECTION64_PATH": "/nsys/libToolsInjection64.so"})))
	assert.Equal(t, []string{"librocprofiler-sdk-roctx.so.1", "librocprofiler-sdk-roctx.so", "libroctx64.so.4", "libroctx64.so"},
		ROCTX.Candidates(env(nil)), "rocprofiler-sdk's roctx before roctracer's; /opt/rocm/lib only where it has them")
}

func TestCompareVersions(t *testing.T) {
	assert.Positive(t, CompareVersions("libnvrtc.so.13.0.88", "libnvrtc.so.12.9.1"))
	assert.Positive(t, CompareVersions("libnvrtc.so.13.0.88", "libnvrtc.so.13"))
	assert.Negative(t, CompareVersions("/usr/local/cuda-12.4/lib64", "/usr/local/cuda-13.0/lib64"))
	assert.Zero(t, CompareVersions("a", "a"))
}
