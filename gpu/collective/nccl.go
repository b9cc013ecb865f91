package collective

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/vendorlib"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// NCCL (cuda) and RCCL (rocm) share their API; the backend calls it
// through purego. A rank's operations are one call on the stream's native
// stream (a CUDA stream; the queue's processor thread has the device's
// context current), wrapped in ncclGroupStart/ncclGroupEnd when there are
// several. Calls that take no stream (making and releasing communicators)
// run on a thread of their own with the device's primary context current,
// which the cuda driver provides (spi.ContextRunner); RCCL's run after
// hipSetDevice.
//
// ncclCommInitRank takes the 128-byte ncclUniqueId by value, which purego
// cannot pass on the stack; NewRank uses ncclCommInitRankScalable (NCCL
// 2.23 and later), which takes it by pointer, and NewAll uses
// ncclCommInitAll.

// ncclResult_t values.
const (
	ncclSuccess    = 0
	ncclInProgress = 7
)

var ncclResultNames = [...]string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}

// ncclAPI is one library's entry points and the ways to call them.
type ncclAPI struct {
	lib     string
	fns     map[string]uintptr
	version int
	// call makes one C call (purego.SyscallN; tests put a fake here).
	call func(fn uintptr, args ...uintptr) uintptr
	// str reads a C string the library returned.
	str func(p uintptr) string
	// onDevice runs f on a thread with the agent (HIP device node)
	// current.
	onDevice func(ag *rocr.Agent, node int, f func() error) error
	// wrap runs a rank's stream work: RCCL's runs as host work, so it
	// sets the device and waits for the HIP stream after.
	wrap func(node int, f func() error) error
}

var ncclSymbols = []string{
	"GetVersion", "GetUniqueId", "CommInitAll", "CommDestroy", "CommAbort", "CommGetAsyncError",
	"GetErrorString", "AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter",
	"Send", "Recv", "GroupStart", "GroupEnd",
}

// Optional: ncclGetLastError (2.13), ncclCommInitRankScalable (2.23).
var ncclOptional = []string{"GetLastError", "CommInitRankScalable"}

func callC(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// cString reads a NUL-terminated string of at most 4 KiB.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	b := unsafe.Slice((*byte)(hostmem.At(p)), 4096)
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

var libs struct {
	mu  sync.Mutex
	api map[string]*ncclAPI
	err map[string]error
}

// loadAPI opens the library of a driver once per process.
func loadAPI(drv string) (*ncclAPI, error) {
	libs.mu.Lock()
	defer libs.mu.Unlock()
	if a := libs.api[drv]; a != nil {
		return a, nil
	}
	if err := libs.err[drv]; err != nil {
		return nil, err
	}
	var a *ncclAPI
	var err error
	if drv == "cuda" {
		a, err = openNCCL()
	} else {
		a, err = openRCCL()
	}
	if libs.api == nil {
		libs.api, libs.err = map[string]*ncclAPI{}, map[string]error{}
	}
	libs.api[drv], libs.err[drv] = a, err
	return a, err
}

func resolveNCCL(lib, prefix string, h *vendorlib.Handle) (*ncclAPI, error) {
	a := &ncclAPI{lib: lib, fns: map[string]uintptr{}, call: callC, str: cString}
	for _, s := range ncclSymbols {
		p := h.Sym(prefix + s)
		if p == 0 {
			return nil, gpu.Errorf(gpu.ErrNotSupported, "collective", "%s (%s) lacks %s%s", lib, h.Path, prefix, s)
		}
		a.fns[s] = p
	}
	for _, s := range ncclOptional {
		if p := h.Sym(prefix + s); p != 0 {
			a.fns[s] = p
		}
	}
	v := new(int32)
	if r := a.call(a.fns["GetVersion"], uintptr(unsafe.Pointer(v))); r == ncclSuccess {
		a.version = int(*v)
	}
	return a, nil
}

func openNCCL() (*ncclAPI, error) {
	// NCCL reads its environment once, when it starts: multicast stays
	// off unless the user says otherwise.
	if _, ok := os.LookupEnv("NCCL_NVLS_ENABLE"); !ok {
		os.Setenv("NCCL_NVLS_ENABLE", "0")
	}
	h, err := vendorlib.NCCL.Open()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrNotSupported, "collective", "no NCCL: %v", err)
	}
	a, err := resolveNCCL("NCCL", "nccl", h)
	if err != nil {
		return nil, err
	}
	a.onDevice = cudaContext
	return a, nil
}

