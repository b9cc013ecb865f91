package collective

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mutants of the channel's handshake tried by hand (each made the tests
// named fail; the first two are also run below by
// TestProofChecksAreNeeded):
//
//   - the server's check of the client's proof removed (skipServerCheck):
//     TestStoreRefusesUnauthenticated, TestUnauthenticatedCannotJoin (the
//     real rank 1 refused), TestAttackerClientEveryListener;
//   - the client's check of the server's proof removed (skipClientCheck):
//     TestStoreRefusesUnauthenticated, TestUnauthenticatedCannotJoin,
//     TestAttackerServerEveryClient;
//   - the proof over a constant instead of the TLS exporter:
//     TestProofBindsSession (a relay that ends both TLS sessions reads the
//     store's value);
//   - the role left out of the proof's key: no test fails, as the
//     exporter's context carries the role too; left out of both,
//     TestProofBindsRole;
//   - the side ("client", "server") left out of the proof:
//     TestProofBindsSide (a server that echoes the client's proof);
//   - the server's refusal closing without a word: the wrong-secret cases
//     of TestStoreRefusesUnauthenticated and TestUnauthenticatedCannotJoin
//     retry until their context's deadline instead of saying "secret";
//   - the listener's eviction of the oldest pending connection removed
//     (new connections closed past the limit, as before):
//     TestIdleFloodDoesNotStarve;
//   - the gate left after the server's answer instead of before it (a
//     rank told it is accepted could be closed for a newer connection):
//     TestManyRanksOneHost under -race.

