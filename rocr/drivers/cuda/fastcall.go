package cuda

import (
	"os"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The launch path's calls into libcuda go through one argument block per
// executor (sysArgs), so a launch allocates nothing. Two ways carry the
// block into C:
//
//   - linked (the default): enter purego's own trampoline the way
//     purego.SyscallN does, through names linked into purego and the
//     runtime. It skips SyscallN's copies and its pool of argument blocks,
//     but it depends on purego's private layout (syscallArgs of v0.11.3,
//     which go.mod pins); TestFastCallLayout fails when purego changes.
//   - public (HIPGO_CUDA_SYSCALLN=1): purego.SyscallN, passing the block's
//     own array, which is already on the heap, so the variadic slice costs
//     no allocation either. It is purego's supported API; it has not yet
//     been timed on a GPU against the linked call.
//
// The choice is read once, when the package initializes.
var publicCall = os.Getenv("HIPGO_CUDA_SYSCALLN") == "1"

//go:linkname runtime_cgocall runtime.cgocall
func runtime_cgocall(fn uintptr, arg unsafe.Pointer) int32

//go:linkname syscallXABI0 github.com/ebitengine/purego.syscallXABI0
var syscallXABI0 uintptr

// sysArgs mirrors purego's syscallArgs (v0.11.3): fn, 32 integer
// arguments, 8 float registers, arm64's r8; the padding leaves room should
// purego grow it.
type sysArgs struct {
	fn  uintptr
	a   [32]uintptr
	f   [8]uintptr
	r8  uintptr
	pad [8]uintptr
}

// call invokes f with integer arguments through the reused block. It is
// not safe for concurrent use: each executor owns one.
func (s *sysArgs) call(f uintptr, args ...uintptr) cuResult {
	if publicCall {
		return s.callPublic(f, args)
	}
	return s.callLinked(f, args)
}

func (s *sysArgs) callLinked(f uintptr, args []uintptr) cuResult {
	s.fn = f
	copy(s.a[:], args)
	runtime_cgocall(syscallXABI0, unsafe.Pointer(s))
	return cuResult(s.a[0])
}

func (s *sysArgs) callPublic(f uintptr, args []uintptr) cuResult {
	n := copy(s.a[:], args)
	r, _, _ := purego.SyscallN(f, s.a[:n]...)
	return cuResult(r)
}
