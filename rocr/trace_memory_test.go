package rocr_test

import (
	"bytes"
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

// StartTrace records in memory the packets processed until StopTrace, and
// not those after it; WriteTo and WriteFile write the same Chrome trace.
func TestTraceInMemory(t *testing.T) {
	t.Setenv("HIPGO_TRACE", "")
	t.Setenv("HIPGO_DRIVER", "cpu")
	require.NoError(t, rocr.Init())
	defer func() { require.NoError(t, rocr.ShutDown()) }()
	ags, err := rocr.Agents()
	require.NoError(t, err)
	q, err := ags[0].CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	barriers := func(n int) {
		done, err := rocr.NewSignal(int64(n))
		require.NoError(t, err)
		defer done.Destroy()
		for range n {
			var b aql.BarrierAnd
			b.CompletionSignal = done.Handle()
			_, err := q.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
			require.NoError(t, err)
		}
		done.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	}
	tr := rocr.StartTrace()
	barriers(3)
	assert.Same(t, tr, rocr.StopTrace())
	barriers(2) // after StopTrace: not recorded

	var buf bytes.Buffer
	n, err := tr.WriteTo(&buf)
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)
	assert.Equal(t, 3, tracedBarriers(t, buf.Bytes()), "barriers recorded between StartTrace and StopTrace")

	file := filepath.Join(t.TempDir(), "trace.json")
	require.NoError(t, tr.WriteFile(file))
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Len(t, raw, buf.Len(), "WriteFile and WriteTo write different traces")
	assert.Equal(t, 3, tracedBarriers(t, raw), "barriers in WriteFile's trace")
	assert.Error(t, tr.WriteFile(filepath.Join(t.TempDir(), "missing", "trace.json")), "a file that cannot be created")
}

// tracedBarriers is the number of BARRIER_AND events in a Chrome trace.
func tracedBarriers(t *testing.T, raw []byte) int {
	var tr struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	require.NoError(t, json.Unmarshal(raw, &tr), "the trace is not JSON")
	assert.Equal(t, "ns", tr.DisplayTimeUnit)
	n := 0
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" && e.Name == "BARRIER_AND" {
			n++
		}
	}
	return n
}
