package collective

import (
	"context"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// linkPair is an authenticated link over loopback TCP, both ends.
func linkPair(t *testing.T, secret []byte, role byte) (client, server *link) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	ch := make(chan *link, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			ch <- nil
			return
		}
		l, err := acceptAuth(c, secret, role)
		if err != nil {
			c.Close()
		}
		ch <- l
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	client, err = dialAuth(c, secret, role)
	require.NoError(t, err)
	server = <-ch
	require.NotNil(t, server)
	t.Cleanup(func() { client.conn.Close(); server.conn.Close() })
	return client, server
}

// A peer holding the ID announces a message of 1 TiB and sends a few
// bytes: the reader fails that peer instead of allocating 1 TiB (which
// killed the process with a fatal out-of-memory error). Where no queued
// operation takes that much, the message waits unread and holds nothing;
// where one does, the buffer grows only with what arrived.
func TestHugeFrameHeaderDoesNotAllocate(t *testing.T) {
	for _, n := range []uint64{1 << 40, 1<<40 + 1, 1 << 63} {
		for _, expected := range []bool{false, true} {
			cl, sv := linkPair(t, []byte("0123456789abcdef"), rolePeer)
			box := newMailbox(2)
			if expected {
				box.expecting(1, int64(min(n, 1<<62)))
			}
			tr := &tcpTransport{rank: 0, box: box}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			go tr.read(1, sv)
			require.NoError(t, cl.writeRecord(frame{Kind: uint8(kSend), DT: uint8(ncclInt8), Count: int64(min(n, 1<<62)), Len: n}.encode()))
			require.NoError(t, cl.writeMsg(make([]byte, 100)))
			cl.conn.Close()
			why := box.departed(1, 500*time.Millisecond)
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated for a %d-byte announcement", n)
			if why == nil {
				assert.False(t, expected && n <= maxMessage, "a peer that hung up mid-message was not dropped (Len %d)", n)
				box.stop(errAborted)
				why = box.departed(1, 5*time.Second)
			}
			require.Error(t, why, "the reader ends (Len %d)", n)
			assert.Empty(t, box.q[0][1], "no message is delivered")
		}
	}
	// Bytes before the handshake are never read as a frame.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			_, _ = c.Write(frame{Len: 1 << 40}.encode())
			c.Close()
		}
	}()
	c, err := ln.Accept()
	require.NoError(t, err)
	defer c.Close()
	_, err = acceptAuth(c, []byte("0123456789abcdef"), rolePeer)
	assert.Error(t, err)
}

// A peer that floods a rank with messages it never asked for is
// dropped at the mailbox's depth (4096 messages of 64 KiB were all
// queued: 257 MiB).
func TestMailboxLimit(t *testing.T) {
	cl, sv := linkPair(t, []byte("0123456789abcdef"), rolePeer)
	box := newMailbox(2)
	tr := &tcpTransport{rank: 0, box: box}
	go tr.read(1, sv)
	data := make([]byte, 1<<10)
	for sent := 0; sent < 4096; sent++ {
		if cl.writeRecord(frame{Kind: uint8(kSend), Count: int64(len(data)), Len: uint64(len(data))}.encode()) != nil || cl.writeMsg(data) != nil {
			break
		}
	}
	why := box.departed(1, 5*time.Second)
	require.Error(t, why)
	assert.ErrorContains(t, why, "messages this rank had not yet received")
	box.mu.Lock()
	defer box.mu.Unlock()
	assert.LessOrEqual(t, len(box.q[0][1]), mailboxDepth)
}

