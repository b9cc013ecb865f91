package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// Four cpu agents, read when the runtime opens.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu"), testenv.Setenv("HIPGO_CPU_AGENTS", "4"))
}

func TestAllReduce(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out), out.String())
	assert.Contains(t, out.String(), "4 devices (cpu)")
	assert.Contains(t, out.String(), "device 3: w = [0.5000 -1.2500 2.0000 0.7500]")
	assert.Contains(t, out.String(), "replicas agree")
}
