package collective

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// Ranks of a cpu agents' communicator in different processes meet at a
// listener that NewID starts (the ID carries its address and a secret of
// 256 bits), learn each other's addresses there, and connect to each
// other: one TCP connection per pair of ranks carries their messages.
// Every connection proves it holds the ID's secret first (auth.go).

// Limits of the meeting points and peer listeners (doc.go states them).
var (
	maxMeetings  = 64 // meeting points one process keeps open at once
	maxPending   = 64 // connections a listener authenticates at once
	maxPerSource = 16 // of them from one address
)

const (
	cpuMagic  = "hipgocpu"
	secretLen = 32
	maxAddr   = 128 - len(cpuMagic) - secretLen - 1
	maxRanks  = 1 << 16
	maxWhy    = 1024
)

type cpuID struct {
	secret [secretLen]byte
	addr   string
}

func (c cpuID) encode() (ID, error) {
	var id ID
	if len(c.addr) > maxAddr {
		return id, gpu.Errorf(gpu.ErrInvalidValue, "collective id", "address %q is too long for an ID", c.addr)
	}
	copy(id[:], cpuMagic)
	copy(id[len(cpuMagic):], c.secret[:])
	id[len(cpuMagic)+secretLen] = byte(len(c.addr))
	copy(id[len(cpuMagic)+secretLen+1:], c.addr)
	return id, nil
}

func decodeCPUID(id ID) (cpuID, error) {
	var c cpuID
	n := int(id[len(cpuMagic)+secretLen])
	if string(id[:len(cpuMagic)]) != cpuMagic || n > maxAddr {
		return c, argErr("collective init rank", "the ID was not made for cpu agents (NewID on a cpu agent makes one)")
	}
	copy(c.secret[:], id[len(cpuMagic):])
	c.addr = string(id[len(cpuMagic)+secretLen+1:][:n])
	return c, nil
}

// meeting is an ID's meeting point while it waits for the ranks.
type meeting struct {
	ln       net.Listener
	secret   []byte
	done     chan struct{}
	once     sync.Once
	timedOut atomic.Bool // closed by the rendezvous timeout
}

// meetings are this process's meeting points still open, by ID.
var meetings = struct {
	sync.Mutex
	m map[ID]*meeting
}{m: map[ID]*meeting{}}

func (m *meeting) close(id ID) {
	m.once.Do(func() {
		close(m.done)
		m.ln.Close()
		meetings.Lock()
		delete(meetings.m, id)
		meetings.Unlock()
	})
}

func newCPUID() (ID, error) {
	const op = "collective id"
	var c cpuID
	if _, err := rand.Read(c.secret[:]); err != nil {
		return ID{}, gpu.Errorf(gpu.ErrUnknown, op, "secret: %v", err)
	}
	meetings.Lock()
	defer meetings.Unlock()
	if len(meetings.m) >= maxMeetings {
		return ID{}, gpu.Errorf(gpu.ErrOutOfMemory, op, "%d IDs of this process wait for their ranks: join them, or Close those that will not be used", len(meetings.m))
	}
	ln, addr, err := listen()
	if err != nil {
		return ID{}, gpu.Errorf(gpu.ErrNotSupported, op, "listen: %v", err)
	}
	c.addr = addr
	id, err := c.encode()
	if err != nil {
		ln.Close()
		return ID{}, err
	}
	m := &meeting{ln: ln, secret: c.secret[:], done: make(chan struct{})}
	meetings.m[id] = m
	go m.meet(id, rendezvousTimeout())
	return id, nil
}

// closeCPUID closes id's meeting point if this process holds it open.
func closeCPUID(id ID) {
	meetings.Lock()
	m := meetings.m[id]
	meetings.Unlock()
	if m != nil {
		m.close(id)
	}
}

// hello is what a joining rank tells the meeting point.
type hello struct {
	rank, size int
	addr       string
	l          *link
}

// arrival is an authenticated connection and its first record.
type arrival struct {
	l     *link
	first []byte
}

// meet collects every rank's address and sends each the table; then it
// closes, as it does after the rendezvous timeout or on ID.Close. A
// joiner that does not fit (wrong size or a taken rank) is told why and
// the others keep waiting.
func (m *meeting) meet(id ID, timeout time.Duration) {
	defer m.close(id)
	timer := time.AfterFunc(timeout, func() {
		m.timedOut.Store(true)
		m.close(id)
	})
	defer timer.Stop()
	links := make(chan arrival)
	go acceptLinks(m.ln, m.secret, roleMeet, 8+2+maxAddr, m.done, links)
	var joined []hello
	defer func() {
		for _, h := range joined {
			h.l.conn.Close()
		}
	}()
	taken := map[int]bool{}
	size := 0
	for size == 0 || len(joined) < size {
		var a arrival
		select {
		case a = <-links:
		case <-m.done:
			if m.timedOut.Load() {
				// Tell the ranks that came why they wait no more.
				why := fmt.Sprintf("%d of %d ranks joined within %v", len(joined), size, timeout)
				for _, h := range joined {
					_ = h.l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
					_ = writeStatus(h.l, meetTimedOut, why)
				}
			}
			return
		}
		l := a.l
		h, err := parseHello(a.first)
		switch {
		case err != nil:
		case size != 0 && h.size != size:
			err = fmt.Errorf("rank %d says %d ranks, others said %d", h.rank, h.size, size)
		case taken[h.rank]:
			err = fmt.Errorf("rank %d joined twice", h.rank)
		}
		if err != nil {
			go func() {
				_ = l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
				_ = writeStatus(l, meetRefused, err.Error())
				l.conn.Close()
			}()
			continue
		}
		h.l = l
		size = h.size
		taken[h.rank] = true
		joined = append(joined, h)
	}
	table := make([]string, size)
	for _, h := range joined {
		table[h.rank] = h.addr
	}
	var b bytes.Buffer
	for _, a := range table {
		writeString(&b, a)
	}
	for _, h := range joined {
		_ = h.l.conn.SetDeadline(time.Now().Add(handshakeTimeout()))
		var st [5]byte
		binary.LittleEndian.PutUint32(st[1:], uint32(b.Len()))
		if h.l.writeRecord(st[:]) == nil {
			_ = h.l.writeMsg(b.Bytes())
		}
	}
}

