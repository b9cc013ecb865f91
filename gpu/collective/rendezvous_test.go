package collective_test

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/collective"
)

func TestIDRoundTrip(t *testing.T) {
	cpuOnly(t)
	dev := newDevs(t, 1)[0]
	id, err := collective.NewID(dev)
	require.NoError(t, err)
	var b bytes.Buffer
	n, err := id.WriteTo(&b)
	require.NoError(t, err)
	assert.EqualValues(t, 128, n)
	back, err := collective.ReadID(&b)
	require.NoError(t, err)
	assert.Equal(t, id, back)
	_, err = collective.ReadID(bytes.NewReader(id[:10]))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a short ID")
	// The ID's meeting point waits for one rank, which joins.
	c, err := collective.NewRank(dev, id, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, 1, c.Size())
	assert.NoError(t, c.Destroy())
}

func TestStore(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	srv, err := collective.NewStore(addr, true)
	require.NoError(t, err)
	cli, err := collective.NewStore(addr, false)
	require.NoError(t, err)
	got := make(chan []byte)
	go func() {
		v, err := cli.Get("k")
		assert.NoError(t, err)
		got <- v
	}()
	select {
	case <-got:
		t.Fatal("Get returned before the key was set")
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, srv.Set("k", []byte("value")))
	assert.Equal(t, []byte("value"), <-got)
	// Goroutines sharing a store: one waits while the other sets.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "key" + strconv.Itoa(i%4)
			if i < 4 {
				v, err := cli.Get(key)
				assert.NoError(t, err)
				assert.Equal(t, key, string(v))
			} else {
				assert.NoError(t, cli.Set(key, []byte(key)))
			}
		}()
	}
	within(t, 10*time.Second, "store clients", wg.Wait)
	rw := srv.Key("id")
	_, err = rw.Write([]byte("abc"))
	require.NoError(t, err)
	v := make([]byte, 8)
	n, err := cli.Key("id").Read(v)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(v[:n]))
	require.NoError(t, cli.Close())
	require.NoError(t, srv.Close())
	_, err = collective.NewStore("no port", false)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

func TestFromEnvErrors(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", "RANK is not set"},
		{"RANK=0", "WORLD_SIZE is not set"},
		{"RANK=x WORLD_SIZE=2", `RANK="x"`},
		{"RANK=0 WORLD_SIZE=2", "MASTER_PORT is not set"},
		{"RANK=0 WORLD_SIZE=2 MASTER_PORT=1", "MASTER_ADDR is not set"},
		{"RANK=0 WORLD_SIZE=2 MASTER_PORT=1 MASTER_ADDR=h LOCAL_RANK=99", "99"},
	} {
		if tc.want == "99" && collective.VisibleGPUs(t) <= 1 {
			continue // every rank takes the one visible GPU, or shares the cpu agents (TestLaunchDevice)
		}
		for _, k := range []string{"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"} {
			t.Setenv(k, "")
		}
		for _, kv := range bytes.Fields([]byte(tc.env)) {
			k, v, _ := bytes.Cut(kv, []byte("="))
			t.Setenv(string(k), string(v))
		}
		_, err := collective.FromEnv()
		assert.ErrorContains(t, err, tc.want, tc.env)
	}
}

// A rank that does not fit the others is told why; one that never comes
// fails the others after the rendezvous timeout instead of hanging.
func TestRendezvousFailures(t *testing.T) {
	cpuOnly(t)
	devs := newDevs(t, 2)
	defer collective.SetRendezvousTimeout(500 * time.Millisecond)()
	id, err := collective.NewID(devs[0])
	require.NoError(t, err)
	var wrong error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, wrong = collective.NewRank(devs[1], id, 1, 3) // says 3 ranks
	}()
	time.Sleep(50 * time.Millisecond)
	_, err = collective.NewRank(devs[0], id, 0, 2)
	<-done
	// Whichever came first set the size: the other is told it does not
	// fit, and the first times out waiting for the rest.
	assert.Error(t, err)
	assert.Error(t, wrong)
	assert.ErrorContains(t, errors.Join(err, wrong), "ranks, others said")
}

