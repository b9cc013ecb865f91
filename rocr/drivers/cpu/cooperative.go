package cpu

import (
	"runtime/pprof"
	"sync"
	"time"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// A cooperative dispatch (aql.DispatchCooperative) runs every work-group
// on its own goroutine, all at once, so that a group may wait at the grid
// barrier for the others (GridSync). It holds as many groups as the agent
// has workers, the occupancy the agent reports (one group per worker);
// the API refuses larger grids before they are queued.

// gridBarrier is a reusable barrier for the groups of one dispatch. A
// group that returns leaves it (the barrier then waits for one fewer); a
// group that fails breaks it, and every waiter fails too, so a failure
// never leaves the others waiting.
type gridBarrier struct {
	mu      sync.Mutex
	running int           // groups that have not returned
	waiting int           // groups in the current wait
	release chan struct{} // closed when the current wait ends
	broken  bool
}

func newGridBarrier(n int) *gridBarrier {
	return &gridBarrier{running: n, release: make(chan struct{})}
}

// openLocked ends the current wait.
func (b *gridBarrier) openLocked() {
	close(b.release)
	b.release = make(chan struct{})
	b.waiting = 0
}

// wait blocks until every running group waits, and reports false when the
// barrier broke or the dispatch was cancelled meanwhile.
func (b *gridBarrier) wait(j *job) bool {
	b.mu.Lock()
	if b.broken {
		b.mu.Unlock()
		return false
	}
	b.waiting++
	if b.waiting == b.running {
		b.openLocked()
		b.mu.Unlock()
		return true
	}
	ch := b.release
	b.mu.Unlock()
	tick := time.NewTicker(time.Millisecond) // for timeouts and a destroyed queue
	defer tick.Stop()
	for {
		select {
		case <-ch:
			b.mu.Lock()
			defer b.mu.Unlock()
			return !b.broken
		case <-tick.C:
			if j.cancelled() {
				b.fail()
				return false
			}
		}
	}
}

// leave removes a group that returned; the others may be complete now.
func (b *gridBarrier) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running--
	if b.waiting > 0 && b.waiting == b.running {
		b.openLocked()
	}
}

// fail breaks the barrier: every waiter, present and future, fails.
func (b *gridBarrier) fail() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.broken {
		b.broken = true
		close(b.release)
	}
}

// errGridBroken ends a group whose grid barrier broke: another group
// failed first, and its failure is the dispatch's.
type errGridBroken struct{}

func (errGridBroken) Error() string { return "grid barrier broken by another work-group's failure" }

// GridSync waits until every work-group of the grid reaches it (a
// cooperative_groups grid sync): what any group wrote before it is visible
// to every group after it. Only a cooperative launch
// (module.LaunchCooperative) may call it; elsewhere it fails the dispatch,
// as it does when another group fails or the dispatch is cancelled while
// this one waits. A group that returns no longer counts.
func (g *group) GridSync() {
	j := g.job
	if j == nil || j.barrier == nil {
		panic(hsa.Errorf(hsa.StatusErrorInvalidArgument, "grid sync", "kernel %s work-group %v: GridSync in a launch that is not cooperative (launch it with module.LaunchCooperative)", g.kernel.name, g.ID))
	}
	if !j.barrier.wait(j) {
		panic(errGridBroken{})
	}
}

// cooperative runs the dispatch j with every group resident at once.
func (e *executor) cooperative(q spi.Queue, j *job, timeout time.Duration) error {
	if limit := int64(e.pool.n); j.total > limit {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: cooperative grid of %d work-groups exceeds the %d the agent holds at once", j.k.name, j.total, limit)
	}
	b := newGridBarrier(int(j.total))
	j.barrier = b
	var wg sync.WaitGroup
	for i := int64(0); i < j.total; i++ {
		wg.Add(1)
		go func() {
			ok := false
			defer func() { // also under runtime.Goexit in the kernel
				if ok {
					b.leave()
				} else {
					b.fail()
				}
				wg.Done()
			}()
			// As a worker: profiles name the kernel, and a kernel that
			// waits on its own queue is told so instead of deadlocking.
			pprof.SetGoroutineLabels(j.k.labels)
			ex := host.MarkRunner()
			defer ex.Close()
			ex.Serve(q)
			g := e.cellGroup(int(i))
			returned := false
			defer func() { e.keepGroup(int(i), g, returned) }()
			j.bind(g)
			ok = j.runChunk(g, i, i+1)
			returned = true
		}()
	}
	wg.Wait()
	j.barrier = nil
	return j.result(q, timeout)
}
