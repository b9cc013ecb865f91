package cpu

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/argext"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/spi"
)

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
