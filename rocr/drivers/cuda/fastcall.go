package cuda

import (
	"unsafe"

	_ "github.com/ebitengine/purego" // for the trampoline linked below
)

// purego.SyscallN heap-allocates its variadic argument slice on every call
// (it is go:uintptrescapes). The launch path instead reuses one argument
// block per executor and enters purego's own trampoline the way SyscallN
// does, so a launch allocates nothing. The layout is purego v0.11.3's
// syscallArgs; go.mod pins that version.

//go:linkname runtime_cgocall runtime.cgocall
func runtime_cgocall(fn uintptr, arg unsafe.Pointer) int32

//go:linkname syscallXABI0 github.com/ebitengine/purego.syscallXABI0
var syscallXABI0 uintptr

// sysArgs mirrors purego's syscallArgs.
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
	s.fn = f
	copy(s.a[:], args)
	runtime_cgocall(syscallXABI0, unsafe.Pointer(s))
	return cuResult(s.a[0])
}
