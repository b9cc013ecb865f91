package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nvFixtures holds nvcc's output for rocr/codeobj/testdata/nv/k.cu, or
// HIPGO_NV_DIR where the test binary runs away from its source tree.
var nvFixtures = func() string {
	if d := os.Getenv("HIPGO_NV_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "rocr", "codeobj", "testdata", "nv")
}()

func needFixtures(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(nvFixtures, "k.cubin")); err != nil {
		t.Skipf("NVIDIA fixtures not here (set HIPGO_NV_DIR): %v", err)
	}
}

func TestCodeobjNVIDIA(t *testing.T) {
	needFixtures(t)
	code, out, errs := runCmd(t, "codeobj", filepath.Join(nvFixtures, "k.cubin"), filepath.Join(nvFixtures, "kz.fatbin"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "NVIDIA cubin (ELF), 1 code object(s)")
	assert.Contains(t, out, "NVIDIA fat binary, 2 code object(s)")
	assert.Contains(t, out, "[void scale<float>(float*, float, int)]")
}

func TestCodeobjJSON(t *testing.T) {
	needFixtures(t)
	code, out, errs := runCmd(t, "codeobj", "--json", filepath.Join(nvFixtures, "k.fatbin"))
	require.Equal(t, 0, code, errs)
	var got jsonSpec
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "nv-fatbin", got.Container)
	require.Len(t, got.Objects, 2)
	assert.Equal(t, "cubin", got.Objects[0].Format)
	assert.Equal(t, "cubin sm_90", got.Objects[0].BundleEntry)
	byName := map[string]jsonKernel{}
	for _, k := range got.Objects[0].Kernels {
		byName[k.Name] = k
	}
	assert.Equal(t, "void scale<double>(double*, double, int)", byName["_Z5scaleIdEvPT_S0_i"].Demangled)
	assert.True(t, byName["reverse_dyn"].UsesDynamicShared)
	axpy := byName["axpy"]
	require.Len(t, axpy.Args, 4)
	assert.Equal(t, jsonArg{Name: "axpy_param_3", Type: ".u32", Kind: "by_value", Offset: 24, Size: 4, Align: 4}, axpy.Args[3])
	assert.Equal(t, uint32(28), axpy.KernargSize)

	code, _, _ = runCmd(t, "codeobj", "--json", filepath.Join(nvFixtures, "k.cu"))
	assert.Equal(t, 1, code)
}
