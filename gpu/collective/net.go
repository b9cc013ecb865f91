package collective

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// Ranks of a cpu agents' communicator in different processes meet at a
// listener that NewID starts (the ID carries its address and a random
// nonce), learn each other's addresses there, and connect to each other:
// one TCP connection per pair of ranks carries their messages.

// rendezvousTimeout bounds how long ranks wait for each other to join.
var rendezvousTimeout = 5 * time.Minute

const cpuMagic = "hipgocpu"

// advertisedHost is the address other processes reach this one at:
// HIPGO_COLLECTIVE_HOST, else the first non-loopback IPv4 address of an
// interface that is up, else the loopback address.
func advertisedHost() string {
	if h := os.Getenv("HIPGO_COLLECTIVE_HOST"); h != "" {
		return h
	}
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}

// listen opens a listener on every interface and returns the address to
// advertise for it.
func listen() (net.Listener, string, error) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		return nil, "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return ln, net.JoinHostPort(advertisedHost(), fmt.Sprint(port)), nil
}

type cpuID struct {
	nonce [16]byte
	addr  string
}

func (c cpuID) encode() (ID, error) {
	var id ID
	if len(c.addr) > len(id)-len(cpuMagic)-17 {
		return id, gpu.Errorf(gpu.ErrorInvalidValue, "collective id", "address %q is too long for an ID", c.addr)
	}
	copy(id[:], cpuMagic)
	copy(id[8:], c.nonce[:])
	id[24] = byte(len(c.addr))
	copy(id[25:], c.addr)
	return id, nil
}

func decodeCPUID(id ID) (cpuID, error) {
	var c cpuID
	if string(id[:8]) != cpuMagic || int(id[24]) > len(id)-25 {
		return c, argErr("collective init rank", "the ID was not made for cpu agents (NewID on a cpu agent makes one)")
	}
	copy(c.nonce[:], id[8:24])
	c.addr = string(id[25 : 25+int(id[24])])
	return c, nil
}

func newCPUID() (ID, error) {
	var c cpuID
	if _, err := rand.Read(c.nonce[:]); err != nil {
		return ID{}, gpu.Errorf(gpu.ErrorUnknown, "collective id", "nonce: %v", err)
	}
	ln, addr, err := listen()
	if err != nil {
		return ID{}, gpu.Errorf(gpu.ErrorNotSupported, "collective id", "listen: %v", err)
	}
	c.addr = addr
	id, err := c.encode()
	if err != nil {
		ln.Close()
		return ID{}, err
	}
	go meet(ln, c.nonce)
	return id, nil
}

// hello is what a joining rank tells the meeting point.
type hello struct {
	rank, size int
	addr       string
	conn       net.Conn
}

// meet collects every rank's address and sends each the table; then it
// closes. A joiner that does not fit (wrong nonce, size or a taken rank)
// is told why and the others keep waiting.
func meet(ln net.Listener, nonce [16]byte) {
	defer ln.Close()
	if tl, ok := ln.(*net.TCPListener); ok {
		_ = tl.SetDeadline(time.Now().Add(rendezvousTimeout))
	}
	var joined []hello
	taken := map[int]bool{}
	size := 0
	defer func() {
		for _, h := range joined {
			h.conn.Close()
		}
	}()
	for size == 0 || len(joined) < size {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_ = conn.SetDeadline(time.Now().Add(rendezvousTimeout))
		h, err := readHello(conn, nonce)
		switch {
		case err != nil:
		case size != 0 && h.size != size:
			err = fmt.Errorf("rank %d says %d ranks, others said %d", h.rank, h.size, size)
		case h.rank < 0 || h.rank >= h.size:
			err = fmt.Errorf("rank %d of %d ranks", h.rank, h.size)
		case taken[h.rank]:
			err = fmt.Errorf("rank %d joined twice", h.rank)
		}
		if err != nil {
			writeStatus(conn, err.Error())
			conn.Close()
			continue
		}
		size = h.size
		taken[h.rank] = true
		joined = append(joined, h)
	}
	table := make([]string, size)
	for _, h := range joined {
		table[h.rank] = h.addr
	}
	var b bytes.Buffer
	b.WriteByte(0)
	for _, a := range table {
		writeString(&b, a)
	}
	for _, h := range joined {
		_, _ = h.conn.Write(b.Bytes())
	}
}