// acceptedAttacker reports whether a listener of role, authenticating
// with secret, hands on a connection from AttackClient.
func acceptedAttacker(t *testing.T, role string, first []byte) bool {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	done := make(chan struct{})
	defer close(done)
	out := make(chan arrival, 1)
	go acceptLinks(ln, []byte(fuzzSecret), Roles[role], 8+2+maxAddr+storeMaxKey, done, out)
	attacked := make(chan struct{})
	go func() {
		defer close(attacked)
		AttackClient(ln.Addr().String(), role, first)
	}()
	select {
	case a := <-out:
		a.l.conn.Close()
		<-attacked
		return true
	case <-attacked:
	}
	select {
	case a := <-out:
		a.l.conn.Close()
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// firsts are the first records a client of each role sends.
var firsts = map[string][]byte{
	"store": encodeStoreReq(storeGet, "hipgo/collective/id", 0),
	"meet":  encodeHello(1, 2, "127.0.0.1:1"),
	"peer":  {1, 0, 0, 0},
}

// Every listener (store, meeting point, peer links) refuses a client
// that goes on whatever the server said.
func TestAttackerClientEveryListener(t *testing.T) {
	for role, first := range firsts {
		assert.False(t, acceptedAttacker(t, role, first), "the %s listener took a client with another secret", role)
	}
}

// sentToFake runs a client of role against a FakeServer and returns what
// the fake received after the client's proof, and the client's error.
func sentToFake(t *testing.T, role string, echo bool) ([]byte, error) {
	t.Helper()
	fake, err := NewFakeServer(role, echo)
	require.NoError(t, err)
	switch role {
	case "store":
		s := &Store{js: jobSecret{env: fuzzSecret}, addr: fake.Addr}
		err = s.Set("hipgo/collective/id", []byte("the ID"))
	case "meet":
		c := cpuID{addr: fake.Addr}
		copy(c.secret[:], fuzzSecret)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err = meetRanks(ctx, c, 1, 2, "127.0.0.1:1")
		cancel()
	case "peer":
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var l *link
		if l, err = dialPeer(ctx, fake.Addr, fuzzSecret, 1); err == nil {
			l.conn.Close()
		}
		cancel()
	}
	fake.Close()
	return fake.Received(), err
}

// Every client (a store's, a joining rank's, a peer link's) refuses a
// server without the secret that accepts it, and sends it nothing.
func TestAttackerServerEveryClient(t *testing.T) {
	for role := range firsts {
		got, err := sentToFake(t, role, false)
		assert.ErrorIs(t, err, errAuth, "a %s client", role)
		assert.Empty(t, got, "what a %s client sent a server without the secret", role)
	}
}

// A server that sends the client's own proof back does not pass for one
// that holds the secret: the two sides' proofs differ.
func TestProofBindsSide(t *testing.T) {
	for role := range firsts {
		got, err := sentToFake(t, role, true)
		assert.ErrorIs(t, err, errAuth, "a %s client", role)
		assert.Empty(t, got, "what a %s client sent a server that echoed its proof", role)
	}
}

// A proof made for one role (a store request) is no proof for another
// (a peer link), under the same secret.
func TestProofBindsRole(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	srv := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, err = acceptAuth(c, fuzzSecret, rolePeer)
			c.Close()
		}
		srv <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = dialAuth(c, fuzzSecret, roleStore)
	assert.ErrorIs(t, err, errAuth, "the client")
	assert.ErrorIs(t, <-srv, errAuth, "the server")
}

// A man in the middle that ends each side's TLS itself and relays the
// proofs learns nothing: each proof is bound to the session it was made
// in (the exporter), so the server refuses the relayed client proof.
func TestProofBindsSession(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", string(fuzzSecret))
	addr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	st, err := NewStore(addr, true)
	require.NoError(t, err)
	defer st.Close()
	value := []byte("the communicator's ID, secret inside")
	require.NoError(t, st.Set("id", value))
	relay, err := NewRelay(addr)
	require.NoError(t, err)
	cli := &Store{js: jobSecret{env: fuzzSecret}, addr: relay.Addr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	v, err := cli.GetContext(ctx, "id")
	relay.Close()
	assert.Error(t, err, "a Get through a relay: %q", v)
	assert.NotContains(t, string(relay.Seen()), string(value), "what the relay read")
}

func freeTCPPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The tests above fail when either side's check is removed: with the
// server's check gone an attacking client gets through every listener,
// and with the client's gone every client talks to a fake server.
func TestProofChecksAreNeeded(t *testing.T) {
	defer func() {
		skipServerCheck.Store(false)
		skipClientCheck.Store(false)
	}()
	skipServerCheck.Store(true)
	for role, first := range firsts {
		assert.True(t, acceptedAttacker(t, role, first), "without the server's check, the %s listener takes the attacker", role)
	}
	skipServerCheck.Store(false)
	skipClientCheck.Store(true)
	for role := range firsts {
		got, _ := sentToFake(t, role, false)
		assert.NotEmpty(t, got, "without the client's check, a %s client talks to a fake server", role)
	}
	skipClientCheck.Store(false)
}

// A record tampered with on the way fails the connection at once (it was
// noticed only after 20 s): TLS checks each record as it arrives.
func TestTamperedRecordFailsPromptly(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_SECRET", string(fuzzSecret))
	addr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	st, err := NewStore(addr, true)
	require.NoError(t, err)
	defer st.Close()
	// A proxy that flips a bit of the client's third encrypted record (its
	// first after the TLS Finished and its proof: the request).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer up.Close()
		go func() { _, _ = io.Copy(c, up) }()
		appData := 0
		for {
			var hdr [5]byte
			if _, err := io.ReadFull(c, hdr[:]); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
			if _, err := io.ReadFull(c, body); err != nil {
				return
			}
			if hdr[0] == 23 { // application_data: every record after the hellos
				if appData++; appData == 3 && len(body) > 0 {
					body[0] ^= 1
				}
			}
			if _, err := up.Write(append(hdr[:], body...)); err != nil {
				return
			}
		}
	}()
	cli := &Store{js: jobSecret{env: fuzzSecret}, addr: ln.Addr().String()}
	done := make(chan error, 1)
	go func() { done <- cli.Set("k", []byte("value")) }()
	select {
	case err := <-done:
		assert.Error(t, err, "a tampered request")
	case <-time.After(5 * time.Second):
		t.Fatal("a tampered request was not noticed within 5 s")
	}
	require.NoError(t, st.Set("k", []byte("value")), "the store still serves")
}

// addrConn is a connection from a given address, for the gate.
type addrConn struct {
	net.Conn
	from   net.Addr
	closed bool
}

func (c *addrConn) RemoteAddr() net.Addr { return c.from }
func (c *addrConn) Close() error         { c.closed = true; return nil }

// The gate keeps at most maxPerSource connections of one address and
// maxPending in all authenticating, evicting the oldest of the source,
// else the oldest of all, for a new one.
func TestGateLimits(t *testing.T) {
	old := evictAge
	evictAge = 0
	defer func() { evictAge = old }()
	var g gate
	from := func(ip string) *addrConn {
		return &addrConn{from: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}}
	}
	var a []*addrConn
	for range maxPerSource + 4 {
		c := from("192.0.2.1")
		g.admit(c)
		a = append(a, c)
	}
	for i, c := range a {
		assert.Equal(t, i < 4, c.closed, "connection %d of one source", i)
	}
	var others []*addrConn
	for i := range maxPending - maxPerSource {
		c := from("198.51.100." + strconv.Itoa(i%200+1))
		g.admit(c)
		others = append(others, c)
	}
	for _, c := range others {
		assert.False(t, c.closed, "a connection within the limits")
	}
	last := from("203.0.113.1")
	p := g.admit(last)
	assert.True(t, a[4].closed, "the oldest of all made room")
	assert.Len(t, g.q, maxPending)
	assert.True(t, g.leave(p))
	assert.False(t, g.leave(p), "a connection leaves once")
	g.closeAll()
	assert.True(t, others[0].closed)

	// Young connections keep their place: the newcomer is closed (its
	// client connects again).
	evictAge = time.Hour
	var young []*addrConn
	for range maxPerSource {
		c := from("192.0.2.1")
		require.NotNil(t, g.admit(c))
		young = append(young, c)
	}
	c := from("192.0.2.1")
	assert.Nil(t, g.admit(c))
	assert.True(t, c.closed, "the newcomer")
	for _, y := range young {
		assert.False(t, y.closed, "a young connection")
	}
}
