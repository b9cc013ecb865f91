package buffer

import (
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// Managed is managed memory (hipMallocManaged): one address that the host
// and every device use, migrated by the driver to where it is touched
// (cuMemAllocManaged on cuda, shared virtual memory on rocm; on the cpu
// agent all memory is the host's already).
//
// Managed memory has no owner, unlike a Buffer's coarse-grained memory:
// kernels and copies on any device may use it without Transfer, and
// stream.Prefetch and Advise only say where it should live. Its uses are
// tracked like a Buffer's, so launches on different streams that share it
// are ordered by its dependencies. The host touches it through Slice,
// which first waits for the device work that uses it, as a HIP program
// synchronizes before it reads managed memory on the host; the host must
// not touch the slice while later device work that uses it runs.
type Managed[T any] struct {
	mem[T]
}

// NewManaged allocates n elements of T of managed memory through dev's
// driver. On cuda it refuses more than dev has free: asking the driver
// for more can hang the GPU when a kernel touches it all.
func NewManaged[T any](dev *gpu.Device, n int) (*Managed[T], error) {
	m := &Managed[T]{}
	if err := core.InitManaged[T](&m.m, dev, n); err != nil {
		return nil, err
	}
	return m, nil
}

// Slice waits for the device work that uses the memory (the packets its
// dependency tracking knows: its last writer and the readers since), then
// returns the memory as a Go slice, valid until Free or gpu.Shutdown. A
// failure of that work is returned, once, as Synchronize would.
func (m *Managed[T]) Slice() ([]T, error) {
	const op = "managed slice"
	if m == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := m.m.Check(op); err != nil {
		return nil, err
	}
	if err := m.m.Settle(op); err != nil {
		return nil, errs.Wrap(op, err)
	}
	return unsafe.Slice((*T)(hostmem.At(m.m.Addr())), m.m.Len()), nil
}

// Free waits for pending work and releases the memory (hipFree).
func (m *Managed[T]) Free() error {
	if m == nil {
		return nil // as hipFree(nullptr)
	}
	return m.m.Free()
}

// SetManualDeps makes the program responsible for ordering the memory's
// uses on different streams (see Buffer.SetManualDeps).
func (m *Managed[T]) SetManualDeps(on bool) { m.base().SetManual(on) }

// Advice is a usage hint for managed memory (hipMemoryAdvise).
type Advice = hsa.Advice

// The hints Advise takes, with HIP's values.
const (
	AdviseSetReadMostly          = hsa.AdviseSetReadMostly
	AdviseUnsetReadMostly        = hsa.AdviseUnsetReadMostly
	AdviseSetPreferredLocation   = hsa.AdviseSetPreferredLocation
	AdviseUnsetPreferredLocation = hsa.AdviseUnsetPreferredLocation
	AdviseSetAccessedBy          = hsa.AdviseSetAccessedBy
	AdviseUnsetAccessedBy        = hsa.AdviseUnsetAccessedBy
)

// Advise tells the driver how the memory will be used, about dev (nil:
// the host) (hipMemAdvise over the whole allocation). Hints change where
// the memory lives, never what it holds; the cpu agent needs none.
func (m *Managed[T]) Advise(advice Advice, dev *gpu.Device) error {
	const op = "mem advise"
	if m == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := m.m.Check(op); err != nil {
		return err
	}
	to, err := core.TargetAgent(op, dev)
	if err != nil {
		return err
	}
	if m.m.Len() > 0 { // empty: nothing to tell the driver
		if err := m.m.Device().Agent().Advise(uint64(m.m.Addr()), uint64(m.m.Size()), advice, to); err != nil {
			return errs.Wrap(op, err)
		}
	}
	m.m.RecordAdvice(advice, dev)
	return nil
}

// Device ids in range attributes, with HIP's values.
const (
	CPUDeviceID     = core.CPUDeviceID     // hipCpuDeviceId: the host
	InvalidDeviceID = core.InvalidDeviceID // hipInvalidDeviceId: no device
)

// RangeAttributes are managed memory's attributes
// (hipMemRangeGetAttributes): what Advise and stream.Prefetch left.
// Devices are ordinals (gpu.Device.Ordinal), the host CPUDeviceID.
type RangeAttributes struct {
	ReadMostly           bool  // hipMemRangeAttributeReadMostly
	PreferredLocation    int   // hipMemRangeAttributePreferredLocation; InvalidDeviceID if none
	AccessedBy           []int // hipMemRangeAttributeAccessedBy, in the order Advise set them
	LastPrefetchLocation int   // hipMemRangeAttributeLastPrefetchLocation; InvalidDeviceID if never prefetched
}

// RangeAttribute is hipMemRangeAttribute.
type RangeAttribute int

// The attributes RangeAttribute answers, with HIP's values.
const (
	RangeAttributeReadMostly           RangeAttribute = 1
	RangeAttributePreferredLocation    RangeAttribute = 2
	RangeAttributeAccessedBy           RangeAttribute = 3
	RangeAttributeLastPrefetchLocation RangeAttribute = 4
)

// RangeAttributes are the memory's attributes (hipMemRangeGetAttributes
// over the whole allocation: hints apply to whole allocations here, so
// every part of one has the same attributes).
func (m *Managed[T]) RangeAttributes() (RangeAttributes, error) {
	const op = "mem range get attributes"
	if m == nil {
		return RangeAttributes{}, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := m.m.Check(op); err != nil {
		return RangeAttributes{}, err
	}
	a := m.m.Advice()
	return RangeAttributes{ReadMostly: a.ReadMostly, PreferredLocation: a.Preferred, AccessedBy: a.AccessedBy, LastPrefetchLocation: a.LastPrefetch}, nil
}

// RangeAttribute is one attribute as hipMemRangeGetAttribute writes it:
// ReadMostly 1 or 0, a location's device id, or AccessedBy's ids. An
// unknown attribute is ErrInvalidValue.
func (m *Managed[T]) RangeAttribute(attr RangeAttribute) ([]int, error) {
	const op = "mem range get attribute"
	a, err := m.RangeAttributes()
	if err != nil {
		return nil, errs.Wrap(op, err)
	}
	switch attr {
	case RangeAttributeReadMostly:
		if a.ReadMostly {
			return []int{1}, nil
		}
		return []int{0}, nil
	case RangeAttributePreferredLocation:
		return []int{a.PreferredLocation}, nil
	case RangeAttributeAccessedBy:
		return a.AccessedBy, nil
	case RangeAttributeLastPrefetchLocation:
		return []int{a.LastPrefetchLocation}, nil
	}
	return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "unknown attribute %d", int(attr))
}
