package rtc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// ErrNoCompiler is wrapped by the errors of a compile that has no
// compiler to run: the device runs none (the cpu agent) or its library is
// not installed. Those errors are gpu.ErrNotSupported too.
var ErrNoCompiler = errors.New("no runtime compiler")

// errNoCompiler builds a gpu.ErrNotSupported error wrapping ErrNoCompiler.
func errNoCompilerf(format string, args ...any) error {
	return &gpu.Error{Code: gpu.ErrNotSupported, Op: "compile", Msg: fmt.Sprintf(format, args...), Err: ErrNoCompiler}
}

// dlopen opens lib's first candidate that loads and has its probe
// symbol, as a compiler error when none does.
func dlopen(lib *vendorlib.Library) (*vendorlib.Handle, error) {
	h, err := lib.Open()
	if err != nil {
		return nil, errNoCompilerf("%v", err)
	}
	return h, nil
}

// fileID names the library file for cache keys without loading it: its
// resolved path (which carries the version), size and time.
func fileID(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf("%s %d %d", real, st.Size(), st.ModTime().UnixNano())
}
