package collective

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// Store is a small TCP key-value store for handing an ID to the ranks of
// a communicator, like torch's TCPStore: one process serves it, every
// process (the server's included) is a client, and Get waits until the
// key is set. Every request proves it holds the job's secret (doc.go's
// Security says where it comes from) and travels sealed under it.
type Store struct {
	addr string    // where clients connect
	js   jobSecret // where clients find the secret
	key  []byte    // the server's secret; nil in clients

	ln      net.Listener // the server's, nil in clients
	smu     sync.Mutex
	kv      map[string][]byte
	changed chan struct{} // closed and replaced on each Set
	conns   map[net.Conn]bool
	waits   int // Gets waiting for their key
	done    chan struct{}
	closed  bool
}

// The store's limits (doc.go states them).
var (
	storeMaxKey   = 256
	storeMaxValue = 16 << 10
	storeMaxKeys  = 256
	storeMaxWaits = 1024 // Gets waiting for a key at once
	storeMaxConns = 1024 + 64
)

// A reply's status: the value, a refusal with its reason, or busy (the
// client asks again).
const (
	storeOK   byte = 0
	storeErr  byte = 1
	storeBusy byte = 2
)

const (
	storeSet  byte = 1
	storeGet  byte = 2
	storePing byte = 3
	storeReq       = 1 + 2 + 4 // kind, key length, value length
)

// NewStore connects to the store at addr ("host:port"), serving it first
// when serve is set. The server listens on addr as given: a loopback
// address is reachable from this host only, and only an unspecified host
// ("0.0.0.0:P", "[::]:P" or ":P") listens on every interface. Clients
// retry until the server is up and accepts their secret, or the
// rendezvous timeout passes. Each request has its own connection, so
// goroutines that share a Store do not wait for each other's Get.
func NewStore(addr string, serve bool) (*Store, error) {
	return NewStoreContext(context.Background(), addr, serve)
}

