package vendorlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestCandidates(t *testing.T) {
	assert.Equal(t, []string{"libhsa-runtime64.so.1", "/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1", "/opt/rocm/lib/libhsa-runtime64.so.1"},
		ROCm.Candidates(env(map[string]string{"ROCM_PATH": " /opt/rocm-6.2.0 "})))
	assert.Equal(t, []string{"libhsa-runtime64.so.1", "/opt/rocm/lib/libhsa-runtime64.so.1"}, ROCm.Candidates(env(nil)))
	assert.Equal(t, []string{"libcuda.so.1"}, CUDA.Candidates(env(nil)), "cuda is opened by name only")
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

func TestOpenFromReportsEveryPath(t *testing.T) {
	_, _, err := ROCm.OpenFrom([]string{"/nonexistent/a.so", "/nonexistent/b.so"})
	require.Error(t, err)
	assert.ErrorContains(t, err, "/nonexistent/a.so")
	assert.ErrorContains(t, err, "/nonexistent/b.so")
	assert.ErrorContains(t, err, "HIPGO_ROCM_LIBRARY")
}
