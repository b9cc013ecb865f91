package collective

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// maxMessage is the longest message a peer may announce; what a reader
// holds for one grows with what arrived, never with what was announced.
const maxMessage = 1 << 40

// newCPURank joins a communicator across processes.
func newCPURank(id ID, rank, size int) (*cpuRank, error) {
	const op = "collective init rank"
	c, err := decodeCPUID(id)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*cpuRank, error) {
		return nil, gpu.Errorf(gpu.ErrLaunchFailure, op, "rank %d of %d: "+format, append([]any{rank, size}, args...)...)
	}
	if size > maxRanks {
		return nil, argErr(op, "%d ranks: at most %d", size, maxRanks)
	}
	ln, addr, err := listen()
	if err != nil {
		return fail("listen: %v", err)
	}
	defer ln.Close()
	deadline := time.Now().Add(rendezvousTimeout())
	table, err := meetRanks(c, rank, size, addr, deadline)
	if err != nil {
		var ge *gpu.Error
		if errors.As(err, &ge) {
			return nil, err
		}
		return fail("%v", err)
	}

	// Higher ranks dial, lower ranks accept: each pair connects once.
	links := make([]*link, size)
	closeAll := func() {
		for _, l := range links {
			if l != nil {
				l.conn.Close()
			}
		}
	}
	done := make(chan struct{})
	defer close(done)
	arrivals := make(chan arrival)
	go acceptLinks(ln, c.secret[:], rolePeer, 4, done, arrivals)
	var mu sync.Mutex
	var acceptErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		for n := size - 1 - rank; n > 0; {
			var a arrival
			select {
			case a = <-arrivals:
			case <-timer.C:
				acceptErr = fmt.Errorf("waiting for %d higher ranks to connect: timed out", n)
				return
			}
			from := -1
			if len(a.first) == 4 {
				from = int(binary.LittleEndian.Uint32(a.first))
			}
			mu.Lock()
			if from > rank && from < size && links[from] == nil {
				links[from] = a.l
				n--
			} else {
				a.l.conn.Close()
			}
			mu.Unlock()
		}
	}()
	var dialErr error
	for j := 0; j < rank; j++ {
		l, err := dialPeer(table[j], c.secret[:], rank, deadline)
		if err != nil {
			dialErr = fmt.Errorf("connect to rank %d at %s: %v", j, table[j], err)
			break
		}
		mu.Lock()
		links[j] = l
		mu.Unlock()
	}
	if dialErr != nil {
		ln.Close()
	}
	wg.Wait()
	if dialErr != nil || acceptErr != nil {
		mu.Lock()
		closeAll()
		mu.Unlock()
		return fail("%v", errors.Join(dialErr, acceptErr))
	}
	box := newMailbox(size)
	t := &tcpTransport{rank: rank, box: box, links: links, wmu: make([]sync.Mutex, size)}
	for j, l := range links {
		if l != nil {
			go t.read(j, l)
		}
	}
	return &cpuRank{rank: rank, size: size, box: box, tr: t}, nil
}

func dialPeer(addr string, secret []byte, rank int, deadline time.Time) (*link, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		return nil, err
	}
	l, err := dialAuth(conn, secret, rolePeer)
	if err == nil {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(rank))
		err = l.writeMsg(b[:])
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return l, nil
}

// tcpTransport carries a rank's messages over one authenticated link
// per peer; a reader per link files what arrives in the rank's mailbox.
type tcpTransport struct {
	rank  int
	box   *mailbox
	links []*link
	wmu   []sync.Mutex
}

// frame is a message's fixed part on the wire: the first record of a
// message, its data in the records that follow.
type frame struct {
	Coll, Kind, DT, Redop uint8
	Root                  int32
	Count                 int64
	Len                   uint64
}

const frameLen = 24

func (f frame) encode() []byte {
	b := make([]byte, 0, frameLen)
	b, _ = binary.Append(b, binary.LittleEndian, &f)
	return b
}

// parseFrame parses a frame's record.
func parseFrame(p []byte) (frame, error) {
	var f frame
	if len(p) != frameLen {
		return f, fmt.Errorf("a frame of %d bytes", len(p))
	}
	_, _ = binary.Decode(p, binary.LittleEndian, &f)
	if f.Len > maxMessage {
		return f, fmt.Errorf("a message of %d bytes (at most %d)", f.Len, uint64(maxMessage))
	}
	return f, nil
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
	l := t.links[to]
	err := l.writeRecord(f.encode())
	if err == nil && len(m.data) > 0 {
		err = l.writeMsg(m.data)
	} else if err == nil {
		err = l.flush()
	}
	if err != nil {
		// A peer that left closes its connection: say that, as a wait for
		// it does, rather than what the socket said.
		if why := t.box.departed(to, 200*time.Millisecond); why != nil {
			return gpu.Errorf(gpu.ErrLaunchFailure, "collective", "rank %d: send to rank %d: rank %d: %v", t.rank, to, to, why)
		}
		return gpu.Errorf(gpu.ErrLaunchFailure, "collective", "rank %d: send to rank %d: %v", t.rank, to, err)
	}
	return nil
}

// readData reads a message of n bytes. Its buffer grows with the
// authenticated records that arrive (doubling, from one record's size),
// so a peer that announces more than it sends costs what it sent.
func (l *link) readData(n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	var buf []byte
	got := 0
	for uint64(got) < n {
		p, err := l.readRecord(int(min(n-uint64(got), maxRecord)))
		if err != nil {
			return nil, err
		}
		if len(p) == 0 {
			return nil, errors.New("an empty record inside a message")
		}
		if got+len(p) > len(buf) {
			nb := alignedBytes(int(min(n, uint64(max(maxRecord, 2*(got+len(p)))))))
			copy(nb, buf[:got])
			buf = nb
		}
		got += copy(buf[got:], p)
	}
	return buf, nil
}

func (t *tcpTransport) read(from int, l *link) {
	for {
		p, err := l.readRecord(frameLen)
		var f frame
		if err == nil {
			f, err = parseFrame(p)
		}
		var data []byte
		if err == nil {
			data, err = l.readData(f.Len)
		}
		if err == nil {
			h := header{kind: kind(f.Kind), dt: dataType(f.DT), redop: Op(f.Redop), root: f.Root, count: f.Count}
			err = t.box.putLimited(from, &msg{coll: f.Coll != 0, h: h, data: data})
		}
		if err != nil {
			why := fmt.Errorf("connection lost: %v", err)
			switch {
			case errors.Is(err, io.EOF):
				why = errors.New("it left (its communicator was destroyed or its process ended)")
			case errors.Is(err, errMailboxFull):
				why = err
			}
			t.box.depart(from, why)
			l.conn.Close()
			return
		}
	}
}

// leave half-closes each connection: the peer reads what this rank sent,
// then sees it leave.
func (t *tcpTransport) leave(error) error {
	for j, l := range t.links {
		if l == nil {
			continue
		}
		t.wmu[j].Lock()
		if tc, ok := l.conn.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		} else {
			l.conn.Close()
		}
		t.wmu[j].Unlock()
		// The reader ends when the peer leaves too, or soon after.
		_ = l.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	}
	return nil
}

func (t *tcpTransport) stop(why error) error {
	t.box.stop(why)
	for _, l := range t.links {
		if l != nil {
			l.conn.Close()
		}
	}
	return nil
}