// FromEnvContext gives up at its context's deadline when rank 0 never
// comes, long before the rendezvous timeout, and says why.
func TestFromEnvContext(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for k, v := range map[string]string{"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": strconv.Itoa(freePort(t))} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		c, err := collective.FromEnvContext(ctx)
		if c != nil {
			_ = c.Destroy()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(30 * time.Second):
		t.Fatal("FromEnvContext outlived its context by 30 s")
	}
}

// launchAlone sets the variables of rank of a two-rank torchrun launch
// whose other rank never comes.
func launchAlone(t *testing.T, rank int) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for k, v := range map[string]string{"RANK": strconv.Itoa(rank), "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
		"MASTER_PORT": strconv.Itoa(freePort(t)), "HIPGO_STORE_PORT": "", "TORCHELASTIC_USE_AGENT_STORE": ""} {
		t.Setenv(k, v)
	}
}

// fromEnvWithin runs FromEnvContext and fails the test if it outlives
// bound.
func fromEnvWithin(t *testing.T, ctx context.Context, bound time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		c, err := collective.FromEnvContext(ctx)
		if c != nil {
			_ = c.Destroy()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("FromEnvContext outlived its bound of %v", bound)
		return nil
	}
}

// The context bounds the whole rendezvous: rank 0, which serves the store
// and makes the ID, gives up at the context's deadline while rank 1
// never comes (it waited a fixed five minutes in Join), with a timeout
// error, not hipErrorLaunchFailure.
func TestFromEnvContextBoundsJoin(t *testing.T) {
	cpuOnly(t)
	launchAlone(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := fromEnvWithin(t, ctx, 30*time.Second)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, gpu.ErrLaunchTimeOut)
	assert.NotErrorIs(t, err, gpu.ErrLaunchFailure)

	// A cancelled context too.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	err = fromEnvWithin(t, ctx, 30*time.Second)
	assert.ErrorIs(t, err, context.Canceled)
}

// HIPGO_COLLECTIVE_TIMEOUT bounds the rendezvous (no code read it): rank
// 0 alone gives up after it, saying so; a value that is no duration is
// refused naming the variable.
func TestCollectiveTimeoutVariable(t *testing.T) {
	cpuOnly(t)
	for _, rank := range []int{0, 1} {
		launchAlone(t, rank)
		t.Setenv("HIPGO_COLLECTIVE_TIMEOUT", "400ms")
		err := fromEnvWithin(t, context.Background(), 30*time.Second)
		require.Error(t, err, "rank %d", rank)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "rank %d", rank)
		assert.ErrorIs(t, err, gpu.ErrLaunchTimeOut, "rank %d", rank)
		assert.ErrorContains(t, err, "HIPGO_COLLECTIVE_TIMEOUT", "rank %d", rank)
	}
	t.Setenv("HIPGO_COLLECTIVE_TIMEOUT", "soon")
	_, err := collective.FromEnv()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, `HIPGO_COLLECTIVE_TIMEOUT="soon"`)
}

// More ranks of one host than a listener authenticates from one address
// at once join: their connections to the meeting point and to rank 0
// come in a burst from one address, and those past the limit connect
// again.
func TestManyRanksOneHost(t *testing.T) {
	cpuOnly(t)
	if testing.Short() {
		t.Skip("joins 24 ranks")
	}
	const n = 24
	dev := newDevs(t, 1)[0]
	id, err := collective.NewID(dev)
	require.NoError(t, err)
	comms := make([]*collective.Comm, n)
	within(t, 60*time.Second, "24 ranks joining", func() {
		parallel(n, func(r int) {
			c, err := collective.NewRank(dev, id, r, n)
			assert.NoError(t, err, "rank %d", r)
			comms[r] = c
		})
	})
	for _, c := range comms {
		if c != nil {
			assert.NoError(t, c.Destroy())
		}
	}
}
