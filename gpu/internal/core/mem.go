package core

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Mem is the untyped core of a buffer: its allocation, element type, owner
// and the fence of the last packet that used it.
type Mem struct {
	alloc *rocr.Allocation
	elem  reflect.Type
	esize int
	n     int
	host  bool // fine-grained host memory (Host[T]) or managed memory
	// managed: memory the host and every device address (Managed[T]).
	managed bool
	dev     atomic.Pointer[gpu.Device]
	home    *gpu.Device // the device whose pool holds the memory
	gen     uint64      // home's reset count at allocation
	mu      sync.Mutex  // guards deps and orders Use against Free
	// deps is allocated apart from the Mem, so the backstop (backstop.go)
	// can wait for the work it records once the Mem is unreachable.
	deps *deps
	// backstop releases the memory if it becomes unreachable unfreed;
	// Free stops it.
	backstop runtime.Cleanup
	freed    atomic.Bool
	pool     *MemPool // stream-ordered memory: Free returns it there
	// graph: memory of a graph's alloc node, which Free and FreeAsync
	// end an allocation of without returning (GraphAlloc).
	graph *GraphAlloc
	// opened: memory another process shared (InitOpened).
	opened bool
	// empty marks memory made with no elements, as hipMalloc(0) makes a
	// null pointer: no allocation, address 0, and every call takes it as
	// empty.
	empty bool
	// global names a module's variable (InitGlobal): memory the module
	// owns, gone when it is unloaded.
	global string
	// parent is the buffer a view (View) shows bytes [off, off+Size()) of:
	// its checks, owner and dependencies are the parent's. bad is why a
	// view could not be made, which every use of it reports.
	parent *Mem
	off    int
	bad    error
	// advice: managed memory's hints and last prefetch (memrange.go),
	// guarded by mu; nil until one is made.
	advice *RangeAdvice
}

// The accessors below answer zero values for a nil Mem (a nil *Buffer)
// or one never allocated (a zero Buffer), as the API's accessors do.

// Addr is the device address of element 0.
func (m *Mem) Addr() uintptr {
	if m == nil || m.alloc == nil {
		return 0
	}
	return m.alloc.Base + uintptr(m.off)
}

// ViewErr is why a view could not be made; nil otherwise.
func (m *Mem) ViewErr() error {
	if m == nil {
		return nil
	}
	return m.bad
}

// root is the buffer m is a view of, or m.
func (m *Mem) root() *Mem {
	if m.parent != nil {
		return m.parent
	}
	return m
}

// View makes v a view of elements [off, off+n) of m (a pointer into a
// buffer, d_data + off): v is memory of m's element type that copies,
// fills and launches take, checked against the view's bounds, whose uses
// are uses of those bytes of m. A view of a view is one of the same
// buffer. A range outside m, or m not made, is an error that v reports
// on every use.
func (m *Mem) View(v *Mem, off, n int) {
	if !m.Made() {
		v.bad = gpu.Errorf(gpu.ErrInvalidValue, "view", "view of a nil buffer")
		return
	}
	if m.bad != nil {
		v.bad = m.bad
		return
	}
	if off < 0 || n < 0 || off > m.n || n > m.n-off {
		v.bad = gpu.Errorf(gpu.ErrInvalidValue, "view", "elements [%d, %d) of %s, which has %d", off, off+n, m, m.n)
		return
	}
	r := m.root()
	*v = Mem{alloc: m.alloc, elem: m.elem, esize: m.esize, n: n, host: m.host, managed: m.managed,
		home: m.home, gen: m.gen, empty: m.empty || n == 0, global: m.global, parent: r, off: m.off + off*m.esize}
}

// Len is the number of elements.
func (m *Mem) Len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// Size is the size in bytes.
func (m *Mem) Size() int {
	if m == nil {
		return 0
	}
	return m.n * m.esize
}

// GlobalName is the name of the module variable the memory is; "" for
// other memory.
func (m *Mem) GlobalName() string {
	if m == nil {
		return ""
	}
	return m.global
}

