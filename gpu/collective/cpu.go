package collective

import (
	"errors"
	"github.com/hipgo/hipgo/internal/hostmem"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// The cpu agents' backend. A rank's operations run as a host callback on
// its stream, in stream order: the callback hands its part to the other
// ranks through a transport (memory in one process, TCP between
// processes) and waits for theirs, so a collective completes on a stream
// when every rank's stream has reached it. Ranks check that they run the
// same operation, so a mismatch is an error on every rank's stream, not a
// hang or a wrong result.

// transport moves messages between the ranks of one communicator.
type transport interface {
	// send queues m for rank to (which may be this rank).
	send(to int, m *msg) error
	// leave tells the other ranks this one sends no more (why), once what
	// it sent is delivered.
	leave(why error) error
	// stop fails this rank's waits and leaves.
	stop(why error) error
}

type cpuRank struct {
	rank, size int
	box        *mailbox
	tr         transport
}

var (
	errDestroyed = errors.New("its communicator was destroyed")
	errAborted   = errors.New("its communicator was aborted")
)

func (r *cpuRank) work(ops []*call) (func() error, func(uintptr) error) {
	if _, ok := r.tr.(*tcpTransport); !ok {
		return func() error { return r.run(ops) }, nil
	}
	// Peers in other processes may send what these operations take as
	// soon as they are queued here: the mailbox makes room for it.
	takes := r.takes(ops)
	for j, n := range takes {
		if n > 0 {
			r.box.expecting(j, n)
		}
	}
	return func() error {
		defer func() {
			for j, n := range takes {
				if n > 0 {
					r.box.expecting(j, -n)
				}
			}
		}()
		return r.run(ops)
	}, nil
}

// takes is the bytes ops take from each rank.
func (r *cpuRank) takes(ops []*call) []int64 {
	t := make([]int64, r.size)
	for _, k := range ops {
		n := int64(k.count) * int64(k.esize)
		switch k.kind {
		case kRecv:
			t[k.peer] += n
		case kAllReduce, kAllGather, kReduceScatter:
			for j := range t {
				t[j] += n
			}
		case kReduce:
			if r.rank == k.peer {
				for j := range t {
					t[j] += n
				}
			}
		case kBroadcast:
			t[k.peer] += n
		}
	}
	t[r.rank] = 0
	return t
}

func (r *cpuRank) destroy() error { return r.tr.leave(errDestroyed) }

func (r *cpuRank) abort() error {
	return r.tr.stop(gpu.Errorf(gpu.ErrLaunchFailure, "collective", "rank %d: %v", r.rank, errAborted))
}

// bytesOf is m's memory; the cpu agent's device memory is host memory,
// and it stays allocated while work that uses it is queued.
func bytesOf(m *core.Mem) []byte {
	if m == nil || m.Size() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(hostmem.At(m.Addr())), m.Size())
}

func clone(b []byte) []byte {
	c := alignedBytes(len(b))
	copy(c, b)
	return c
}

// run carries out one rank's operations: sends first (they never wait),
// then the collectives in order, then the receives, so that sends and
// receives in one group pair up whatever their order.
func (r *cpuRank) run(ops []*call) error {
	for _, k := range ops {
		if k.kind == kSend {
			h := header{kind: kSend, dt: k.dt, count: int64(k.count)}
			if err := r.tr.send(k.peer, &msg{h: h, data: clone(bytesOf(k.send))}); err != nil {
				return err
			}
		}
	}
	for _, k := range ops {
		if !k.kind.p2p() {
			if err := r.collective(k); err != nil {
				return err
			}
		}
	}
	for _, k := range ops {
		if k.kind == kRecv {
			m, err := r.box.take(k.op, k.peer, false)
			if err != nil {
				return err
			}
			if want := (header{kind: kSend, dt: k.dt, count: int64(k.count)}); m.h != want {
				return argErr(k.op, "rank %d receives %d %v from rank %d, which sent %d %v", r.rank, k.count, k.dt, k.peer, m.h.count, m.h.dt)
			}
			if n := k.count * k.esize; len(m.data) != n {
				return gpu.Errorf(gpu.ErrLaunchFailure, k.op, "rank %d receives %d bytes from rank %d, whose header says %d", r.rank, len(m.data), k.peer, n)
			}
			copy(bytesOf(k.recv), m.data)
		}
	}
	return nil
}

