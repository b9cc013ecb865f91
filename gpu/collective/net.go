package collective

import (
	"context"
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

// newCPURank joins a communicator across processes; it gives up when
// ctx is done or the rendezvous timeout passes.
func newCPURank(ctx context.Context, id ID, rank, size int) (*cpuRank, error) {
	const op = "collective init rank"
	c, err := decodeCPUID(id)
	if err != nil {
		return nil, err
	}
	if size > maxRanks {
		return nil, argErr(op, "%d ranks: at most %d", size, maxRanks)
	}
	ln, addr, err := listen()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrLaunchFailure, op, "rank %d of %d: listen: %v", rank, size, err)
	}
	defer ln.Close()
	deadline := rendezvousDeadline(ctx)
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	stopLn := context.AfterFunc(rctx, func() { ln.Close() })
	defer stopLn()
	fail := func(what string, err error) (*cpuRank, error) {
		what = fmt.Sprintf("rank %d of %d: %s", rank, size, what)
		if errors.Is(err, errMeetTimedOut) {
			// The meeting point's timeout, a moment before this rank's.
			return nil, &gpu.Error{Code: gpu.ErrLaunchTimeOut, Op: op, Err: context.DeadlineExceeded,
				Msg: fmt.Sprintf("%s: %v (HIPGO_COLLECTIVE_TIMEOUT of the process that made the ID)", what, err)}
		}
		if rctx.Err() != nil || !time.Now().Before(deadline) {
			return nil, waitErr(ctx, op, what, deadline, err)
		}
		return nil, gpu.Errorf(gpu.ErrLaunchFailure, op, "%s: %v", what, err)
	}
	table, err := meetRanks(rctx, c, rank, size, addr)
	if err != nil {
		var ge *gpu.Error
		if errors.As(err, &ge) {
			return nil, err
		}
		return fail("meeting the other ranks", err)
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
		for n := size - 1 - rank; n > 0; {
			var a arrival
			select {
			case a = <-arrivals:
			case <-rctx.Done():
				acceptErr = fmt.Errorf("waiting for %d higher ranks to connect", n)
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
		l, err := dialPeer(rctx, table[j], c.secret[:], rank)
		if err != nil {
			dialErr = fmt.Errorf("connect to rank %d at %s: %v", j, table[j], err)
			break
		}
		mu.Lock()
		links[j] = l
		mu.Unlock()
	}
	if dialErr != nil {
		cancel()
	}
	wg.Wait()
	if dialErr != nil || acceptErr != nil {
		mu.Lock()
		closeAll()
		mu.Unlock()
		return fail("connecting to the other ranks", errors.Join(dialErr, acceptErr))
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

// dialPeer connects to a lower rank and tells it this rank's number. A
// connection closed during its handshake is tried again until ctx ends.
func dialPeer(ctx context.Context, addr string, secret []byte, rank int) (*link, error) {
	for {
		l, err := dialPeerOnce(ctx, addr, secret, rank)
		if err == nil || errors.Is(err, errAuth) || !errors.Is(err, errHandshake) || ctx.Err() != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(retryPause):
		}
	}
}

// errHandshake marks a connection lost during its handshake, which the
// client tries again.
var errHandshake = errors.New("the connection closed during its handshake")

func dialPeerOnce(ctx context.Context, addr string, secret []byte, rank int) (*link, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	l, err := dialAuth(conn, secret, rolePeer)
	if err != nil {
		err = fmt.Errorf("%w: %w", errHandshake, err)
	} else {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(rank))
		err = l.writeMsg(b[:])
	}
	if !stop() && err == nil {
		err = ctx.Err()
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

// parseFrame parses a frame's record. Its length is what its header's
// operation carries: count elements of its type (or nothing, for a rank
// that contributes nothing to a collective); a Send carries all of them.
func parseFrame(p []byte) (frame, error) {
	var f frame
	if len(p) != frameLen {
		return f, fmt.Errorf("a frame of %d bytes", len(p))
	}
	_, _ = binary.Decode(p, binary.LittleEndian, &f)
	es := dataType(f.DT).size()
	switch {
	case f.Len > maxMessage:
		return f, fmt.Errorf("a message of %d bytes (at most %d)", f.Len, uint64(maxMessage))
	case es == 0:
		return f, fmt.Errorf("a message of element type %v", dataType(f.DT))
	case f.Count < 0 || uint64(f.Count) > maxMessage/uint64(es):
		return f, fmt.Errorf("a message of %d elements", f.Count)
	case f.Len != uint64(f.Count)*uint64(es) && (f.Len != 0 || kind(f.Kind) == kSend):
		return f, fmt.Errorf("a message of %d bytes for %d %v", f.Len, f.Count, dataType(f.DT))
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
			err = t.box.reserve(from, f.Len)
			if err == nil {
				if data, err = l.readData(f.Len); err == nil {
					h := header{kind: kind(f.Kind), dt: dataType(f.DT), redop: Op(f.Redop), root: f.Root, count: f.Count}
					err = t.box.putLimited(from, &msg{coll: f.Coll != 0, counted: true, h: h, data: data})
				}
				if err != nil {
					t.box.release(from, int64(f.Len))
				}
			}
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
	t.box.leave()
	for j, l := range t.links {
		if l == nil {
			continue
		}
		t.wmu[j].Lock()
		if cw, ok := l.conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
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
