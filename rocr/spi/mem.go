package spi

import (
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// MapAnonymous maps size bytes of zeroed, page-aligned memory outside the Go
// heap: its address is stable and the garbage collector neither moves nor
// scans it. Drivers use it for host-side pool memory, rings and signals.
func MapAnonymous(size uintptr) (uintptr, error) {
	if size == 0 {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "map", "size 0")
	}
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, hsa.Errorf(hsa.StatusErrorOutOfResources, "map", "mmap %d bytes: %w", size, err)
	}
	hostmem.AddMapped(int64(size))
	return uintptr(unsafe.Pointer(unsafe.SliceData(b))), nil
}

// Unmap releases memory from MapAnonymous.
func Unmap(addr, size uintptr) error {
	b := unsafe.Slice((*byte)(hostmem.At(addr)), size)
	if err := unix.Munmap(b); err != nil {
		return hsa.Errorf(hsa.StatusErrorResourceFree, "unmap", "munmap %#x: %w", addr, err)
	}
	hostmem.AddMapped(-int64(size))
	return nil
}

// sanitize counts the reasons the sanitizer is on: HIPGO_SANITIZE=1 (read
// once) and each EnableSanitize not yet undone.
var sanitize struct {
	env  sync.Once
	on   bool
	refs atomic.Int32
}

// Sanitizing reports whether agents that can check memory use (the cpu
// agent) track which bytes of device memory were written since
// allocation, and whether the API reports buffers used on unordered
// streams where automatic dependencies are off (HIPGO_SANITIZE=1 or an
// EnableSanitize not yet undone: gputest.Sanitize).
func Sanitizing() bool {
	sanitize.env.Do(func() { sanitize.on = os.Getenv("HIPGO_SANITIZE") == "1" })
	return sanitize.on || sanitize.refs.Load() > 0
}

// EnableSanitize turns the sanitizer on until the returned function is
// called (gputest.Sanitize calls it).
func EnableSanitize() (disable func()) {
	sanitize.refs.Add(1)
	var once sync.Once
	return func() { once.Do(func() { sanitize.refs.Add(-1) }) }
}
