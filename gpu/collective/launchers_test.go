package collective_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/collective"
)

// launcherPrefixes are the variables a launcher or a job script sets; a
// rank's process starts with none of the test's own, then gets those of
// the launcher it runs under.
var launcherPrefixes = []string{
	"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=", "ROLE_", "TORCHELASTIC_", "MASTER_",
	"OMPI_", "PMIX_", "PMI_", "MPI_LOCAL", "SLURM_", "HIPGO_STORE_PORT=", "HIPGO_COLLECTIVE_SECRET",
}

func withoutLaunchers(env []string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, p := range launcherPrefixes {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// A launcher is how one starts n ranks on this host: the variables it
// gives rank r, as the launcher itself sets them, and the rendezvous the
// job script exports (MASTER_ADDR and MASTER_PORT, the secret).
type launcher struct {
	from string // Launch.From for its variables
	env  func(r, n int, port string) []string
	// agentStore: torchrun's agent serves its own store on MASTER_PORT,
	// which the test holds open as torchrun would.
	agentStore bool
}

var launchers = map[string]launcher{
	"torchrun": {from: "torch", agentStore: true, env: func(r, n int, port string) []string {
		// torchrun --standalone --nproc-per-node=n: one node, its agent's
		// store on MASTER_PORT.
		return []string{"RANK=" + strconv.Itoa(r), "WORLD_SIZE=" + strconv.Itoa(n), "LOCAL_RANK=" + strconv.Itoa(r),
			"LOCAL_WORLD_SIZE=" + strconv.Itoa(n), "GROUP_RANK=0", "GROUP_WORLD_SIZE=1", "ROLE_RANK=" + strconv.Itoa(r),
			"ROLE_WORLD_SIZE=" + strconv.Itoa(n), "ROLE_NAME=default", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port,
			"TORCHELASTIC_USE_AGENT_STORE=True", "TORCHELASTIC_RUN_ID=hipgo-test", "TORCHELASTIC_RESTART_COUNT=0",
			"TORCHELASTIC_MAX_RESTARTS=0", "OMP_NUM_THREADS=1"}
	}},
	"openmpi": {from: "openmpi", env: func(r, n int, port string) []string {
		// mpirun -np n -x MASTER_ADDR -x MASTER_PORT -x HIPGO_COLLECTIVE_SECRET (Open MPI 5, PMIx underneath).
		return []string{"OMPI_COMM_WORLD_RANK=" + strconv.Itoa(r), "OMPI_COMM_WORLD_SIZE=" + strconv.Itoa(n),
			"OMPI_COMM_WORLD_LOCAL_RANK=" + strconv.Itoa(r), "OMPI_COMM_WORLD_LOCAL_SIZE=" + strconv.Itoa(n),
			"OMPI_COMM_WORLD_NODE_RANK=" + strconv.Itoa(r), "OMPI_UNIVERSE_SIZE=" + strconv.Itoa(n),
			"PMIX_RANK=" + strconv.Itoa(r), "PMIX_NAMESPACE=prterun-hipgo-1@1",
			"MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "HIPGO_COLLECTIVE_SECRET=job-secret-of-the-openmpi-test"}
	}},
	"mpich": {from: "mpich", env: func(r, n int, port string) []string {
		// mpiexec (Hydra) -n n -genv MASTER_ADDR ... : PMI-1 variables.
		return []string{"PMI_RANK=" + strconv.Itoa(r), "PMI_SIZE=" + strconv.Itoa(n),
			"MPI_LOCALRANKID=" + strconv.Itoa(r), "MPI_LOCALNRANKS=" + strconv.Itoa(n),
			"MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port}
	}},
	"slurm": {from: "slurm", env: func(r, n int, port string) []string {
		// srun --ntasks=n --ntasks-per-node=n inside an sbatch script that
		// exports MASTER_ADDR, MASTER_PORT and the secret.
		return []string{"SLURM_PROCID=" + strconv.Itoa(r), "SLURM_NTASKS=" + strconv.Itoa(n), "SLURM_NPROCS=" + strconv.Itoa(n),
			"SLURM_LOCALID=" + strconv.Itoa(r), "SLURM_NTASKS_PER_NODE=" + strconv.Itoa(n), "SLURM_TASKS_PER_NODE=" + strconv.Itoa(n),
			"SLURM_NODEID=0", "SLURM_NNODES=1", "SLURM_JOB_ID=4242", "SLURM_STEP_ID=0", "SLURM_JOB_NODELIST=localhost",
			"MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "HIPGO_COLLECTIVE_SECRET=job-secret-of-the-slurm-test"}
	}},
}

// TestLaunchers starts two and four ranks, each a process of its own,
// under each launcher's variables as the launcher sets them, over
// loopback; every rank runs the script and checks it.
func TestLaunchers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ranks as processes")
	}
	cpuOnly(t) // one host, a cpu agent per process
	for _, name := range []string{"torchrun", "openmpi", "mpich", "slurm"} {
		for _, n := range []int{2, 4} {
			t.Run(name+"/"+strconv.Itoa(n), func(t *testing.T) { runLaunched(t, launchers[name], n) })
		}
	}
}

// TestLauncherOneCPUAgent is a launcher's smoke test on a machine without
// a GPU as a newcomer runs it: torchrun's two ranks, LOCAL_RANK 0 and 1,
// and the default single cpu agent per process (rank 1 failed, "local
// rank 1, but 1 cpu agents (HIPGO_CPU_AGENTS) and no GPU").
func TestLauncherOneCPUAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ranks as processes")
	}
	cpuOnly(t)
	// A rank that fails leaves the other waiting no longer than this.
	runLaunched(t, launchers["torchrun"], 2, "HIPGO_CPU_AGENTS=1", "HIPGO_COLLECTIVE_TIMEOUT=30s")
}

// runLaunched starts n ranks under l's variables, with extra variables
// after them.
func runLaunched(t *testing.T, l launcher, n int, extra ...string) {
	port := freePort(t)
	if l.agentStore {
		// The agent's store on MASTER_PORT; hipgo's takes the port above,
		// which must be free too.
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		require.NoError(t, err)
		defer ln.Close()
		if probe, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+1)); err != nil {
			t.Skipf("port %d, above the agent store's, is taken: %v", port+1, err)
		} else {
			require.NoError(t, probe.Close())
		}
	}
	base := withoutLaunchers(os.Environ())
	type rank struct {
		cmd  *exec.Cmd
		out  *bytes.Buffer
		done chan error
	}
	var ranks []rank
	for r := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRankProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(append(append([]string{}, base...), l.env(r, n, strconv.Itoa(port))...),
			"HIPGO_COLLECTIVE_CHILD=1", "HIPGO_TEST_LAUNCHER="+l.from)
		cmd.Env = append(cmd.Env, extra...)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		ranks = append(ranks, rank{cmd, out, done})
	}
	deadline := time.After(3 * time.Minute)
	for r, rk := range ranks {
		select {
		case err := <-rk.done:
			assert.NoError(t, err, "rank %d's process:\n%s", r, rk.out)
			assert.Contains(t, rk.out.String(), "--- PASS: TestRankProcess", "rank %d ran the script", r)
		case <-deadline:
			for _, k := range ranks {
				_ = k.cmd.Process.Kill()
			}
			for _, k := range ranks[r:] {
				<-k.done
			}
			t.Fatalf("rank %d's process did not finish:\n%s", r, rk.out)
		}
	}
}

// launchedAs checks, in a rank's process, that its launcher's variables
// are the ones FromEnv read.
func launchedAs(t *testing.T) {
	want := os.Getenv("HIPGO_TEST_LAUNCHER")
	if want == "" {
		return
	}
	l, err := collective.LaunchFromEnv()
	require.NoError(t, err)
	assert.Equal(t, want, l.From)
	if os.Getenv("TORCHELASTIC_USE_AGENT_STORE") == "True" {
		port, _ := strconv.Atoi(os.Getenv("MASTER_PORT"))
		// torchrun itself sets MASTER_ADDR=localhost under --standalone.
		assert.Equal(t, net.JoinHostPort(os.Getenv("MASTER_ADDR"), strconv.Itoa(port+1)), l.Addr, "beside torchrun's agent store")
	}
}