// cudaContext runs NCCL's calls that take no stream under the device's
// primary context, which the cuda driver makes current on a thread of
// their own.
func cudaContext(ag *rocr.Agent, _ int, f func() error) error {
	var ferr error
	ran := false
	if err := ag.RunWithContext(func() error { ran, ferr = true, f(); return ferr }); !ran {
		if errors.Is(err, hsa.ErrNotSupported) {
			return gpu.Errorf(gpu.ErrInvalidDevice, "collective", "%v has no CUDA context for NCCL", ag)
		}
		return gpu.Errorf(gpu.ErrInvalidDevice, "collective", "%v", err)
	}
	return ferr
}

func openRCCL() (*ncclAPI, error) {
	hip, err := vendorlib.OpenHIP()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrNotSupported, "collective", "no RCCL: %v", err)
	}
	h, err := vendorlib.RCCL.Open()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrNotSupported, "collective", "no RCCL: %v", err)
	}
	a, err := resolveNCCL("RCCL", "nccl", h)
	if err != nil {
		return nil, err
	}
	rcclHIP(a, hip.SetDevice, hip.StreamSynchronize)
	return a, nil
}

// rcclHIP sets how RCCL runs: the rocm agent's queues are HSA queues that
// HIP does not know, so a rank's work runs as host work once its queue
// has drained, on HIP's null stream of the device, and waits for it.
func rcclHIP(a *ncclAPI, setDevice, streamSync uintptr) {
	a.onDevice = func(_ *rocr.Agent, node int, f func() error) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if r := a.call(setDevice, uintptr(node)); r != 0 {
			return gpu.Errorf(gpu.ErrInvalidDevice, "collective", "hipSetDevice(%d): hipError %d", node, r)
		}
		return f()
	}
	a.wrap = func(node int, f func() error) error {
		return a.onDevice(nil, node, func() error {
			if err := f(); err != nil {
				return err
			}
			if r := a.call(streamSync, 0); r != 0 {
				return gpu.Errorf(gpu.ErrLaunchFailure, "collective", "hipStreamSynchronize: hipError %d", r)
			}
			return nil
		})
	}
}

// err turns a result into an error carrying the library's own words.
func (a *ncclAPI) err(op, fn string, r uintptr, comm uintptr) error {
	if r == ncclSuccess {
		return nil
	}
	name := fmt.Sprintf("ncclResult %d", r)
	if r < uintptr(len(ncclResultNames)) {
		name = ncclResultNames[r]
	}
	msg := a.str(a.call(a.fns["GetErrorString"], r))
	if p := a.fns["GetLastError"]; p != 0 {
		if last := a.str(a.call(p, comm)); last != "" {
			msg += ": " + last
		}
	}
	code := gpu.ErrLaunchFailure
	switch r {
	case 4, 5: // ncclInvalidArgument, ncclInvalidUsage
		code = gpu.ErrInvalidValue
	}
	return gpu.Errorf(code, op, "%s %s%s: %s (%s)", a.lib, "nccl", fn, msg, name)
}

func vendorID(drv string) (ID, error) {
	a, err := loadAPI(drv)
	if err != nil {
		return ID{}, err
	}
	id := new(ID)
	if err := a.err("collective id", "GetUniqueId", a.call(a.fns["GetUniqueId"], uintptr(unsafe.Pointer(id))), 0); err != nil {
		return ID{}, err
	}
	return *id, nil
}