func writeString(b *bytes.Buffer, s string) {
	_ = binary.Write(b, binary.LittleEndian, uint16(len(s)))
	b.WriteString(s)
}

// readString reads a string writeString wrote from p, at most max bytes
// long, and returns the rest of p.
func readString(p []byte, max int) (string, []byte, error) {
	if len(p) < 2 {
		return "", nil, errors.New("a truncated string")
	}
	n := int(binary.LittleEndian.Uint16(p))
	if n > max || n > len(p)-2 {
		return "", nil, fmt.Errorf("a string of %d bytes where at most %d fit", n, min(max, len(p)-2))
	}
	return string(p[2 : 2+n]), p[2+n:], nil
}

// The meeting point's word to a joining rank: the table follows, the
// rank does not fit (why follows), or the rendezvous timed out.
const (
	meetOK       byte = 0
	meetRefused  byte = 1
	meetTimedOut byte = 2
)

// errMeetTimedOut is a meeting point's rendezvous timeout, as it told a
// rank that joined.
var errMeetTimedOut = errors.New("the meeting point's rendezvous timed out")

func writeStatus(l *link, status byte, why string) error {
	if len(why) > maxWhy {
		why = why[:maxWhy]
	}
	var st [5]byte
	st[0] = status
	binary.LittleEndian.PutUint32(st[1:], uint32(len(why)))
	if err := l.writeRecord(st[:]); err != nil {
		return err
	}
	return l.writeMsg([]byte(why))
}

func encodeHello(rank, size int, addr string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, [2]uint32{uint32(rank), uint32(size)})
	writeString(&b, addr)
	return b.Bytes()
}

// parseHello parses a joiner's hello: its rank, the number of ranks and
// the address its peers reach it at.
func parseHello(p []byte) (hello, error) {
	if len(p) < 8 {
		return hello{}, errors.New("a truncated hello")
	}
	rank, size := int(binary.LittleEndian.Uint32(p)), int(binary.LittleEndian.Uint32(p[4:]))
	if size < 1 || size > maxRanks || rank >= size {
		return hello{}, fmt.Errorf("rank %d of %d ranks", rank, size)
	}
	addr, rest, err := readString(p[8:], maxAddr)
	if err == nil && len(rest) != 0 {
		err = errors.New("a hello with trailing bytes")
	}
	return hello{rank: rank, size: size, addr: addr}, err
}

// parseTable parses the meeting point's table of size addresses.
func parseTable(p []byte, size int) ([]string, error) {
	table := make([]string, size)
	for i := range table {
		var err error
		if table[i], p, err = readString(p, maxAddr); err != nil {
			return nil, err
		}
	}
	if len(p) != 0 {
		return nil, errors.New("a table with trailing bytes")
	}
	return table, nil
}

// meetRanks tells id's meeting point this rank's address and returns
// every rank's, once all have joined, or an error once ctx is done. A
// connection closed during its handshake (a listener makes room for a
// newer one so) is tried again.
func meetRanks(ctx context.Context, c cpuID, rank, size int, addr string) ([]string, error) {
	for {
		table, again, err := meetOnce(ctx, c, rank, size, addr)
		if !again || ctx.Err() != nil {
			return table, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(retryPause):
		}
	}
}

// retryPause is the wait before a handshake closed under a client is
// tried again.
const retryPause = 20 * time.Millisecond

func meetOnce(ctx context.Context, c cpuID, rank, size int, addr string) (_ []string, again bool, _ error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, false, fmt.Errorf("reach the ID's meeting point %s: %v", c.addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	l, err := dialAuth(conn, c.secret[:], roleMeet)
	if err != nil {
		return nil, !errors.Is(err, errAuth), fmt.Errorf("meeting point %s: %w", c.addr, err)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	if err := l.writeMsg(encodeHello(rank, size, addr)); err != nil {
		return nil, false, fmt.Errorf("meeting point: %v", err)
	}
	st, err := l.readRecord(5)
	if err == nil && len(st) != 5 {
		err = errors.New("a truncated reply")
	}
	if err != nil {
		return nil, false, fmt.Errorf("waiting for the other ranks to join: %v", err)
	}
	status, n := st[0], int(binary.LittleEndian.Uint32(st[1:]))
	if status != 0 {
		if n > maxWhy {
			return nil, false, errors.New("the meeting point refused this rank")
		}
		why := make([]byte, n)
		if err := l.readInto(why); err != nil {
			return nil, false, fmt.Errorf("meeting point: %v", err)
		}
		if status == meetTimedOut {
			return nil, false, fmt.Errorf("%w: %s", errMeetTimedOut, why)
		}
		return nil, false, argErr("collective init rank", "rank %d of %d: %s", rank, size, why)
	}
	if n > size*(2+maxAddr) {
		return nil, false, fmt.Errorf("meeting point: a table of %d bytes for %d ranks", n, size)
	}
	b := make([]byte, n)
	if err := l.readInto(b); err != nil {
		return nil, false, fmt.Errorf("meeting point: %v", err)
	}
	table, err := parseTable(b, size)
	if err != nil {
		return nil, false, fmt.Errorf("meeting point: %v", err)
	}
	return table, false, nil
}
