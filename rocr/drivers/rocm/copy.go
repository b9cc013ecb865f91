package rocm

import (
	"encoding/binary"
	"fmt"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// A real GPU cannot run hipgo's AGENT_DISPATCH copy and fill packets, so
// on this agent copies go to ROCR's copy engines (hsa_amd_memory_async_copy,
// ordered by signals in place of a barrier-AND) and fills to
// hsa_amd_memory_fill. rocr hands the aql.AgentCopy and aql.AgentFill packets of
// this agent's queues to CopyAsync and FillAsync (spi.Copier).
//
// Both ends of a copy must lie in allocations of this driver's pools
// (hipMalloc or hipHostMalloc memory); Go memory must be staged through a
// host (fine-grained) allocation, which the host reads and writes directly.
// Dependencies and the completion signal must be ROCR signals (NewSignal):
// done is decremented by one when the work completes, as a packet's
// completion signal is.

// CopyAsync copies n bytes from src to dst once every deps signal is 0,
// then decrements done. A nil done makes the copy synchronous.
func (a *agent) CopyAsync(dst, src uintptr, n uint64, deps []spi.Signal, done spi.Signal) error {
	if !a.rt.alive.Load() {
		return hsa.Errorf(hsa.StatusErrorNotInitialized, "copy", "the rocm driver is closed")
	}
	dstAgent, _, err := a.endpoint("copy", "destination", dst, n)
	if err != nil {
		return err
	}
	srcAgent, _, err := a.endpoint("copy", "source", src, n)
	if err != nil {
		return err
	}
	hdeps, err := rocmSignals("copy", deps)
	if err != nil {
		return err
	}
	if n == 0 {
		return a.completeAfter(deps, done, func() error { return nil })
	}
	dh, finish, err := a.completion("copy", done)
	if err != nil {
		return err
	}
	defer finish(false)
	if s := a.rt.api.MemoryAsyncCopy(dst, dstAgent, src, srcAgent, n, hdeps, dh); s != hsaSuccess {
		return a.rt.fail(s, "copy", "%d bytes %#x -> %#x", n, src, dst)
	}
	finish(true)
	return nil
}

// completion is the ROCR signal an engine operation decrements: done's, or
// for a synchronous operation (done nil) a temporary one, which finish
// waits for (started: the operation was queued) and destroys.
func (a *agent) completion(op string, done spi.Signal) (h signalH, finish func(started bool), err error) {
	if done != nil {
		d, err := rocmSignals(op, []spi.Signal{done})
		if err != nil {
			return 0, nil, err
		}
		return d[0], func(bool) {}, nil
	}
	tmp, err := a.tempSignal()
	if err != nil {
		return 0, nil, err
	}
	finished := false
	return tmp.h, func(started bool) {
		if finished {
			return
		}
		finished = true
		if started {
			tmp.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
		}
		_ = tmp.Destroy()
	}, nil
}

// FillAsync writes count elements of elemSize bytes (1, 2, 4 or 8), each
// pattern's low bytes in little-endian order, at dst once every deps signal
// is 0, then decrements done (nil: synchronous). hsa_amd_memory_fill is
// synchronous and writes 32-bit words, so the fill runs on a goroutine:
// host memory is written directly, 4-byte-aligned device ranges with a
// 32-bit repeat go to hsa_amd_memory_fill, and the rest is written into a
// host staging buffer and copied.
func (a *agent) FillAsync(dst uintptr, pattern, count uint64, elemSize int, deps []spi.Signal, done spi.Signal) error {
	if !a.rt.alive.Load() {
		return hsa.Errorf(hsa.StatusErrorNotInitialized, "fill", "the rocm driver is closed")
	}
	switch elemSize {
	case 1, 2, 4, 8:
	default:
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "fill", "element size %d: want 1, 2, 4 or 8", elemSize)
	}
	n := count * uint64(elemSize)
	_, host, err := a.endpoint("fill", "destination", dst, n)
	if err != nil {
		return err
	}
	if _, err := rocmSignals("fill", deps); err != nil {
		return err
	}
	if done != nil {
		if _, err := rocmSignals("fill", []spi.Signal{done}); err != nil {
			return err
		}
	}
	return a.completeAfter(deps, done, func() error { return a.fill(dst, pattern, n, elemSize, host) })
}

