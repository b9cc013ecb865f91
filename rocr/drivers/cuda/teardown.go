package cuda

import (
	"errors"
	"github.com/hipgo/hipgo/rocr/spi"
	"runtime"
)

// Close waits for the stream's work and releases the stream. It runs on the
// processor goroutine as the queue is destroyed.
func (e *executor) Close() error {
	var err error
	if e.bound {
		err = e.destroyStream()
		runtime.UnlockOSThread()
		e.bound = false
	} else {
		err = e.dev.with(e.destroyStream)
	}
	return errors.Join(err, e.release())
}

func (e *executor) destroyStream() error {
	if e.stream == 0 {
		return nil
	}
	err := e.sync()
	e.drain(err)
	if r := e.sa.call(e.api.cuStreamDestroy, e.stream); r != cudaSuccess {
		err = errors.Join(err, cuErr("queue destroy", "cuStreamDestroy", r))
	}
	e.flushMu.Lock()
	e.stream = 0
	if e.event != 0 {
		e.sa.call(e.api.cuEventDestroy, e.event)
		e.event = 0
	}
	for i, ev := range e.recEv {
		if ev != 0 {
			e.sa.call(e.api.cuEventDestroy, ev)
			e.recEv[i] = 0
		}
	}
	e.flushMu.Unlock()
	return err
}

func (e *executor) release() error {
	var errs []error
	if e.stream != 0 {
		errs = append(errs, e.dev.with(e.destroyStream))
	}
	if e.progress != nil {
		errs = append(errs, e.progress.Destroy())
		e.progress = nil
	}
	if e.scratch != 0 {
		errs = append(errs, spi.Unmap(e.scratch, scratchSize))
		e.scratch = 0
	}
	return errors.Join(errs...)
}
