package collective

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A store frees what clients that hung up held: 70 Gets of keys never
// set that give up (more than the 64 clients it serves at once) leave it
// serving the next requests, and hold no connection.
func TestStoreFreesHungUpClients(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", string(fuzzSecret))
	addr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	s, err := NewStore(addr, true)
	require.NoError(t, err)
	defer s.Close()
	var wg sync.WaitGroup
	for i := range 70 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			_, err := s.GetContext(ctx, "never set "+strconv.Itoa(i))
			assert.Error(t, err)
		}()
	}
	wg.Wait()
	held := func() int {
		s.smu.Lock()
		defer s.smu.Unlock()
		return len(s.conns)
	}
	assert.Eventually(t, func() bool { return held() == 0 }, 5*time.Second, 10*time.Millisecond, "connections of clients that hung up")
	for i := range 300 {
		// More keys than the store holds, set by clients that hang up
		// after: only the keys count, and they stay (the store has no
		// owner for a key).
		if err := s.Set("k"+strconv.Itoa(i), []byte{1}); err != nil {
			assert.Equal(t, storeMaxKeys, i, "keys set before the store was full: %v", err)
			break
		}
	}
	v, err := s.Get("k1")
	require.NoError(t, err)
	assert.Equal(t, []byte{1}, v)
}

// More ranks wait for the ID than the store serves Gets at once: those
// past the limit are told to ask again, not refused (a job of 70 ranks
// through FromEnv failed: the store refused every client past 64 with
// "too many clients", the rank that set the ID among them).
func TestStoreBusyClientsAskAgain(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", string(fuzzSecret))
	oldWaits, oldConns := storeMaxWaits, storeMaxConns
	storeMaxWaits, storeMaxConns = 4, 6
	defer func() { storeMaxWaits, storeMaxConns = oldWaits, oldConns }()
	addr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	s, err := NewStore(addr, true)
	require.NoError(t, err)
	defer s.Close()
	const n = 12
	var wg sync.WaitGroup
	got := make([][]byte, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var err error
			got[i], err = s.GetContext(ctx, "id")
			assert.NoError(t, err, "Get %d", i)
		}()
	}
	time.Sleep(200 * time.Millisecond) // the Gets wait, or are told to ask again
	require.NoError(t, s.Set("id", []byte("the ID")))
	wg.Wait()
	for i, v := range got {
		assert.Equal(t, "the ID", string(v), "Get %d", i)
	}
}
