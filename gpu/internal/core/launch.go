package core

import (
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/argext"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Launch is a kernel dispatch being assembled on a stream; gpu/module uses
// it once the launch's arguments are checked. Between BeginLaunch and
// Commit (or Abort) the stream is locked. A Launch is owned by its stream
// and reused: it costs no allocation.
type Launch struct {
	s       *Stream
	fence   *Fence
	kernarg [spi.KernargSlotSize]byte
	area    kernargArea // the image, when it is larger than kernarg (KernargFor)
	deps    []*Fence
	cap     *Capture // the stream captures: Commit records a node
	uses    []MemUse // what a captured dispatch uses
	// recording: Use holds the recording lock, from the first buffer to
	// Commit or Abort, so the launch's buffers are recorded as one step.
	recording bool
	// views are the extents of the views the dispatch was given, on a
	// queue whose executor checks accesses against them
	// (argext.Enabled); past len(ext) the rest go unchecked.
	ext   [8]argext.Extent
	views int
}

// Dispatch describes a kernel dispatch packet: sizes in work-items as AQL
// has them.
type Dispatch struct {
	Object       uint64
	Grid         [3]uint32 // work-items
	Block        [3]uint16
	Dims         int
	GroupSegment uint32 // static + dynamic group memory
	Private      uint32
	KernargSize  int
	// Cooperative marks a launch whose groups are all resident at once
	// (aql.DispatchCooperative); the caller checked that they fit.
	Cooperative bool
	// Cluster is the thread-block cluster in work-groups (aql.ClusterBits);
	// zero for none. The caller checked it against the agent.
	Cluster [3]uint32
	// Check, if set, runs once the dispatch completed, when the stream
	// next releases its finished work (a later submission, Synchronize,
	// Query); its error becomes the stream's sticky error. It runs with
	// the stream locked and must not call it. A captured dispatch drops it.
	Check func() error
	// Printf is 1 + the kernarg offset of the kernel's hidden printf
	// buffer (hidden_printf_buffer), 0 if it has none: the stream that
	// runs the dispatch writes its printf buffer's address there, a
	// graph's at each replay.
	Printf uint32
}

// BeginLaunch locks the stream for a dispatch. The caller writes the
// kernarg image into Kernarg, declares each buffer the kernel uses with
// Use, and ends with Commit or Abort.
func (s *Stream) BeginLaunch(op string) (*Launch, error) {
	if err := s.Lock(op); err != nil {
		return nil, err
	}
	f, err := s.newFence(op)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	l := &s.launch
	l.fence = f
	l.deps = l.deps[:0]
	l.views = 0
	l.cap, l.uses = s.captureOf(), l.uses[:0]
	if l.cap == nil {
		if l.deps, err = s.joinLegacy(op, l.deps); err != nil {
			l.Abort()
			return nil, err
		}
	}
	return l, nil
}

// KernargFor is the kernarg image for a segment of n bytes: the scratch
// image up to KernargSlotSize, past it one of the stream's kernarg areas
// (up to MaxKernarg), which the dispatch points at in place of its slot
// and holds until it completes. The caller checked n against the agent's
// limit.
func (l *Launch) KernargFor(n int) ([]byte, error) {
	if n <= spi.KernargSlotSize {
		return l.kernarg[:n], nil
	}
	l.dropArea()
	a, err := l.s.takeArea(n)
	if err != nil {
		return nil, err
	}
	l.area = a
	return l.area.bytes(n), nil
}

// kernargImage is the image KernargFor gave for the dispatch's size.
func (l *Launch) kernargImage(n int) []byte {
	if l.area.addr != 0 {
		return l.area.bytes(n)
	}
	return l.kernarg[:n]
}

// dropArea gives the launch's area back to the stream.
func (l *Launch) dropArea() {
	l.s.putArea(l.area)
	l.area = kernargArea{}
}

// Stream is the launch's stream.
func (l *Launch) Stream() *Stream { return l.s }

// Use records that the dispatch uses m with acc. If m's last writer (or,
// for a write, its readers since) ran on another stream and is not yet
// complete, the dispatch waits for it with a BARRIER_AND: independent
// streams and concurrent readers stay concurrent, dependent ones correct.
// A freed m is an error; the caller aborts the launch.
func (l *Launch) Use(m *Mem, acc Access) error {
	if l.cap != nil {
		return l.captureUse(m, acc)
	}
	if m.parent != nil && l.views < len(l.ext) && argext.Enabled() {
		l.ext[l.views] = argext.Extent{Base: m.Addr(), End: m.Addr() + uintptr(m.Size()), Elem: m.esize}
		l.views++
	}
	if !l.recording {
		recording.Lock()
		l.recording = true
	}
	var err error
	l.deps, err = m.Use(l.s, l.fence, acc, l.deps)
	return err
}

// endRecording releases the recording lock once the launch's buffers are
// recorded.
func (l *Launch) endRecording() {
	if l.recording {
		l.recording = false
		recording.Unlock()
	}
}

// Name names the dispatch's kernel in dependency messages.
func (l *Launch) Name(kernel string) { l.fence.op = kernel }

// Abort releases the stream without submitting anything.
func (l *Launch) Abort() {
	l.endRecording()
	l.releaseDeps()
	l.dropArea()
	l.fence.Cancel()
	l.s.fences.Release(l.fence)
	l.fence = nil
	l.s.unlock()
}

func (l *Launch) releaseDeps() {
	for i, d := range l.deps {
		l.s.fences.Release(d)
		l.deps[i] = nil
	}
	l.deps = l.deps[:0]
}

// Commit submits the barriers the dispatch needs and the dispatch itself,
// and unlocks the stream.
func (l *Launch) Commit(d *Dispatch) error {
	s := l.s
	defer s.unlock()
	l.endRecording()
	if l.cap != nil {
		return l.captureLaunch(l.cap, d)
	}
	// The image is the scratch one or, past a queue slot, the area.
	if err := s.putPrintf("launch", l.kernargImage(d.KernargSize), d); err != nil {
		l.releaseDeps()
		l.dropArea()
		l.fence.Cancel()
		s.fences.Release(l.fence)
		l.fence = nil
		return err
	}
	f := l.fence
	l.fence = nil
	if len(l.deps) > 0 {
		for _, d := range l.deps {
			if !d.shared {
				s.noteWaited(d) // a later use of d's work on this stream needs no barrier
			}
		}
		err := s.Barrier(l.deps, false) // takes over the deps' references
		clear(l.deps)
		l.deps = l.deps[:0]
		if err != nil {
			l.dropArea()
			f.Cancel()
			s.fences.Release(f)
			return err
		}
	}
	e := s.Push()
	id, err := s.q.Reserve()
	if err != nil {
		s.Drop(e)
		l.dropArea()
		f.Cancel()
		s.fences.Release(f)
		return s.queueErr("launch", err)
	}
	ka := s.q.Kernarg(id)
	switch {
	case l.area.addr != 0:
		ka, e.area = l.area.addr, l.area // the entry holds it until the dispatch completes
		l.area = kernargArea{}
	case d.KernargSize > 0:
		copy(hostmem.Bytes(ka, uintptr(d.KernargSize)), l.kernarg[:d.KernargSize])
	}
	if l.views > 0 {
		argext.Set(uint64(ka), l.ext[:l.views])
	}
	d.fill((*aql.KernelDispatch)(s.q.Slot(id)), uint64(ka), f.Signal().Handle())
	e.fence = f
	if d.Check != nil {
		e.check = d.Check
		s.checks.Add(1)
	}
	s.q.Publish(id, dispatchHeader, uint16(d.Dims))
	s.SetTail(f)
	s.reap(false) // while the agent runs the dispatch
	return nil
}

// fill writes the dispatch into p, all but its header word, which is
// published last.
func (d *Dispatch) fill(p *aql.KernelDispatch, kernarg, completion uint64) {
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = d.Block[0], d.Block[1], d.Block[2]
	p.Reserved0 = 0
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = d.Grid[0], d.Grid[1], d.Grid[2]
	p.PrivateSegmentSize = d.Private
	p.GroupSegmentSize = d.GroupSegment
	p.KernelObject = d.Object
	p.KernargAddress = kernarg
	p.Reserved2 = d.reserved2()
	p.CompletionSignal = completion
}

// reserved2 is the packet's Reserved2: the cooperative mark and the
// cluster dimensions, or 0.
func (d *Dispatch) reserved2() uint64 {
	var r uint64
	if d.Cooperative {
		r = aql.DispatchCooperative
	}
	if d.Cluster != ([3]uint32{}) {
		r |= aql.ClusterBits(d.Cluster)
	}
	return r
}
