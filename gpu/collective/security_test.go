package collective_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/collective"
)

const testSecret = "0123456789abcdef0123456789abcdef"

func secretStore(t *testing.T) (*collective.Store, string) {
	t.Helper()
	t.Setenv("HIPGO_COLLECTIVE_SECRET", testSecret)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	st, err := collective.NewStore(addr, true)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st, addr
}

// oldRequest is a request in the store's unauthenticated protocol: the
// attack that read the ID and overwrote keys.
func oldRequest(kind byte, key string, value []byte) []byte {
	var b bytes.Buffer
	b.WriteByte(kind)
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(key)))
	b.WriteString(key)
	if kind == 1 {
		_ = binary.Write(&b, binary.LittleEndian, uint32(len(value)))
		b.Write(value)
	}
	return b.Bytes()
}

// rawReply sends req on a fresh connection and returns what comes back
// within a second.
func rawReply(t *testing.T, addr string, req []byte) []byte {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, _ = c.Write(req)
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	got, _ := io.ReadAll(c)
	return got
}

// A client without the secret reads no key and sets none; one with
// another secret is refused. Each side's check of the other's proof is
// what stops the attacker on the other side: a client that speaks the
// protocol with another secret and goes on whatever the server answered
// (with the server's check removed, it read the ID and set keys), and a
// server without the secret that accepts anything (with the client's
// check removed, the client sent it its request).
func TestStoreRefusesUnauthenticated(t *testing.T) {
	defer collective.SetHandshakeTimeout(300 * time.Millisecond)()
	st, addr := secretStore(t)
	value := []byte("the communicator's ID, secret inside")
	require.NoError(t, st.Set("hipgo/collective/id", value))
	got := rawReply(t, addr, oldRequest(2, "hipgo/collective/id", nil))
	assert.NotContains(t, string(got), string(value), "an unauthenticated Get")
	rawReply(t, addr, oldRequest(1, "hipgo/collective/id", []byte("evil")))
	rawReply(t, addr, oldRequest(1, "other", []byte("evil")))

	got = collective.AttackClient(addr, "store", collective.StoreRequest("hipgo/collective/id", nil)...)
	assert.NotContains(t, string(got), string(value), "a Get by a client with another secret")
	collective.AttackClient(addr, "store", collective.StoreRequest("hipgo/collective/id", []byte("evil"))...)
	collective.AttackClient(addr, "store", collective.StoreRequest("other", []byte("evil"))...)
	v, err := st.Get("hipgo/collective/id")
	require.NoError(t, err)
	assert.Equal(t, value, v, "an unauthenticated Set")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	v, err = st.GetContext(ctx, "other")
	assert.Error(t, err, "a key an unauthenticated client set: %q", v)

	fake, err := collective.NewFakeServer("store", false)
	require.NoError(t, err)
	_, err = collective.NewStore(fake.Addr, false)
	fake.Close()
	assert.ErrorContains(t, err, "secret", "a store without the secret")
	assert.Empty(t, fake.Received(), "what the client sent a server without the secret")

	t.Setenv("HIPGO_COLLECTIVE_SECRET", "another job's secret, 32 bytes!")
	ctx3, cancel3 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel3()
	_, err = collective.NewStoreContext(ctx3, addr, false)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "secret")
	t.Setenv("HIPGO_COLLECTIVE_SECRET", "short")
	_, err = collective.NewStore(addr, false)
	assert.ErrorContains(t, err, "at least 16")
}

// One process's ranks find the store's secret in the user's runtime
// directory: rank 0 writes it 0600 in a 0700 directory, keyed by the
// store's address, and removes it on Close.
func TestStoreSecretFile(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", "")
	t.Setenv("HIPGO_COLLECTIVE_SECRET_FILE", "")
	t.Setenv("HIPGO_COLLECTIVE_INSECURE", "")
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	srv, err := collective.NewStore(addr, true)
	require.NoError(t, err)
	files, _ := filepath.Glob(filepath.Join(dir, "hipgo", "collective-*"))
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Join(dir, "hipgo"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	cli, err := collective.NewStore(addr, false)
	require.NoError(t, err)
	require.NoError(t, cli.Set("k", []byte("v")))
	require.NoError(t, srv.Close())
	assert.NoFileExists(t, files[0])

	// A job script's file.
	name := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(name, []byte(testSecret+"\n"), 0o644))
	t.Setenv("HIPGO_COLLECTIVE_SECRET_FILE", name)
	_, err = collective.NewStore(addr, true)
	assert.ErrorContains(t, err, "chmod 600", "a secret others can read")
	require.NoError(t, os.Chmod(name, 0o600))
	srv, err = collective.NewStore(addr, true)
	require.NoError(t, err)
	require.NoError(t, srv.Close())
}

// Across hosts without a secret, the store says how to set one;
// HIPGO_COLLECTIVE_INSECURE=1 opts out.
func TestStoreNeedsSecretAcrossHosts(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", "")
	t.Setenv("HIPGO_COLLECTIVE_SECRET_FILE", "")
	t.Setenv("HIPGO_COLLECTIVE_INSECURE", "")
	_, err := collective.NewStore("192.0.2.1:29500", false)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "HIPGO_COLLECTIVE_SECRET")
	t.Setenv("HIPGO_COLLECTIVE_INSECURE", "1")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	srv, err := collective.NewStore(addr, true)
	require.NoError(t, err)
	cli, err := collective.NewStore(addr, false)
	require.NoError(t, err)
	require.NoError(t, cli.Set("k", []byte("v")))
	require.NoError(t, srv.Close())
}