func writeString(w io.Writer, s string) {
	_ = binary.Write(w, binary.LittleEndian, uint16(len(s)))
	_, _ = io.WriteString(w, s)
}

func readString(r io.Reader) (string, error) {
	var n uint16
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return "", err
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return string(b), err
}

func writeStatus(w io.Writer, why string) {
	var b bytes.Buffer
	b.WriteByte(1)
	writeString(&b, why)
	_, _ = w.Write(b.Bytes())
}

func writeHello(w io.Writer, nonce [16]byte, rank, size int, addr string) error {
	var b bytes.Buffer
	b.Write(nonce[:])
	_ = binary.Write(&b, binary.LittleEndian, [2]uint32{uint32(rank), uint32(size)})
	writeString(&b, addr)
	_, err := w.Write(b.Bytes())
	return err
}

func readHello(conn net.Conn, nonce [16]byte) (hello, error) {
	var got [16]byte
	if _, err := io.ReadFull(conn, got[:]); err != nil {
		return hello{}, err
	}
	if got != nonce {
		return hello{}, errors.New("the ID does not match")
	}
	var rs [2]uint32
	if err := binary.Read(conn, binary.LittleEndian, &rs); err != nil {
		return hello{}, err
	}
	addr, err := readString(conn)
	return hello{rank: int(rs[0]), size: int(rs[1]), addr: addr, conn: conn}, err
}

// newCPURank joins a communicator across processes.
func newCPURank(id ID, rank, size int) (*cpuRank, error) {
	const op = "collective init rank"
	c, err := decodeCPUID(id)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*cpuRank, error) {
		return nil, gpu.Errorf(gpu.ErrorLaunchFailure, op, "rank %d of %d: "+format, append([]any{rank, size}, args...)...)
	}
	ln, addr, err := listen()
	if err != nil {
		return fail("listen: %v", err)
	}
	defer ln.Close()
	deadline := time.Now().Add(rendezvousTimeout)
	root, err := net.DialTimeout("tcp", c.addr, time.Until(deadline))
	if err != nil {
		return fail("reach the ID's meeting point %s: %v", c.addr, err)
	}
	defer root.Close()
	_ = root.SetDeadline(deadline)
	if err := writeHello(root, c.nonce, rank, size, addr); err != nil {
		return fail("meeting point: %v", err)
	}
	var st [1]byte
	if _, err := io.ReadFull(root, st[:]); err != nil {
		return fail("waiting for the other ranks to join: %v", err)
	}
	if st[0] != 0 {
		why, _ := readString(root)
		return nil, argErr(op, "rank %d of %d: %s", rank, size, why)
	}
	table := make([]string, size)
	for i := range table {
		if table[i], err = readString(root); err != nil {
			return fail("meeting point: %v", err)
		}
	}

	// Lower ranks dial, higher ranks accept: each pair connects once.
	conns := make([]net.Conn, size)
	closeAll := func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
	}
	if tl, ok := ln.(*net.TCPListener); ok {
		_ = tl.SetDeadline(deadline)
	}
	var mu sync.Mutex
	var acceptErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := size - 1 - rank; n > 0; {
			cn, err := ln.Accept()
			if err != nil {
				acceptErr = err
				return
			}
			_ = cn.SetDeadline(deadline)
			h, err := readHello(cn, c.nonce)
			if err != nil || h.rank <= rank || h.rank >= size {
				cn.Close()
				continue
			}
			_ = cn.SetDeadline(time.Time{})
			mu.Lock()
			if conns[h.rank] == nil {
				conns[h.rank] = cn
				n--
			} else {
				cn.Close()
			}
			mu.Unlock()
		}
	}()
	var dialErr error
	for j := 0; j < rank; j++ {
		cn, err := net.DialTimeout("tcp", table[j], time.Until(deadline))
		if err == nil {
			err = writeHello(cn, c.nonce, rank, size, "")
		}
		if err != nil {
			dialErr = fmt.Errorf("connect to rank %d at %s: %v", j, table[j], err)
			break
		}
		mu.Lock()
		conns[j] = cn
		mu.Unlock()
	}
	if dialErr != nil {
		ln.Close()
	}
	wg.Wait()
	if dialErr != nil || acceptErr != nil {
		closeAll()
		return fail("%v", errors.Join(dialErr, acceptErr))
	}
	box := newMailbox(size)
	t := &tcpTransport{rank: rank, box: box, conns: conns, w: make([]*bufio.Writer, size), wmu: make([]sync.Mutex, size)}
	for j, cn := range conns {
		if cn != nil {
			t.w[j] = bufio.NewWriterSize(cn, 1<<16)
			go t.read(j, cn)
		}
	}
	return &cpuRank{rank: rank, size: size, box: box, tr: t}, nil
}

