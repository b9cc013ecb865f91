package kernelgen

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen/internal/libsrc/body"
	"github.com/hipgo/hipgo/internal/testenv"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/inst/inst.golden")

// The calls of testdata/inst give one kernel per library function used
// and one instance per (functor, types), registered at init; the file is
// the golden one, and its overlay (no init) has the same lines.
func TestInstancesGolden(t *testing.T) {
	testenv.GoTool(t)
	dir := filepath.Join("testdata", "inst")
	in, err := Options{}.Instances(dir)
	require.NoError(t, err)
	require.NotNil(t, in.File)
	golden := filepath.Join(dir, "inst.golden")
	if *updateGolden {
		require.NoError(t, os.WriteFile(golden, in.File, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(in.File))
	assert.Equal(t, bytes.Count(in.File, []byte("\n")), bytes.Count(in.Overlay, []byte("\n")), "the overlay keeps the file's lines")
	assert.NotContains(t, string(in.Overlay), "Register")
	for _, want := range []string{
		"//hipgo:instantiate F=scale2 R=float32 X1=float32\n",
		"//hipgo:instantiate F=lerp R=float64 X1=float64 X2=float64 X3=float32\n",
		"//hipgo:instantiate F=bitOr T=uint32\n",
		"array.RegisterMap1[scale2, float32, float32](launchhipgoMap1Scale2Float32Float32)",
		"prim.RegisterReduceWith[bitOr, uint32](launchhipgoReduceBitOrUint32)",
		"//hipgo:instantiate F=bitOr T=uint32\nfunc hipgoScan[",
		"prim.RegisterScanWith[bitOr, uint32](launchhipgoScanBitOrUint32)",
		"//hipgo:instantiate F=byLow K=int16\nfunc hipgoMergeBlock[",
		"//hipgo:instantiate F=byLow K=int16\nfunc hipgoMergePass[",
		"prim.RegisterMergeSortWith[byLow, int16](launchhipgoMergeBlockByLowInt16, launchhipgoMergePassByLowInt16)",
		primWithSrc,
	} {
		assert.Contains(t, string(in.File), want)
	}
	assert.Equal(t, 1, bytes.Count(in.File, []byte("F=scale2")), "one instance per (functor, types)")
	assert.Equal(t, 1, bytes.Count(in.File, []byte("RegisterScanWith")), "one scan instance for the inclusive and exclusive calls")
	assert.Equal(t, 1, bytes.Count(in.File, []byte("RegisterMergeSortWith")), "one merge instance for keys and pairs")
	assert.NotContains(t, string(in.File), "hipgoMap2", "no kernel for a function not called")
}

// The kernels translate with the package's own: each instance an entry
// point whose C++ calls the functor's Apply.
func TestInstancesTranslate(t *testing.T) {
	testenv.GoTool(t)
	// A copy in the module (testdata/inst-*), where WriteInstances may
	// write.
	dir, err := os.MkdirTemp("testdata", "inst-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	src, err := os.ReadFile(filepath.Join("testdata", "inst", "inst.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inst.go"), src, 0o644))
	opts, err := Options{}.WriteInstances(dir, "kernels_gen.go")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, InstFile))
	require.NoError(t, err)
	r, err := opts.Load(dir, "kernels_gen.go")
	require.NoError(t, err)
	var names []string
	for _, k := range r.Kernels {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"hipgo_map1_scale2_float32_float32", "hipgo_map3_lerp_float64_float64_float64_float32", "hipgo_reduce_bit_or_uint32", "hipgo_scan_bit_or_uint32", "hipgo_merge_block_by_low_int16", "hipgo_merge_pass_by_low_int16"}, names)
	for _, want := range []string{
		"hg_m_Apply<Checked>(op, ",
		"template <bool Checked> HG_DEV float hg_m_Apply(scale2 o, float x, hg_fault* hg_f);",
		"hg_m_Identity<Checked>(",
		"hg_m_Less<Checked>(",
	} {
		assert.Contains(t, r.Source, want)
	}
	// Without the calls, a second run removes the file it wrote.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inst.go"), []byte("package inst\n"), 0o644))
	_, err = Options{}.WriteInstances(dir, "kernels_gen.go")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, InstFile))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// Operations the generator refuses are errors at the call's operand,
// file:line:col, saying why; a good call beside them is no error.
func TestInstancesRefused(t *testing.T) {
	testenv.GoTool(t)
	_, err := Options{}.Instances(filepath.Join("testdata", "badinst"))
	require.Error(t, err)
	var list ErrorList
	require.True(t, errors.As(err, &list), "%v", err)
	require.Len(t, list, 4, "%v", err)
	for i, want := range []struct {
		line, col int
		text      string
	}{
		{20, 20, "withField has fields"},
		{21, 20, "notStruct is not a struct type"},
		{22, 20, "local is declared inside a function ("},
		{23, 20, "func literal as Map2's operation"},
	} {
		e := list[i]
		assert.Equal(t, "badinst.go", filepath.Base(e.Pos.Filename))
		assert.Equal(t, want.line, e.Pos.Line, "%v", e)
		assert.Equal(t, want.col, e.Pos.Column, "%v", e)
		assert.Contains(t, e.Error(), want.text)
	}
}

// libsrc_gen.go is gpu/prim/with_device.go after its imports, as go
// generate writes it: the kernels a calling package gets are the ones the
// library's cpu agent runs and tests.
func TestLibSrcUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "gpu", "prim", "with_device.go")
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	text, err := body.Of(path, src)
	require.NoError(t, err)
	assert.Equal(t, string(text), primWithSrc, "run go generate in internal/kernelgen")
}