// NewStoreContext is NewStore whose wait for the server gives up when ctx
// is done.
func NewStoreContext(ctx context.Context, addr string, serve bool) (*Store, error) {
	const op = "collective store"
	if err := checkTimeoutEnv(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, argErr(op, "address %q: %v", addr, err)
	}
	js, err := secretFor(op, addr)
	if err != nil {
		return nil, err
	}
	s := &Store{js: js, addr: addr}
	if serve {
		if s.key, err = js.get(true); err != nil {
			return nil, gpu.Errorf(gpu.ErrNotSupported, op, "make the secret: %v", err)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			js.remove(s.key)
			return nil, gpu.Errorf(gpu.ErrNotSupported, op, "serve on %s: %v", addr, err)
		}
		s.ln, s.kv, s.conns = ln, map[string][]byte{}, map[net.Conn]bool{}
		s.changed, s.done = make(chan struct{}), make(chan struct{})
		go s.serve()
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		s.addr = net.JoinHostPort(host, port)
	}
	if _, err := s.request(ctx, storePing, "", nil); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// dial connects and authenticates a request's connection. A secret from
// the runtime directory is read again while the server refuses it: the
// serving rank may not have written this job's yet.
func (s *Store) dial(ctx context.Context, deadline time.Time) (*link, error) {
	const op = "collective store"
	for {
		if ctx.Err() != nil {
			return nil, waitErr(ctx, op, "reach "+s.addr, deadline, nil)
		}
		key, err := s.key, error(nil)
		if key == nil {
			key, err = s.js.get(false)
		}
		var c net.Conn
		if err == nil {
			d := net.Dialer{Deadline: deadline}
			c, err = d.DialContext(ctx, "tcp", s.addr)
		}
		if err == nil {
			var l *link
			if l, err = dialAuth(c, key, roleStore); err == nil {
				// The server's reply to a Get that timed out comes after.
				_ = c.SetDeadline(deadline.Add(handshakeTimeout()))
				return l, nil
			}
			c.Close()
			if errors.Is(err, errAuth) && s.js.file == "" {
				return nil, &gpu.Error{Code: gpu.ErrInvalidValue, Op: op, Msg: s.addr, Err: err}
			}
		}
		if !time.Now().Before(deadline) {
			return nil, waitErr(ctx, op, "reach "+s.addr, deadline, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Set stores value under key. Keys have at most 256 bytes and values
// 16 KiB; a store holds at most 256 keys.
func (s *Store) Set(key string, value []byte) error {
	return s.SetContext(context.Background(), key, value)
}

// SetContext is Set that gives up when ctx is done.
func (s *Store) SetContext(ctx context.Context, key string, value []byte) error {
	_, err := s.request(ctx, storeSet, key, value)
	return err
}

// Get returns the value of key, waiting until some client sets it (up to
// the rendezvous timeout).
func (s *Store) Get(key string) ([]byte, error) { return s.GetContext(context.Background(), key) }

// GetContext is Get that gives up when ctx is done, or at its deadline
// where that comes before the rendezvous timeout; the error wraps ctx's.
func (s *Store) GetContext(ctx context.Context, key string) ([]byte, error) {
	return s.request(ctx, storeGet, key, nil)
}

func encodeStoreReq(kind byte, key string, vlen int) []byte {
	b := make([]byte, storeReq, storeReq+len(key))
	b[0] = kind
	binary.LittleEndian.PutUint16(b[1:], uint16(len(key)))
	binary.LittleEndian.PutUint32(b[3:], uint32(vlen))
	return append(b, key...)
}

// parseStoreReq parses a request's first record: its kind, key and the
// length of the value that follows, each within the store's limits.
func parseStoreReq(p []byte) (kind byte, key string, vlen int, err error) {
	if len(p) < storeReq {
		return 0, "", 0, errors.New("a truncated request")
	}
	kind = p[0]
	klen, vlen := int(binary.LittleEndian.Uint16(p[1:])), int(binary.LittleEndian.Uint32(p[3:]))
	switch {
	case kind < storeSet || kind > storePing:
		return 0, "", 0, fmt.Errorf("a request of kind %d", kind)
	case klen != len(p)-storeReq:
		return 0, "", 0, fmt.Errorf("a key of %d bytes in a request of %d", klen, len(p))
	case klen > storeMaxKey:
		return 0, "", 0, fmt.Errorf("a key of %d bytes (at most %d)", klen, storeMaxKey)
	case vlen > storeMaxValue:
		return 0, "", 0, fmt.Errorf("a value of %d bytes (at most %d)", vlen, storeMaxValue)
	case kind != storeSet && vlen != 0:
		return 0, "", 0, errors.New("a value with a request that takes none")
	}
	return kind, string(p[storeReq:]), vlen, nil
}

func (s *Store) request(ctx context.Context, kind byte, key string, value []byte) ([]byte, error) {
	const op = "collective store"
	if s == nil || s.addr == "" {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil store")
	}
	if len(key) > storeMaxKey || len(value) > storeMaxValue {
		return nil, argErr(op, "a key of %d bytes and a value of %d: at most %d and %d", len(key), len(value), storeMaxKey, storeMaxValue)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	deadline := rendezvousDeadline(ctx)
	for {
		v, busy, err := s.requestOnce(ctx, deadline, kind, key, value)
		if !busy {
			return v, err
		}
		// The store serves as many clients as it may: ask again.
		select {
		case <-ctx.Done():
		case <-time.After(retryPause + time.Duration(rand.Int64N(int64(4*retryPause)))):
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			return nil, waitErr(ctx, op, strconv.Quote(key), deadline, errors.New("the store was busy"))
		}
	}
}

func (s *Store) requestOnce(ctx context.Context, deadline time.Time, kind byte, key string, value []byte) (_ []byte, busy bool, _ error) {
	const op = "collective store"
	l, err := s.dial(ctx, deadline)
	if err != nil {
		return nil, false, err
	}
	defer l.conn.Close()
	// A done context ends the request where it waits: the connection
	// closes under it.
	stop := context.AfterFunc(ctx, func() { _ = l.conn.Close() })
	defer stop()
	failed := func(err error) error {
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			return waitErr(ctx, op, strconv.Quote(key), deadline, err)
		}
		return gpu.Errorf(gpu.ErrLaunchFailure, op, "%q: %v", key, err)
	}
	err = l.writeRecord(encodeStoreReq(kind, key, len(value)))
	if err == nil && len(value) > 0 {
		err = l.writeMsg(value)
	} else if err == nil {
		err = l.flush()
	}
	if err != nil {
		return nil, false, failed(err)
	}
	st, err := l.readRecord(5)
	if err == nil && len(st) != 5 {
		err = errors.New("a truncated reply")
	}
	if err != nil {
		return nil, false, failed(err)
	}
	status, n := st[0], int(binary.LittleEndian.Uint32(st[1:]))
	if n > max(storeMaxValue, maxWhy) {
		return nil, false, gpu.Errorf(gpu.ErrLaunchFailure, op, "%q: a reply of %d bytes", key, n)
	}
	v := make([]byte, n)
	if err := l.readInto(v); err != nil {
		return nil, false, failed(err)
	}
	switch status {
	case storeOK:
		return v, false, nil
	case storeBusy:
		return nil, true, nil
	}
	return nil, false, gpu.Errorf(gpu.ErrInvalidValue, op, "%q: the store says: %s", key, v)
}

// Close closes the connection and, in the server, the store.
func (s *Store) Close() error {
	if s == nil || s.ln == nil {
		return nil
	}
	s.smu.Lock()
	if s.closed {
		s.smu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	for c := range s.conns {
		c.Close()
	}
	s.smu.Unlock()
	s.js.remove(s.key)
	return s.ln.Close()
}

// Key is key of the store as an io.ReadWriter, for Join: a Write sets
// it, reads return its value once some client has set it.
func (s *Store) Key(key string) io.ReadWriter { return s.keyContext(context.Background(), key) }

// keyContext is Key whose reads and writes give up when ctx is done.
func (s *Store) keyContext(ctx context.Context, key string) *storeKey {
	return &storeKey{s: s, key: key, ctx: ctx}
}

type storeKey struct {
	s    *Store
	key  string
	ctx  context.Context
	val  []byte
	read bool
}

func (k *storeKey) Write(p []byte) (int, error) {
	if err := k.s.SetContext(k.ctx, k.key, append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (k *storeKey) Read(p []byte) (int, error) {
	if !k.read {
		v, err := k.s.GetContext(k.ctx, k.key)
		if err != nil {
			return 0, err
		}
		k.val, k.read = v, true
	}
	if len(k.val) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.val)
	k.val = k.val[n:]
	return n, nil
}

// FromEnv joins a communicator as a launcher describes one
// (LaunchFromEnv: torchrun, mpirun, srun): this rank of the launch's size,
// on its Device, meeting the others at the store rank 0 serves.
func FromEnv() (*Comm, error) { return FromEnvContext(context.Background()) }

// FromEnvContext is FromEnv whose whole rendezvous (the store, the ID's
// hand-over and the ranks' meeting) gives up when ctx is done, or at
// ctx's deadline where that comes before HIPGO_COLLECTIVE_TIMEOUT's; the
// error wraps ctx's, and a timeout is hipErrorLaunchTimeOut wrapping
// context.DeadlineExceeded. NCCL's and RCCL's own setup, once every rank
// has the communicator's ID, is not cut short.
func FromEnvContext(ctx context.Context) (*Comm, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	l, err := LaunchFromEnv()
	if err != nil {
		return nil, err
	}
	dev, err := l.Device()
	if err != nil {
		return nil, err
	}
	rank, size := l.Rank, l.Size
	st, err := NewStoreContext(ctx, l.Addr, rank == 0)
	if err != nil {
		return nil, err
	}
	// Every rank has read the ID once NewRank returns: the store can go.
	// The ID's own secret guards the communicator from here on.
	c, err := JoinContext(ctx, dev, st.keyContext(ctx, "hipgo/collective/id"), rank, size)
	_ = st.Close()
	return c, err
}
