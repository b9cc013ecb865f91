package core

import (
	"errors"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Destroy waits for the stream's work and releases it (hipStreamDestroy).
// The default stream is destroyed by gpu.Shutdown only.
func (s *Stream) Destroy() error {
	if err := s.Check("stream destroy"); err != nil {
		return err
	}
	if s.legacy {
		return gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "the legacy stream cannot be destroyed")
	}
	if s.isDefault {
		return gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "the default stream cannot be destroyed")
	}
	aborted, err := s.destroy()
	if err != nil {
		return err
	}
	return aborted // the stream is destroyed, and its capture with it
}

// OnDestroy has f run once the stream is destroyed, its work done (by
// Destroy, or gpu.Shutdown for the default stream): per-stream state of
// another package (gpu/prim's temporary storage) goes with the stream.
// It reports false, and never runs f, where the stream is destroyed
// already.
func (s *Stream) OnDestroy(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.onDestroy = append(s.onDestroy, f)
	return true
}

// destroy destroys the stream. aborted is the capture it ended, if any,
// which Destroy reports and Shutdown (the default stream) does not.
func (s *Stream) destroy() (aborted, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "stream already destroyed")
	}
	if err := s.waitsForItself("stream destroy", s.tail, true); err != nil && Valid(s.dev, s.gen) == nil {
		s.mu.Unlock()
		return nil, err
	}
	// Under s.mu, as EndCapture ends a capture: a submission in progress
	// is recorded first.
	aborted = s.abortCapture()
	s.closed = true
	s.backstop.Stop()
	// An abandoned kernel (hsa.ErrAbandoned) is reported, whoever
	// destroyed the queue.
	var abandoned error
	if Valid(s.dev, s.gen) != nil && !s.q.Destroyed() {
		// gpu.Shutdown: cancel the work in flight instead of waiting for
		// it, as rocr.ShutDown does on every other queue, so a runaway
		// kernel on the default stream cannot hang Shutdown.
		abandoned = s.q.Destroy()
	}
	if s.tail != nil && abandoned == nil {
		abandoned = s.awaitTail()
	}
	if s.tail != nil {
		_ = s.tail.Wait(0)
	}
	s.reap(true)
	if s.tail != nil {
		s.fences.Release(s.tail)
		s.tail = nil
	}
	s.fences.Flush()
	if !errors.Is(abandoned, hsa.ErrAbandoned) {
		s.freePrintf(Valid(s.dev, s.gen) == nil)
		s.freeAreas() // an abandoned kernel may still read its area
	} else {
		s.printf.Store(nil) // and write its printf buffer
	}
	hooks := s.onDestroy
	s.onDestroy = nil
	s.mu.Unlock()
	s.leaveBlocking()
	s.releaseLegacyTail()
	for _, f := range hooks {
		f()
	}
	Unregister(s.dev, s.ref)
	if errors.Is(abandoned, hsa.ErrAbandoned) {
		return aborted, errs.Wrap("stream destroy", abandoned)
	}
	if s.q.Destroyed() {
		// The runtime was shut down or the device reset; a stream from
		// before the reset says so.
		if err := Valid(s.dev, s.gen); err != nil && s.dev.Valid() == nil && !s.isDefault {
			return aborted, errs.Wrap("stream destroy", err)
		}
		return aborted, nil
	}
	return aborted, errs.Wrap("stream destroy", s.q.Destroy())
}

// awaitTail waits for the stream's work before Destroy, as long as it
// moves on. A kernel that runs through a whole grace (the queue's
// KernelGrace) is cancelled by destroying the queue, which abandons it if
// it does not return within another; the error that reports it is
// returned.
func (s *Stream) awaitTail() error {
	grace := s.q.KernelGrace()
	for !s.q.Destroyed() {
		id, running := s.q.RunningKernel()
		if s.tail.Wait(grace) == nil || s.tail.Done() {
			return nil
		}
		if now, still := s.q.RunningKernel(); running && still && now == id {
			return s.q.Destroy()
		}
	}
	return nil
}

// releaseAfterShutdown lets go of the host slices the stream's packets
// still pin once gpu.Shutdown has destroyed the queues, so a stream its
// user never destroyed keeps no Go memory alive. Its fences are not
// returned to the pool: a packet abandoned by Shutdown (a kernel that does
// not poll for cancellation) may still complete its signal later.
func (s *queueState) releaseAfterShutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < s.count; i++ {
		e := s.at(s.head + i)
		if e.pin != 0 {
			hostref.UnpinHost(e.pin)
			e.pin = 0
		}
	}
}
