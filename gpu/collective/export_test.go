package collective

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"
)

// SetRendezvousTimeout shortens how long ranks wait for each other, for
// tests of a rank that never comes; it returns the restore.
func SetRendezvousTimeout(d time.Duration) (restore func()) {
	old := rendezvousLimit.Swap(int64(d))
	return func() { rendezvousLimit.Store(old) }
}

// SetHandshakeTimeout shortens each connection's authentication, for
// tests of idle and slow clients; it returns the restore.
func SetHandshakeTimeout(d time.Duration) (restore func()) {
	old := handshakeLimit.Swap(int64(d))
	return func() { handshakeLimit.Store(old) }
}

// Roles, by name, for the attack helpers.
var Roles = map[string]byte{"store": roleStore, "meet": roleMeet, "peer": rolePeer}

// StoreRequest is a store request's records: a Get where value is nil,
// else a Set.
func StoreRequest(key string, value []byte) [][]byte {
	if value == nil {
		return [][]byte{encodeStoreReq(storeGet, key, 0)}
	}
	return [][]byte{encodeStoreReq(storeSet, key, len(value)), value}
}

// Hello is a joining rank's hello to a meeting point.
func Hello(rank, size int, addr string) []byte { return encodeHello(rank, size, addr) }

// IDAt is id with its meeting point's address replaced by addr.
func IDAt(id ID, addr string) ID {
	c, err := decodeCPUID(id)
	if err != nil {
		panic(err)
	}
	c.addr = addr
	out, err := c.encode()
	if err != nil {
		panic(err)
	}
	return out
}

// AttackClient speaks the protocol to the server at addr as a client that
// does not hold its secret and does not check the server: TLS, a proof
// made with another secret, then records as the link frames them,
// whatever the server answered. It returns the plaintext the server sends
// until it hangs up (at most a second).
func AttackClient(addr, role string, records ...[]byte) []byte {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	tc := tls.Client(conn, clientConfig)
	if tc.Handshake() != nil {
		return nil
	}
	p, err := proof(tc.ConnectionState(), []byte("not the job's secret, 32 bytes.."), Roles[role], "client")
	if err != nil {
		return nil
	}
	_, _ = tc.Write(p)
	l := newLink(tc)
	for _, r := range records {
		_ = l.writeMsg(r)
	}
	got, _ := io.ReadAll(tc)
	return got
}

// FakeServer is a listener that speaks the protocol as a server that does
// not hold the secret and does not check its clients: TLS, then it reads
// a client's proof and answers that it accepts it, with a proof made with
// another secret (echo: the client's own proof sent back), and keeps what
// the client sends after. Received returns those bytes, of every client
// so far.
type FakeServer struct {
	Addr string
	ln   net.Listener
	mu   sync.Mutex
	got  []byte
	wg   sync.WaitGroup
}

func NewFakeServer(role string, echo bool) (*FakeServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg, err := serverConfig()
	if err != nil {
		return nil, err
	}
	f := &FakeServer{Addr: ln.Addr().String(), ln: ln}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
				tc := tls.Server(conn, cfg)
				if tc.Handshake() != nil {
					return
				}
				var theirs [macLen]byte
				if _, err := io.ReadFull(tc, theirs[:]); err != nil {
					return
				}
				mine, _ := proof(tc.ConnectionState(), []byte("not the job's secret, 32 bytes.."), Roles[role], "server")
				if echo {
					mine = theirs[:]
				}
				_, _ = tc.Write(append([]byte{accepted}, mine...))
				rest, _ := io.ReadAll(tc)
				f.mu.Lock()
				f.got = append(f.got, rest...)
				f.mu.Unlock()
			}()
		}
	}()
	return f, nil
}

// Received is what clients sent after their proof; Close first.
func (f *FakeServer) Received() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]byte(nil), f.got...)
}

// Close stops the listener and waits for its connections to end.
func (f *FakeServer) Close() {
	f.ln.Close()
	f.wg.Wait()
}

// Relay is a man in the middle between a client and the server at to:
// it ends each side's TLS itself and passes the plaintext on, both ways.
// Seen returns the plaintext it saw from the server.
type Relay struct {
	Addr string
	ln   net.Listener
	mu   sync.Mutex
	seen []byte
	wg   sync.WaitGroup
}

func NewRelay(to string) (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg, err := serverConfig()
	if err != nil {
		return nil, err
	}
	r := &Relay{Addr: ln.Addr().String(), ln: ln}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
				up, err := net.DialTimeout("tcp", to, time.Second)
				if err != nil {
					return
				}
				defer up.Close()
				_ = up.SetDeadline(time.Now().Add(2 * time.Second))
				down, upt := tls.Server(conn, cfg), tls.Client(up, clientConfig)
				if down.Handshake() != nil || upt.Handshake() != nil {
					return
				}
				go func() { _, _ = io.Copy(upt, down) }()
				var buf bytes.Buffer
				_, _ = io.Copy(io.MultiWriter(down, &buf), upt)
				r.mu.Lock()
				r.seen = append(r.seen, buf.Bytes()...)
				r.mu.Unlock()
			}()
		}
	}()
	return r, nil
}

// Seen is the plaintext the relay read from the server; Close first.
func (r *Relay) Seen() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.seen...)
}

func (r *Relay) Close() {
	r.ln.Close()
	r.wg.Wait()
}
