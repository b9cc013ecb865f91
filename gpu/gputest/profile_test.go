package gputest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gputest"
)

// Profile sums each kernel's launches and times, and logs the table.
func TestProfile(t *testing.T) {
	s, launch := sleeper(t, 2000)
	r := newRecorder(t, "TestProfiled")
	ks := gputest.Profile(r, func() {
		for range 3 {
			require.NoError(t, launch())
		}
		require.NoError(t, s.Synchronize())
	})
	require.Len(t, ks, 1)
	k := ks[0]
	assert.Equal(t, "gputest_sleep", k.Name)
	assert.Equal(t, 3, k.Launches)
	assert.GreaterOrEqual(t, k.Min, 2*time.Millisecond)
	assert.LessOrEqual(t, k.Min, k.Mean())
	assert.LessOrEqual(t, k.Mean(), k.Max)
	assert.Equal(t, k.Total, k.Mean()*3+k.Total%3)
	if assert.Len(t, r.logs, 1) {
		t.Log(r.logs[0])
		for _, col := range []string{"launches", "total", "mean", "min", "max", "kernel", "gputest_sleep"} {
			assert.Contains(t, r.logs[0], col)
		}
	}

	// After Stop nothing is collected.
	again := gputest.Profile(r, func() {})
	assert.Empty(t, again)
}
