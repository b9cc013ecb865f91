package cpu

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/argext"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
	"github.com/hipgo/hipgo/rocr/spi"
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

// job is one kernel dispatch being run.
// dispatches numbers dispatches, so what a worker keeps for one (the
// kernel SDK's argument views) is known not to belong to another.
var dispatches atomic.Uint64

type job struct {
	seq     uint64 // this dispatch's number
	k       *kern
	kernarg unsafe.Pointer
	size    [3]int
	grid    [3]int
	count   [3]int
	total   int64
	chunk   int64
	shared  int
	next    atomic.Int64
	hidden  uintptr     // under -race: the claim counter, outside the Go heap
	marks   chan marked // under -race: raceDispatch's groups' runners
	failed  atomic.Pointer[error]

	// helpers: bits 0-31 tickets (workers that may still join), 32-61
	// workers running the job, bit 62 set once it is abandoned, bit 63
	// set once the dispatcher stops waiting for more. A worker stuck in a
	// runaway kernel of another dispatch never takes its ticket, and the
	// dispatch does not wait for it: it revokes the tickets left when its
	// own share is done.
	helpers atomic.Uint64
	left    chan struct{} // the last running helper leaves after the revoke

	// pg is the group of the queue's processor; watch, the watchdog of a
	// dispatch with a timeout, armed with its packet id+1.
	pg      group
	watch   *time.Timer
	armed   atomic.Uint64
	expires atomic.Uint64 // when the armed dispatch is abandoned, in clock.Now nanoseconds
	bound   atomic.Int64  // its timeout
	kernel  atomic.Pointer[kern]

	// Cooperative cancellation: the dispatch's queue (destroyed: cancel)
	// and its deadline in clock.Now nanoseconds (0: none); id is the
	// dispatch's packet id in queue.
	queue    spi.Queue
	id       uint64
	deadline uint64
	canceled atomic.Bool

	// strict (HIPGO_STRICT_PTR=1): every access must fall in an allocation
	// one of the kernel's pointer arguments points into (allowed).
	strict  bool
	allowed []uintptr // the allocations' bases
	// argPtrs are the pointer arguments' values, extents the views some
	// of them were given (argext.Take): an access through one
	// must stay in its view.
	argPtrs []uintptr
	extents []argext.Extent

	// barrier is the grid barrier of a cooperative dispatch; nil otherwise.
	barrier *gridBarrier

	// sanitize (spi.Sanitizing): the pointer arguments' allocations, for
	// telling reads from writes.
	sanitize bool
	sanArgs  []sanArg
}

// allows reports whether strict mode lets the kernel touch a.
func (j *job) allows(a spi.Allocation) bool {
	for _, x := range j.allowed {
		if x == a.Base {
			return true
		}
	}
	return false
}

const (
	ticketMask   = 1<<32 - 1
	runningUnit  = 1 << 32
	runningMask  = (1<<30 - 1) << 32
	abandonedBit = 1 << 62
	revokedBit   = 1 << 63
)

// claim turns one ticket into a running helper; false: none is left (a
// token of a dispatch that already ended, or one that needs no more help).
func (j *job) claim() bool {
	for {
		s := j.helpers.Load()
		if s&ticketMask == 0 || s&(revokedBit|abandonedBit) != 0 {
			return false
		}
		if j.helpers.CompareAndSwap(s, s-1+runningUnit) {
			return true
		}
	}
}

// leave ends a helper's part; false: the job was abandoned while the
// helper ran it, and a new worker has taken the helper's place.
func (j *job) leave() bool {
	s := j.helpers.Add(^uint64(runningUnit - 1))
	if s&^abandonedBit == revokedBit {
		j.left <- struct{}{}
	}
	return s&abandonedBit == 0
}

// abandon takes back the job's tickets and puts a new worker in the
// place of each helper still running it, which leave then lets go.
func (j *job) abandon(p *workerPool) {
	for {
		s := j.helpers.Load()
		if j.helpers.CompareAndSwap(s, s&^ticketMask|abandonedBit) {
			for n := (s & runningMask) >> 32; n > 0; n-- {
				go p.loop()
			}
			return
		}
	}
}

// revoke takes back the tickets no worker claimed and waits for the
// helpers that did.
func (j *job) revoke() {
	for {
		s := j.helpers.Load()
		if j.helpers.CompareAndSwap(s, (s&^ticketMask)|revokedBit) {
			if s&runningMask != 0 {
				<-j.left
			}
			return
		}
	}
}

