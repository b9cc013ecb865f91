package goback

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// TestGeneratedBuilds generates kernels whose names clash with what the
// generated Go and C++ use themselves, and builds the result: the Go with
// go build, the C++ with clang-19 where it is present. The generator
// either writes code that builds or refuses naming file:line:col.
func TestGeneratedBuilds(t *testing.T) {
	testenv.GoTool(t)
	cases := []struct {
		name, src string
		refuse    string // a part of the refusal; "" where the output must build
	}{
		{"launcher locals", `
//hipgo:kernel
func K(t kernel.Thread, s, grid, block, sharedMem []float32, ld, checked, err, args int32) {
	if i := t.GlobalX(); i < len(s) {
		s[i] = grid[i] + block[i] + sharedMem[i] + float32(ld+checked+err+args)
	}
}`, ""},
		{"imported packages", `
//hipgo:kernel
func K(t kernel.Thread, gpu, buffer, stream, module []float32, rocr, gokernel, lib int32, int64 uint32) {
	if i := t.GlobalX(); i < len(gpu) {
		gpu[i] = buffer[i] + stream[i] + module[i] + float32(rocr+gokernel+lib) + float32(int64)
	}
}`, ""},
		{"renamed beside its new name", `
//hipgo:kernel
func K(t kernel.Thread, s, s_ []float32) {
	if i := t.GlobalX(); i < len(s) {
		s[i] = s_[i]
	}
}`, ""},
		{"package-level names of the imports", `
var stream, gpu = 1, 2

type buffer struct{ x float32 }

func module() int32 { return 3 }

var hgrocr, rocr, gokernel = 0, 0, 0

//hipgo:kernel
func K(t kernel.Thread, c []float32, v buffer) {
	if i := t.GlobalX(); i < len(c) {
		c[i] = v.x
	}
}`, ""},
		{"letters C++ does not take", `
type véc struct{ ͺ float32 }

func dévice(ͺ float32) float32 { return ͺ }

//hipgo:kernel
func Ďábel(t kernel.Thread, é []float32, ͺ int32, v véc) {
	if i := t.GlobalX(); i < len(é) {
		é[i] = dévice(float32(ͺ)) + v.ͺ
	}
}`, ""},
		{"snake-case kernel alone", `
//hipgo:kernel
func vector_add(t kernel.Thread, c []float32) {
	if i := t.GlobalX(); i < len(c) {
		c[i] = 1
	}
}`, ""},
		{"C++ words", `
type float4 struct{ x, y float32 }

//hipgo:kernel
func Main(t kernel.Thread, float, class []float32, delete int32, v float4) {
	if i := t.GlobalX(); i < len(float) {
		float[i] = class[i] + float32(delete) + v.x
	}
}

//hipgo:kernel
func Float(t kernel.Thread, c []float32) {}

//hipgo:kernel
func Class(t kernel.Thread, c []float32) {}

//hipgo:kernel
func Delete(t kernel.Thread, c []float32) {}`, ""},
		{"C names collide", `
//hipgo:kernel
func vectorAdd(t kernel.Thread, c []float32) {}

//hipgo:kernel
func vector_add(t kernel.Thread, c []float32) {}`, "vector_add"},
		{"C name of a checked entry", `
//hipgo:kernel
func fill(t kernel.Thread, c []float32) {}

//hipgo:kernel
func fill_checked(t kernel.Thread, c []float32) {}`, "fill_checked"},
		{"device function named like an entry", `
func saxpy_checked(x float32) float32 { return x }

//hipgo:kernel
func Saxpy(t kernel.Thread, c []float32) {
	if i := t.GlobalX(); i < len(c) {
		c[i] = saxpy_checked(c[i])
	}
}`, "saxpy_checked"},
	}
	// A flat sum of 300 terms nests past clang's 256 brackets.
	cases = append(cases, struct{ name, src, refuse string }{"deep expression", `
//hipgo:kernel
func K(t kernel.Thread, c []float32) {
	if i := t.GlobalX(); i < len(c) {
		c[i] = c[i]` + strings.Repeat(" + c[i]", 299) + `
	}
}`, "nested past"})
	cases = append(cases, struct{ name, src, refuse string }{"4 GiB of shared memory", `
//hipgo:kernel
func K(t kernel.Thread, c []float32) {
	s := kernel.Shared[[1 << 30]float32](t)
	if i := t.GlobalX(); i < len(c) {
		c[i] = s[i]
	}
}`, "kernel.Shared"})
	cases = append(cases, struct{ name, src, refuse string }{"kernarg fields", `
//hipgo:kernel
func K(t kernel.Thread, x []float32, xLen, hgDynBytes int32) {
	d := kernel.DynamicShared[float32](t)
	if i := t.GlobalX(); i < len(x) && i < len(d) {
		x[i] = float32(xLen + hgDynBytes)
	}
}`, ""})
	cases = append(cases, struct{ name, src, refuse string }{"generated names", `
type kArgs int

func LaunchK() {}

//hipgo:kernel
func K(t kernel.Thread, c []float32) {}`, "kArgs is also the name of kernel K's kernarg layout"})
	cases = append(cases, struct{ name, src, refuse string }{"closure locals", `
type a int32

//hipgo:kernel
func f(t kernel.Thread, c []float32, x a) {
	t.SyncThreads()
}

//hipgo:kernel
func n(t kernel.Thread, c []float32, x a) {}`, "names a local a in its cpu function"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			dir, err := os.MkdirTemp("testdata", "gensafe")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(dir) })
			src := "package p\n\nimport \"github.com/hipgo/hipgo/rocr/kernel\"\n" + c.src + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "k.go"), []byte(src), 0o644))
			res, err := kernelgen.Load(dir)
			cfg := Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "p", Prefix: "Launch", Var: "lib"}
			if err == nil && c.refuse != "" {
				_, err = Generate(cfg, res, nil)
			}
			if c.refuse != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.refuse)
				assert.Regexp(t, `k\.go:\d+:\d+`, err.Error(), "the refusal names file:line:col")
				t.Log(err)
				return
			}
			require.NoError(t, err)
			// hipRTC and NVRTC declare the vector types; clang with
			// -nogpuinc does not, so this is checked apart.
			assert.NotContains(t, res.Source, "struct float4 ")
			code, err := Generate(cfg, res, nil)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "gen"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "gen", "p.cu"), []byte(res.Source), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "kernels_gen.go"), code, 0o644))
			out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput()
			assert.NoError(t, err, "generated Go does not build:\n%s\n%s", out, code)
			compileCpp(t, res.Source)
		})
	}
}

// compileCpp compiles a translation unit for gfx90a with clang-19, where
// clang-19 is present.
func compileCpp(t *testing.T, source string) {
	t.Helper()
	cc, err := exec.LookPath("clang-19")
	if err != nil {
		t.Log("clang-19 is not on PATH: the C++ is not compiled")
		return
	}
	f := filepath.Join(t.TempDir(), "k.hip")
	require.NoError(t, os.WriteFile(f, []byte(source), 0o644))
	out, err := exec.Command(cc, "-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib",
		"-O1", "-S", "-o", os.DevNull, f).CombinedOutput()
	assert.NoError(t, err, "generated C++ does not build:\n%s", strings.TrimSpace(string(out)))
}
