package kernel

import (
	"fmt"
	"iter"
	"runtime"
	"strings"
)

// Events a lockstep work-item yields to its block's scheduler.
const (
	evDone    = iota // the work-item returned
	evBarrier        // SyncThreads
	evWarp           // a warp operation or SyncWarp
)

// coLane is a lockstep work-item's coroutine: the scheduler resumes it with
// next and it runs to its next barrier, warp operation or return.
type coLane struct {
	next  func() (int, bool)
	stop  func()
	yield func(int) bool
	state int // the event it stopped at
	// panicked carries a panic out of the coroutine to the scheduler,
	// which re-raises it on the driver's goroutine.
	panicked any
}

// sync stops the lockstep work-item at a barrier or warp operation.
func (l *lane) sync(ev int) {
	if l.co == nil {
		panic(fmt.Errorf("kernel %s: a barrier or warp operation in a kernel not defined with kernelimpl.Lockstep() (generated code defines it)", l.b.name))
	}
	if !l.co.yield(ev) {
		panic(errStopped{})
	}
}

// errStopped unwinds a coroutine that its scheduler stopped.
type errStopped struct{}

// Lockstep runs fn once per work-item of the block, the work-items as
// coroutines scheduled so that SyncThreads and warp operations behave as on
// a GPU. fn must not capture variables (generated code passes its
// arguments through Frame) so that a launch allocates nothing.
func (b *Block) Lockstep(fn func(Thread)) {
	n := b.n
	b.perItem = true
	b.entry = fn
	b.grow(n)
	b.warps.reset()
	for i := 0; i < n; i++ {
		l := &b.lanes[i]
		b.place(l, i)
		l.co.state = -1
		b.warps.byFlat[l.flat] = int32(i)
	}
	for {
		for i := 0; i < n; i++ {
			c := b.lanes[i].co
			if c.state != -1 {
				continue
			}
			ev, ok := c.next()
			if c.panicked != nil {
				p := c.panicked
				c.panicked = nil
				b.reset()
				panic(p)
			}
			if !ok {
				b.reset()
				panic(fmt.Errorf("kernel %s: work-item coroutine ended", b.name))
			}
			c.state = ev
		}
		barrier, warp := false, false
		for i := 0; i < n; i++ {
			switch b.lanes[i].co.state {
			case evBarrier:
				barrier = true
			case evWarp:
				warp = true
			}
		}
		if warp {
			// Warp operations go on before any barrier opens: each whose
			// lanes have all arrived completes.
			if err := b.releaseWarps(); err != nil {
				b.reset()
				panic(err)
			}
			continue
		}
		if !barrier {
			return
		}
		// Every work-item is at the barrier or has returned: open it.
		for i := 0; i < n; i++ {
			if c := b.lanes[i].co; c.state == evBarrier {
				c.state = -1
			}
		}
	}
}

// grow readies n lockstep lanes, each with its coroutine.
func (b *Block) grow(n int) {
	// Lanes for every work-item of a full block; the exchange has a slot
	// per work-item of the block, indexed as on a GPU. The coroutines
	// outlive the dispatch and the kernel: each runs whatever b.entry is.
	full := max(n, b.dim.X*b.dim.Y*b.dim.Z)
	if len(b.lanes) >= full && b.lanes[0].co != nil {
		return
	}
	b.reset()
	b.lanes = make([]lane, full)
	b.warps.grow(full)
	for i := range b.lanes {
		l := &b.lanes[i]
		c := &coLane{}
		l.co = c
		c.next, c.stop = iter.Pull(func(yield func(int) bool) {
			c.yield = yield
			for {
				if !b.runLane(l) {
					return
				}
				if !yield(evDone) {
					return
				}
			}
		})
	}
}

// runLane runs one work-item; false when its coroutine was stopped.
func (b *Block) runLane(l *lane) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, stopped := r.(errStopped); stopped {
				ok = false
				return
			}
			l.co.panicked = locate(r)
			ok = true
		}
	}()
	b.entry(b.threadOf(l))
	return true
}

// reset stops every coroutine.
func (b *Block) reset() {
	for i := range b.lanes {
		if c := b.lanes[i].co; c != nil {
			c.stop()
		}
	}
	b.lanes = nil
}

// Release ends the block's coroutines; the driver calls it when its worker
// is done with a dispatch.
func (b *Block) Release() { b.reset() }

// WorkItemPanic is a panic of a lockstep work-item, carried out of its
// coroutine to the driver with the place it happened: the first frame
// outside the runtime and this package, the kernel's own line.
type WorkItemPanic struct {
	Value any
	File  string
	Line  int
	stack string
}

func (p *WorkItemPanic) Error() string {
	if e, ok := p.Value.(error); ok {
		return e.Error()
	}
	return fmt.Sprint(p.Value)
}

// Unwrap is the panic value when it is an error.
func (p *WorkItemPanic) Unwrap() error {
	e, _ := p.Value.(error)
	return e
}

// Location is the kernel's file and line where the work-item panicked.
func (p *WorkItemPanic) Location() (string, int) { return p.File, p.Line }

// Stack is the work-item's stack from the panic down, one
// "function\n\tfile:line" entry per frame.
func (p *WorkItemPanic) Stack() string { return p.stack }

// locate wraps r, recovered on the panicking coroutine's stack, with where
// it happened.
func locate(r any) any {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	it := runtime.CallersFrames(pcs[:n])
	p := &WorkItemPanic{Value: r}
	var sb strings.Builder
	inPanic := true
	for {
		f, more := it.Next()
		if inPanic {
			inPanic = f.Function != "runtime.gopanic"
		} else {
			if p.File == "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr/kernel.") {
				p.File, p.Line = f.File, f.Line
			}
			if strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr/kernel.(*Block).runLane") {
				break
			}
			fmt.Fprintf(&sb, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			break
		}
	}
	p.stack = sb.String()
	return p
}