// tcpTransport carries a rank's messages over one connection per peer; a
// reader per connection files what arrives in the rank's mailbox.
type tcpTransport struct {
	rank  int
	box   *mailbox
	conns []net.Conn
	w     []*bufio.Writer
	wmu   []sync.Mutex
}

// frame is a message's fixed part on the wire.
type frame struct {
	Coll, Kind, DT, Redop uint8
	Root                  int32
	Count                 int64
	Len                   uint64
}

func (t *tcpTransport) send(to int, m *msg) error {
	if to == t.rank {
		t.box.put(to, m)
		return nil
	}
	f := frame{Kind: uint8(m.h.kind), DT: uint8(m.h.dt), Redop: uint8(m.h.redop), Root: m.h.root, Count: m.h.count, Len: uint64(len(m.data))}
	if m.coll {
		f.Coll = 1
	}
	t.wmu[to].Lock()
	defer t.wmu[to].Unlock()
	w := t.w[to]
	err := binary.Write(w, binary.LittleEndian, &f)
	if err == nil {
		_, err = w.Write(m.data)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		// A peer that left closes its connection: say that, as a wait for
		// it does, rather than what the socket said.
		if why := t.box.departed(to, 200*time.Millisecond); why != nil {
			return gpu.Errorf(gpu.ErrorLaunchFailure, "collective", "rank %d: send to rank %d: rank %d: %v", t.rank, to, to, why)
		}
		return gpu.Errorf(gpu.ErrorLaunchFailure, "collective", "rank %d: send to rank %d: %v", t.rank, to, err)
	}
	return nil
}

func (t *tcpTransport) read(from int, cn net.Conn) {
	r := bufio.NewReaderSize(cn, 1<<16)
	for {
		var f frame
		err := binary.Read(r, binary.LittleEndian, &f)
		var data []byte
		if err == nil {
			if f.Len > 1<<40 {
				err = fmt.Errorf("a message of %d bytes", f.Len)
			} else {
				data = alignedBytes(int(f.Len))
				_, err = io.ReadFull(r, data)
			}
		}
		if err != nil {
			why := fmt.Errorf("connection lost: %v", err)
			if errors.Is(err, io.EOF) {
				why = errors.New("it left (its communicator was destroyed or its process ended)")
			}
			t.box.depart(from, why)
			cn.Close()
			return
		}
		h := header{kind: kind(f.Kind), dt: dataType(f.DT), redop: Op(f.Redop), root: f.Root, count: f.Count}
		t.box.put(from, &msg{coll: f.Coll != 0, h: h, data: data})
	}
}

// leave half-closes each connection: the peer reads what this rank sent,
// then sees it leave.
func (t *tcpTransport) leave(error) error {
	for j, cn := range t.conns {
		if cn == nil {
			continue
		}
		t.wmu[j].Lock()
		if tc, ok := cn.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		} else {
			cn.Close()
		}
		t.wmu[j].Unlock()
		// The reader ends when the peer leaves too, or soon after.
		_ = cn.SetReadDeadline(time.Now().Add(10 * time.Second))
	}
	return nil
}

func (t *tcpTransport) stop(why error) error {
	t.box.stop(why)
	for _, cn := range t.conns {
		if cn != nil {
			cn.Close()
		}
	}
	return nil
}
