package collective

import (
	"strconv"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
)

// kind is an operation.
type kind uint8

const (
	kAllReduce kind = iota
	kBroadcast
	kReduce
	kAllGather
	kReduceScatter
	kSend
	kRecv
)

var kindNames = [...]string{"AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter", "Send", "Recv"}

func (k kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + itoa(int(k)) + ")"
}

func (k kind) p2p() bool { return k == kSend || k == kRecv }

// call is one checked operation of one rank.
type call struct {
	op    string // names it in errors
	kind  kind
	rank  int
	size  int
	dt    dataType
	esize int
	redop Op
	peer  int // the root of Broadcast and Reduce, the peer of Send and Recv
	// count is the elements each rank contributes: of send (AllReduce,
	// Broadcast, Reduce, AllGather, Send), of recv (ReduceScatter, Recv).
	count      int
	send, recv *core.Mem // nil where this rank does not use it
	s          *stream.Stream
	red        reducer
}

func (k *call) reads() []*core.Mem {
	if k.send == nil {
		return nil
	}
	return []*core.Mem{k.send}
}

func (k *call) writes() []*core.Mem {
	if k.recv == nil {
		return nil
	}
	return []*core.Mem{k.recv}
}

func itoa(v int) string { return strconv.Itoa(v) }

func argErr(op, format string, args ...any) error {
	return gpu.Errorf(gpu.ErrInvalidValue, op, format, args...)
}

// newCall checks what every operation takes: the communicator, the
// stream, and the reduction where there is one.
func newCall[T Element](c *Comm, s *stream.Stream, k kind, redop Op) (*call, error) {
	op := "collective " + k.String()
	if c == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil communicator")
	}
	// A communicator that is gone is the reason, whatever its streams did.
	c.mu.Lock()
	err := c.usable(op)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if s.Device().Agent() != c.dev.Agent() {
		return nil, argErr(op, "the stream is on device %d, rank %d of %d is on device %d", s.Device().Ordinal(), c.rank, c.size, c.dev.Ordinal())
	}
	if redop < Sum || redop > Avg {
		return nil, argErr(op, "%v is not a reduction", redop)
	}
	var zero T
	return &call{op: op, kind: k, rank: c.rank, size: c.size, dt: dataTypeOf[T](), esize: int(unsafe.Sizeof(zero)),
		redop: redop, s: s, red: reducerOf[T]()}, nil
}

// mem returns b's memory, checked for use by c's device.
func mem[T Element](k *call, c *Comm, name string, b *buffer.Buffer[T]) (*core.Mem, error) {
	if b == nil {
		return nil, argErr(k.op, "nil %s buffer", name)
	}
	m, _ := core.MemOf(b)
	if m == nil {
		return nil, argErr(k.op, "nil %s buffer", name)
	}
	if err := m.CheckAccess(k.op+" "+name, c.dev); err != nil {
		return nil, err
	}
	return m, nil
}