// completeAfter runs f on a goroutine once deps are 0, then records its
// error (or a dependency's) on done and decrements done.
func (a *agent) completeAfter(deps []spi.Signal, done spi.Signal, f func() error) error {
	if done == nil {
		for _, d := range deps {
			d.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
		}
		return f()
	}
	go func() {
		var err error
		for _, d := range deps {
			d.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
			if e := d.Err(); e != nil && err == nil {
				err = e
			}
		}
		if err == nil {
			err = f()
		}
		if err != nil {
			done.Fail(err)
		}
		done.Sub(1, hsa.Release)
	}()
	return nil
}

func (a *agent) fill(dst uintptr, pattern, n uint64, elemSize int, host bool) error {
	var pat [8]byte
	binary.LittleEndian.PutUint64(pat[:], pattern)
	pat8 := pat[:elemSize]
	if host {
		b := hostmem.Bytes(dst, uintptr(n))
		for i := 0; i < len(b); i += elemSize {
			copy(b[i:], pat8)
		}
		return nil
	}
	if w, ok := word32(pattern, elemSize); ok && dst%4 == 0 && n%4 == 0 {
		if s := a.rt.api.MemoryFill(dst, w, n/4); s != hsaSuccess {
			return a.rt.fail(s, "fill", "%d bytes at %#x", n, dst)
		}
		return nil
	}
	stage, err := a.host.Allocate(n)
	if err != nil {
		return err
	}
	defer a.host.Free(stage, n)
	b := hostmem.Bytes(stage, uintptr(n))
	for i := 0; i < len(b); i += elemSize {
		copy(b[i:], pat8)
	}
	tmp, err := a.tempSignal()
	if err != nil {
		return err
	}
	defer tmp.Destroy()
	if s := a.rt.api.MemoryAsyncCopy(dst, a.h, stage, a.cpu, n, nil, tmp.h); s != hsaSuccess {
		return a.rt.fail(s, "fill", "staged copy of %d bytes to %#x", n, dst)
	}
	tmp.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	return nil
}

// word32 is the 32-bit word that repeats an element pattern, if one does.
func word32(p uint64, size int) (uint32, bool) {
	switch size {
	case 1:
		return uint32(p&0xff) * 0x01010101, true
	case 2:
		return uint32(p&0xffff) * 0x00010001, true
	case 4:
		return uint32(p), true
	}
	return uint32(p), uint32(p) == uint32(p>>32)
}

func (a *agent) tempSignal() (*signal, error) {
	h, s := a.rt.api.SignalCreate(1)
	if s != hsaSuccess {
		return nil, a.rt.fail(s, "signal create", "hsa_signal_create")
	}
	return &signal{rt: a.rt, h: h, ag: a}, nil
}

// endpoint finds the agent ROCR should name for addr: the GPU for its
// device memory, the CPU agent for system memory. [addr, addr+n) must lie
// in one live allocation of a rocm pool.
func (a *agent) endpoint(op, what string, addr uintptr, n uint64) (agentH, bool, error) {
	al, found := host.FindAllocation(addr)
	if !found || al.Freed {
		return 0, false, hsa.Errorf(hsa.StatusErrorInvalidAllocation, op, "%s %#x is not in a pool allocation: stage Go memory through host memory", what, addr)
	}
	if addr-al.Base+uintptr(n) > al.Size || uintptr(n) > al.Size {
		return 0, false, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%s range %#x+%d runs past %s", what, addr, n, al)
	}
	owner, ok := al.Agent.(*agent)
	if !ok {
		by := "no agent's pool"
		if al.Agent != nil {
			info := al.Agent.Info()
			by = fmt.Sprintf("a %s agent (%s)", info.Driver, info.Name)
		}
		return 0, false, hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s %s belongs to %s, not to a rocm agent", what, al, by)
	}
	if al.HostPool {
		return owner.cpu, true, nil
	}
	return owner.h, false, nil
}

// rocmSignals returns the ROCR handles of sigs, which must be this
// driver's signals: ROCR cannot wait on rocr's soft signals.
func rocmSignals(op string, sigs []spi.Signal) ([]signalH, error) {
	if len(sigs) == 0 {
		return nil, nil
	}
	out := make([]signalH, len(sigs))
	for i, s := range sigs {
		if s == nil {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, op, "nil signal")
		}
		if _, ok := signals.find(s.Handle()); !ok {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, op, "signal %#x is not a ROCR signal: create it through the agent's SignalFactory", s.Handle())
		}
		out[i] = signalH(s.Handle())
	}
	return out, nil
}
