package rocm

import (
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// hwQueue is one hsa_queue_create queue. rocr writes packets straight
// into its ring: the write and read indexes are amd_queue_t's
// write_dispatch_id and read_dispatch_id, which ROCR's own
// hsa_queue_add_write_index_* and load_read_index_* use.
type hwQueue struct {
	ag  *agent
	key uintptr // the data pointer ROCR hands back to the error callback
	q   uintptr // hsa_queue_t*
	id  uint64
	db  spi.HostSignal

	mu      sync.Mutex
	fail    func(error)
	pending error // an error that came before BindQueueErrors
	failed  bool
}

var hwQueues struct {
	m    sync.Map // key -> *hwQueue
	next atomic.Uintptr
}

// CreateHardwareQueue is hsa_queue_create with ROCR's default scratch and
// group limits, profiling on (event timing), and errors routed to the
// queue's sticky error (BindQueueErrors).
func (a *agent) CreateHardwareQueue(size uint32, typ hsa.QueueType) (spi.HardwareQueue, error) {
	if !a.rt.alive.Load() {
		return spi.HardwareQueue{}, hsa.Errorf(hsa.StatusErrorNotInitialized, "queue create", "the rocm driver is closed")
	}
	api := a.rt.api
	hq := &hwQueue{ag: a, key: hwQueues.next.Add(1)}
	hwQueues.m.Store(hq.key, hq)
	q, s := api.QueueCreate(a.h, size, uint32(typ), hq.key)
	if s != hsaSuccess || q == 0 {
		hwQueues.m.Delete(hq.key)
		if s == hsaSuccess {
			s = hsaStatus(hsa.StatusErrorInvalidQueueCreation)
		}
		return spi.HardwareQueue{}, a.rt.fail(s, "queue create", "hsa_queue_create of %d slots on %s", size, a.info.Name)
	}
	hq.q = q
	// Profiling only adds timestamps; a queue without them still works.
	api.ProfilingSetProfilerEnabled(q, true)
	at := func(off uintptr) uintptr { return q + off }
	hq.id = *(*uint64)(hostmem.At(at(hsaQueueID)))
	hq.db = host.SignalWithBackend(&signal{rt: a.rt, h: signalH(*(*uint64)(hostmem.At(at(hsaQueueDoorbell)))), borrowed: true})
	a.mu.Lock()
	a.queues[hq.id] = hq
	a.mu.Unlock()
	return spi.HardwareQueue{
		Base:       uintptr(*(*uint64)(hostmem.At(at(hsaQueueBase)))),
		Size:       *(*uint32)(hostmem.At(at(hsaQueueSize))),
		WriteIndex: (*uint64)(hostmem.At(at(amdQueueWriteDispatchID))),
		ReadIndex:  (*uint64)(hostmem.At(at(amdQueueReadDispatchID))),
		Doorbell:   hq.db,
		ID:         hq.id,
		Destroy:    hq.destroy,
	}, nil
}

func (hq *hwQueue) destroy() error {
	a := hq.ag
	a.mu.Lock()
	delete(a.queues, hq.id)
	a.mu.Unlock()
	hwQueues.m.Delete(hq.key)
	var err error
	if a.rt.alive.Load() {
		if s := a.rt.api.QueueDestroy(hq.q); s != hsaSuccess {
			err = a.rt.fail(s, "queue destroy", "hsa_queue_destroy of queue %d", hq.id)
		}
	}
	_ = hq.db.Destroy()
	return err
}

// BindQueueErrors routes the asynchronous errors of the hardware queue
// with HSA id to fail (rocr's Queue.fail: the queue's sticky error). An
// error that came before is delivered at once.
func (a *agent) BindQueueErrors(id uint64, fail func(error)) {
	a.mu.Lock()
	hq := a.queues[id]
	a.mu.Unlock()
	if hq == nil {
		return
	}
	hq.mu.Lock()
	hq.fail = fail
	err := hq.pending
	hq.pending = nil
	hq.mu.Unlock()
	if err != nil && fail != nil {
		fail(err)
	}
}

// queueError is hsa_queue_create's callback: ROCR calls it on one of its
// own threads when the queue fails (an invalid packet, a trap, an
// exception). The error is handed to a goroutine so ROCR's thread returns
// at once.
func queueError(s hsaStatus, _ uintptr, key uintptr) {
	v, ok := hwQueues.m.Load(key)
	if !ok {
		return
	}
	hq := v.(*hwQueue)
	err := hq.ag.rt.fail(s, "queue", "queue %d on %s failed", hq.id, hq.ag.info.Name)
	hq.mu.Lock()
	if hq.failed {
		hq.mu.Unlock()
		return
	}
	hq.failed = true
	f := hq.fail
	if f == nil {
		hq.pending = err
	}
	hq.mu.Unlock()
	if f != nil {
		go f(err)
	}
}