// prepare checks what every operation takes: the root or peer where the
// kind has one, and send and recv where this rank uses them.
func prepare[T Element](c *Comm, s *stream.Stream, kd kind, redop Op, peer int, send, recv *buffer.Buffer[T], useSend, useRecv bool) (*call, error) {
	k, err := newCall[T](c, s, kd, redop)
	if err != nil {
		return nil, err
	}
	switch kd {
	case kBroadcast, kReduce:
		if peer < 0 || peer >= k.size {
			return nil, argErr(k.op, "root %d is not a rank of %d", peer, k.size)
		}
	case kSend, kRecv:
		if peer < 0 || peer >= k.size {
			return nil, argErr(k.op, "peer %d is not a rank of %d", peer, k.size)
		}
	}
	k.peer = peer
	if useSend {
		if k.send, err = mem(k, c, "send", send); err != nil {
			return nil, err
		}
	}
	if useRecv {
		if k.recv, err = mem(k, c, "recv", recv); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// sameLength reports send and recv of different lengths and sets the count.
func sameLength(k *call) error {
	if k.send.Len() != k.recv.Len() {
		return argErr(k.op, "send holds %d elements, recv %d: want the same", k.send.Len(), k.recv.Len())
	}
	k.count = k.send.Len()
	return nil
}

func isRoot(c *Comm, root int) bool { return c != nil && c.rank == root }

// AllReduce reduces send over all ranks with op and leaves the result in
// every rank's recv (ncclAllReduce). send and recv have the same length;
// they may be the same buffer.
func AllReduce[T Element](c *Comm, s *stream.Stream, send, recv *buffer.Buffer[T], op Op) error {
	k, err := prepare(c, s, kAllReduce, op, 0, send, recv, true, true)
	if err != nil {
		return err
	}
	if err := sameLength(k); err != nil {
		return err
	}
	return c.enqueue(k)
}

// Broadcast copies root's send into every rank's recv (ncclBroadcast).
// Only the root reads send (others may pass nil); on the root send and
// recv have the same length and may be the same buffer.
func Broadcast[T Element](c *Comm, s *stream.Stream, send, recv *buffer.Buffer[T], root int) error {
	k, err := prepare(c, s, kBroadcast, Sum, root, send, recv, isRoot(c, root), true)
	if err != nil {
		return err
	}
	k.count = k.recv.Len()
	if k.send != nil {
		if err := sameLength(k); err != nil {
			return err
		}
	}
	return c.enqueue(k)
}

// Reduce reduces send over all ranks with op into root's recv
// (ncclReduce). Only the root writes recv (others may pass nil); on the
// root send and recv have the same length and may be the same buffer.
func Reduce[T Element](c *Comm, s *stream.Stream, send, recv *buffer.Buffer[T], op Op, root int) error {
	k, err := prepare(c, s, kReduce, op, root, send, recv, true, isRoot(c, root))
	if err != nil {
		return err
	}
	k.count = k.send.Len()
	if k.recv != nil {
		if err := sameLength(k); err != nil {
			return err
		}
	}
	return c.enqueue(k)
}

// AllGather gathers every rank's send into every rank's recv, rank r's at
// r×len(send) (ncclAllGather). recv holds Size×len(send) elements, so it
// is a different buffer from send unless there is one rank.
func AllGather[T Element](c *Comm, s *stream.Stream, send, recv *buffer.Buffer[T]) error {
	k, err := prepare(c, s, kAllGather, Sum, 0, send, recv, true, true)
	if err != nil {
		return err
	}
	k.count = k.send.Len()
	if k.recv.Len() != c.size*k.count {
		return argErr(k.op, "recv holds %d elements: want %d ranks × %d", k.recv.Len(), c.size, k.count)
	}
	return c.enqueue(k)
}

// ReduceScatter reduces send over all ranks with op and leaves block r of
// the result (len(recv) elements from r×len(recv)) in rank r's recv
// (ncclReduceScatter). send holds Size×len(recv) elements, so it is a
// different buffer from recv unless there is one rank.
func ReduceScatter[T Element](c *Comm, s *stream.Stream, send, recv *buffer.Buffer[T], op Op) error {
	k, err := prepare(c, s, kReduceScatter, op, 0, send, recv, true, true)
	if err != nil {
		return err
	}
	k.count = k.recv.Len()
	if k.send.Len() != c.size*k.count {
		return argErr(k.op, "send holds %d elements: want %d ranks × %d", k.send.Len(), c.size, k.count)
	}
	return c.enqueue(k)
}

// Send sends buf to rank peer, which receives it with Recv (ncclSend).
// A rank that sends and receives in the same step puts both in a group.
func Send[T Element](c *Comm, s *stream.Stream, buf *buffer.Buffer[T], peer int) error {
	k, err := prepare(c, s, kSend, Sum, peer, buf, nil, true, false)
	if err != nil {
		return err
	}
	k.count = k.send.Len()
	return c.enqueue(k)
}

// Recv receives into buf what rank peer sends with Send (ncclRecv); the
// lengths must match.
func Recv[T Element](c *Comm, s *stream.Stream, buf *buffer.Buffer[T], peer int) error {
	k, err := prepare(c, s, kRecv, Sum, peer, nil, buf, false, true)
	if err != nil {
		return err
	}
	k.count = k.recv.Len()
	return c.enqueue(k)
}

// enqueue queues k, or adds it to the communicator's open group.
func (c *Comm) enqueue(k *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(k.op); err != nil {
		return err
	}
	if c.group != nil {
		return c.group.add(c, k)
	}
	return c.submit(k.op, []*call{k})
}

// submit queues ops, all on one stream, as one piece of stream work that
// uses every buffer they use; the caller holds c.mu.
func (c *Comm) submit(op string, ops []*call) error {
	s := ops[0].s
	var reads, writes []*core.Mem
	for _, k := range ops {
		reads = append(reads, k.reads()...)
		writes = append(writes, k.writes()...)
	}
	host, native := c.be.work(ops)
	if err := hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: op, Reads: reads, Writes: writes, Host: host, Native: native}); err != nil {
		return err
	}
	c.streams[s] = struct{}{}
	return nil
}
