package collective

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// header describes one rank's part of an operation, so that ranks can
// check they run the same one.
type header struct {
	kind  kind
	dt    dataType
	redop Op
	root  int32
	count int64
}

func (h header) String() string {
	s := h.kind.String() + " of " + itoa(int(h.count)) + " " + h.dt.String()
	switch h.kind {
	case kAllReduce, kReduceScatter:
		s += " (" + h.redop.String() + ")"
	case kReduce:
		s += " (" + h.redop.String() + ") to rank " + itoa(int(h.root))
	case kBroadcast:
		s += " from rank " + itoa(int(h.root))
	}
	return s
}

// msg is what one rank hands another: its part of a collective, or the
// data of a Send.
type msg struct {
	coll    bool
	counted bool // its bytes are in the mailbox's held (a peer in another process)
	h       header
	data    []byte
}

// mailbox is one rank's incoming messages, queued by sender and by
// purpose, in the order each sender sent them.
type mailbox struct {
	mu    sync.Mutex
	cond  sync.Cond
	q     [2][][]*msg // [0]: sends, [1]: collectives; by sender
	gone  []error     // why a sender will send no more
	abort error       // set when this rank was aborted
	// For peers in other processes: the bytes of the messages queued (or
	// being read) from each, and the bytes that the operations this rank
	// has queued and not yet finished take from each.
	held, expect []int64
	leaving      bool // the rank left: readers wait for room no more
}

func newMailbox(size int) *mailbox {
	b := &mailbox{gone: make([]error, size), held: make([]int64, size), expect: make([]int64, size)}
	b.q[0], b.q[1] = make([][]*msg, size), make([][]*msg, size)
	b.cond.L = &b.mu
	return b
}

func qi(coll bool) int {
	if coll {
		return 1
	}
	return 0
}

func (b *mailbox) put(from int, m *msg) {
	b.mu.Lock()
	b.q[qi(m.coll)][from] = append(b.q[qi(m.coll)][from], m)
	b.mu.Unlock()
	b.cond.Broadcast()
}

// mailboxDepth is how many messages of one kind (sends, collectives)
// a rank holds from one peer over TCP before it has taken them.
var mailboxDepth = 256

// mailboxBytes is how many bytes of messages a rank holds from one peer
// over TCP beyond what its queued operations take from that peer.
var mailboxBytes int64 = 16 << 20

var errMailboxFull = errors.New("the mailbox is full")

// reserve waits until a message of n bytes from a peer in another process
// fits: the bytes held from that peer stay within mailboxBytes, or within
// what this rank's queued operations take from it where that is more. A
// message no queued operation takes waits, unread, until one is queued;
// its bytes are counted from here on. It fails once the rank is aborted
// or has left.
func (b *mailbox) reserve(from int, n uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.abort != nil {
			return b.abort
		}
		if b.leaving {
			return errors.New("this rank left before it took the message")
		}
		if room := max(mailboxBytes, b.expect[from]) - b.held[from]; room >= 0 && n <= uint64(room) {
			b.held[from] += int64(n)
			return nil
		}
		b.cond.Wait()
	}
}

// release returns n bytes reserve counted that will not be taken.
func (b *mailbox) release(from int, n int64) {
	b.mu.Lock()
	b.held[from] -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// expecting adds n (negative: takes away) to the bytes this rank's
// queued operations take from rank from.
func (b *mailbox) expecting(from int, n int64) {
	b.mu.Lock()
	b.expect[from] += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// putLimited is put for a peer in another process, whose n bytes reserve
// counted: a peer past mailboxDepth is refused (its reader drops it as
// departed).
func (b *mailbox) putLimited(from int, m *msg) error {
	b.mu.Lock()
	q := &b.q[qi(m.coll)][from]
	if len(*q) >= mailboxDepth {
		b.mu.Unlock()
		return fmt.Errorf("it sent more than %d messages this rank had not yet received: %w", mailboxDepth, errMailboxFull)
	}
	*q = append(*q, m)
	b.mu.Unlock()
	b.cond.Broadcast()
	return nil
}

// take waits for the next message from a sender. Messages a departed
// sender sent before it left are still delivered.
func (b *mailbox) take(op string, from int, coll bool) (*msg, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := &b.q[qi(coll)][from]
	for {
		if b.abort != nil {
			return nil, b.abort
		}
		if len(*q) > 0 {
			m := (*q)[0]
			(*q)[0] = nil
			*q = (*q)[1:]
			if m.counted {
				// Room for the peer's next message.
				b.held[from] -= int64(len(m.data))
				b.cond.Broadcast()
			}
			return m, nil
		}
		if err := b.gone[from]; err != nil {
			return nil, gpu.Errorf(gpu.ErrLaunchFailure, op, "rank %d: %v", from, err)
		}
		// A collective needs every rank: one that left before its part
		// came fails it, even while this rank still waits for another.
		// Collectives take the parts in rank order, so the ranks before
		// from delivered theirs and may leave.
		for r := from + 1; coll && r < len(b.gone); r++ {
			if err := b.gone[r]; err != nil && len(b.q[1][r]) == 0 {
				return nil, gpu.Errorf(gpu.ErrLaunchFailure, op, "rank %d: %v", r, err)
			}
		}
		b.cond.Wait()
	}
}

// depart records that sender from will send no more, and why.
func (b *mailbox) depart(from int, why error) {
	b.mu.Lock()
	if b.gone[from] == nil {
		b.gone[from] = why
	}
	b.mu.Unlock()
	b.cond.Broadcast()
}

// departed is why rank r left, or nil while it has not. It waits up to
// d for the reason: a failed write to a peer races the reader that sees
// the peer go.
func (b *mailbox) departed(r int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		b.mu.Lock()
		why := b.gone[r]
		b.mu.Unlock()
		if why != nil || time.Now().After(deadline) {
			return why
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leave ends the readers' waits for room: the rank takes nothing more.
func (b *mailbox) leave() {
	b.mu.Lock()
	b.leaving = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// stop fails every wait of this rank from now on.
func (b *mailbox) stop(err error) {
	b.mu.Lock()
	if b.abort == nil {
		b.abort = err
	}
	b.mu.Unlock()
	b.cond.Broadcast()
}
