package rocr_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// HIPGO_TRACE streams events to its file as packets complete instead of
// keeping them until ShutDown; the file is a valid Chrome trace at the end.
func TestTraceFileStreams(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace.json")
	t.Setenv("HIPGO_TRACE", file)
	t.Setenv("HIPGO_DRIVER", "cpu")
	require.NoError(t, rocr.Init())
	ags, err := rocr.Agents()
	require.NoError(t, err)
	q, err := ags[0].CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	n := scale(20000)
	done, err := rocr.NewSignal(int64(n))
	require.NoError(t, err)
	for range n {
		var b aql.BarrierAnd
		b.CompletionSignal = done.Handle()
		_, err := q.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
		require.NoError(t, err)
	}
	done.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	assert.Less(t, rocr.TraceBuffered(), 100, "trace events held in memory after %d packets", n)
	st, err := os.Stat(file)
	require.NoError(t, err, "nothing written before ShutDown")
	assert.Greater(t, st.Size(), int64(n), "the file holds less than a byte per packet before ShutDown")
	require.NoError(t, done.Destroy())
	require.NoError(t, rocr.ShutDown())

	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var tr struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
			TID  uint64 `json:"tid"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	require.NoError(t, json.Unmarshal(raw, &tr), "the trace is not JSON")
	assert.Equal(t, "ns", tr.DisplayTimeUnit)
	var barriers, names int
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "X" && e.Name == "BARRIER_AND":
			barriers++
		case e.Ph == "M" && e.Name == "thread_name" && e.TID == q.ID():
			names++
		}
	}
	assert.Equal(t, n, barriers)
	assert.Equal(t, 1, names, "queue name metadata")
}

// A HIPGO_TRACE file that cannot be created fails Init, naming it.
func TestTraceFileUnwritable(t *testing.T) {
	t.Setenv("HIPGO_TRACE", filepath.Join(t.TempDir(), "no", "such", "dir", "trace.json"))
	t.Setenv("HIPGO_DRIVER", "cpu")
	err := rocr.Init()
	if err == nil {
		_ = rocr.ShutDown()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HIPGO_TRACE")
	t.Setenv("HIPGO_TRACE", "")
	require.NoError(t, rocr.Init(), "Init after the failed one")
	require.NoError(t, rocr.ShutDown())
}