// The mailbox bounds bytes, not only messages: 64 unsolicited messages of
// 64 KiB stop at the byte budget (1 MiB here) and wait unread, then
// arrive once this rank queues what takes them (a peer could make a rank
// hold 255 MiB below the message limit).
func TestMailboxBytes(t *testing.T) {
	old := mailboxBytes
	mailboxBytes = 1 << 20
	defer func() { mailboxBytes = old }()
	cl, sv := linkPair(t, []byte("0123456789abcdef"), rolePeer)
	box := newMailbox(2)
	tr := &tcpTransport{rank: 0, box: box}
	go tr.read(1, sv)
	const n, size = 64, 64 << 10
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		data := make([]byte, size)
		for range n {
			if cl.writeRecord(frame{Kind: uint8(kSend), Count: size, Len: size}.encode()) != nil || cl.writeMsg(data) != nil {
				return
			}
		}
	}()
	held := func() (int64, int) {
		box.mu.Lock()
		defer box.mu.Unlock()
		return box.held[1], len(box.q[0][1])
	}
	require.Eventually(t, func() bool { _, q := held(); return q == 16 }, 5*time.Second, 5*time.Millisecond, "the first 1 MiB arrives")
	time.Sleep(100 * time.Millisecond) // time for more to arrive, were it let in
	b, q := held()
	assert.LessOrEqual(t, b, int64(1<<20), "bytes held from the peer")
	assert.Equal(t, 16, q, "messages held from the peer")
	assert.NoError(t, box.departed(1, 0), "a peer ahead of this rank is not dropped")

	box.expecting(1, n*size) // an operation that takes all of them
	for range n {
		m, err := box.take("recv", 1, false)
		require.NoError(t, err)
		assert.Len(t, m.data, size)
	}
	<-sent
	b, _ = held()
	assert.Zero(t, b, "taken messages free their bytes")
}

// A Send's frame carries exactly count elements: a peer's message shorter
// than its header says (which a Recv took, leaving stale elements with no
// error) drops the peer.
func TestShortMessageRefused(t *testing.T) {
	cl, sv := linkPair(t, []byte("0123456789abcdef"), rolePeer)
	box := newMailbox(2)
	tr := &tcpTransport{rank: 0, box: box}
	go tr.read(1, sv)
	require.NoError(t, cl.writeRecord(frame{Kind: uint8(kSend), DT: uint8(ncclFloat32), Count: 4, Len: 8}.encode()))
	require.NoError(t, cl.writeMsg(make([]byte, 8)))
	why := box.departed(1, 5*time.Second)
	require.Error(t, why)
	assert.ErrorContains(t, why, "a message of 8 bytes for 4 float32")
	assert.Empty(t, box.q[0][1], "no message is delivered")

	// And the receiver checks the length itself (messages from a rank of
	// this process come unparsed).
	box = newMailbox(2)
	box.put(1, &msg{h: header{kind: kSend, dt: ncclFloat32, count: 4}, data: make([]byte, 8)})
	r := &cpuRank{rank: 0, size: 2, box: box}
	err := r.run([]*call{{op: "collective recv", kind: kRecv, peer: 1, dt: ncclFloat32, esize: 4, count: 4}})
	assert.ErrorContains(t, err, "receives 8 bytes from rank 1, whose header says 16")
}

// Listeners bind the loopback address on one host, not every interface
// (the store bound [::]:P for 127.0.0.1:P; the meeting point and peer
// listeners bound :0).
func TestListenersBindLoopback(t *testing.T) {
	t.Setenv("HIPGO_COLLECTIVE_HOST", "")
	t.Setenv("HIPGO_COLLECTIVE_SECRET", "0123456789abcdef0123")
	for _, master := range []string{"", "127.0.0.1", "localhost"} {
		t.Setenv("MASTER_ADDR", master)
		ln, adv, err := listen()
		require.NoError(t, err)
		assert.True(t, ln.Addr().(*net.TCPAddr).IP.IsLoopback(), "a peer listener binds %v (MASTER_ADDR=%q)", ln.Addr(), master)
		host, _, _ := net.SplitHostPort(adv)
		assert.Equal(t, "127.0.0.1", host)
		ln.Close()

		id, err := newCPUID()
		require.NoError(t, err)
		meetings.Lock()
		m := meetings.m[id]
		meetings.Unlock()
		require.NotNil(t, m)
		assert.True(t, m.ln.Addr().(*net.TCPAddr).IP.IsLoopback(), "the meeting point binds %v", m.ln.Addr())
		c, err := decodeCPUID(id)
		require.NoError(t, err)
		assert.Equal(t, m.ln.Addr().String(), c.addr, "the ID advertises what is bound")
		require.NoError(t, id.Close())
	}
	t.Setenv("MASTER_ADDR", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	s, err := NewStore(addr, true)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, addr, s.ln.Addr().String(), "the store binds the address asked for")

	// Another host's MASTER_ADDR: the interface that routes to it.
	if ip := firstHostIP(); ip != "127.0.0.1" {
		t.Setenv("MASTER_ADDR", ip)
		ln, adv, err := listen()
		require.NoError(t, err)
		defer ln.Close()
		assert.Equal(t, ip, ln.Addr().(*net.TCPAddr).IP.String())
		assert.Equal(t, net.JoinHostPort(ip, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)), adv)
	}
}

