package collective

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Comm is one rank of a communicator (an ncclComm_t): a device, its rank
// and the number of ranks. Its methods and the collectives that take it
// are safe from several goroutines; the ranks of one communicator must
// issue their collectives in the same order, as NCCL requires.
type Comm struct {
	dev        *gpu.Device
	rank, size int
	be         backend

	mu      sync.Mutex // guards the fields below; held while work is queued
	state   commState
	group   *Group
	streams map[*stream.Stream]struct{} // where work was queued: Destroy waits for them
}

type commState int

const (
	live commState = iota
	destroyed
	aborted
)

// backend carries out one rank's work.
type backend interface {
	// work returns the stream work that carries out ops in order: a host
	// function (cpu agents) or a call on the agent's native stream.
	work(ops []*call) (host func() error, native func(stream uintptr) error)
	// destroy releases the rank once its queued work has run.
	destroy() error
	// abort stops the rank's pending work now and releases it.
	abort() error
}

func newComm(dev *gpu.Device, rank, size int, be backend) *Comm {
	c := &Comm{dev: dev, rank: rank, size: size, be: be, streams: map[*stream.Stream]struct{}{}}
	if f, ok := be.(interface{ setFail(func(error)) }); ok {
		f.setFail(c.failStreams)
	}
	return c
}

// failStreams fails every stream the communicator queued work on with an
// asynchronous error, after the work already there.
func (c *Comm) failStreams(err error) {
	c.mu.Lock()
	streams := make([]*stream.Stream, 0, len(c.streams))
	for s := range c.streams {
		streams = append(streams, s)
	}
	c.mu.Unlock()
	for _, s := range streams {
		_ = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: "collective", Host: func() error { return err }})
	}
}

// Rank is this communicator's rank, in [0, Size); -1 for a nil or zero
// communicator.
func (c *Comm) Rank() int {
	if c == nil || c.be == nil {
		return -1
	}
	return c.rank
}

// Size is the number of ranks.
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return c.size
}

// Device is the device this rank runs on.
func (c *Comm) Device() *gpu.Device {
	if c == nil {
		return nil
	}
	return c.dev
}

func (c *Comm) String() string {
	if c == nil {
		return "communicator (nil)"
	}
	if c.be == nil {
		return "communicator (zero)"
	}
	return "rank " + itoa(c.rank) + " of " + itoa(c.size) + " on " + c.dev.String()
}

// usable reports a zero, destroyed or aborted communicator; the caller
// holds c.mu.
func (c *Comm) usable(op string) error {
	if c.be == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "communicator not made by NewRank, NewAll, Join or FromEnv (a zero Comm)")
	}
	switch c.state {
	case destroyed:
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "%s was destroyed", c)
	case aborted:
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "%s was aborted", c)
	}
	return nil
}

// end marks the communicator destroyed or aborted and returns the
// streams its work went to.
func (c *Comm) end(op string, to commState) ([]*stream.Stream, error) {
	if c == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil communicator")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(op); err != nil {
		return nil, err
	}
	c.state = to
	streams := make([]*stream.Stream, 0, len(c.streams))
	for s := range c.streams {
		streams = append(streams, s)
	}
	c.streams = nil
	return streams, nil
}

// release releases the backend.
func (c *Comm) release(op string, f func() error) error {
	if err := f(); err != nil {
		return errs.Wrap(op, err)
	}
	return nil
}

// Destroy waits for the work queued through the communicator (it
// synchronizes the streams that work went to) and releases this rank
// (ncclCommDestroy). Work queued by other ranks that waits for this one
// fails once this rank is gone; work this rank queued needs its peers, as
// in NCCL: a peer that never joins an operation keeps Destroy waiting
// (Abort does not wait).
func (c *Comm) Destroy() error {
	const op = "collective destroy"
	streams, err := c.end(op, destroyed)
	if err != nil {
		return err
	}
	for _, s := range streams {
		// A stream's failure is the stream's to report, not Destroy's.
		_ = s.Synchronize()
	}
	return c.release(op, c.be.destroy)
}

// Abort stops this rank now (ncclCommAbort): its pending operations, and
// other ranks' operations waiting for it, fail on their streams; the rank
// is released without waiting for them.
func (c *Comm) Abort() error {
	const op = "collective abort"
	if _, err := c.end(op, aborted); err != nil {
		return err
	}
	return c.release(op, c.be.abort)
}
