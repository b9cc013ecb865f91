package core

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Access is how an operation uses a buffer.
type Access uint8

// Accesses: a kernel's read-only pointer or a copy's source reads; every
// other use writes.
const (
	Read Access = iota + 1
	Write
)

func (a Access) String() string {
	if a == Read {
		return "reads"
	}
	return "writes"
}

// MaxReaders bounds the readers a buffer tracks since its last writer. A
// reader beyond it waits for the oldest, which it then stands for: the
// set stays bounded and a writer still waits for every reader.
const MaxReaders = 4

// depState is the dependency state of a buffer, or of a byte range of
// one: its last writer and the readers since, each the fence of one
// packet, retained.
type depState struct {
	writer  *Fence
	readers [MaxReaders]*Fence
	n       int
}

// deps is a buffer's dependency state, guarded by Mem.mu. While every use
// named the whole buffer, it is one depState. Once a use names a byte
// range (a view, Mem.View), parts holds the state by range: sorted,
// disjoint and covering the buffer. A use of the whole buffer that writes
// makes it one state again.
type deps struct {
	depState
	parts  []part
	manual bool // the program orders this buffer's uses itself
	// loose holds, for each other queue, the latest packet that used the
	// buffer and that a use ordered by the program (Manual, Check)
	// replaced while it ran: no packet waited for it, so Free, Settle and
	// the backstop must. One per queue: a queue's packets complete in
	// order.
	loose []*Fence
}

// keepLoose adds to d.loose the packets of other queues than f's that
// d records and that have not completed, before a use ordered by the
// program replaces them.
func (d *deps) keepLoose(f *Fence) {
	j := 0
	for _, x := range d.loose {
		if x.Done() {
			x.Release()
			continue
		}
		d.loose[j] = x
		j++
	}
	clear(d.loose[j:])
	d.loose = d.loose[:j]
	add := func(w *Fence) {
		if w == nil || w.queue == f.queue || w.Done() {
			return
		}
		for i, x := range d.loose {
			if x.queue == w.queue {
				if x.seq < w.seq {
					w.Retain()
					x.Release()
					d.loose[i] = w
				}
				return
			}
		}
		w.Retain()
		d.loose = append(d.loose, w)
	}
	d.each(func(st *depState) {
		add(st.writer)
		for _, r := range st.readers[:st.n] {
			add(r)
		}
	})
}

// part is the state of bytes [lo, hi) of a buffer.
type part struct {
	lo, hi int
	depState
}

// maxParts bounds the ranges a buffer tracks. A use that would leave more
// waits for every use recorded, and the buffer is one state again, with
// the use standing for all before it.
const maxParts = 256

// Order is how a stream treats the dependencies its packets find.
type Order uint8

// Orders: Auto inserts a BARRIER_AND for each; Manual leaves them to the
// program (events), as HIP does; Check inserts none and reports each one
// the program did not order with an event.
const (
	Auto Order = iota
	Manual
	Check
)

// user is one Mem.Use in progress: what it records, and the fences it
// must wait for so far.
type user struct {
	s     *Stream
	f     *Fence
	acc   Access
	order Order
	m     *Mem // as named, for messages: the view where it was one
}

// need notes that u's packet must wait for w: nothing for a fence of its
// own queue, a completed one, or one the stream already waits for (a
// barrier earlier in its queue, of an event wait or an automatic
// dependency, waited for w or later work of w's queue); under Manual (or a manual buffer) only
// the sanitizer's check, under Check the report of a dependency the
// stream did not order with an event.
func (u *user) need(w *Fence, deps []*Fence) ([]*Fence, error) {
	f := u.f
	if w == nil || w.queue == f.queue || w.Done() || u.s != nil && u.s.ordered(w) {
		return deps, nil
	}
	switch u.order {
	case Manual:
		if !spi.Sanitizing() || u.s.ordered(w) {
			return deps, nil
		}
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_SANITIZE)",
			f.name(), f.queue, u.acc, u.m, w.name(), w.queue, w.acc)
	case Check:
		if u.s.ordered(w) {
			return deps, nil
		}
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_CHECK_DEPS)",
			f.name(), f.queue, u.acc, u.m, w.name(), w.queue, w.acc)
	}
	for _, d := range deps {
		if d == w { // buffers last used by one packet: wait once
			return deps, nil
		}
	}
	w.Retain()
	return append(deps, w), nil
}

// use records u in st: a read waits for the last writer and joins the
// readers; a write waits for the writer and the readers and becomes the
// writer.
func (st *depState) use(u *user, deps []*Fence) ([]*Fence, error) {
	var err error
	if deps, err = u.need(st.writer, deps); err != nil {
		return deps, err
	}
	if st.writer != nil && st.writer.Done() {
		// Nothing waits for completed work: forgetting it lets parts
		// whose work completed merge again.
		st.writer.Release()
		st.writer = nil
	}
	f := u.f
	f.acc = u.acc
	if u.acc == Read {
		// Readers of f's queue and completed ones are dropped: f stands
		// for them.
		j := 0
		for i := 0; i < st.n; i++ {
			r := st.readers[i]
			if r.queue == f.queue || r.Done() {
				r.Release()
				continue
			}
			st.readers[j] = r
			j++
		}
		clear(st.readers[j:st.n])
		st.n = j
		if st.n == MaxReaders {
			old := st.readers[0]
			if deps, err = u.need(old, deps); err != nil {
				return deps, err
			}
			old.Release()
			copy(st.readers[:], st.readers[1:])
			st.n--
		}
		f.Retain()
		st.readers[st.n] = f
		st.n++
		return deps, nil
	}
	for i := 0; i < st.n; i++ {
		if deps, err = u.need(st.readers[i], deps); err != nil {
			return deps, err
		}
	}
	st.writeBy(f)
	return deps, nil
}

// writeBy makes f the state's writer, with no readers, f retained.
func (st *depState) writeBy(f *Fence) {
	for i := 0; i < st.n; i++ {
		st.readers[i].Release()
		st.readers[i] = nil
	}
	st.n = 0
	f.Retain()
	if st.writer != nil {
		st.writer.Release()
	}
	st.writer = f
}

// clone is a copy of st holding its own references.
func (st *depState) clone() depState {
	c := *st
	if c.writer != nil {
		c.writer.Retain()
	}
	for _, r := range c.readers[:c.n] {
		r.Retain()
	}
	return c
}

// release drops st's references.
func (st *depState) release() {
	if st.writer != nil {
		st.writer.Release()
	}
	for _, r := range st.readers[:st.n] {
		r.Release()
	}
	*st = depState{}
}

func (st *depState) same(o *depState) bool { return *st == *o }
