package core

import (
	"context"
	"fmt"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Synchronize waits for all work on the stream (hipStreamSynchronize) and
// returns the stream's sticky error, if any.
func (s *Stream) Synchronize() error { return s.synchronize(context.Background()) }

// SynchronizeContext is Synchronize that gives up when ctx is done,
// returning an error that wraps both gpu.ErrNotReady and ctx's error; the
// work goes on and a later Synchronize waits for it.
func (s *Stream) SynchronizeContext(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return s.synchronize(ctx)
}

// synchronize waits for the tail; a nil ctx waits without one.
func (s *Stream) synchronize(ctx context.Context) error {
	const op = "stream synchronize"
	if err := s.usable(op); err != nil {
		return err
	}
	if !s.lockWait(ctx) {
		return &gpu.Error{Code: gpu.ErrNotReady, Op: op, Msg: "work still being submitted", Err: ctx.Err()}
	}
	if err := s.destroyedErr(op); err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.tail
	if t != nil {
		t.Retain()
	}
	s.mu.Unlock()
	if t != nil {
		if err := s.waitsForItself(op, t, ctx == nil || ctx.Done() == nil); err != nil {
			t.Release()
			return err
		}
		if err := WaitContext(ctx, op, t, hsa.WaitActive); err != nil {
			t.Release()
			return err
		}
		s.FailedBy(t)
		t.Release()
	}
	if err := Valid(s.dev, s.gen); err != nil {
		return errs.Wrap(op, err) // shut down while we waited
	}
	s.runChecks(ctx)
	if ctx == nil {
		ctx = context.Background()
	}
	s.flushPrintf(ctx, false)
	return s.report(op)
}

// runChecks releases the completed packets that carry a completion
// check, so that a check's failure is the stream's error before a wait
// reports it. Without such packets it costs one atomic load.
func (s *Stream) runChecks(ctx context.Context) {
	if s.checks.Load() == 0 || !s.lockWait(ctx) {
		return
	}
	s.reap(false)
	s.mu.Unlock()
}

// selfWaitGrace is how long a wait runs before it asks whether it waits
// for itself: the question costs microseconds, most waits end sooner.
const selfWaitGrace = time.Millisecond

// waitsForItself fails a wait for f, a fence of the stream, that could
// never end: f is not done soon and the calling goroutine runs a packet
// of the stream's queue (a host function or Go kernel waiting for its own
// stream). CUDA answers API calls from a host function with
// cudaErrorNotPermitted; so does this. A caller that may block lets the
// driver wait for work it has issued (rocr.Signal.Await: a stream
// synchronize, as native code waits) instead of polling through the grace.
func (s *Stream) waitsForItself(op string, f *Fence, mayBlock bool) error {
	if f == nil || mayBlock && f.sig.Await() {
		return nil
	}
	if _, ok := f.sig.WaitTimed(hsa.CondLT, 1, selfWaitGrace, hsa.WaitActive); ok {
		return nil
	}
	if rocr.RunningQueue() != s.q {
		return nil
	}
	return &gpu.Error{Code: gpu.ErrNotPermitted, Op: op, Msg: fmt.Sprintf("called from a host function or kernel running on this stream (queue %d), whose own work it would wait for", s.q.ID()), Err: rocr.ErrSelfWait}
}

// WaitContext waits for f until ctx is done. A context that can never be
// done costs nothing; one that can is polled every millisecond.
func WaitContext(ctx context.Context, op string, f *Fence, hint hsa.WaitHint) error {
	if ctx == nil || ctx.Done() == nil {
		_ = f.WaitHint(0, hint)
		return nil
	}
	for !f.Done() {
		if err := ctx.Err(); err != nil {
			return &gpu.Error{Code: gpu.ErrNotReady, Op: op, Msg: "work still pending", Err: err}
		}
		_ = f.WaitHint(time.Millisecond, hint)
	}
	return nil
}

// Query reports whether all work on the stream completed: nil, the sticky
// error, or gpu.ErrNotReady while work is pending (hipStreamQuery).
func (s *Stream) Query() error {
	const op = "stream query"
	if err := s.usable(op); err != nil {
		return err
	}
	if err := s.report(op); err != nil {
		return err
	}
	// A submitter may hold the stream while it waits for room in a full
	// queue: that is pending work, and Query does not wait behind it.
	if !s.tryLock() {
		return gpu.ErrNotReady
	}
	if err := s.destroyedErr(op); err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.tail
	done := t == nil || t.Query()
	if done && t != nil {
		s.FailedBy(t)
	}
	if done && s.checks.Load() != 0 {
		s.reap(false)
	}
	s.mu.Unlock()
	if !done {
		return gpu.ErrNotReady
	}
	s.flushPrintf(context.Background(), true)
	return s.report(op)
}