// Elem is the element type.
func (m *Mem) Elem() reflect.Type { return m.elem }

// ElemSize is the element size in bytes.
func (m *Mem) ElemSize() int { return m.esize }

// IsHost reports whether the memory is fine-grained host memory or
// managed memory, which the host may touch.
func (m *Mem) IsHost() bool { return m.host }

// IsManaged reports whether the memory is managed memory.
func (m *Mem) IsManaged() bool { return m.managed }

// Device is the device that owns the memory.
func (m *Mem) Device() *gpu.Device {
	if m == nil {
		return nil
	}
	return m.root().dev.Load()
}

// Allocation is the rocr allocation.
func (m *Mem) Allocation() *rocr.Allocation { return m.alloc }

func (m *Mem) String() string {
	if m == nil {
		return "buffer (nil)"
	}
	kind := m.kindName()
	if m.parent != nil {
		return fmt.Sprintf("view of elements [%d, %d) of %s", m.off/max(m.esize, 1), m.off/max(m.esize, 1)+m.n, m.parent)
	}
	if m.bad != nil {
		return "view (invalid)"
	}
	if m.global != "" {
		return fmt.Sprintf("global %q (%d %s)", m.global, m.n, m.elem)
	}
	if m.empty {
		return fmt.Sprintf("empty %s of %s", kind, m.elem)
	}
	if m.alloc == nil {
		return kind + " (nil)"
	}
	return m.label().String()
}

// Check reports a nil, freed or stale buffer.
func (m *Mem) Check(op string) error {
	if m != nil && m.bad != nil {
		return errs.Wrap(op, m.bad)
	}
	if m != nil && m.parent != nil {
		return m.parent.Check(op)
	}
	if !m.Made() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	// Before freed: Shutdown and Device.Reset free every buffer, and are
	// the reason whatever a racing call saw first.
	if err := Valid(m.home, m.gen); err != nil {
		return errs.Wrap(op, err)
	}
	if m.freed.Load() {
		if m.global != "" {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: its module was unloaded", m)
		}
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s was freed", m)
	}
	if err := m.Device().Valid(); err != nil {
		return errs.Wrap(op, err)
	}
	return nil
}

// CheckAccess reports whether dev may use the memory in a packet: it owns
// it, or the memory is host memory visible to it.
func (m *Mem) CheckAccess(op string, dev *gpu.Device) error {
	if err := m.Check(op); err != nil {
		return err
	}
	if m.empty {
		return nil // no memory to reach
	}
	if err := m.alloc.CheckAccess(dev.Agent()); err != nil {
		if err := Valid(m.home, m.gen); err != nil {
			return errs.Wrap(op, err) // freed by a Shutdown racing this call
		}
		if errors.Is(err, gpu.ErrNotOwner) {
			// The agent's message says the same of agents: say it once,
			// of devices, and keep the agent's error as the cause.
			return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Err: &restated{cause: err,
				text: fmt.Sprintf("%s is on device %d, not on device %d: transfer it, copy it, or enable peer access", m, m.Device().Ordinal(), dev.Ordinal())}}
		}
		return errs.Wrap(op, err)
	}
	return nil
}

// Free waits for pending work on the memory and returns it to its pool. A
// second Free is an error.
func (m *Mem) Free() error {
	if m != nil && (m.parent != nil || m.bad != nil) {
		return gpu.Errorf(gpu.ErrInvalidValue, "free", "%s: a view is freed with its buffer", m)
	}
	if !m.Made() {
		return gpu.Errorf(gpu.ErrInvalidValue, "free", "nil buffer")
	}
	if m.graph != nil {
		return m.graph.free("free")
	}
	// Under the lock, so that a launch's Use either recorded its packet
	// (which Settle then waits for) or sees the buffer freed.
	m.mu.Lock()
	if m.freed.Load() {
		m.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidValue, "free", "%s was already freed", m)
	}
	// From a host function or kernel whose queue still has work on the
	// memory, waiting for it would never end; freeing without would
	// hand that work memory it no longer owns.
	if err := m.waitsForOwnQueueLocked("free"); err != nil {
		m.mu.Unlock()
		return err
	}
	m.freed.Store(true)
	m.mu.Unlock()
	m.backstop.Stop()
	live.RemoveWeak(m)
	_ = m.Settle("free")
	if m.pool != nil && !m.alloc.Freed() {
		m.release(nil, 0, true)
		return nil
	}
	var err error
	if m.alloc != nil && !m.alloc.Freed() { // Shutdown and Device.Reset release everything
		err = m.alloc.Free()
	}
	if stale := Valid(m.home, m.gen); stale != nil && m.home.Valid() == nil {
		return errs.Wrap("free", stale) // made before a Device.Reset
	}
	return errs.Wrap("free", err)
}

