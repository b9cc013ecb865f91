package collective

import (
	"bufio"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Every connection of the cpu agents' backend (store, meeting point,
// peer links) is TLS 1.3 from crypto/tls, bound to the shared secret:
// once the TLS handshake is done, the client and then the server send an
// HMAC-SHA256, under a key derived from the secret with crypto/hkdf, of
// the session's exported keying material (RFC 8446 §7.5). Certificates
// are ephemeral and unverified: the proofs over the exporter take their
// place. See doc.go's Security for why that is sound.

// handshakeLimit bounds each connection's authentication (tests shorten
// it: atomic, as goroutines of earlier tests may still read it).
var handshakeLimit atomic.Int64

func init() {
	handshakeLimit.Store(int64(3 * time.Second))
}

func handshakeTimeout() time.Duration { return time.Duration(handshakeLimit.Load()) }

const (
	alpn     = "hipgo-collective/2"
	exporter = "EXPORTER-hipgo-collective-proof"
	macLen   = sha256.Size
	accepted = 0 // the server's word on the client's proof
	refused  = 1
	// maxRecord is the most one of the link's records carries; a reader
	// allocates no more than this for one (TLS authenticates each of its
	// own records, 16 KiB at most, before handing on a byte).
	maxRecord = 64 << 10
)

// The roles a secret is used in: a proof made for one is no proof for
// another.
const (
	roleStore byte = 1 + iota
	roleMeet
	rolePeer
)

var errAuth = errors.New("the peer did not prove it holds the communicator's secret (a different ID, HIPGO_COLLECTIVE_SECRET or job)")

// localCert is this process's certificate: an ed25519 key made on first
// use and a self-signed certificate for it, which no peer verifies.
var localCert = sync.OnceValues(func() (tls.Certificate, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "hipgo collective"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, nil
})

func serverConfig() (*tls.Config, error) {
	cert, err := localCert()
	if err != nil {
		return nil, fmt.Errorf("certificate: %v", err)
	}
	return &tls.Config{
		Certificates:           []tls.Certificate{cert},
		MinVersion:             tls.VersionTLS13,
		NextProtos:             []string{alpn},
		SessionTicketsDisabled: true,
	}, nil
}

// clientConfig skips the certificate chain: the server proves the
// secret over this session's exporter instead (doc.go says why that
// suffices).
var clientConfig = &tls.Config{
	InsecureSkipVerify: true,
	MinVersion:         tls.VersionTLS13,
	NextProtos:         []string{alpn},
}

// proof is side's proof of the secret for this TLS session: an HMAC, under
// a key derived from the secret for role, of the session's exported
// keying material.
func proof(cs tls.ConnectionState, secret []byte, role byte, side string) ([]byte, error) {
	if cs.Version != tls.VersionTLS13 || cs.NegotiatedProtocol != alpn {
		return nil, errors.New("not a TLS 1.3 session of hipgo's protocol")
	}
	ekm, err := cs.ExportKeyingMaterial(exporter, []byte{role}, 32)
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "hipgo collective proof key, role "+string('0'+rune(role)), 32)
	if err != nil {
		return nil, err
	}
	h := hmac.New(sha256.New, key)
	h.Write([]byte(side))
	h.Write(ekm)
	return h.Sum(nil), nil
}

// link is one authenticated connection: the TLS connection and the
// link's own framing of messages into records.
type link struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	rbuf []byte
}

func newLink(conn net.Conn) *link {
	// A TLS record holds at most 16 KiB: larger buffers would only hold
	// memory (a store keeps one link per waiting Get).
	return &link{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), w: bufio.NewWriterSize(conn, 16<<10)}
}

// skipClientCheck and skipServerCheck, when set, skip that side's check
// of the other's proof. Only TestProofChecksAreNeeded sets them: each
// check must be what makes an attacker on the other side fail. (Atomic:
// goroutines of earlier tests may still read them.)
var skipClientCheck, skipServerCheck atomic.Bool

// dialAuth is the client's side of the handshake: TLS, its proof, then
// the server's proof checked, all within handshakeTimeout.
func dialAuth(conn net.Conn, secret []byte, role byte) (*link, error) {
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	defer conn.SetDeadline(time.Time{})
	tc := tls.Client(conn, clientConfig)
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("authenticate: TLS: %w", err)
	}
	cs := tc.ConnectionState()
	mine, err := proof(cs, secret, role, "client")
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if _, err := tc.Write(mine); err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	// The server says whether it took the proof, then proves itself. A
	// connection it closes without a word was closed to make room for a
	// newer one (the caller may try again).
	var theirs [1 + macLen]byte
	if _, err := io.ReadFull(tc, theirs[:1]); err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if theirs[0] != accepted {
		return nil, fmt.Errorf("authenticate: the server refused this client: %w", errAuth)
	}
	if _, err := io.ReadFull(tc, theirs[1:]); err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	want, _ := proof(cs, secret, role, "server")
	if !skipClientCheck.Load() && !hmac.Equal(theirs[1:], want) {
		return nil, errAuth
	}
	return newLink(tc), nil
}

// acceptAuth is the server's side: TLS, then the client's proof checked
// before anything else is read, then its own proof, all within
// handshakeTimeout.
func acceptAuth(conn net.Conn, secret []byte, role byte) (*link, error) {
	return acceptAuthGated(conn, secret, role, nil)
}

// acceptAuthGated is acceptAuth that asks admitted, once the client's
// proof is checked and before the server answers, whether the connection
// still has its place (a gate may have closed it for a newer one): a
// client told it is accepted is never closed so.
func acceptAuthGated(conn net.Conn, secret []byte, role byte, admitted func() bool) (*link, error) {
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout()))
	defer conn.SetDeadline(time.Time{})
	cfg, err := serverConfig()
	if err != nil {
		return nil, err
	}
	tc := tls.Server(conn, cfg)
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	cs := tc.ConnectionState()
	want, err := proof(cs, secret, role, "client")
	if err != nil {
		return nil, err
	}
	var theirs [macLen]byte
	if _, err := io.ReadFull(tc, theirs[:]); err != nil {
		return nil, err
	}
	if !skipServerCheck.Load() && !hmac.Equal(theirs[:], want) {
		_, _ = tc.Write([]byte{refused})
		return nil, errAuth
	}
	if admitted != nil && !admitted() {
		return nil, errors.New("closed for a newer connection")
	}
	mine, _ := proof(cs, secret, role, "server")
	if _, err := tc.Write(append([]byte{accepted}, mine...)); err != nil {
		return nil, err
	}
	return newLink(tc), nil
}

// writeRecord queues p (at most maxRecord bytes) as one record; flush
// sends what was queued.
func (l *link) writeRecord(p []byte) error {
	if len(p) > maxRecord {
		return fmt.Errorf("a record of %d bytes", len(p))
	}
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(p)))
	if _, err := l.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := l.w.Write(p)
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

// readRecord returns the next record, valid until the next read. A
// record longer than max, the most the operation in progress expects,
// fails before anything is allocated for it.
func (l *link) readRecord(max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(l.r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[:]))
	if n > max || n > maxRecord {
		return nil, fmt.Errorf("a record of %d bytes where at most %d are expected", n, min(max, maxRecord))
	}
	if cap(l.rbuf) < n {
		l.rbuf = make([]byte, n, maxRecord)
	}
	p := l.rbuf[:n]
	if _, err := io.ReadFull(l.r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return p, nil
}

// readInto fills dst from records.
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
