package goback

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// The committed code objects of a package of Go kernels match what its Go
// side passes, for both entry points of every kernel; a Go side that
// passed one length too few would be caught before it reached a GPU.
func TestGoObjectsMatchGoSide(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "benchmarks", "gokernels")
	testenv.GoTool(t)
	res, err := kernelgen.Load(dir, "kernels_gen.go")
	require.NoError(t, err)
	objs := []string{"gokernels.hipfb", "gokernels_sm90.ptx", "gokernels_sm80.ptx"}
	gen := filepath.Join(dir, "gen")
	require.NoError(t, CheckObjects(res, gen, objs))

	for i, k := range res.Kernels {
		if k.GoName != "vectorAdd" {
			continue
		}
		for j, p := range k.Params {
			if p.Kind == kernelgen.Slice && !p.Len {
				res.Kernels[i].Params[j].Len = true // the Go side would pass a length the C++ does not take
				err := CheckObjects(res, gen, objs)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "vector_add takes")
				return
			}
		}
	}
	t.Fatal("no bare slice in vectorAdd to perturb")
}
