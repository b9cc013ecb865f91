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
