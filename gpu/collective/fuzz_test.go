package collective

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// fakeConn reads the fuzzer's bytes and discards what is written.
type fakeConn struct {
	r io.Reader
	w bytes.Buffer
}

func (c *fakeConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *fakeConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *fakeConn) Close() error                     { return nil }
func (c *fakeConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fakeConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

var fuzzSecret = []byte("0123456789abcdef0123456789abcdef")

// Bytes from a client that does not hold the secret never pass the
// handshake, whatever they are (they are a TLS ClientHello at best).
func FuzzHandshake(f *testing.F) {
	f.Add([]byte("\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00"))
	f.Add([]byte("hipgocpu"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, role := range []byte{roleStore, roleMeet, rolePeer} {
			if _, err := acceptAuth(&fakeConn{r: bytes.NewReader(b)}, fuzzSecret, role); err == nil {
				t.Fatalf("%d bytes passed the handshake", len(b))
			}
		}
	})
}

// sealed is what a client holding the secret sends after the handshake,
// as the link frames it (TLS below it is the standard library's).
func sealed(msgs ...[]byte) []byte {
	c := &fakeConn{}
	l := newLink(c)
	for _, m := range msgs {
		_ = l.writeMsg(m)
	}
	return c.w.Bytes()
}

func serverLink(b []byte) *link {
	return newLink(&fakeConn{r: bytes.NewReader(b)})
}

// Peer frames: a frame record and the data records that follow, framed
// as the link frames them or raw. Nothing is allocated beyond what
// arrived.
func FuzzPeerFrame(f *testing.F) {
	f.Add(frame{Len: 3}.encode(), []byte("abc"), true)
	f.Add(frame{Len: 1 << 40}.encode(), []byte("abc"), true)
	f.Add(frame{Len: 1 << 63}.encode(), []byte{}, false)
	f.Fuzz(func(t *testing.T, hdr, data []byte, seal bool) {
		if fr, err := parseFrame(hdr); err == nil && fr.Len > maxMessage {
			t.Fatalf("a frame of %d bytes was accepted", fr.Len)
		}
		wire := append(append([]byte(nil), hdr...), data...)
		if seal {
			wire = sealed(hdr, data)
		}
		l := serverLink(wire)
		p, err := l.readRecord(frameLen)
		if err != nil {
			return
		}
		fr, err := parseFrame(p)
		if err != nil {
			return
		}
		got, err := l.readData(fr.Len)
		if err == nil && uint64(len(got)) != fr.Len {
			t.Fatalf("%d bytes for a frame of %d", len(got), fr.Len)
		}
		if cap(got) > 2*len(wire)+maxRecord {
			t.Fatalf("%d bytes held for %d that arrived", cap(got), len(wire))
		}
	})
}

// Meeting-point hellos and tables.
func FuzzMeetingPoint(f *testing.F) {
	f.Add(encodeHello(1, 2, "127.0.0.1:5000"), 2)
	var tb bytes.Buffer
	writeString(&tb, "127.0.0.1:1")
	writeString(&tb, "127.0.0.1:2")
	f.Add(tb.Bytes(), 2)
	f.Fuzz(func(t *testing.T, b []byte, size int) {
		if h, err := parseHello(b); err == nil {
			if h.rank < 0 || h.rank >= h.size || h.size > maxRanks || len(h.addr) > maxAddr {
				t.Fatalf("hello %+v accepted", h)
			}
			if !bytes.Equal(encodeHello(h.rank, h.size, h.addr), b) {
				t.Fatalf("hello %+v does not round-trip", h)
			}
		}
		if size < 0 || size > 64 {
			return
		}
		if table, err := parseTable(b, size); err == nil && len(table) != size {
			t.Fatalf("%d addresses for %d ranks", len(table), size)
		}
		// As the meeting point reads it: sealed, then parsed.
		l := serverLink(sealed(b))
		if p, err := l.readRecord(8 + 2 + maxAddr); err == nil {
			_, _ = parseHello(p)
		}
	})
}

// Store requests, as the server parses them.
func FuzzStoreRequest(f *testing.F) {
	f.Add(encodeStoreReq(storeGet, "hipgo/collective/id", 0))
	f.Add(encodeStoreReq(storeSet, "k", 5))
	f.Add(encodeStoreReq(storeSet, "k", 1<<30))
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, key, vlen, err := parseStoreReq(b)
		if err != nil {
			return
		}
		if len(key) > storeMaxKey || vlen > storeMaxValue || vlen < 0 || kind != storeSet && vlen != 0 {
			t.Fatalf("request %d %q %d accepted", kind, key, vlen)
		}
		if !bytes.Equal(encodeStoreReq(kind, key, vlen), b) {
			t.Fatal("a request that does not round-trip")
		}
	})
}
