package collective_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A second process is this test binary again, running TestRankProcess as
// rank 1 (HIPGO_COLLECTIVE_CHILD=1), meeting rank 0 through FromEnv's
// store. Both run the script and check it against the same expectation
// as the one-process test.

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// scriptAsRank joins through FromEnv and runs the script for two element
// types.
func scriptAsRank(t *testing.T) {
	c, err := collective.FromEnv()
	skipUnsupported(t, err)
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Destroy()) }()
	s, err := stream.New(c.Device())
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	checkScript(t, c.Size(), c.Rank(), script[float32](t, c, s))
	checkScript(t, c.Size(), c.Rank(), script[int64](t, c, s))
}

func TestRankProcess(t *testing.T) {
	if os.Getenv("HIPGO_COLLECTIVE_CHILD") != "1" {
		t.Skip("runs as another process's rank (TestTwoProcesses and TestLaunchers start it)")
	}
	t.Cleanup(func() { _ = gpu.Shutdown() }) // the process's leak check follows
	launchedAs(t)
	scriptAsRank(t)
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	newDevs(t, 2) // rank 1 runs on device 1
	port := strconv.Itoa(freePort(t))
	env := map[string]string{"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "WORLD_SIZE": "2", "NCCL_NVLS_ENABLE": "0"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Setenv("RANK", "0")
	t.Setenv("LOCAL_RANK", "0")
	child := exec.Command(os.Args[0], "-test.run=^TestRankProcess$", "-test.count=1", "-test.v")
	child.Env = append(os.Environ(), "RANK=1", "LOCAL_RANK=1", "HIPGO_COLLECTIVE_CHILD=1")
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	require.NoError(t, child.Start())
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	within(t, 2*time.Minute, "rank 0", func() { scriptAsRank(t) })
	select {
	case err := <-done:
		assert.NoError(t, err, "rank 1's process:\n%s", out.String())
		assert.Contains(t, out.String(), "--- PASS: TestRankProcess", "rank 1 ran the script")
	case <-time.After(2 * time.Minute):
		_ = child.Process.Kill()
		t.Fatalf("rank 1's process did not finish:\n%s", out.String())
	}
}

// Ranks in one process may also meet through an ID, over TCP.
func TestNewRankOverTCP(t *testing.T) {
	for n := 2; n <= 3; n++ {
		t.Run(fmt.Sprint(n, " ranks"), func(t *testing.T) {
			devs := newDevs(t, n)
			if driver() != "cpu" {
				_, err := collective.NewID(devs[0])
				skipUnsupported(t, err)
			}
			st, err := collective.NewStore("127.0.0.1:"+strconv.Itoa(freePort(t)), true)
			require.NoError(t, err)
			defer st.Close()
			got := make([]map[string][]float64, n)
			within(t, time.Minute, "the script", func() {
				parallel(n, func(r int) {
					c, err := collective.Join(devs[r], st.Key("id"), r, n)
					if !assert.NoError(t, err) {
						return
					}
					defer func() { assert.NoError(t, c.Destroy()) }()
					s, err := stream.New(devs[r])
					if !assert.NoError(t, err) {
						return
					}
					defer s.Destroy()
					got[r] = script[float64](t, c, s)
				})
			})
			for r := range n {
				checkScript(t, n, r, got[r])
			}
		})
	}
}

// tcpRanks joins n ranks in this process through the TCP path.
func tcpRanks(t *testing.T, n int) (*ranks, []*gpu.Device) {
	devs := newDevs(t, n)
	st, err := collective.NewStore("127.0.0.1:"+strconv.Itoa(freePort(t)), true)
	require.NoError(t, err)
	defer st.Close()
	r := &ranks{comms: make([]*collective.Comm, n), streams: make([]*stream.Stream, n)}
	within(t, time.Minute, "joining", func() {
		parallel(n, func(i int) {
			c, err := collective.Join(devs[i], st.Key("id"), i, n)
			assert.NoError(t, err)
			r.comms[i] = c
		})
	})
	for i, d := range devs {
		require.NotNil(t, r.comms[i])
		s, err := stream.New(d)
		require.NoError(t, err)
		r.streams[i] = s
	}
	t.Cleanup(func() {
		for i := range r.comms {
			_ = r.comms[i].Destroy()
			_ = r.streams[i].Destroy()
		}
	})
	return r, devs
}

// Over TCP too, a rank that leaves or is aborted fails the operations
// waiting for it, even where another rank mismatched.
func TestTCPFailures(t *testing.T) {
	cpuOnly(t)
	r, devs := tcpRanks(t, 3)
	a := zeros[float32](t, devs[0], 2)
	b := zeros[float32](t, devs[1], 3)
	require.NoError(t, collective.AllReduce(r.comms[0], r.streams[0], a, a, collective.Sum))
	require.NoError(t, collective.AllReduce(r.comms[1], r.streams[1], b, b, collective.Sum))
	require.NoError(t, r.comms[2].Destroy())
	for i := range 2 {
		err := syncErr(t, r.streams[i])
		assert.ErrorContains(t, err, "rank 2: it left", "rank %d", i)
		assert.ErrorIs(t, err, gpu.ErrLaunchFailure, "rank %d", i)
	}
}

func TestTCPAbortWakesPeer(t *testing.T) {
	cpuOnly(t)
	r, devs := tcpRanks(t, 2)
	a := zeros[int64](t, devs[0], 2)
	require.NoError(t, collective.Recv(r.comms[0], r.streams[0], a, 1))
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, r.comms[1].Abort())
	assert.ErrorContains(t, syncErr(t, r.streams[0]), "rank 1")
}
