package goback

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// functorRun launches the functor kernels of kernelgen's testdata/functor
// on the cpu agent through their generated launchers and checks them
// against plain Go.
const functorRun = `package functor

import (
	"os"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

func TestMain(m *testing.M) {
	if os.Getenv("HIPGO_DRIVER") == "" {
		os.Setenv("HIPGO_DRIVER", "cpu")
	}
	os.Exit(m.Run())
}

func TestFold(t *testing.T) {
	dev, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Shutdown()
	s, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	fs := []float32{1.5, -7.25, 3, -0.5, 6.75, -7.5, 2}
	is := []int32{3, -5, 7, 11, 13, 1 << 20, -17}
	fin, _ := buffer.FromSlice(dev, fs)
	fout, _ := buffer.New[float32](dev, 1)
	iin, _ := buffer.FromSlice(dev, is)
	iout, _ := buffer.New[int32](dev, 1)
	if err := LaunchFold[float32, maxAbs](s, gpu.D1(1), gpu.D1(1), 0, fin, fout, 0); err != nil {
		t.Fatal(err)
	}
	if err := LaunchFold[int32, wrapMul](s, gpu.D1(1), gpu.D1(1), 0, iin, iout, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	var m maxAbs
	var w wrapMul
	wantF, wantI := float32(0), int32(1)
	for i := range fs {
		wantF, wantI = m.Apply(wantF, fs[i]), w.Apply(wantI, is[i])
	}
	gotF, _ := fout.ToSlice()
	gotI, _ := iout.ToSlice()
	if gotF[0] != wantF || gotI[0] != wantI {
		t.Fatalf("got %v %v, want %v %v", gotF[0], gotI[0], wantF, wantI)
	}
}
`

// A generic kernel over a functor type (kernelgen's testdata/functor)
// gets a Go side whose generic launcher takes the functor as a type
// argument, and runs on the cpu agent as plain Go computes it.
func TestFunctorOnCPU(t *testing.T) {
	testenv.GoTool(t)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "functor")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	src, err := os.ReadFile(filepath.Join("..", "testdata", "functor", "functor.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "functor.go"), src, 0o644))
	cfg := Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "functor", Prefix: "Launch", Var: "lib"}
	res, err := kernelgen.Options{Prefix: cfg.Prefix}.Load(dir, cfg.Out)
	require.NoError(t, err)
	code, err := Generate(cfg, res, nil)
	require.NoError(t, err)
	assert.Contains(t, string(code), "func LaunchFold[T foldTTypes, O foldOTypes](")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "gen"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gen", "functor.cu"), []byte(res.Source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kernels_gen.go"), code, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run_test.go"), []byte(functorRun), 0o644))
	out, err := exec.Command("go", "test", "-count=1", "./"+filepath.ToSlash(dir)).CombinedOutput()
	assert.NoError(t, err, "%s\n%s", out, code)
}
