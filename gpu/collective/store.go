package collective

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// Store is a small TCP key-value store for handing an ID to the ranks of
// a communicator, like torch's TCPStore: one process serves it, every
// process (the server's included) is a client, and Get waits until the
// key is set.
type Store struct {
	addr string // where clients connect

	ln     net.Listener // the server's, nil in clients
	smu    sync.Mutex
	cond   sync.Cond
	kv     map[string][]byte
	conns  map[net.Conn]bool
	closed bool
}

const (
	storeSet byte = 1
	storeGet byte = 2
)

// NewStore connects to the store at addr ("host:port"), serving it first
// when serve is set (listening on addr's port on every interface).
// Clients retry until the server is up or the rendezvous timeout passes.
// Each request has its own connection, so goroutines that share a Store
// do not wait for each other's Get.
func NewStore(addr string, serve bool) (*Store, error) {
	const op = "collective store"
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, argErr(op, "address %q: %v", addr, err)
	}
	s := &Store{}
	if serve {
		ln, err := net.Listen("tcp", net.JoinHostPort("", port))
		if err != nil {
			return nil, gpu.Errorf(gpu.ErrorNotSupported, op, "serve on port %s: %v", port, err)
		}
		s.ln, s.kv, s.conns = ln, map[string][]byte{}, map[net.Conn]bool{}
		s.cond.L = &s.smu
		go s.serve()
		host = "127.0.0.1"
	}
	s.addr = net.JoinHostPort(host, port)
	c, err := s.dial()
	if err != nil {
		s.Close()
		return nil, err
	}
	c.Close()
	return s, nil
}

func (s *Store) dial() (net.Conn, error) {
	deadline := time.Now().Add(rendezvousTimeout)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Until(deadline))
		if err == nil {
			_ = c.SetDeadline(deadline)
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, gpu.Errorf(gpu.ErrorLaunchFailure, "collective store", "reach %s: %v", s.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Set stores value under key.
func (s *Store) Set(key string, value []byte) error {
	_, err := s.request(storeSet, key, value)
	return err
}

// Get returns the value of key, waiting until some client sets it (up to
// the rendezvous timeout).
func (s *Store) Get(key string) ([]byte, error) { return s.request(storeGet, key, nil) }

func (s *Store) request(kind byte, key string, value []byte) ([]byte, error) {
	const op = "collective store"
	if s == nil || s.addr == "" {
		return nil, gpu.Errorf(gpu.ErrorInvalidHandle, op, "nil store")
	}
	c, err := s.dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	w := bufio.NewWriter(c)
	_ = w.WriteByte(kind)
	writeBytes(w, []byte(key))
	if kind == storeSet {
		writeBytes(w, value)
	}
	if err := w.Flush(); err != nil {
		return nil, gpu.Errorf(gpu.ErrorLaunchFailure, op, "%q: %v", key, err)
	}
	v, err := readBytes(bufio.NewReader(c))
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrorLaunchFailure, op, "%q: %v", key, err)
	}
	return v, nil
}

func writeBytes(w io.Writer, b []byte) {
	_ = binary.Write(w, binary.LittleEndian, uint32(len(b)))
	_, _ = w.Write(b)
}

func readBytes(r io.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("a value of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// Close closes the connection and, in the server, the store.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	var err error
	if s.ln != nil {
		s.smu.Lock()
		s.closed = true
		for c := range s.conns {
			c.Close()
		}
		s.smu.Unlock()
		s.cond.Broadcast()
		err = errors.Join(err, s.ln.Close())
	}
	return err
}

func (s *Store) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.smu.Lock()
		if s.closed {
			s.smu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.smu.Unlock()
		go s.client(c)
	}
}

func (s *Store) client(c net.Conn) {
	defer func() {
		s.smu.Lock()
		delete(s.conns, c)
		s.smu.Unlock()
		c.Close()
	}()
	r := bufio.NewReader(c)
	for {
		kind, err := r.ReadByte()
		if err != nil {
			return
		}
		key, err := readBytes(r)
		if err != nil {
			return
		}
		var reply []byte
		switch kind {
		case storeSet:
			v, err := readBytes(r)
			if err != nil {
				return
			}
			s.smu.Lock()
			s.kv[string(key)] = v
			s.smu.Unlock()
			s.cond.Broadcast()
		case storeGet:
			s.smu.Lock()
			for s.kv[string(key)] == nil && !s.closed {
				s.cond.Wait()
			}
			reply = s.kv[string(key)]
			s.smu.Unlock()
			if reply == nil {
				return
			}
		default:
			return
		}
		w := bufio.NewWriter(c)
		writeBytes(w, reply)
		if w.Flush() != nil {
			return
		}
	}
}

// Key is key of the store as an io.ReadWriter, for Join: a Write sets
// it, reads return its value once some client has set it.
func (s *Store) Key(key string) io.ReadWriter { return &storeKey{s: s, key: key} }

type storeKey struct {
	s    *Store
	key  string
	val  []byte
	read bool
}

func (k *storeKey) Write(p []byte) (int, error) {
	if err := k.s.Set(k.key, append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (k *storeKey) Read(p []byte) (int, error) {
	if !k.read {
		v, err := k.s.Get(k.key)
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

// FromEnv joins a communicator the way torch launchers describe one:
// RANK of WORLD_SIZE ranks on device LOCAL_RANK (default 0) of
// gpu.Devices, meeting at the store that rank 0 serves at
// MASTER_ADDR:MASTER_PORT.
func FromEnv() (*Comm, error) {
	const op = "collective from env"
	num := func(name string, def int) (int, error) {
		v := os.Getenv(name)
		if v == "" {
			if def >= 0 {
				return def, nil
			}
			return 0, argErr(op, "%s is not set", name)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, argErr(op, "%s=%q is not a rank or count", name, v)
		}
		return n, nil
	}
	rank, err := num("RANK", -1)
	if err != nil {
		return nil, err
	}
	size, err := num("WORLD_SIZE", -1)
	if err != nil {
		return nil, err
	}
	local, err := num("LOCAL_RANK", 0)
	if err != nil {
		return nil, err
	}
	port, err := num("MASTER_PORT", -1)
	if err != nil {
		return nil, err
	}
	host := os.Getenv("MASTER_ADDR")
	if host == "" {
		return nil, argErr(op, "MASTER_ADDR is not set")
	}
	dev, err := gpu.Get(local)
	if err != nil {
		return nil, gpu.Wrap(op, err)
	}
	st, err := NewStore(net.JoinHostPort(host, strconv.Itoa(port)), rank == 0)
	if err != nil {
		return nil, err
	}
	// Every rank has read the ID once NewRank returns: the store can go.
	c, err := Join(dev, st.Key("hipgo/collective/id"), rank, size)
	_ = st.Close()
	return c, err
}