// cancelled reports whether the dispatch should stop: its queue is being
// destroyed or its deadline passed. It latches.
func (j *job) cancelled() bool {
	if j.canceled.Load() {
		return true
	}
	if (j.queue != nil && j.queue.Destroyed()) || (j.deadline != 0 && clock.Now() > j.deadline) {
		j.canceled.Store(true)
		return true
	}
	return false
}

// Canceled reports whether the kernel should stop at once: its dispatch
// ran past the queue's kernel timeout (HIPGO_KERNEL_TIMEOUT,
// Queue.SetKernelTimeout, stream.Stream.SetKernelTimeout) or its queue is
// being destroyed (gpu.Shutdown). A kernel that may run long polls it and
// returns; the dispatch then fails with an error wrapping hsa.ErrTimeout
// (or the queue's destruction), and its remaining work-groups do not run.
// Go cannot stop a goroutine from outside: a kernel that never polls runs
// on, and is abandoned a grace later (see the package doc).
func (g *group) Canceled() bool { return g.job != nil && g.job.cancelled() }

// bind readies g to run the job's work-groups.
func (j *job) bind(g *group) {
	g.queue, g.kernel, g.job, g.dispatch = j.queue, j.k, j, j.seq
	g.Size, g.Grid, g.Count = j.size, j.grid, j.count
	if cap(g.shared) < j.shared {
		g.shared = make([]byte, j.shared)
	}
	g.shared = g.shared[:j.shared]
	g.resetCache()
}

func (j *job) work(g *group) {
	pprof.SetGoroutineLabels(j.k.labels)
	defer pprof.SetGoroutineLabels(context.Background())
	j.bind(g)
	for {
		if j.cancelled() {
			j.stopClaims()
			return
		}
		lo := j.claimChunk()
		if lo >= j.total {
			return
		}
		hi := min(lo+j.chunk, j.total)
		if !j.runChunk(g, lo, hi) {
			j.stopClaims()
			return
		}
	}
}

func (j *job) runChunk(g *group, lo, hi int64) (ok bool) {
	returned := false
	defer func() {
		r := recover()
		if r == nil && returned {
			return
		}
		var err error
		switch e := r.(type) {
		case errGridBroken:
			ok = false // the failure or cancellation that broke it is the dispatch's
			return
		case nil:
			// recover gives nil only under runtime.Goexit: the goroutine
			// ends whatever happens here, so stop the job for its owner.
			err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel %s work-group %v called runtime.Goexit", j.k.name, g.ID)
			j.stopClaims()
		case error:
			if errtext.IsNilValue(e) {
				err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel %s work-group %v panicked with a nil %T", j.k.name, g.ID, e)
			} else if ae, isAccess := e.(*AccessError); isAccess {
				ae.File, ae.Line, _ = j.where(kernelimpl.KernelFunc(g), false)
				err = hsa.Errorf(hsa.StatusErrorMemoryApertureViolation, "dispatch", "%w", ae)
			} else {
				err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "%w", j.panicError(g, r))
			}
		default:
			err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "%w", j.panicError(g, r))
		}
		if j.failed.CompareAndSwap(nil, &err) {
			j.failedNow(err)
		}
		ok = false
	}()
	c0, c1 := int64(j.count[0]), int64(j.count[1])
	for i := lo; i < hi; i++ {
		g.ID = [3]int{int(i % c0), int(i / c0 % c1), int(i / (c0 * c1))}
		j.k.run(g, j.kernarg)
		if j.canceled.Load() {
			returned = true
			return false
		}
	}
	returned = true
	return true
}

// failedNow follows the dispatch's first failure, err: the work-groups
// still running are cancelled (Canceled reports true), and those that
// have not returned a grace later (HIPGO_KERNEL_GRACE) are abandoned, as
// a runaway kernel is: the dispatch fails with err and hsa.ErrAbandoned,
// and the queue goes on without waiting for work-groups that neither
// return nor poll Canceled. A dispatch that ended by then is left alone
// (Abandon finds another packet, or none, running).
func (j *job) failedNow(err error) {
	j.canceled.Store(true)
	q, id, name := j.queue, j.id, j.k.name
	if q == nil {
		return
	}
	grace := q.KernelGrace()
	time.AfterFunc(grace, func() {
		aerr := hsa.Newf(hsa.ErrAbandoned, hsa.StatusOf(err), "dispatch", "%w; kernel %s: its other work-groups still ran %v after it failed and were abandoned: their goroutines run on until they return, and the memory they can touch stays allocated until then", err, name, grace)
		q.Abandon(id, aerr)
	})
}

