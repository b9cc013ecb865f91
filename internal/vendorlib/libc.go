package vendorlib

import "github.com/ebitengine/purego"

// FlushC returns fflush(NULL), which writes out every C stdio stream's
// buffer (a test that captures file descriptor 1 or 2 calls it first, so
// that a vendor library's printf lands in the capture). It returns a
// no-op where the C library does not open.
func FlushC() func() {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return func() {}
	}
	fflush, err := purego.Dlsym(libc, "fflush")
	if err != nil || fflush == 0 {
		return func() {}
	}
	return func() { purego.SyscallN(fflush, 0) }
}
