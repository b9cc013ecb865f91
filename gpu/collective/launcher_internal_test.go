package collective

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

func envOf(s string) func(string) string {
	m := map[string]string{}
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// Each launcher's variables give rank, size and local rank; the store is
// at MASTER_ADDR:MASTER_PORT, one port up under torchrun's agent store.
func TestLaunchFrom(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want Launch
	}{
		{"RANK=1 WORLD_SIZE=4 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.0.0.1 MASTER_PORT=29500",
			Launch{1, 4, 1, 2, "10.0.0.1:29500", "torch"}},
		{"RANK=1 WORLD_SIZE=4 LOCAL_RANK=1 MASTER_ADDR=h MASTER_PORT=29500 TORCHELASTIC_USE_AGENT_STORE=True",
			Launch{1, 4, 1, 0, "h:29501", "torch"}},
		{"RANK=0 WORLD_SIZE=2 MASTER_ADDR=h MASTER_PORT=29500 TORCHELASTIC_USE_AGENT_STORE=True HIPGO_STORE_PORT=4000",
			Launch{0, 2, 0, 0, "h:4000", "torch"}},
		{"OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=3 OMPI_COMM_WORLD_LOCAL_SIZE=4 MASTER_ADDR=::1 MASTER_PORT=7000",
			Launch{3, 8, 3, 4, "[::1]:7000", "openmpi"}},
		{"PMI_RANK=2 PMI_SIZE=3 MPI_LOCALRANKID=0 MASTER_ADDR=h HIPGO_STORE_PORT=7001",
			Launch{2, 3, 0, 0, "h:7001", "mpich"}},
		{"SLURM_PROCID=5 SLURM_NTASKS=6 SLURM_LOCALID=1 SLURM_NTASKS_PER_NODE=2 MASTER_ADDR=node1 MASTER_PORT=7003",
			Launch{5, 6, 1, 2, "node1:7003", "slurm"}},
		// torchrun's variables win over the Slurm allocation it runs in.
		{"RANK=0 WORLD_SIZE=2 SLURM_PROCID=7 SLURM_NTASKS=8 MASTER_ADDR=h MASTER_PORT=1",
			Launch{0, 2, 0, 0, "h:1", "torch"}},
	} {
		got, err := launchFrom(envOf(tc.env))
		require.NoError(t, err, tc.env)
		assert.Equal(t, tc.want, got, tc.env)
	}
}

// Bad or missing variables are errors naming them, never a guess.
func TestLaunchFromErrors(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", "RANK is not set"},
		{"SLURM_PROCID=0", "SLURM_NTASKS is not set"},
		{"RANK=2 WORLD_SIZE=2 MASTER_ADDR=h MASTER_PORT=1", "RANK=2 is not below WORLD_SIZE=2"},
		{"RANK=0 WORLD_SIZE=2 LOCAL_RANK=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=h MASTER_PORT=1", "LOCAL_RANK=2 is not below LOCAL_WORLD_SIZE=2"},
		{"RANK=-1 WORLD_SIZE=2", `RANK="-1"`},
		{"OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=two", `OMPI_COMM_WORLD_SIZE="two"`},
		{"RANK=0 WORLD_SIZE=2 MASTER_ADDR=h", "MASTER_PORT is not set"},
		{"RANK=0 WORLD_SIZE=2 MASTER_ADDR=h MASTER_PORT=70000", "not a TCP port"},
		{"RANK=0 WORLD_SIZE=2 MASTER_ADDR=h MASTER_PORT=1 HIPGO_STORE_PORT=x", `HIPGO_STORE_PORT="x"`},
		{"RANK=0 WORLD_SIZE=2 MASTER_PORT=1", "MASTER_ADDR is not set"},
	} {
		_, err := launchFrom(envOf(tc.env))
		assert.ErrorContains(t, err, tc.want, tc.env)
	}
}

// Without GPUs a rank takes the cpu agent of its local rank, modulo
// their number: ranks are processes, each with cpu agents of its own, so
// LOCAL_RANK=1 on a machine with one cpu agent and no GPU works (it
// failed, "local rank 1, but 1 cpu agents"). Where one GPU is visible (a
// launcher that gives each rank its own), every rank takes it; past
// several GPUs a local rank is an error naming it.
func TestLaunchDevice(t *testing.T) {
	d, err := Launch{LocalRank: 1}.Device()
	require.NoError(t, err)
	if d.Properties().IsCPU {
		assert.Equal(t, 1, d.Ordinal())
	}
	far, err := Launch{LocalRank: 64}.Device()
	switch gpus := VisibleGPUs(t); {
	case gpus == 1:
		require.NoError(t, err)
		assert.Same(t, d, far, "the one visible GPU")
	case gpus > 1:
		assert.ErrorContains(t, err, "local rank 64")
	default:
		require.NoError(t, err, "local rank 64 without GPUs")
		all, err := gpu.Devices()
		require.NoError(t, err)
		assert.Same(t, all[64%len(all)], far, "cpu agent 64 modulo %d", len(all))
	}
}

// VisibleGPUs is the number of GPUs among gpu.Devices, for this package's
// tests inside and outside it.
func VisibleGPUs(t *testing.T) int {
	all, err := gpu.Devices()
	require.NoError(t, err)
	n := 0
	for _, d := range all {
		if !d.Properties().IsCPU {
			n++
		}
	}
	return n
}
