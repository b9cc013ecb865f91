package cpu

import (
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/spi"
)

// RaceWindow is how many work-groups of one dispatch run at once under
// the race detector, each on a goroutine of its own.
//
// The detector orders what one goroutine does, so groups that share a
// worker are never seen to race. Under -race the agent therefore gives
// every group a fresh goroutine, and nothing the agent does orders one
// group's work before another's: the dispatch counts and retires groups
// through words outside the Go heap, where the detector does not look,
// and a group's goroutine tells the dispatch who it is (runner.Mark)
// before its kernel runs, never after. The detector also hands its few
// hundred thread slots round, and a goroutine that takes the slot of one
// that ended looks ordered after it, so at most RaceWindow groups are
// alive at once: two groups fewer than RaceWindow apart in the grid's
// linear order are checked against each other in every run, and a grid
// of up to RaceWindow groups has every pair checked. Group i runs in cell
// i%RaceWindow, whose group state, a lockstep kernel's coroutines with it,
// serves the cell's next group (cellGroup): a dispatch starts a goroutine
// per group, not per work-item, and that orders only groups RaceWindow
// or more apart.
const RaceWindow = 128

// hiddenSize is the -race words outside the Go heap: the claim counter,
// then RaceWindow cells of raceDispatch.
const hiddenSize = 8 * (1 + RaceWindow)

// Cell states of raceDispatch.
const (
	cellFree = iota
	cellRunning
	cellDone
)

// marked is a group goroutine's runner, sent before its kernel runs.
type marked struct {
	cell int
	r    spi.Runner
}

// raceDispatch runs j's work-groups as RaceWindow describes.
func (e *executor) raceDispatch(q spi.Queue, j *job, timeout time.Duration) error {
	if j.total <= RaceWindow {
		return e.raceAll(q, j, timeout)
	}
	cells := (*[RaceWindow]int64)(unsafe.Add(hostmem.At(j.hidden), 8))
	for c := range cells {
		atomic.StoreInt64(&cells[c], cellFree)
	}
	if j.marks == nil {
		j.marks = make(chan marked, RaceWindow)
	}
	marks := j.marks
	var held [RaceWindow]spi.Runner
	var wg sync.WaitGroup
	next, live, idle := int64(0), 0, 0
	for next < j.total || live > 0 {
		progressed := false
		for drained := false; !drained; {
			select {
			case m := <-marks:
				held[m.cell] = m.r
			default:
				drained = true
			}
		}
		for c := range cells {
			if held[c] != nil && atomic.LoadInt64(&cells[c]) == cellDone {
				held[c].Close()
				held[c] = nil
				atomic.StoreInt64(&cells[c], cellFree)
				live--
				progressed = true
			}
		}
		if next < j.total && (j.cancelled() || j.failed.Load() != nil) {
			next = j.total
		}
		// Group i runs in cell i%RaceWindow, once the group before it
		// there has returned: the cell's kept state (cellGroup) then
		// orders only groups RaceWindow or more apart.
		for next < j.total {
			c := int(next % RaceWindow)
			if held[c] != nil || atomic.LoadInt64(&cells[c]) != cellFree {
				break
			}
			atomic.StoreInt64(&cells[c], cellRunning)
			live++
			wg.Add(1)
			go e.raceGroup(q, j, next, c, &cells[c], marks, &wg)
			next++
			progressed = true
		}
		if progressed {
			idle = 0
		} else if idle++; idle < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(100 * time.Microsecond) // a long kernel: do not spin on it
		}
	}
	wg.Wait()
	return j.result(q, timeout)
}

// raceGroup runs work-group i of j on the calling goroutine, a fresh one.
func (e *executor) raceGroup(q spi.Queue, j *job, i int64, cell int, state *int64, marks chan<- marked, wg *sync.WaitGroup) {
	defer func() { // also under runtime.Goexit in the kernel
		atomic.StoreInt64(state, cellDone)
		wg.Done()
	}()
	// As a worker: profiles name the kernel, and a kernel that waits on
	// its own queue is told so instead of deadlocking.
	pprof.SetGoroutineLabels(j.k.labels)
	ex := host.MarkRunner()
	ex.Serve(q)
	marks <- marked{cell, ex}
	g := e.cellGroup(cell)
	ok := false
	defer func() { e.keepGroup(cell, g, ok) }()
	j.bind(g)
	j.runChunk(g, i, i+1)
	ok = true
}

// raceAll runs every group of j at once, each on its own goroutine. A
// group's goroutine stays (and keeps its runner mark) until every group
// has returned: an id the runtime gave to another goroutine meanwhile is
// never taken for a runner of j's queue.
func (e *executor) raceAll(q spi.Queue, j *job, timeout time.Duration) error {
	runners := make([]spi.Runner, j.total)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range j.total {
		wg.Add(1)
		go func() {
			defer func() { // also under runtime.Goexit in the kernel
				wg.Done()
				<-release
			}()
			pprof.SetGoroutineLabels(j.k.labels)
			ex := host.MarkRunner()
			ex.Serve(q)
			runners[i] = ex
			g := e.cellGroup(int(i))
			ok := false
			defer func() { e.keepGroup(int(i), g, ok) }()
			j.bind(g)
			if !j.cancelled() {
				j.runChunk(g, i, i+1)
			}
			ok = true
		}()
	}
	wg.Wait()
	for _, ex := range runners {
		ex.Close()
	}
	close(release)
	return j.result(q, timeout)
}

// cellGroup is the group a group goroutine of cell c (a work-group's slot
// under the race detector, or in a cooperative dispatch) runs on: the one
// the cell's last group left, with the kernel SDK's state (a lockstep
// kernel's coroutines), so that a dispatch starts no goroutine but its
// groups' own. Taking it orders the group after the cell's last one, and
// nothing else: groups of other cells, and of other queues, stay
// unordered for the detector. A cell still held (by a group of an
// abandoned dispatch) gives a new group.
func (e *executor) cellGroup(c int) *group {
	if c < len(e.cells) {
		select {
		case g := <-e.cells[c]:
			return g
		default:
		}
	}
	return &group{}
}

// keepGroup gives g back to cell c for its next group; a group that did
// not return normally (runtime.Goexit), one past the cells, and one that
// comes back after Close end their SDK state instead.
func (e *executor) keepGroup(c int, g *group, ok bool) {
	if ok && c < len(e.cells) && !e.closed.Load() {
		select {
		case e.cells[c] <- g:
			if e.closed.Load() {
				e.dropCell(c) // Close may have drained the cell before g came
			}
			return
		default:
		}
	}
	g.release()
}

// dropCell ends the SDK state cell c keeps.
func (e *executor) dropCell(c int) {
	select {
	case g := <-e.cells[c]:
		g.release()
	default:
	}
}
