package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace as HIPGO_TRACE streams it: kernels, a copy, a barrier and flow
// events, then the metadata that shutdown appends.
const traceFile = `{"displayTimeUnit":"ns","traceEvents":[
{"name":"saxpy","cat":"kernel","ph":"X","ts":10,"dur":4,"pid":0,"tid":1,"args":{"packet":0}},
{"name":"copy","cat":"agent","ph":"X","ts":15,"dur":100,"pid":0,"tid":1},
{"name":"saxpy","cat":"kernel","ph":"X","ts":20,"dur":6,"pid":0,"tid":1},
{"name":"dependency","cat":"flow","ph":"s","ts":26,"pid":0,"tid":1,"id":1},
{"name":"BARRIER_AND","cat":"barrier","ph":"X","ts":27,"dur":1,"pid":0,"tid":2},
{"name":"sgemm","cat":"kernel","ph":"X","ts":30,"dur":50,"pid":0,"tid":2},
{"name":"saxpy","cat":"kernel","ph":"X","ts":90,"dur":5,"pid":0,"tid":1}
,{"name":"process_name","ph":"M","ts":0,"pid":0,"tid":0,"args":{"name":"agent cpu"}}
]}
`

func TestTraceSummary(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "trace.json")
	require.NoError(t, os.WriteFile(file, []byte(traceFile), 0o600))

	code, out, errs := runCmd(t, "trace", file)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	for _, col := range []string{"launches", "total", "mean", "min", "max", "kernel"} {
		assert.Contains(t, lines[0], col)
	}
	assert.Equal(t, []string{"76.9", "1", "50µs", "50µs", "50µs", "50µs", "sgemm"}, strings.Fields(lines[1]))
	assert.Equal(t, []string{"23.1", "3", "15µs", "5µs", "4µs", "6µs", "saxpy"}, strings.Fields(lines[2]))

	code, out, errs = runCmd(t, "trace", "--json", file)
	require.Equal(t, 0, code, errs)
	var ks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &ks))
	require.Len(t, ks, 2)
	assert.Equal(t, "saxpy", ks[1]["kernel"])
	assert.Equal(t, float64(3), ks[1]["launches"])
	assert.Equal(t, float64(15000), ks[1]["total_ns"])

	// A trace cut short, by a program that never shut the runtime down,
	// is read up to where it stops.
	cut := filepath.Join(dir, "cut.json")
	require.NoError(t, os.WriteFile(cut, []byte(traceFile[:strings.Index(traceFile, `{"name":"sgemm"`)]), 0o600))
	code, out, errs = runCmd(t, "trace", cut)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "saxpy")
	assert.NotContains(t, out, "sgemm")

	for _, bad := range [][]string{{"trace"}, {"trace", file, file}} {
		code, _, _ := runCmd(t, bad...)
		assert.Equal(t, 2, code, "%v", bad)
	}
	require.NoError(t, os.WriteFile(cut, []byte(`[1,2]`), 0o600))
	code, _, errs = runCmd(t, "trace", cut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "not a Chrome trace")
	code, _, _ = runCmd(t, "trace", filepath.Join(dir, "none.json"))
	assert.Equal(t, 1, code)
}
