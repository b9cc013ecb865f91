package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// CUstreamCaptureMode: a relaxed capture leaves other threads' driver
// calls alone while the chain is recorded.
const captureModeRelaxed = 2

// chain is a CUDA graph recorded from a run of kernel dispatches: one
// cuGraphLaunch replays them all.
type chain struct {
	dev  *device
	ks   []*kernel // for the liveness check before each launch
	mu   sync.RWMutex
	exec uintptr // CUgraphExec; 0 once closed
}

// RecordChain implements spi.ChainRecorder by stream capture: the
// kernels are launched in order on a private stream in capture mode, and
// the captured graph is instantiated once. The driver copies each
// launch's kernarg image into the graph at capture.
func (d *device) RecordChain(ks []spi.ChainKernel) (spi.Chain, error) {
	const op = "record chain"
	a := d.api
	if a.cuStreamBeginCapture == 0 || a.cuStreamEndCapture == 0 || a.cuGraphInstantiate == 0 || a.cuGraphLaunch == 0 || a.cuGraphExecDestroy == 0 || a.cuGraphDestroy == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "the CUDA driver lacks stream capture or graphs")
	}
	if len(ks) == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "no kernels")
	}
	type launch struct {
		k         *kernel
		grid, blk [3]uint32
		dyn       uint32
		extra     uintptr
	}
	ls := make([]launch, len(ks))
	// Heap memory the driver reads during each cuLaunchKernel: the extra
	// arrays, the sizes and the kernarg images (the heap does not move).
	extras := make([][5]uintptr, len(ks))
	sizes := make([]uintptr, len(ks))
	args := make([][]byte, len(ks))
	c := &chain{dev: d, ks: make([]*kernel, len(ks))}
	for i := range ks {
		k := lookupKernel(ks[i].Object)
		if k == nil {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeSymbol, op, "kernel object %#x is not a loaded cuda kernel", ks[i].Object)
		}
		grid, dyn, err := k.shape(ks[i].Grid, ks[i].Block, ks[i].GroupSegment)
		if err != nil {
			return nil, err
		}
		c.ks[i] = k
		ls[i] = launch{k: k, grid: grid, blk: ks[i].Block, dyn: dyn}
		if k.argEnd > 0 {
			if len(ks[i].Kernarg) < int(k.argEnd) {
				return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: kernarg image of %d bytes, its parameters end at %d", k.name, len(ks[i].Kernarg), k.argEnd)
			}
			args[i] = append(make([]byte, 0, k.argEnd), ks[i].Kernarg[:k.argEnd]...)
			sizes[i] = uintptr(k.argEnd)
			extras[i] = [5]uintptr{launchParamBufferPtr, uintptr(unsafe.Pointer(&args[i][0])), launchParamBufferSize, uintptr(unsafe.Pointer(&sizes[i])), launchParamEnd}
			ls[i].extra = uintptr(unsafe.Pointer(&extras[i]))
		}
	}
	err := d.with(func() error {
		for _, l := range ls {
			if l.dyn > l.k.dynLimit.Load() {
				if err := d.allowDynamic(l.k, l.dyn, call); err != nil {
					return err
				}
			}
		}
		var s uintptr
		if r := res(purego.SyscallN(a.cuStreamCreate, uintptr(unsafe.Pointer(&s)), streamNonBlocking)); r != cudaSuccess {
			return cuErr(op, "cuStreamCreate", r)
		}
		defer call(a.cuStreamDestroy, s)
		if r := call(a.cuStreamBeginCapture, s, captureModeRelaxed); r != cudaSuccess {
			return cuErr(op, "cuStreamBeginCapture", r)
		}
		var launchErr error
		for _, l := range ls {
			if r := call(a.cuLaunchKernel, l.k.fn, uintptr(l.grid[0]), uintptr(l.grid[1]), uintptr(l.grid[2]), uintptr(l.blk[0]), uintptr(l.blk[1]), uintptr(l.blk[2]), uintptr(l.dyn), s, 0, l.extra); r != cudaSuccess {
				launchErr = cuErr(op, fmt.Sprintf("kernel %s grid %v block %v shared %d: cuLaunchKernel", l.k.name, l.grid, l.blk, l.dyn), r)
				break
			}
		}
		var g uintptr
		r := res(purego.SyscallN(a.cuStreamEndCapture, s, uintptr(unsafe.Pointer(&g))))
		if g != 0 {
			defer call(a.cuGraphDestroy, g)
		}
		if launchErr != nil {
			return launchErr
		}
		if r != cudaSuccess {
			return cuErr(op, "cuStreamEndCapture", r)
		}
		if r := res(purego.SyscallN(a.cuGraphInstantiate, uintptr(unsafe.Pointer(&c.exec)), g, 0)); r != cudaSuccess {
			c.exec = 0
			return cuErr(op, "cuGraphInstantiateWithFlags", r)
		}
		return nil
	})
	runtime.KeepAlive(extras)
	runtime.KeepAlive(sizes)
	runtime.KeepAlive(args)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Launch implements spi.Chain. It runs on the queue's processor, with
// the device current.
func (c *chain) Launch(stream uintptr) error {
	const op = "chain launch"
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.exec == 0 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "the recorded chain was closed")
	}
	for _, k := range c.ks {
		if k.dead.Load() {
			return hsa.Errorf(hsa.StatusErrorInvalidCodeSymbol, op, "kernel %s was unloaded", k.name)
		}
	}
	// A pooled argument block: call's variadic slice would escape, one
	// allocation per replay.
	sa := spareArgs.Get().(*sysArgs)
	r := sa.call(c.dev.api.cuGraphLaunch, c.exec, stream)
	spareArgs.Put(sa)
	if r != cudaSuccess {
		return cuErr(op, "cuGraphLaunch", r)
	}
	return nil
}

// Close implements spi.Chain. The driver frees a graph still running
// when it completes.
func (c *chain) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exec == 0 {
		return nil
	}
	exec := c.exec
	c.exec = 0
	return c.dev.do("chain close", "cuGraphExecDestroy", c.dev.api.cuGraphExecDestroy, exec)
}
