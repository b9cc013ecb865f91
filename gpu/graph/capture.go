package graph

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// BeginCapture makes s record its operations into a graph instead of
// running them (hipStreamBeginCapture): launches, copies and fills
// between buffers, host functions, event records and waits, and
// stream-ordered allocation: buffer.NewAsync (and NewFromPoolAsync)
// becomes an alloc node whose memory exists from that call on and is
// the graph's (see Graph memory in the package doc), and FreeAsync of
// graph memory a free node. FreeAsync of memory no graph allocated
// cannot be captured. A failed capture returns the memory it allocated.
// A stream
// that waits for an event recorded in the capture joins it (a fork); its
// work must be joined back into s with another event before EndCapture.
//
// While capturing, Synchronize and Query on a stream of the capture, and
// copies from or to Go memory on it, fail with
// gpu.ErrStreamCaptureUnsupported and invalidate the capture, as do
// Query and Synchronize on an event recorded in the capture (with
// gpu.ErrCapturedEvent); later operations and EndCapture then fail with
// gpu.ErrStreamCaptureInvalidated.
//
// BeginCapture begins the capture in relaxed mode (CaptureModeRelaxed),
// so allocation stays permitted everywhere; BeginCaptureMode takes HIP's
// other modes.
func BeginCapture(s *stream.Stream) error {
	return BeginCaptureMode(s, CaptureModeRelaxed)
}

// CaptureMode is hipStreamCaptureMode: which calls that may synchronize
// implicitly (here the synchronous allocations, buffer.New, NewHost,
// NewManaged, NewPitched, NewPitched3D, and the synchronous copies and
// fills, hipMemcpy's and hipMemset's equivalents: CopyFrom, CopyTo,
// ToSlice, CopyFromBuffer, buffer.Copy, Fill, Memset, the 2-D and 3-D
// copies, module globals' copies) a capture forbids while it goes on. A forbidden call fails with gpu.ErrStreamCaptureUnsupported and
// invalidates the captures that forbid it.
//
// HIP's modes are per thread; Go has no goroutine identity, so "thread"
// is the OS thread, and the thread-local rules mean what HIP says only
// for a goroutine locked to its thread (runtime.LockOSThread) from
// BeginCaptureMode to EndCapture, and around ExchangeCaptureMode. Global
// and relaxed captures need no locking: a global capture forbids the
// calls to every thread whose own mode is global, the default.
type CaptureMode int32

// The capture modes, with HIP's values.
const (
	// CaptureModeGlobal forbids the calls to the thread that began the
	// capture and to every thread whose mode is global.
	CaptureModeGlobal = CaptureMode(core.CaptureModeGlobal)
	// CaptureModeThreadLocal forbids them to the thread that began it.
	CaptureModeThreadLocal = CaptureMode(core.CaptureModeThreadLocal)
	// CaptureModeRelaxed forbids nothing.
	CaptureModeRelaxed = CaptureMode(core.CaptureModeRelaxed)
)

func (m CaptureMode) String() string { return core.CaptureMode(m).String() }

// BeginCaptureMode makes s record its operations into a graph instead
// of running them (hipStreamBeginCapture with mode); see BeginCapture. An
// unknown mode is ErrInvalidValue.
func BeginCaptureMode(s *stream.Stream, mode CaptureMode) error {
	const op = "stream begin capture"
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	g := New()
	cg := &captureGraph{g: g, index: map[*Node]int{}, pending: map[int]*Node{}}
	g.capture = cg
	if err := (*core.Stream)(s).BeginCapture(op, core.CaptureMode(mode), cg); err != nil {
		return err
	}
	cg.mu.Lock()
	cg.c = (*core.Stream)(s).Capture()
	cg.mu.Unlock()
	return nil
}

// ExchangeCaptureMode sets the calling thread's capture mode and returns
// the mode it had (hipThreadExchangeStreamCaptureMode): a thread in
// relaxed mode is forbidden nothing, one in thread-local mode only what
// its own captures forbid. The thread is the OS thread (see CaptureMode):
// call it from a goroutine locked to its thread, and set the old mode
// back before unlocking. An unknown mode is ErrInvalidValue.
func ExchangeCaptureMode(mode CaptureMode) (CaptureMode, error) {
	if !core.CaptureMode(mode).Valid() {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, "thread exchange stream capture mode", "capture mode %d", int32(mode))
	}
	return CaptureMode(core.ExchangeCaptureMode(core.CaptureMode(mode))), nil
}

// IsCapturing reports whether s takes part in a capture
// (hipStreamIsCapturing).
func IsCapturing(s *stream.Stream) bool {
	return s != nil && (*core.Stream)(s).IsCapturing()
}

// CaptureStatus is hipStreamCaptureStatus.
type CaptureStatus int

// A stream's capture status.
const (
	CaptureStatusNone        CaptureStatus = iota // not capturing
	CaptureStatusActive                           // capturing
	CaptureStatusInvalidated                      // capturing, but a failure invalidated the capture: EndCapture will fail
)

// CaptureInfo is hipStreamGetCaptureInfo: s's capture status and the
// capture's id, unique in the process (0 when not capturing). A nil or
// destroyed stream is ErrInvalidHandle.
func CaptureInfo(s *stream.Stream) (CaptureStatus, uint64, error) {
	const op = "stream get capture info"
	if err := (*core.Stream)(s).Check(op); err != nil {
		return CaptureStatusNone, 0, err
	}
	if (*core.Stream)(s).Destroyed() {
		return CaptureStatusNone, 0, gpu.Errorf(gpu.ErrInvalidHandle, op, "the stream was destroyed")
	}
	active, invalidated, id := (*core.Stream)(s).CaptureInfo()
	switch {
	case invalidated:
		return CaptureStatusInvalidated, id, nil
	case active:
		return CaptureStatusActive, id, nil
	}
	return CaptureStatusNone, 0, nil
}

// EndCapture ends the capture begun on s and returns the graph of what
// it recorded (hipStreamEndCapture). Every stream of the capture stops
// capturing, whether it succeeds or not. Captured kernel nodes keep the
// launch they were captured with: SetKernelParams applies to nodes added
// with AddKernel.
func EndCapture(s *stream.Stream) (*Graph, error) {
	const op = "stream end capture"
	if s == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	cn, owner, err := (*core.Stream)(s).EndCapture(op)
	if err != nil {
		return nil, err
	}
	cg := owner.(*captureGraph)
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if k := len(cg.nodes); k < len(cn) {
		cg.add(k, cn[k:])
	}
	cg.g.mu.Lock()
	cg.g.capture = nil // the caller's now
	cg.g.mu.Unlock()
	return cg.g, nil
}
