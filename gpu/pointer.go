package gpu

import "github.com/hipgo/hipgo/rocr"

// MemoryType is hipMemoryType: where a pointer's memory lives.
type MemoryType int

// The memory types PointerGetAttributes reports.
const (
	MemoryTypeUnregistered MemoryType = iota // no hipgo allocation holds it
	MemoryTypeHost                           // pinned host memory (buffer.NewHost)
	MemoryTypeDevice                         // device memory (buffer.New and the like)
	MemoryTypeManaged                        // managed memory (buffer.NewManaged)
)

func (t MemoryType) String() string {
	switch t {
	case MemoryTypeHost:
		return "hipMemoryTypeHost"
	case MemoryTypeDevice:
		return "hipMemoryTypeDevice"
	case MemoryTypeManaged:
		return "hipMemoryTypeManaged"
	}
	return "hipMemoryTypeUnregistered"
}

// PointerAttributes are hipPointerAttribute_t's fields.
type PointerAttributes struct {
	Type   MemoryType
	Device *Device // the device that owns the memory; nil when unregistered
	// DevicePointer and HostPointer are the address as kernels and as the
	// host use it: the same address in hipgo's unified address space,
	// HostPointer 0 where the host cannot touch the memory (a GPU's
	// device memory).
	DevicePointer, HostPointer uintptr
	IsManaged                  bool
	// AllocationBase and AllocationSize are the allocation holding the
	// pointer (hipMemGetAddressRange).
	AllocationBase uintptr
	AllocationSize uintptr
}

// PointerGetAttributes is hipPointerGetAttributes: what hipgo knows of
// the memory at ptr, any address inside an allocation (a buffer's Ptr(),
// or an offset into it). An address no hipgo allocation holds is
// MemoryTypeUnregistered with no error, as HIP and CUDA answer for
// ordinary host memory; a null address is ErrInvalidValue.
func PointerGetAttributes(ptr uintptr) (PointerAttributes, error) {
	const op = "pointer get attributes"
	if ptr == 0 {
		return PointerAttributes{}, Errorf(ErrInvalidValue, op, "null pointer")
	}
	al := rocr.FindAllocation(ptr)
	if al == nil || al.Freed() {
		return PointerAttributes{Type: MemoryTypeUnregistered}, nil
	}
	pi := al.Pool().Info()
	a := PointerAttributes{Type: MemoryTypeDevice, DevicePointer: ptr, AllocationBase: al.Base, AllocationSize: al.Size}
	owner := al.Owner()
	if owner == nil {
		owner = al.Pool().Agent()
	}
	lib.mu.Lock()
	for _, d := range lib.devices {
		if d.agent == owner {
			a.Device = d
		}
	}
	lib.mu.Unlock()
	switch {
	case pi.Managed:
		a.Type, a.IsManaged, a.HostPointer = MemoryTypeManaged, true, ptr
	case pi.Host:
		a.Type, a.HostPointer = MemoryTypeHost, ptr
	case a.Device != nil && a.Device.props.IsCPU:
		a.HostPointer = ptr // the cpu agent's device memory is the host's
	}
	return a, nil
}
