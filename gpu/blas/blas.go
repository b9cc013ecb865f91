package blas

import (
	"errors"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
)

// Float is the element types the routines take.
type Float interface{ float32 | float64 }

// Array is device-visible memory of T elements: a *buffer.Buffer[T] or a
// *buffer.Host[T].
type Array[T Float] interface {
	buffer.Object
	Ptr() rocr.Ptr[T]
}

// Transpose says whether a routine uses a matrix as stored or transposed.
type Transpose int

// Transposes (hipblasOperation_t; for real matrices ConjTrans is Trans).
const (
	NoTrans Transpose = iota
	Trans
)

func (t Transpose) String() string {
	switch t {
	case NoTrans:
		return "NoTrans"
	case Trans:
		return "Trans"
	}
	return "Transpose(" + itoa(int(t)) + ")"
}

// Handle is a BLAS context bound to a stream (hipblasHandle_t after
// hipblasSetStream). Its methods and the routines that take it are safe
// from several goroutines.
type Handle struct {
	s  *stream.Stream
	be backend

	mu        sync.Mutex // guards the fields below; held by Dot and Nrm2 across their wait
	destroyed bool
	// submitting counts the calls being queued outside h.mu; Destroy
	// waits on drained until they are.
	submitting int
	drained    *sync.Cond
	scratch32  *buffer.Buffer[float32]
	scratch64  *buffer.Buffer[float64]
	workspace  *buffer.Buffer[byte] // the vendor library's, where it takes one
}

// backend turns a checked call into stream work.
type backend interface {
	// work returns the host function or native call that carries out c.
	work(c *call) (host func() error, native hostref.NativeFunc)
	// destroy queues the release of the backend's state on s.
	destroy(s *stream.Stream) error
	// release releases the backend's state now, on dev's default stream,
	// for a handle whose stream was destroyed (which waited for its work).
	release(dev *gpu.Device) error
}

// New creates a handle whose routines queue work on s (hipblasCreate and
// hipblasSetStream). The backend follows s's device: gonum on the cpu
// agent, cuBLAS on cuda, rocBLAS on rocm.
func New(s *stream.Stream) (*Handle, error) {
	const op = "blas create"
	if s == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	dev := s.Device()
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap(op, err)
	}
	var be backend
	var ws *buffer.Buffer[byte]
	switch drv := dev.Agent().Info().Driver; drv {
	case "cpu":
		be = gonumBackend{}
	case "cuda":
		b, err := newCublas(dev)
		if err != nil {
			return nil, err
		}
		be, ws = b, b.ws
	case "rocm":
		b, err := newRocblas()
		if err != nil {
			return nil, err
		}
		be = b
	default:
		return nil, gpu.Errorf(gpu.ErrNotSupported, op, "no BLAS backend for driver %q of %s", drv, dev)
	}
	return &Handle{s: s, be: be, workspace: ws}, nil
}

// Stream is the handle's stream.
func (h *Handle) Stream() *stream.Stream {
	if h == nil {
		return nil
	}
	return h.s
}

// Destroy waits for the handle's work and releases it (hipblasDestroy).
// The stream stays usable. A handle whose stream was destroyed first is
// released all the same (its work ended with the stream), and Destroy
// returns an error saying so.
func (h *Handle) Destroy() error {
	const op = "blas destroy"
	if err := checkHandle(op, h); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "handle already destroyed")
	}
	h.destroyed = true
	if h.submitting > 0 {
		h.drained = sync.NewCond(&h.mu)
		for h.submitting > 0 {
			h.drained.Wait()
		}
	}
	err := h.be.destroy(h.s)
	if serr := h.s.Synchronize(); err == nil {
		err = serr
	}
	if err != nil && (*core.Stream)(h.s).Destroyed() {
		if rerr := h.be.release(h.s.Device()); rerr != nil {
			err = &gpu.Error{Code: gpu.ErrInvalidHandle, Op: op, Msg: "the handle's stream was destroyed first, and releasing the library's handle without it failed", Err: rerr}
		} else {
			err = gpu.Errorf(gpu.ErrInvalidHandle, op, "the handle's stream was destroyed first; what the handle held was released all the same")
		}
	} else if err != nil {
		err = errs.Wrap(op, err)
	}
	if h.workspace != nil {
		err = errors.Join(err, h.workspace.Free())
	}
	if h.scratch32 != nil {
		err = errors.Join(err, h.scratch32.Free())
	}
	if h.scratch64 != nil {
		err = errors.Join(err, h.scratch64.Free())
	}
	return err
}

// submit queues a checked call on the handle's stream. Destroy waits for
// the submissions under way, so none lands after its release of the
// handle; h.mu is not held while queueing, which may wait for room.
func (h *Handle) submit(c *call) error {
	h.mu.Lock()
	if h.destroyed {
		h.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidHandle, c.op, "handle was destroyed")
	}
	h.submitting++
	h.mu.Unlock()
	err := h.queue(c)
	h.mu.Lock()
	if h.submitting--; h.submitting == 0 && h.drained != nil {
		h.drained.Broadcast()
	}
	h.mu.Unlock()
	return err
}

// queue is submit for a caller that holds h.mu.
func (h *Handle) queue(c *call) error {
	host, native := h.be.work(c)
	w := &hostwork.Work{Op: c.op, Reads: c.reads(), Writes: c.writes(), Host: host, Native: native}
	if v, ok := h.be.(*vendor); ok {
		// cuBLAS queues on the stream it is given; rocBLAS waits after
		// each call (vendor.api.after).
		w.QueuesOnly = v.api.after == nil
	}
	return hostwork.Launch((*core.Stream)(h.s), w)
}

// scratch returns the handle's one-element buffer of T, allocating it on
// first use; the caller holds h.mu.
func scratch[T Float](h *Handle) (Array[T], error) {
	var zero T
	switch any(zero).(type) {
	case float32:
		if h.scratch32 == nil {
			b, err := buffer.New[float32](h.s.Device(), 1)
			if err != nil {
				return nil, err
			}
			h.scratch32 = b
		}
		return any(h.scratch32).(Array[T]), nil
	default:
		if h.scratch64 == nil {
			b, err := buffer.New[float64](h.s.Device(), 1)
			if err != nil {
				return nil, err
			}
			h.scratch64 = b
		}
		return any(h.scratch64).(Array[T]), nil
	}
}

// value runs c, whose result goes to the handle's scratch element, and
// returns the result once the stream reaches it (host pointer mode).
func value[T Float](h *Handle, c *call) (T, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.destroyed {
		return 0, gpu.Errorf(gpu.ErrInvalidHandle, c.op, "handle was destroyed")
	}
	r, err := scratch[T](h)
	if err != nil {
		return 0, err
	}
	c.result, _ = core.MemOf(r)
	if err := h.queue(c); err != nil {
		return 0, err
	}
	var out [1]T
	if err := stream.CopyToHost(h.s, out[:], r, 0); err != nil {
		return 0, err
	}
	if err := h.s.Synchronize(); err != nil {
		return 0, err
	}
	return out[0], nil
}