// payload is what rank r sends rank j for collective k. Receivers only
// read what they are sent, so one copy of send serves every rank that
// gets all of it (shared, made on first use).
func (r *cpuRank) payload(k *call, send []byte, j int, shared *[]byte) []byte {
	whole := func() []byte {
		if *shared == nil {
			*shared = clone(send)
		}
		return *shared
	}
	switch k.kind {
	case kAllReduce, kAllGather:
		return whole()
	case kReduce:
		if j == k.peer {
			return whole()
		}
	case kBroadcast:
		if r.rank == k.peer {
			return whole()
		}
	case kReduceScatter:
		n := k.count * k.esize
		return clone(send[j*n : (j+1)*n])
	}
	return nil
}

func (r *cpuRank) collective(k *call) error {
	h := header{kind: k.kind, dt: k.dt, redop: k.redop, root: int32(k.peer), count: int64(k.count)}
	if k.kind == kBroadcast || k.kind == kAllGather {
		h.redop = 0
	}
	send := bytesOf(k.send)
	var shared []byte
	for j := 0; j < r.size; j++ {
		if j != r.rank {
			if err := r.tr.send(j, &msg{coll: true, h: h, data: r.payload(k, send, j, &shared)}); err != nil {
				return err
			}
		}
	}
	// What each rank contributes to this one, its own included.
	parts := make([][]byte, r.size)
	parts[r.rank] = r.payload(k, send, r.rank, &shared)
	var mismatch error
	for j := 0; j < r.size; j++ {
		if j == r.rank {
			continue
		}
		// Every rank's message is taken, even after a mismatch, so the
		// next collective pairs up.
		m, err := r.box.take(k.op, j, true)
		if err != nil {
			return err
		}
		if m.h != h && mismatch == nil {
			mismatch = argErr(k.op, "rank %d runs %v, rank %d runs %v", r.rank, h, j, m.h)
		}
		parts[j] = m.data
	}
	if mismatch != nil {
		return mismatch
	}
	n := k.count * k.esize
	for j, p := range parts {
		need := true
		switch k.kind {
		case kBroadcast:
			need = j == k.peer
		case kReduce:
			need = r.rank == k.peer
		}
		if need && len(p) != n {
			return gpu.Errorf(gpu.ErrLaunchFailure, k.op, "rank %d sent %d bytes, want %d", j, len(p), n)
		}
	}
	recv := bytesOf(k.recv)
	switch k.kind {
	case kAllReduce, kReduceScatter:
		r.reduce(k, recv, parts)
	case kReduce:
		if r.rank == k.peer {
			r.reduce(k, recv, parts)
		}
	case kBroadcast:
		copy(recv, parts[k.peer])
	case kAllGather:
		for j, p := range parts {
			copy(recv[j*n:], p)
		}
	}
	return nil
}

// reduce combines the parts into dst in rank order, so every rank gets
// the same bits. The parts are copies, so dst may be this rank's send.
func (r *cpuRank) reduce(k *call, dst []byte, parts [][]byte) {
	copy(dst, parts[0])
	for _, p := range parts[1:] {
		k.red.combine(dst, p, k.redop)
	}
	if k.redop == Avg {
		k.red.divide(dst, r.size)
	}
}

// clique is the ranks of a communicator made in one process: their
// mailboxes, which the transport writes directly.
type clique struct{ boxes []*mailbox }

type localTransport struct {
	cl   *clique
	rank int
}

func (t *localTransport) send(to int, m *msg) error {
	t.cl.boxes[to].put(t.rank, m)
	return nil
}

func (t *localTransport) leave(why error) error {
	for j, b := range t.cl.boxes {
		if j != t.rank {
			b.depart(t.rank, why)
		}
	}
	return nil
}

func (t *localTransport) stop(why error) error {
	t.cl.boxes[t.rank].stop(why)
	return t.leave(errAborted)
}

// newCPUAll makes the ranks of a communicator over cpu agents in this
// process.
func newCPUAll(n int) []*cpuRank {
	cl := &clique{boxes: make([]*mailbox, n)}
	for i := range cl.boxes {
		cl.boxes[i] = newMailbox(n)
	}
	ranks := make([]*cpuRank, n)
	for i := range ranks {
		ranks[i] = &cpuRank{rank: i, size: n, box: cl.boxes[i], tr: &localTransport{cl: cl, rank: i}}
	}
	return ranks
}