// Freed reports whether Free was called.
func (m *Mem) Freed() bool { return m.root().freed.Load() }

// InitGlobal makes m the memory of a module's variable name, whose
// allocation al (rocr.Global) lies on dev, as elements of T. The
// variable's size must be a whole number of T.
func InitGlobal[T any](m *Mem, dev *gpu.Device, gen uint64, al *rocr.Allocation, name string) error {
	const op = "module get global"
	elem := reflect.TypeFor[T]()
	if err := checkElem(elem); err != nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%q: %v", name, err)
	}
	es := int(elem.Size())
	if es == 0 || int(al.Size)%es != 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%q is %d bytes: not a whole number of %s (%d bytes)", name, al.Size, elem, es)
	}
	m.alloc, m.elem, m.esize, m.n = al, elem, es, int(al.Size)/es
	m.home, m.gen, m.global = dev, gen, name
	m.deps = &deps{}
	m.dev.Store(dev)
	return nil
}

// Release ends the memory of a module's variable when its module is
// unloaded: its pending work is waited for, and later uses fail.
func (m *Mem) Release() {
	m.mu.Lock()
	m.freed.Store(true)
	m.mu.Unlock()
	_ = m.Settle("module unload")
}

// InitMem allocates n elements of T on dev into m.
func InitMem[T any](m *Mem, dev *gpu.Device, n int, host bool) error {
	op := "malloc"
	if host {
		op = "host malloc"
	}
	return initMem[T](m, dev, n, op, host, func() (*rocr.Pool, error) {
		flags := hsa.FlagCoarseGrained
		if host {
			flags = hsa.FlagFineGrained
		}
		return hostOrDevicePool(dev, flags, host)
	})
}

// InitManaged allocates n elements of T of managed memory into m
// (hipMallocManaged): the host and every device address it, and it has no
// owner. It counts as host memory for the copies (any device may run
// them) and as every device's for launches.
func InitManaged[T any](m *Mem, dev *gpu.Device, n int) error {
	m.managed = true
	return initMem[T](m, dev, n, "malloc managed", true, func() (*rocr.Pool, error) { return dev.Agent().ManagedPool() })
}

func initMem[T any](m *Mem, dev *gpu.Device, n int, op string, host bool, pick func() (*rocr.Pool, error)) error {
	if err := dev.Valid(); err != nil {
		return errs.Wrap(op, err)
	}
	if err := RefuseUnsafe(op); err != nil {
		return err // a synchronous allocation during a global capture
	}
	gen := Gen(dev) // before the allocation, which a reset may free
	if err := Valid(dev, gen); err != nil {
		return errs.Wrap(op, err)
	}
	elem := reflect.TypeFor[T]()
	es, err := checkCount(op, elem, n)
	if err != nil {
		return err
	}
	if n == 0 {
		m.setEmpty(dev, gen, elem, es, host)
		return nil
	}
	pool, err := pick()
	if err != nil {
		return errs.Wrap(op, err)
	}
	al, err := pool.Allocate(uint64(n * es))
	if err != nil {
		return errs.Wrap(op, err)
	}
	m.alloc, m.elem, m.esize, m.n, m.host = al, elem, es, n, host
	m.home, m.gen = dev, gen
	m.deps = &deps{}
	m.dev.Store(dev)
	lab := m.label()
	al.SetLabeler(lab)
	live.AddWeak(Scope(dev), m)
	m.armBackstop(lab)
	return nil
}