// executor serves one queue of a cpu agent.
type executor struct {
	q    spi.Queue
	pool *workerPool
	// job is the dispatch state, reused from one dispatch to the next; an
	// abandoned dispatch keeps its own and the executor takes a new one.
	job     atomic.Pointer[job]
	timeout atomic.Int64 // per-dispatch bound in nanoseconds, 0: none
	strict  bool         // HIPGO_STRICT_PTR

	// stale are the jobs of abandoned dispatches; their -race claim
	// counters are unmapped once every one of them returned.
	staleMu      sync.Mutex
	stale        []*job
	staleRunning int

	// cells keep the groups of the goroutines that race-detector and
	// cooperative dispatches start per work-group (cellGroup), one per
	// cell; closed: Close has ended them.
	cells  []chan *group
	closed atomic.Bool
}

func (a *agent) NewExecutor(q spi.Queue) (spi.Executor, error) {
	var timeout time.Duration
	if v := strings.TrimSpace(os.Getenv("HIPGO_KERNEL_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue create", "HIPGO_KERNEL_TIMEOUT=%q: want a duration such as 10s", v)
		}
		timeout = d
	}
	var strict bool
	if v := strings.TrimSpace(os.Getenv("HIPGO_STRICT_PTR")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue create", "HIPGO_STRICT_PTR=%q: want 1 or 0", v)
		}
		strict = b
	}
	e := &executor{q: q, pool: startWorkers(), strict: strict}
	n := e.pool.n // a cooperative dispatch's most groups
	if raceflag.Enabled {
		n = max(n, RaceWindow)
	}
	e.cells = make([]chan *group, n)
	for c := range e.cells {
		e.cells[c] = make(chan *group, 1)
	}
	if strict {
		argext.Enable() // launches record the views they pass
	}
	e.timeout.Store(int64(timeout))
	e.job.Store(&job{})
	return e, nil
}

// SetKernelTimeout implements spi.KernelCanceler.
func (e *executor) SetKernelTimeout(d time.Duration) { e.timeout.Store(int64(d)) }

func (e *executor) Close() error {
	stopWorkers()
	// The processor's own group keeps the SDK's state from one dispatch to
	// the next; an abandoned job released its own when it returned.
	e.job.Load().pg.release()
	e.closed.Store(true)
	for c := range e.cells {
		e.dropCell(c)
	}
	j := e.job.Load()
	if j.watch != nil {
		j.watch.Stop()
	}
	return j.closeClaims()
}

func (e *executor) KernelName(obj uint64) string {
	if k := kernelByHandle(obj); k != nil {
		return k.name
	}
	return fmt.Sprintf("%#x", obj)
}

