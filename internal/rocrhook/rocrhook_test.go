package rocrhook

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFaultHookSwap(t *testing.T) {
	require.Nil(t, Fault(), "no hook at start")
	errA := errors.New("a")
	prev := SetFaultHook(func(op FaultOp, q any, id uint64) error { return errA })
	assert.Nil(t, prev)
	h := Fault()
	require.NotNil(t, h)
	assert.ErrorIs(t, h(FaultBarrier, nil, 1), errA)
	prev = SetFaultHook(nil)
	require.NotNil(t, prev, "the previous hook comes back")
	assert.ErrorIs(t, prev(FaultDispatch, nil, 2), errA)
	assert.Nil(t, Fault())
	assert.Equal(t, "agent dispatch", FaultAgentDispatch.String())
	assert.Equal(t, "FaultOp(9)", FaultOp(9).String())
}

func TestDebugLogAndCounts(t *testing.T) {
	var got []string
	prev := SetDebugLog(func(l string) { got = append(got, l) })
	DebugLog("one")
	assert.NotNil(t, SetDebugLog(prev))
	assert.Equal(t, []string{"one"}, got)

	assert.Equal(t, 0, LiveAllocations(), "nothing counts before rocr installs its counter")
	CountAllocationsWith(func() int { return 3 })
	assert.Equal(t, 3, LiveAllocations())
	assert.Equal(t, 0, PinnedHostBuffers())
	assert.Equal(t, 0, PendingCallbacks())
}
