package core

import (
	"slices"
	"sync"

	"github.com/hipgo/hipgo/gpu"
)

// Use records that the packet whose fence is f uses m with acc, and
// appends to deps the fences f must wait for: the last writer for a read;
// the last writer and the readers since for a write; fences of f's own
// queue and completed ones are skipped. A view (Mem.View) is a use of
// its bytes of the buffer it views: uses of disjoint ranges do not wait
// for each other. It fails, recording nothing, when m was freed: the
// check and the record are one step with respect to Free. Under Check, a
// dependency the stream did not order is an error naming both
// operations; under Manual (or a manual buffer) none is returned.
func (m *Mem) Use(s *Stream, f *Fence, acc Access, deps []*Fence) ([]*Fence, error) {
	// An operation's buffers are recorded under recording (see useAll and
	// Launch.Use), so it never depends on one recorded after it.
	r, lo := m, 0
	if m.parent != nil {
		r, lo = m.parent, m.off
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.freed.Load() {
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s was freed", m)
	}
	d := r.depsOf()
	u := user{s: s, f: f, acc: acc, order: s.order, m: m}
	if d.manual && u.order == Auto {
		u.order = Manual
	}
	if u.order != Auto {
		d.keepLoose(f)
	}
	size, whole := r.Size(), m.Size()
	if d.parts == nil && lo == 0 && whole == size {
		return d.use(&u, deps)
	}
	return d.useRange(&u, deps, lo, lo+whole, size)
}

// useRange records u's use of bytes [lo, hi) of a buffer of size bytes.
func (d *deps) useRange(u *user, deps []*Fence, lo, hi, size int) ([]*Fence, error) {
	if hi <= lo { // an empty view touches no bytes
		return deps, nil
	}
	if d.parts == nil {
		d.parts = append(d.parts, part{lo: 0, hi: size, depState: d.depState})
		d.depState = depState{}
	}
	i, j := d.split(lo), d.split(hi)
	var err error
	for k := i; k < j; k++ {
		if deps, err = d.parts[k].use(u, deps); err != nil {
			return deps, err
		}
	}
	d.coalesce(max(i-1, 0), min(j+1, len(d.parts)))
	if len(d.parts) > maxParts {
		return d.collapse(u, deps)
	}
	if len(d.parts) == 1 {
		d.depState, d.parts = d.parts[0].depState, nil
	}
	return deps, nil
}

// split makes a part start at at, cloning the state of the part it cut,
// and returns that part's index (len(parts) for the end).
func (d *deps) split(at int) int {
	// The first part that ends after at holds it.
	k, n := 0, len(d.parts)
	for k < n {
		h := int(uint(k+n) >> 1)
		if d.parts[h].hi <= at {
			k = h + 1
		} else {
			n = h
		}
	}
	if k == len(d.parts) {
		return k
	}
	p := &d.parts[k]
	if p.lo == at {
		return k
	}
	q := part{lo: at, hi: p.hi, depState: p.clone()}
	p.hi = at
	d.parts = slices.Insert(d.parts, k+1, q)
	return k + 1
}

// coalesce merges neighbours with the same state among parts [i, j).
func (d *deps) coalesce(i, j int) {
	for k := i; k+1 < j && k+1 < len(d.parts); {
		a, b := &d.parts[k], &d.parts[k+1]
		if !a.same(&b.depState) {
			k++
			continue
		}
		a.hi = b.hi
		b.release()
		d.parts = slices.Delete(d.parts, k+1, k+2)
		j--
	}
}

// collapse makes the buffer one state again, past maxParts: u waits for
// every use recorded, and stands for them as the buffer's writer (for a
// read too: a later use that waits for u waits for all of them).
func (d *deps) collapse(u *user, deps []*Fence) ([]*Fence, error) {
	var err error
	for k := range d.parts {
		p := &d.parts[k]
		// need skips u's own fence, as it skips every fence of its queue.
		if deps, err = u.need(p.writer, deps); err != nil {
			return deps, err
		}
		for _, r := range p.readers[:p.n] {
			if deps, err = u.need(r, deps); err != nil {
				return deps, err
			}
		}
	}
	for k := range d.parts {
		d.parts[k].release()
	}
	d.parts = nil
	d.depState = depState{}
	d.writeBy(u.f)
	return deps, nil
}

// each calls fn for every state d holds.
func (d *deps) each(fn func(*depState)) {
	if d.parts == nil {
		fn(&d.depState)
		return
	}
	for k := range d.parts {
		fn(&d.parts[k].depState)
	}
}

// recording makes the recording of one operation's buffers one step with
// respect to every other operation's: an operation then depends only on
// operations recorded before it. Recorded buffer by buffer, two operations
// on two streams that use two buffers in opposite roles (saxpy(a, b) and
// saxpy(b, a)), or one buffer as both input and output, would each wait
// for the other. It is held for a few Mem.Use calls, never while waiting.
var recording sync.Mutex

// useAll records the operation f's uses on s, appending what it must wait
// for to deps.
func useAll(s *Stream, f *Fence, uses []MemUse, deps []*Fence) ([]*Fence, error) {
	recording.Lock()
	defer recording.Unlock()
	var err error
	for _, u := range uses {
		if u.M == nil {
			continue
		}
		if deps, err = u.M.Use(s, f, u.Acc, deps); err != nil {
			return deps, err
		}
	}
	return deps, nil
}

// take empties the dependency state and appends what it held to fs.
func (d *deps) take(fs []*Fence) []*Fence {
	d.each(func(st *depState) {
		if st.writer != nil {
			fs = append(fs, st.writer)
		}
		fs = append(fs, st.readers[:st.n]...)
		*st = depState{}
	})
	d.depState, d.parts = depState{}, nil
	fs = append(fs, d.loose...)
	d.loose = nil
	return fs
}