func hostOrDevicePool(dev *gpu.Device, flags hsa.GlobalFlag, host bool) (*rocr.Pool, error) {
	for _, p := range dev.Agent().Pools() {
		in := p.Info()
		if in.Segment == hsa.SegmentGlobal && in.Flags&flags == flags && in.Flags&hsa.FlagKernargInit == 0 && in.Host == host && in.AllocAllowed {
			return p, nil
		}
	}
	return dev.Agent().Pool(hsa.SegmentGlobal, flags)
}

// TargetAgent is dev's agent, where managed memory should live; nil for a
// nil dev, which names the host.
func TargetAgent(op string, dev *gpu.Device) (*rocr.Agent, error) {
	if dev == nil {
		return nil, nil
	}
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap(op, err)
	}
	return dev.Agent(), nil
}

// checkCount checks that n elements of elem can be allocated and returns
// the element size. A count of 0 makes empty memory (see Mem.empty).
func checkCount(op string, elem reflect.Type, n int) (int, error) {
	if err := checkElem(elem); err != nil {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "%v", err)
	}
	es := int(elem.Size())
	if es == 0 {
		// Nothing to allocate: a pool refuses 0 bytes, and a pointer to
		// no memory is no buffer.
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "element type %s has size 0: want a type that holds data", elem)
	}
	if n < 0 {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "%d elements of %s: want a count >= 0", n, elem)
	}
	if n > (1<<62)/es {
		// More than any device holds: HIP's hipMalloc(SIZE_MAX) answer.
		return 0, gpu.Errorf(gpu.ErrOutOfMemory, op, "%d elements of %s: more memory than a device holds", n, elem)
	}
	return es, nil
}

// checkElem refuses element types that cannot live in device memory: Go
// pointers, strings, slices, maps, interfaces, channels, functions.
func checkElem(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.Array:
		return checkElem(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if err := checkElem(t.Field(i).Type); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("element type %s cannot live in device memory (it holds Go pointers or is not fixed-size)", t)
}

// Transfer makes dev the owner of the memory after its pending work.
func (m *Mem) Transfer(dev *gpu.Device) error {
	if err := m.Check("transfer"); err != nil {
		return err
	}
	if err := dev.Valid(); err != nil {
		return errs.Wrap("transfer", err)
	}
	if err := m.Settle("transfer"); err != nil {
		return errs.Wrap("transfer", err)
	}
	if m.alloc != nil {
		if err := m.alloc.Transfer(dev.Agent()); err != nil {
			return errs.Wrap("transfer", err)
		}
	}
	m.dev.Store(dev)
	return nil
}

// Live reports whether the memory is allocated and neither freed nor
// released by Shutdown.
func (m *Mem) Live() bool {
	if m.parent != nil {
		return m.parent.Live()
	}
	return m.Made() && !m.freed.Load() && (m.alloc == nil || !m.alloc.Freed())
}

// Made reports whether the memory was made by an allocation call (it may
// since have been freed): false for a nil or zero buffer.
func (m *Mem) Made() bool { return m != nil && (m.alloc != nil || m.empty || m.parent != nil) }

// setEmpty makes m the empty memory of elem on dev (a zero count).
func (m *Mem) setEmpty(dev *gpu.Device, gen uint64, elem reflect.Type, es int, host bool) {
	m.elem, m.esize, m.n, m.host, m.empty = elem, es, 0, host, true
	m.home, m.gen = dev, gen
	m.deps = &deps{}
	m.dev.Store(dev)
	live.AddHeld(Scope(dev), m) // nothing to release: no backstop
}

// restated is an error told in the API's words whose cause, for errors.Is
// and Error.Status, is a lower layer's error that said the same.
type restated struct {
	cause error
	text  string
}

func (e *restated) Error() string { return e.text }
func (e *restated) Unwrap() error { return e.cause }