// A client that knows the meeting point's address but not the ID's
// secret cannot join (it joined as rank 1, got rank 0's broadcast and set
// its all-reduce); the real ranks join as if it had not come. As for the
// store, each side's check is tested against an attacker on the other
// side: a client with another secret that goes on whatever the meeting
// point answered (with the meeting point's check removed, it took the
// attacker as rank 1 and refused the real one), and a meeting point
// without the secret (with the rank's check removed, the rank sent it its
// hello).
func TestUnauthenticatedCannotJoin(t *testing.T) {
	cpuOnly(t)
	devs := newDevs(t, 2)
	id, err := collective.NewID(devs[0])
	require.NoError(t, err)
	defer collective.SetHandshakeTimeout(300 * time.Millisecond)()
	forged := id
	forged[20] ^= 1 // a secret one bit off
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = collective.NewRankContext(ctx, devs[1], forged, 1, 2)
	require.Error(t, err, "a rank with the wrong secret joined")
	assert.ErrorContains(t, err, "secret")
	// The old hello: the 16 bytes after the magic, rank 1 of 2.
	var hello bytes.Buffer
	hello.Write(id[8:24])
	_ = binary.Write(&hello, binary.LittleEndian, [2]uint32{1, 2})
	n := int(id[40])
	addr := string(id[41 : 41+n])
	got := rawReply(t, addr, append(hello.Bytes(), 0, 0))
	assert.NotContains(t, string(got), "127.0.0.1", "the meeting point's table went to a stranger")
	got = collective.AttackClient(addr, "meet", collective.Hello(1, 2, "127.0.0.1:1"))
	assert.NotContains(t, string(got), "127.0.0.1", "the meeting point's table went to a client with another secret")

	fake, err := collective.NewFakeServer("meet", false)
	require.NoError(t, err)
	_, err = collective.NewRank(devs[1], collective.IDAt(id, fake.Addr), 1, 2)
	fake.Close()
	assert.ErrorContains(t, err, "secret", "a meeting point without the secret")
	assert.Empty(t, fake.Received(), "what the rank sent a meeting point without the secret")

	comms := make([]*collective.Comm, 2)
	within(t, 10*time.Second, "joining", func() {
		parallel(2, func(r int) {
			c, err := collective.NewRank(devs[r], id, r, 2)
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

// Idle connections to the meeting point delay no rank (one kept every
// rank from joining for up to five minutes).
func TestIdleConnectionDoesNotBlockJoin(t *testing.T) {
	cpuOnly(t)
	devs := newDevs(t, 2)
	id, err := collective.NewID(devs[0])
	require.NoError(t, err)
	addr := string(id[41 : 41+int(id[40])])
	for range 8 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, _ = c.Write([]byte("hipgo")) // and then nothing
	}
	comms := make([]*collective.Comm, 2)
	within(t, 3*time.Second, "joining beside idle connections", func() {
		parallel(2, func(r int) {
			c, err := collective.NewRank(devs[r], id, r, 2)
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

// Connections that never finish their handshake do not lock honest
// clients out: 200 idle ones to the store and to the meeting point, more
// than a listener authenticates at once and held open past the test,
// delay no Set and no rank (the store's own Set timed out after 12 s and
// NewRank failed at once with "connection reset by peer": the listeners
// closed connections past 32 unread while the idle ones kept their place).
func TestIdleFloodDoesNotStarve(t *testing.T) {
	cpuOnly(t)
	defer collective.SetHandshakeTimeout(30 * time.Second)() // the idle ones would keep their place
	st, addr := secretStore(t)
	devs := newDevs(t, 2)
	id, err := collective.NewID(devs[0])
	require.NoError(t, err)
	meet := string(id[41 : 41+int(id[40])])
	for _, a := range []string{addr, meet} {
		for range 200 {
			c, err := net.Dial("tcp", a)
			require.NoError(t, err)
			defer c.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	assert.NoError(t, st.SetContext(ctx, "k", []byte("v")), "a Set beside 200 idle connections")
	comms := make([]*collective.Comm, 2)
	within(t, 20*time.Second, "joining beside 200 idle connections", func() {
		parallel(2, func(r int) {
			c, err := collective.NewRankContext(ctx, devs[r], id, r, 2)
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

// The store bounds what it holds: value and key sizes, the number of
// keys, idle connections and waits for keys never set (300 values of
// 1 MiB were taken, and 500 idle connections or Gets held a goroutine
// each with no deadline).
func TestStoreLimits(t *testing.T) {
	st, addr := secretStore(t)
	assert.ErrorIs(t, st.Set("k", make([]byte, 16<<10+1)), gpu.ErrInvalidValue, "a value over 16 KiB")
	assert.NoError(t, st.Set("k", make([]byte, 16<<10)))
	assert.ErrorIs(t, st.Set(strings.Repeat("k", 257), nil), gpu.ErrInvalidValue, "a key over 256 bytes")
	for i := 1; i < 256; i++ {
		require.NoError(t, st.Set("k"+strconv.Itoa(i), []byte{1}))
	}
	err := st.Set("one too many", []byte{1})
	assert.ErrorContains(t, err, "256 keys")
	assert.NoError(t, st.Set("k1", []byte{2}), "an existing key may be set again")

	defer collective.SetHandshakeTimeout(200 * time.Millisecond)()
	var wg sync.WaitGroup
	closed := make([]bool, 100)
	for i := range closed {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err := io.ReadAll(c)
			closed[i] = err == nil // EOF: the store hung up
		}()
	}
	wg.Wait()
	for i, ok := range closed {
		assert.True(t, ok, "idle connection %d was not dropped", i)
	}
	// A Get of a key never set ends after the rendezvous timeout.
	defer collective.SetRendezvousTimeout(300 * time.Millisecond)()
	_, err = st.Get("never set")
	assert.ErrorContains(t, err, "was not set within")
}
