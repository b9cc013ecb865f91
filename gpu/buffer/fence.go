package buffer

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
)

// Fence is the completion signal of one submitted packet, shared by the
// stream that submitted it and the buffers the packet touched. Fences are
// pooled: they cost no allocation per launch. A fence is reference counted
// and returns to the pool when the last holder releases it.
type Fence struct {
	sig   *rocr.Signal
	queue uint64
	refs  atomic.Int32
}

var fences struct {
	mu   sync.Mutex
	free []*Fence
}

// NewFence returns a fence armed for one packet of queue (value 1), held
// once by the caller.
func NewFence(queue uint64) (*Fence, error) {
	fences.mu.Lock()
	var f *Fence
	if n := len(fences.free); n > 0 {
		f = fences.free[n-1]
		fences.free = fences.free[:n-1]
	}
	fences.mu.Unlock()
	if f == nil || f.sig.Destroyed() {
		s, err := rocr.NewSignal(1)
		if err != nil {
			return nil, gpu.Wrap("fence", err)
		}
		f = &Fence{sig: s}
	} else {
		f.sig.Store(1, rocr.Relaxed)
	}
	f.queue = queue
	f.refs.Store(1)
	return f, nil
}

// Retain adds a holder.
func (f *Fence) Retain() { f.refs.Add(1) }

// Release drops a holder; the last one returns the fence to the pool.
func (f *Fence) Release() {
	if f.refs.Add(-1) == 0 {
		fences.mu.Lock()
		fences.free = append(fences.free, f)
		fences.mu.Unlock()
	}
}

// Signal is the fence's completion signal.
func (f *Fence) Signal() *rocr.Signal { return f.sig }

// Queue is the id of the queue whose packet completes the fence.
func (f *Fence) Queue() uint64 { return f.queue }

// Done reports whether the packet completed.
func (f *Fence) Done() bool { return f.sig.Load(rocr.Acquire) <= 0 }

// Err is the packet's failure, if it failed.
func (f *Fence) Err() error { return f.sig.Err() }

// Wait blocks until the packet completes (timeout <= 0: forever) and
// returns its failure.
func (f *Fence) Wait(timeout time.Duration) error {
	if _, ok := f.sig.WaitTimed(rocr.CondLT, 1, timeout, rocr.WaitActive); !ok {
		return gpu.Errorf(gpu.ErrorNotReady, "wait", "timed out after %v", timeout)
	}
	return f.sig.Err()
}