func (e *executor) Dispatch(q spi.Queue, p *aql.KernelDispatch) error {
	k := kernelByHandle(p.KernelObject)
	if k == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidCodeSymbol, "dispatch", "kernel object %#x is not a cpu kernel", p.KernelObject)
	}
	if c := aql.ClusterDims(p.Reserved2); c != ([3]uint32{}) {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "dispatch", "kernel %s: the cpu agent has no thread-block clusters (cluster %v)", k.name, c)
	}
	size := [3]int{int(p.WorkgroupSizeX), int(p.WorkgroupSizeY), int(p.WorkgroupSizeZ)}
	grid := [3]int{int(p.GridSizeX), int(p.GridSizeY), int(p.GridSizeZ)}
	if n := size[0] * size[1] * size[2]; n > 1024 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: work-group of %d work-items exceeds 1024", k.name, n)
	}
	if p.GroupSegmentSize > GroupMemory {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: group segment of %d bytes exceeds %d", k.name, p.GroupSegmentSize, GroupMemory)
	}
	if p.GroupSegmentSize < k.groupMem {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: group segment of %d bytes is smaller than its static %d bytes", k.name, p.GroupSegmentSize, k.groupMem)
	}
	j := e.job.Load()
	j.strict, j.allowed, j.argPtrs, j.extents = e.strict, j.allowed[:0], j.argPtrs[:0], j.extents[:0]
	j.sanitize, j.sanArgs = spi.Sanitizing(), j.sanArgs[:0]
	var kernarg unsafe.Pointer
	if n := k.sym.KernargSize; n > 0 {
		if err := e.checkRange(uintptr(p.KernargAddress), uintptr(n)); err != nil {
			return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: kernarg segment: %w", k.name, err)
		}
		kernarg = hostmem.At(uintptr(p.KernargAddress))
		if err := host.CheckBufferArgs(e.q, k.name, uintptr(p.KernargAddress), k.buffers); err != nil {
			return err
		}
		if j.strict || j.sanitize {
			// Every non-null argument passed the check: record each.
			for i := range k.buffers {
				addr := *(*uintptr)(hostmem.At(uintptr(p.KernargAddress) + k.buffers[i].Offset))
				if addr == 0 {
					continue
				}
				if j.strict {
					a, _ := host.FindAllocation(addr)
					j.allowed = append(j.allowed, a.Base)
					j.argPtrs = append(j.argPtrs, addr)
				}
				if j.sanitize {
					if a, ok := host.FindAllocation(addr); ok {
						j.sanArgs = append(j.sanArgs, sanArg{a.Base, a.Base + a.Size, k.readOnly[i]})
					}
				}
			}
		}
	}
	if j.strict {
		j.extents = argext.Take(p.KernargAddress, j.extents)
		for x := range j.extents {
			j.extents[x].Arg = slices.Index(j.argPtrs, j.extents[x].Base)
		}
	}
	j.k, j.kernarg = k, kernarg
	j.seq = dispatches.Add(1)
	j.size, j.grid = size, grid
	var count [3]int
	total := uint64(1)
	for d := 0; d < 3; d++ {
		if size[d] == 0 || grid[d] == 0 {
			return hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "dispatch", "kernel %s: empty grid %v or work-group %v", k.name, grid, size)
		}
		count[d] = (grid[d] + size[d] - 1) / size[d]
		hi, lo := bits.Mul64(total, uint64(count[d]))
		if hi != 0 || lo > math.MaxInt64 {
			return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: grid %v of work-groups %v has too many work-groups", k.name, grid, size)
		}
		total = lo
	}
	j.count, j.total = count, int64(total)
	j.shared = int(p.GroupSegmentSize)
	if err := j.resetClaims(); err != nil {
		return err
	}
	j.failed.Store(nil)
	j.queue, j.id = q, q.LoadReadIndex() // during Dispatch, the packet's id
	j.canceled.Store(false)
	j.deadline = 0
	timeout := e.timeout.Load()
	if timeout > 0 {
		j.deadline = clock.Now() + uint64(timeout)
	}
	if timeout > 0 {
		// The watchdog: past the timeout and the grace, a kernel that did
		// not return is abandoned. During Dispatch the read index is the
		// packet's id.
		e.arm(j, q.LoadReadIndex(), time.Duration(timeout))
		defer e.disarm(j)
	}
	if p.Reserved2&aql.DispatchCooperative != 0 {
		return e.cooperative(q, j, time.Duration(timeout))
	}
	j.barrier = nil
	if raceflag.Enabled && j.total > 1 { // one group has no other to race with
		return e.raceDispatch(q, j, time.Duration(timeout))
	}
	helpers := int64(e.pool.n - 1)
	if j.total-1 < helpers {
		helpers = j.total - 1
	}
	j.chunk = max(1, j.total/(int64(e.pool.n)*8))
	if j.total <= j.chunk {
		helpers = 0
	}
	if j.left == nil {
		j.left = make(chan struct{}, 1)
	}
	j.helpers.Store(uint64(helpers))
send:
	for i := int64(0); i < helpers; i++ {
		select {
		case e.pool.ch <- j:
		default:
			break send // every worker is busy: run with fewer
		}
	}
	// A kernel that calls runtime.Goexit on this goroutine ends it; the
	// helpers still running the job must be gone before the queue's
	// processor carries on without it (and reuses the job).
	done := false
	defer func() {
		if !done {
			j.revoke()
		}
	}()
	j.work(&j.pg)
	if j.helpers.Load()&abandonedBit != 0 {
		// This goroutine ran a kernel the executor gave up on: nothing
		// will run on its group again.
		j.pg.release()
	}
	j.revoke()
	done = true
	return j.result(q, time.Duration(timeout))
}

// result is the dispatch's outcome once its groups are done: the first
// failure, or its cancellation.
func (j *job) result(q spi.Queue, timeout time.Duration) error {
	if p := j.failed.Load(); p != nil {
		return *p
	}
	if j.canceled.Load() {
		if q.Destroyed() {
			return hsa.Errorf(hsa.StatusErrorInvalidQueue, "dispatch", "kernel %s cancelled: queue %d destroyed while it ran", j.k.name, q.ID())
		}
		return hsa.Newf(hsa.ErrTimeout, hsa.StatusErrorException, "dispatch", "kernel %s cancelled: it ran past the queue's kernel timeout of %v", j.k.name, timeout)
	}
	return nil
}