// NewID's listener is released by Close and after the rendezvous
// timeout, and a process keeps a bounded number open (2000 NewIDs held
// 2010 descriptors and 2000 goroutines for five minutes).
func TestNewIDListenerReleased(t *testing.T) {
	t.Setenv("MASTER_ADDR", "")
	t.Setenv("HIPGO_COLLECTIVE_HOST", "")
	open := func(id ID) bool {
		meetings.Lock()
		defer meetings.Unlock()
		return meetings.m[id] != nil
	}
	refused := func(id ID) bool {
		c, err := decodeCPUID(id)
		require.NoError(t, err)
		conn, err := net.DialTimeout("tcp", c.addr, time.Second)
		if err == nil {
			conn.Close()
		}
		return err != nil
	}
	id, err := newCPUID()
	require.NoError(t, err)
	require.True(t, open(id))
	require.NoError(t, id.Close())
	assert.False(t, open(id))
	assert.True(t, refused(id), "closed by Close")

	restore := SetRendezvousTimeout(100 * time.Millisecond)
	id, err = newCPUID()
	restore()
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !open(id) && refused(id) }, 5*time.Second, 20*time.Millisecond, "closed after the timeout")

	var ids []ID
	defer func() {
		for _, id := range ids {
			_ = id.Close()
		}
	}()
	for range maxMeetings {
		id, err := newCPUID()
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, err = newCPUID()
	assert.ErrorContains(t, err, "Close those that will not be used")
	require.NoError(t, ids[0].Close())
	id, err = newCPUID()
	require.NoError(t, err, "a closed ID frees its place")
	ids = append(ids, id)
}

// lateCtx has a deadline but says nothing of it: its Done never closes
// and its Err stays nil, as a context's does for a moment after its
// deadline, before its timer fires.
type lateCtx struct {
	context.Context
	deadline time.Time
}

func (c lateCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// A dial that runs out of time at the caller's deadline wraps
// context.DeadlineExceeded, even when ctx does not say so yet: the
// caller's errors.Is check must not depend on which timer fired first.
func TestDialAtCallersDeadline(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nobody serves here
	js, err := secretFor("test", addr)
	require.NoError(t, err)
	s := &Store{js: js, addr: addr}
	deadline := time.Now().Add(100 * time.Millisecond)
	_, err = s.dial(lateCtx{Context: context.Background(), deadline: deadline}, deadline)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	assert.ErrorIs(t, err, gpu.ErrLaunchTimeOut)
	assert.ErrorContains(t, err, "the context's deadline passed")

	// A deadline of the store's own (the rendezvous timeout) is a timeout
	// too, and says which setting bounds it.
	deadline = time.Now().Add(100 * time.Millisecond)
	_, err = s.dial(context.Background(), deadline)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, gpu.ErrLaunchTimeOut)
	assert.ErrorContains(t, err, "HIPGO_COLLECTIVE_TIMEOUT")
}
