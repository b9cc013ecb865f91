package goback

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// TestGoSideABI checks that the launchers and cpu layouts pass what the
// C++ entry points take (kernelgen's doc): bare pointers, in-place
// lengths, hg_dyn_bytes in the plain layout only where its length is
// read, and the checked extras in order.
func TestGoSideABI(t *testing.T) {
	dir := filepath.Join("..", "testdata", "k")
	testenv.GoTool(t)
	res, err := kernelgen.Load(dir)
	require.NoError(t, err)
	cfg := Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "k", Prefix: "Launch", Var: "lib"}
	b, err := Generate(cfg, res, nil)
	require.NoError(t, err)
	src := string(b)
	for _, want := range []string{
		// vec_add_n(const float* a_p, const float* b_p, float* c_p, int32_t n)
		"type vecAddNArgs struct {\n\ta rocr.ConstPtr[float32]\n\tb rocr.ConstPtr[float32]\n\tc rocr.Ptr[float32]\n\tn int32\n}",
		"\targs.ConstPtr(a).ConstPtr(b).Ptr(c).Int32(n)\n\tif checked {\n\t\t// The checked entry point's trailing arguments.\n\t\targs.Int64(int64(a.Len())).Int64(int64(b.Len())).Int64(int64(c.Len()))\n\t}\n",
		"kernelimpl.ConstViewRest(b, a.a)",
		// reduce_dyn(const float* in_p, float* out_p, int32_t n), the
		// checked one with hg_dyn_bytes then in_n, out_n.
		"type reduceDynArgs struct {\n\tin  rocr.ConstPtr[float32]\n\tout rocr.Ptr[float32]\n\tn   int32\n}",
		"\targs.ConstPtr(in).Ptr(out).Int32(n)\n\tif checked {\n\t\t// The checked entry point's trailing arguments.\n\t\targs.Uint32(uint32(sharedMem)).Int64(int64(in.Len())).Int64(int64(out.Len()))\n\t}\n",
		// reduce_dyn_len(const float* in_p, float* out_p, unsigned int hg_dyn_bytes)
		"type reduceDynLenArgs struct {\n\tin         rocr.ConstPtr[float32]\n\tout        rocr.Ptr[float32]\n\thgDynBytes uint32\n}",
		"\targs.ConstPtr(in).Ptr(out).Uint32(uint32(sharedMem))\n\tif checked {\n\t\t// The checked entry point's trailing arguments.\n\t\targs.Int64(int64(in.Len())).Int64(int64(out.Len()))\n\t}\n",
		// sums: a, d and e carry their lengths in place.
		"\targs.ConstPtr(a).Int64(int64(a.Len())).ConstPtr(b).ConstPtr(c).ConstPtr(d).Int64(int64(d.Len())).ConstPtr(e).Int64(int64(e.Len())).Ptr(out)\n\tif checked {\n\t\t// The checked entry point's trailing arguments.\n\t\targs.Int64(int64(b.Len())).Int64(int64(c.Len())).Int64(int64(out.Len()))\n\t}\n",
	} {
		assert.Contains(t, src, want)
	}
}