// checkRange checks that [addr, addr+n) lies in one live allocation the
// agent may access.
func (e *executor) checkRange(addr, n uintptr) error {
	if addr == 0 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "access", "null address")
	}
	_, err := host.CheckRange(e.q, addr, n)
	return err
}

// AgentWork carries out a copy, fill or host callback on the processor
// goroutine: the agent's memory is host memory.
func (e *executor) AgentWork(q spi.Queue, w *spi.AgentWork) error {
	switch w.Kind {
	case aql.AgentCopy:
		if w.Size == 0 {
			return nil
		}
		copy(w.Dst.Bytes(w.Size), w.Src.Bytes(w.Size))
		if w.Dst.Host == nil {
			markRange(w.Dst.Addr, uintptr(w.Size))
		}
	case aql.AgentFill:
		if w.Size == 0 {
			return nil
		}
		fill(w.Dst.Bytes(w.Size), w.Pattern, w.ElemSize)
		markRange(w.Dst.Addr, uintptr(w.Size))
	case aql.AgentRect:
		// rocr checked the descriptor's ranges.
		return w.Rect.Rows(func(addr, n uint64, _ string) ([]byte, error) {
			return hostmem.Bytes(uintptr(addr), uintptr(n)), nil
		})
	default:
		// Host callbacks, and native calls: no native stream, so the call
		// is host work in queue order.
		return w.RunHost(0)
	}
	return nil
}

func fill(b []byte, pattern uint64, es int) {
	if es == 1 {
		v := byte(pattern)
		for i := range b {
			b[i] = v
		}
		return
	}
	var pat [8]byte
	for i := 0; i < es; i++ {
		pat[i] = byte(pattern >> (8 * i))
	}
	n := copy(b, pat[:es])
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

func (e *executor) Barrier(q spi.Queue, p *aql.BarrierAnd, or bool) error {
	return q.WaitBarrier(p, or)
}

// arm starts the watchdog of dispatch j, packet id of the queue: past
// its timeout and the queue's grace it abandons the kernel if it still
// runs. Past the first dispatch it allocates nothing.
func (e *executor) arm(j *job, id uint64, timeout time.Duration) {
	d := timeout + e.q.KernelGrace()
	j.bound.Store(int64(timeout))
	j.kernel.Store(j.k)
	j.expires.Store(clock.Now() + uint64(d))
	j.armed.Store(id + 1)
	if j.watch == nil {
		j.watch = time.AfterFunc(d, func() { e.expire(j) })
		return
	}
	j.watch.Reset(d)
}

func (e *executor) disarm(j *job) {
	j.watch.Stop()
	j.armed.Store(0)
}

// expire abandons j's kernel, which ran past its timeout and the grace. A
// timer that fired late, for a dispatch that has ended, finds another one
// armed, or none.
func (e *executor) expire(j *job) {
	a := j.armed.Load()
	if a == 0 || clock.Now() < j.expires.Load() {
		return
	}
	err := hsa.Newf(hsa.ErrTimeout, hsa.StatusErrorException, "dispatch", "kernel %s ran past the queue's kernel timeout of %v and did not return within the %v grace; its goroutine runs on until it returns, and the memory it can touch stays allocated until then: %w", j.kernel.Load().name, time.Duration(j.bound.Load()), e.q.KernelGrace(), hsa.ErrAbandoned)
	e.q.Abandon(a-1, err)
}

// Abandon implements spi.Abandoner: the executor's dispatch state stays
// with the abandoned kernel, the helpers running it are replaced in the
// pool, and memory freed from now on stays unreleased until the kernel
// returns (hold).
func (e *executor) Abandon(q spi.Queue) {
	j := e.job.Load()
	runawayStarted()
	j.abandon(e.pool)
	e.staleMu.Lock()
	e.stale = append(e.stale, j)
	e.staleRunning++
	e.staleMu.Unlock()
	e.job.Store(&job{})
}

// Released implements spi.Abandoner: an abandoned kernel returned.
func (e *executor) Released(q spi.Queue) {
	e.staleMu.Lock()
	e.staleRunning--
	var done []*job
	if e.staleRunning == 0 {
		done, e.stale = e.stale, nil
	}
	e.staleMu.Unlock()
	for _, j := range done {
		_ = j.closeClaims()
	}
	runawayEnded()
}
