package goback

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// TestFissionPlan checks which kernels with barriers run by loop fission
// and, for the others, the reason they run as coroutines.
func TestFissionPlan(t *testing.T) {
	dir := filepath.Join("testdata", "fission")
	testenv.GoTool(t)
	res, err := kernelgen.Load(dir)
	require.NoError(t, err)
	want := map[string]string{
		"topLevel":            "",
		"uniformLoop":         "",
		"barrierInIf":         "kernels.go:45: barrier inside a if statement (line 44)",
		"nonUniformLoop":      "kernels.go:55: a loop with a barrier whose condition is not uniform across the block",
		"warpOp":              "",
		"returnInLoop":        "kernels.go:77: return inside a loop with a barrier",
		"viaDevice":           "",
		"viaDeviceInIf":       "kernels.go:137: calls step, which synchronizes, inside a statement",
		"viaWarpDevice":       "",
		"viaDeviceNonUniform": "kernels.go:157: calls step, which synchronizes, with an argument that is not uniform across the block",
		"viaDeviceInLoop":     "",
		"nestedLoops":         "",
		"nestedNonUniform":    "kernels.go:124: a loop with a barrier whose condition is not uniform across the block",
		"warpInIf":            "",
		"warpInHeader":        "kernels.go:199: warp operation Any inside a for statement (line 199)",
		"warpInElse":          "kernels.go:209: warp operation ShflDownSync inside a if statement (line 208)",
		"warpBesideCall":      "kernels.go:219: a call evaluated before a warp operation of its statement: half",
		"warpShortCircuit":    "kernels.go:228: warp operation All on the right of &&",
	}
	for i := range res.Kernels {
		k := &res.Kernels[i]
		w, ok := want[k.GoName]
		require.True(t, ok, k.GoName)
		require.True(t, k.Lockstep, k.GoName)
		plan, err := planFission(res, k)
		if w == "" {
			assert.NoError(t, err, k.GoName)
			assert.NotNil(t, plan, k.GoName)
			continue
		}
		if assert.Error(t, err, k.GoName) {
			assert.Equal(t, w, err.Error(), k.GoName)
		}
	}
	// The generated group functions compile as part of the Go side.
	var report bytes.Buffer
	cfg := Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "fission", Prefix: "Launch", Var: "lib", Report: &report}
	src, err := Generate(cfg, res, nil)
	require.NoError(t, err)
	// The report lists each kernel that runs as coroutines, and why.
	listed := strings.Split(strings.TrimSpace(report.String()), "\n")
	var wantListed []string
	for i := range res.Kernels {
		k := &res.Kernels[i]
		if w := want[k.GoName]; w != "" {
			wantListed = append(wantListed, fmt.Sprintf("kernels.go:%d: %s runs as coroutines on the cpu agent: %s", k.Pos.Line, k.GoName, w))
		}
	}
	assert.Equal(t, wantListed, listed)
	assert.Contains(t, string(src), "func topLevelGroup(hgB *kernel.Block, x []float32, n int32) {")
	assert.Contains(t, string(src), "hgDone[hgI] = true")
	assert.Contains(t, string(src), "hgI2[hgI] = t.ThreadIdx().X", "i is kept per work-item under a name of its own")
	assert.Contains(t, string(src), "//line kernels.go:15\n")
	assert.Contains(t, string(src), "func viaDeviceGroup(hgB *kernel.Block, x []float32) {")
	assert.Contains(t, string(src), "//line kernels.go:88\n\thgGroupStep(hgB, x)\n", "a device function that synchronizes runs by its own fission")
	assert.Contains(t, string(src), "func hgGroupStep(hgB *kernel.Block, x []float32) {")
	assert.Contains(t, string(src), "hgGroupStage(hgB, x, s, r)")
	assert.Contains(t, string(src), "//line kernels.go:106\n\t\tfor k := 1; k < steps; k++ {\n\t\t\tfor hgI := 0; hgI < hgN; hgI++ {\n", "the inner loop runs once per group inside the outer one, a stretch per work-item inside it")
	assert.Contains(t, string(src), "hgC0[hgI] = t.ThreadIdx().X < t.WarpSize()\n", "the if's condition is kept per work-item")
	assert.Contains(t, string(src), "\t\t\tif !hgC0[hgI] {\n\t\t\t\tcontinue\n\t\t\t}\n", "nothing synchronizes after the if: the lanes that skip it are gone")
	assert.Contains(t, string(src), "hgW0.Run(hgB, kernelimpl.OpShflDown)\n", "a shuffle of the kernel's top level runs per warp")
	assert.Contains(t, string(src), "\tx[hgI2[hgI]] = hgV[hgI]\n", "the shuffle's result kept across the barrier")
}
