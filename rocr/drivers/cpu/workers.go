package cpu

import (
	"runtime"
	"sync"
)

// workerPool runs work-groups of dispatches on every core. Each queue's
// processor runs groups too, so a dispatch never waits for a free worker.
type workerPool struct {
	n  int
	ch chan *job
	wg sync.WaitGroup
}

var workers struct {
	mu   sync.Mutex
	refs int
	p    *workerPool
}

func startWorkers() *workerPool {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	workers.refs++
	if workers.p == nil {
		n := runtime.GOMAXPROCS(0)
		p := &workerPool{n: n, ch: make(chan *job, 4*n)}
		for i := 0; i < n-1; i++ {
			p.wg.Add(1)
			go p.loop()
		}
		workers.p = p
	}
	return workers.p
}

func stopWorkers() {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	workers.refs--
	if workers.refs == 0 && workers.p != nil {
		close(workers.p.ch)
		workers.p.wg.Wait()
		workers.p = nil
	}
}

func (p *workerPool) loop() {
	var j *job
	replaced := false
	defer func() {
		if replaced {
			return
		}
		// Only runtime.Goexit in a kernel ends a worker with a job in hand
		// (a panic is recovered per chunk): let the job go on without it,
		// and put a fresh worker in its place (unless the job was
		// abandoned, which did).
		if j != nil {
			if j.leave() {
				go p.loop()
			}
			return
		}
		p.wg.Done()
	}()
	g := &group{}
	// What the kernel SDK keeps on the worker (a lockstep kernel's
	// coroutines) serves every dispatch it runs, and ends with it.
	defer g.release()
	ex := host.MarkRunner()
	defer ex.Close()
	for j = range p.ch {
		if j.claim() {
			ex.Serve(j.queue)
			j.work(g)
			ex.Serve(nil)
			if !j.leave() {
				replaced = true // the job was abandoned: a new worker took this one's place
				return
			}
		}
	}
	j = nil
}