func vendorAll(drv string, devs []*gpu.Device) ([]backend, error) {
	const op = "collective init"
	a, err := loadAPI(drv)
	if err != nil {
		return nil, err
	}
	n := len(devs)
	comms := make([]uintptr, n)
	list := make([]int32, n)
	for i, d := range devs {
		list[i] = int32(d.Agent().Info().Node)
	}
	err = a.onDevice(devs[0].Agent(), int(list[0]), func() error {
		r := a.call(a.fns["CommInitAll"], uintptr(unsafe.Pointer(&comms[0])), uintptr(n), uintptr(unsafe.Pointer(&list[0])))
		return a.err(op, "CommInitAll", r, 0)
	})
	runtime.KeepAlive(list)
	if err != nil {
		return nil, err
	}
	bes := make([]backend, n)
	for i := range bes {
		bes[i] = newVendorRank(a, comms[i], devs[i].Agent(), int(list[i]))
	}
	return bes, nil
}

func vendorRank(drv string, dev *gpu.Device, id ID, rank, size int) (backend, error) {
	const op = "collective init rank"
	a, err := loadAPI(drv)
	if err != nil {
		return nil, err
	}
	fn := a.fns["CommInitRankScalable"]
	if fn == 0 {
		return nil, gpu.Errorf(gpu.ErrNotSupported, op, "%s %d lacks ncclCommInitRankScalable (2.23 and later): ncclCommInitRank takes its ID by value, which purego cannot pass; use NewAll in one process", a.lib, a.version)
	}
	node := dev.Agent().Info().Node
	comm, idp := new(uintptr), new(ID)
	*idp = id
	err = a.onDevice(dev.Agent(), node, func() error {
		// One ID, no config (the library's defaults).
		r := a.call(fn, uintptr(unsafe.Pointer(comm)), uintptr(size), uintptr(rank), 1, uintptr(unsafe.Pointer(idp)), 0)
		return a.err(op, "CommInitRankScalable", r, 0)
	})
	if err != nil {
		return nil, err
	}
	return newVendorRank(a, *comm, dev.Agent(), node), nil
}

// vendorRankBE is one rank's NCCL communicator.
type vendorRankBE struct {
	a     *ncclAPI
	comm  uintptr
	agent *rocr.Agent
	node  int

	// use is held shared by every call that uses comm and exclusively
	// while it is released, so no call touches a released communicator.
	use    sync.RWMutex
	mu     sync.Mutex // guards the fields below
	closed bool
	failed error
	fail   func(error) // set by the Comm: fails the streams it used
	stop   chan struct{}
}

func newVendorRank(a *ncclAPI, comm uintptr, agent *rocr.Agent, node int) *vendorRankBE {
	r := &vendorRankBE{a: a, comm: comm, agent: agent, node: node, stop: make(chan struct{})}
	go r.watch()
	return r
}

// asyncErr reports the communicator's asynchronous error
// (ncclCommGetAsyncError); ncclInProgress is not one.
func (r *vendorRankBE) asyncErr(op string) error {
	st := new(int32)
	if e := r.a.err(op, "CommGetAsyncError", r.a.call(r.a.fns["CommGetAsyncError"], r.comm, uintptr(unsafe.Pointer(st))), r.comm); e != nil {
		return e
	}
	if *st == ncclSuccess || *st == ncclInProgress {
		return nil
	}
	return r.a.err(op, "CommGetAsyncError", uintptr(*st), r.comm)
}

