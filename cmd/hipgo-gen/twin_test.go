package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twinSource = "#include \"hipgo.h\"\nHIPGO_KERNEL void box3(const float *in, float *out, int w, int h, unsigned n) {}\n"

// twinGo is a package whose Go twin of box3 has fields as given.
func twinGo(fields string) string {
	return `package p

import (
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type box3Args struct {
` + fields + `
}

var cpuKernels = kernel.NewSet("box", kernel.Define("box3", func(g *kernel.Block, a *box3Args) {}))
`
}

// The Go twin of a C++ kernel is checked against its C declaration when
// the launchers are generated, not at launch or at start-up.
func TestTwinCheckedAtGenerate(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("k.hip", []byte(twinSource), 0o666))
	require.NoError(t, os.WriteFile("hipgo.h", hipgoH, 0o666))
	gen := func(fields string) error {
		require.NoError(t, os.WriteFile("cpu.go", []byte(twinGo(fields)), 0o666))
		var stdout, stderr bytes.Buffer
		return run([]string{"-src", "k.hip", "-cpu", "cpuKernels", "-pkg", "p", "-o", "launch_gen.go"}, &stdout, &stderr)
	}
	require.NoError(t, gen("In rocr.ConstPtr[float32]\nOut rocr.Ptr[float32]\nW, H int32\nN uint32"))
	for _, c := range []struct{ fields, want string }{
		{"In rocr.ConstPtr[float32]\nOut rocr.Ptr[float32]\nW int\nH int32\nN uint32",
			"field W has type int, whose size is the platform's; parameter 2 is int: declare it int32"},
		{"In rocr.ConstPtr[float32]\nOut rocr.Ptr[float32]\nW, H int32",
			"box3Args has 4 fields, box3 has 5 parameters"},
		{"In rocr.ConstPtr[float32]\nOut rocr.Ptr[float64]\nW, H int32\nN uint32",
			"field Out points to float64; parameter 1 is float *: declare it rocr.Ptr[float32]"},
		{"In rocr.ConstPtr[float32]\nOut rocr.ConstPtr[float32]\nW, H int32\nN uint32",
			"field Out is a rocr.ConstPtr, a read, but parameter 1 is float *"},
		{"In rocr.ConstPtr[float32]\nOut rocr.Ptr[float32]\nW, H int32\nN int32",
			"field N has type int32; parameter 4 is unsigned: declare it uint32"},
		{"In float32\nOut rocr.Ptr[float32]\nW, H int32\nN uint32",
			"field In has type float32; parameter 0 is the pointer const float *: declare it rocr.ConstPtr[float32]"},
	} {
		err := gen(c.fields)
		if assert.Error(t, err, c.fields) {
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "cpu.go:")
			assert.Contains(t, err.Error(), "k.hip:2")
		}
	}
}
