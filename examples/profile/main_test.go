package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/annotate/annotatetest"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestProfile(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	require.NoError(t, run(2))
}

// Under the fake NVTX tool each step is a range around its operations'.
func TestProfileRanges(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	log := annotatetest.AttachNVTX(t, true)
	require.NoError(t, run(1))
	var step []string
	for _, r := range annotatetest.Ranges(t, log.Events(t)) {
		if len(r) >= 6 && r[:6] == "step 0" {
			step = append(step, r)
		}
	}
	assert.Equal(t, []string{
		"step 0 > memcpy host to device",
		"step 0 > memcpy async host to device",
		"step 0 > memset async",
		"step 0 > vector_add",
		"step 0 > graph launch",
		"step 0 > memcpy device to host",
		"step 0",
	}, step)
}
