package core

import (
	"sync"
	"syscall"

	"github.com/hipgo/hipgo/gpu"
)

// CaptureMode is hipStreamCaptureMode: which calls a capture refuses
// elsewhere in the process while it goes on.
type CaptureMode int32

// The capture modes, with HIP's values.
const (
	CaptureModeGlobal      CaptureMode = 0
	CaptureModeThreadLocal CaptureMode = 1
	CaptureModeRelaxed     CaptureMode = 2
)

func (m CaptureMode) String() string {
	switch m {
	case CaptureModeGlobal:
		return "global"
	case CaptureModeThreadLocal:
		return "thread-local"
	case CaptureModeRelaxed:
		return "relaxed"
	}
	return "invalid"
}

// Valid reports whether m is one of the three modes.
func (m CaptureMode) Valid() bool { return m >= CaptureModeGlobal && m <= CaptureModeRelaxed }

// threadModes holds each OS thread's mode (hipThreadExchangeStreamCaptureMode)
// other than the default, global. HIP's "thread" is the OS thread here:
// Go has no goroutine identity, and a goroutine that called
// runtime.LockOSThread keeps its thread, so its mode and captures are its.
var threadModes sync.Map // tid → CaptureMode

// ExchangeCaptureMode sets the calling OS thread's capture mode to mode
// and returns the one it had.
func ExchangeCaptureMode(mode CaptureMode) CaptureMode {
	tid := syscall.Gettid()
	old := threadMode(tid)
	if mode == CaptureModeGlobal {
		threadModes.Delete(tid)
	} else {
		threadModes.Store(tid, mode)
	}
	return old
}

func threadMode(tid int) CaptureMode {
	if v, ok := threadModes.Load(tid); ok {
		return v.(CaptureMode)
	}
	return CaptureModeGlobal
}

// RefuseUnsafe is the error of a call that may synchronize implicitly
// (a synchronous allocation, copy or fill) while a capture forbids it to the calling
// thread (hipErrorStreamCaptureUnsupported): one the thread began in
// global or thread-local mode, or, unless the thread's own mode is
// thread-local, one any thread began in global mode. A thread in relaxed
// mode is never refused. The captures that forbid it are invalidated, as
// in HIP. One atomic load while nothing captures.
func RefuseUnsafe(op string) error {
	if capturing.Load() == 0 {
		return nil
	}
	tid := syscall.Gettid()
	mode := threadMode(tid)
	if mode == CaptureModeRelaxed {
		return nil
	}
	var hit []*Capture
	captures.Range(func(_, v any) bool {
		c := v.(*Capture)
		if c.mode != CaptureModeRelaxed && (c.tid == tid || mode == CaptureModeGlobal && c.mode == CaptureModeGlobal) {
			for _, h := range hit {
				if h == c {
					return true
				}
			}
			hit = append(hit, c)
		}
		return true
	})
	if len(hit) == 0 {
		return nil
	}
	err := gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "not permitted while a %s capture is active (begin it in relaxed mode, or set this thread's mode to relaxed)", hit[0].mode)
	for _, c := range hit {
		c.mu.Lock()
		if !c.ended {
			c.fail(err)
		}
		c.mu.Unlock()
	}
	return err
}
