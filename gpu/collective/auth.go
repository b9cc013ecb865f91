package collective

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Every connection of the cpu agents' backend (store, meeting point,
// peer links) starts with a mutual HMAC-SHA256 challenge-response over a
// shared secret, and then carries records sealed with AES-256-GCM under
// keys derived from the secret and both nonces. See doc.go's Security.

// handshakeLimit bounds each connection's authentication (tests shorten
// it: atomic, as goroutines of earlier tests may still read it).
var handshakeLimit atomic.Int64

func init() {
	handshakeLimit.Store(int64(5 * time.Second))
	rendezvousLimit.Store(int64(5 * time.Minute))
}

func handshakeTimeout() time.Duration { return time.Duration(handshakeLimit.Load()) }

func rendezvousTimeout() time.Duration { return time.Duration(rendezvousLimit.Load()) }

const (
	authMagic = "hipgoau1"
	nonceLen  = 32
	macLen    = sha256.Size
	// maxRecord is the most plaintext one record carries; a reader
	// allocates no more than this before the record is authenticated.
	maxRecord = 64 << 10
	recordTag = 16 // AES-GCM's tag
)

// The roles a secret is used in: a proof made for one is no proof for
// another.
const (
	roleStore byte = 1 + iota
	roleMeet
	rolePeer
)

var errAuth = errors.New("the peer did not prove it holds the communicator's secret (a different ID, HIPGO_COLLECTIVE_SECRET or job)")

func mac(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// link is one authenticated connection: records in each direction are
// numbered, so none can be dropped, replayed or reordered unnoticed.
type link struct {
	conn       net.Conn
	r          *bufio.Reader
	w          *bufio.Writer
	send, recv cipher.AEAD
	sseq, rseq uint64
	rbuf, wbuf []byte
}

func newAEAD(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 32-byte key: cannot fail
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return g
}

func newLink(conn net.Conn, secret []byte, role byte, nc, ns []byte, client bool) *link {
	c2s := mac(secret, []byte("c2s"), []byte{role}, nc, ns)
	s2c := mac(secret, []byte("s2c"), []byte{role}, nc, ns)
	l := &link{conn: conn, r: bufio.NewReaderSize(conn, 1<<16), w: bufio.NewWriterSize(conn, 1<<16)}
	if client {
		l.send, l.recv = newAEAD(c2s), newAEAD(s2c)
	} else {
		l.send, l.recv = newAEAD(s2c), newAEAD(c2s)
	}
	return l
}

// dialAuth is the client's side of the handshake: it sends its nonce,
// checks the server's proof, then proves itself.
func dialAuth(conn net.Conn, secret []byte, role byte) (*link, error) {
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	defer conn.SetDeadline(time.Time{})
	nc := make([]byte, nonceLen)
	if _, err := rand.Read(nc); err != nil {
		return nil, err
	}
	hello := append(append([]byte(authMagic), role), nc...)
	if _, err := conn.Write(hello); err != nil {
		return nil, err
	}
	var reply [len(authMagic) + nonceLen + macLen]byte
	if _, err := io.ReadFull(conn, reply[:]); err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	ns := reply[len(authMagic) : len(authMagic)+nonceLen]
	if string(reply[:len(authMagic)]) != authMagic || !hmac.Equal(reply[len(authMagic)+nonceLen:], mac(secret, []byte("server"), []byte{role}, nc, ns)) {
		return nil, errAuth
	}
	if _, err := conn.Write(mac(secret, []byte("client"), []byte{role}, nc, ns)); err != nil {
		return nil, err
	}
	return newLink(conn, secret, role, nc, ns, true), nil
}

// acceptAuth is the server's side: it reads a fixed-size hello, proves
// itself, and reads the client's proof, all within handshakeTimeout.
// Nothing else is read from a client that fails.
func acceptAuth(conn net.Conn, secret []byte, role byte) (*link, error) {
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	defer conn.SetDeadline(time.Time{})
	var hello [len(authMagic) + 1 + nonceLen]byte
	if _, err := io.ReadFull(conn, hello[:]); err != nil {
		return nil, err
	}
	if string(hello[:len(authMagic)]) != authMagic || hello[len(authMagic)] != role {
		return nil, errAuth
	}
	nc := hello[len(authMagic)+1:]
	ns := make([]byte, nonceLen)
	if _, err := rand.Read(ns); err != nil {
		return nil, err
	}
	reply := append(append([]byte(authMagic), ns...), mac(secret, []byte("server"), []byte{role}, nc, ns)...)
	if _, err := conn.Write(reply); err != nil {
		return nil, err
	}
	var proof [macLen]byte
	if _, err := io.ReadFull(conn, proof[:]); err != nil {
		return nil, err
	}
	if !hmac.Equal(proof[:], mac(secret, []byte("client"), []byte{role}, nc, ns)) {
		return nil, errAuth
	}
	return newLink(conn, secret, role, nc, ns, false), nil
}

func seqNonce(seq uint64) []byte {
	var n [12]byte
	binary.BigEndian.PutUint64(n[4:], seq)
	return n[:]
}

// writeRecord queues p (at most maxRecord bytes) as one sealed record;
// flush sends what was queued.
func (l *link) writeRecord(p []byte) error {
	if len(p) > maxRecord {
		return fmt.Errorf("a record of %d bytes", len(p))
	}
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(p)))
	l.wbuf = l.send.Seal(l.wbuf[:0], seqNonce(l.sseq), p, hdr[:])
	l.sseq++
	if _, err := l.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := l.w.Write(l.wbuf)
	return err
}

func (l *link) flush() error { return l.w.Flush() }

// writeMsg sends p as records and flushes.
func (l *link) writeMsg(p []byte) error {
	for {
		n := min(len(p), maxRecord)
		if err := l.writeRecord(p[:n]); err != nil {
			return err
		}
		if p = p[n:]; len(p) == 0 {
			return l.flush()
		}
	}
}

// readRecord returns the next record's plaintext, valid until the next
// read. A record longer than max, the most the operation in progress
// expects, fails before anything is allocated for it.
func (l *link) readRecord(max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(l.r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[:]))
	if n > max || n > maxRecord {
		return nil, fmt.Errorf("a record of %d bytes where at most %d are expected", n, min(max, maxRecord))
	}
	if cap(l.rbuf) < n+recordTag {
		l.rbuf = make([]byte, n+recordTag, maxRecord+recordTag)
	}
	ct := l.rbuf[:n+recordTag]
	if _, err := io.ReadFull(l.r, ct); err != nil {
		return nil, err
	}
	p, err := l.recv.Open(ct[:0], seqNonce(l.rseq), ct, hdr[:])
	if err != nil {
		return nil, errAuth
	}
	l.rseq++
	return p, nil
}

// readInto fills dst from records, each authenticated before it is
// copied in.
func (l *link) readInto(dst []byte) error {
	for len(dst) > 0 {
		p, err := l.readRecord(len(dst))
		if err != nil {
			return err
		}
		if len(p) == 0 {
			return errors.New("an empty record inside a message")
		}
		dst = dst[copy(dst, p):]
	}
	return nil
}
