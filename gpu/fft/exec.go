package fft

import (
	"sync"

	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
)

// execution is one queued execution of a plan: its buffers, their
// addressing and direction, and the stream work that runs it. A plan keeps
// the executions that have run for reuse, so that a call after the first
// allocates nothing; one queued on a capturing stream becomes part of a
// graph that may replay it, and is never reused.
type execution struct {
	p               *Plan
	in, out         *core.Mem
	inSide, outSide *side
	dir             Direction
	reuse           bool

	reads  [1]*core.Mem
	writes [2]*core.Mem // out, the plan's token
	work   hostwork.Work
	wg     sync.WaitGroup // the cpu agent's parallel parts
}

// execution returns an execution of p to fill: a reused one unless the
// stream is capturing.
func (p *Plan) execution(capturing bool) *execution {
	if !capturing {
		p.freeMu.Lock()
		if n := len(p.free); n > 0 {
			e := p.free[n-1]
			p.free[n-1] = nil
			p.free = p.free[:n-1]
			p.freeMu.Unlock()
			return e
		}
		p.freeMu.Unlock()
	}
	e := &execution{p: p, reuse: !capturing}
	e.work.Reads = e.reads[:]
	e.work.Writes = e.writes[:]
	if p.be.host() {
		e.work.Host = e.runHost
	} else {
		e.work.Native = e.runNative
		e.work.QueuesOnly = p.be.queuesOnly()
	}
	return e
}

// done returns e for reuse once it has run (or failed to queue).
func (p *Plan) done(e *execution) {
	if !e.reuse {
		return
	}
	e.in, e.out, e.reads[0], e.writes[0] = nil, nil, nil, nil
	p.freeMu.Lock()
	p.free = append(p.free, e)
	p.freeMu.Unlock()
}

func (e *execution) runHost() error {
	err := e.p.be.run(e)
	e.p.done(e)
	return err
}

func (e *execution) runNative(stream uintptr) error {
	err := e.p.be.native(e, stream)
	e.p.done(e)
	return err
}