// watch polls for an asynchronous error while the rank lives; one aborts
// the communicator (its kernels return) and fails the streams that used
// it, as a faulting kernel fails its stream.
func (r *vendorRankBE) watch() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.use.Lock()
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			r.use.Unlock()
			return
		}
		err := r.asyncErr("collective")
		if err == nil {
			r.mu.Unlock()
			r.use.Unlock()
			continue
		}
		r.failed, r.closed = err, true
		fail := r.fail
		r.mu.Unlock()
		_ = r.a.onDevice(r.agent, r.node, func() error { r.a.call(r.a.fns["CommAbort"], r.comm); return nil })
		r.use.Unlock()
		if fail != nil {
			fail(err)
		}
		return
	}
}

func (r *vendorRankBE) issue(k *call, stream uintptr) error {
	a, f := r.a, r.a.fns
	addr := func(m interface{ Addr() uintptr }) uintptr { return m.Addr() }
	var send, recv uintptr
	if k.send != nil {
		send = addr(k.send)
	}
	if k.recv != nil {
		recv = addr(k.recv)
	}
	n, dt, op, peer := uintptr(k.count), uintptr(k.dt), uintptr(k.redop), uintptr(k.peer)
	var res uintptr
	switch k.kind {
	case kAllReduce:
		res = a.call(f["AllReduce"], send, recv, n, dt, op, r.comm, stream)
	case kBroadcast:
		res = a.call(f["Broadcast"], send, recv, n, dt, peer, r.comm, stream)
	case kReduce:
		res = a.call(f["Reduce"], send, recv, n, dt, op, peer, r.comm, stream)
	case kAllGather:
		res = a.call(f["AllGather"], send, recv, n, dt, r.comm, stream)
	case kReduceScatter:
		res = a.call(f["ReduceScatter"], send, recv, n, dt, op, r.comm, stream)
	case kSend:
		res = a.call(f["Send"], send, n, dt, peer, r.comm, stream)
	case kRecv:
		res = a.call(f["Recv"], recv, n, dt, peer, r.comm, stream)
	}
	return a.err(k.op, k.kind.String(), res, r.comm)
}

func (r *vendorRankBE) run(ops []*call, stream uintptr) error {
	r.use.RLock()
	defer r.use.RUnlock()
	r.mu.Lock()
	failed, closed := r.failed, r.closed
	r.mu.Unlock()
	if failed != nil {
		return failed
	}
	if closed {
		return gpu.Errorf(gpu.ErrInvalidHandle, ops[0].op, "the communicator was released")
	}
	if err := r.asyncErr(ops[0].op); err != nil {
		return err
	}
	a := r.a
	group := len(ops) > 1
	if group {
		if err := a.err(ops[0].op, "GroupStart", a.call(a.fns["GroupStart"]), r.comm); err != nil {
			return err
		}
	}
	var first error
	for _, k := range ops {
		if err := r.issue(k, stream); err != nil && first == nil {
			first = err
		}
	}
	if group {
		// A group that was started is ended, even after a failed call.
		if err := a.err(ops[0].op, "GroupEnd", a.call(a.fns["GroupEnd"]), r.comm); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (r *vendorRankBE) work(ops []*call) (func() error, func(uintptr) error) {
	return nil, func(stream uintptr) error {
		if r.a.wrap != nil {
			return r.a.wrap(r.node, func() error { return r.run(ops, 0) })
		}
		return r.run(ops, stream)
	}
}

// release waits for calls in progress (they only queue work, but
// NCCL's first collective may wait for its peers to connect) and then
// destroys or aborts the communicator.
func (r *vendorRankBE) release(fn string) error {
	r.use.Lock()
	defer r.use.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	if closed {
		return nil // the watchdog aborted it
	}
	return r.a.onDevice(r.agent, r.node, func() error {
		return r.a.err("collective "+fn, "Comm"+fn, r.a.call(r.a.fns["Comm"+fn], r.comm), 0)
	})
}

func (r *vendorRankBE) setFail(f func(error)) {
	r.mu.Lock()
	r.fail = f
	r.mu.Unlock()
}

func (r *vendorRankBE) destroy() error { return r.release("Destroy") }
func (r *vendorRankBE) abort() error   { return r.release("Abort") }
