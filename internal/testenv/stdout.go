package testenv

import (
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// CaptureStdout runs fn with file descriptor 1 on a pipe and returns what
// was written there: by Go's os.Stdout, and by the C library's stdout (a
// GPU driver's printf), flushed before and after.
func CaptureStdout(t testing.TB, fn func()) string {
	t.Helper()
	return capture(t, 1, fn)
}

// CaptureStderr is CaptureStdout for file descriptor 2. It also points
// os.Stderr at the pipe while fn runs: under go test -json the testing
// package makes os.Stderr os.Stdout (file descriptor 1), so that test2json
// reads both through one pipe, and what Go code writes to os.Stderr
// would not reach descriptor 2.
func CaptureStderr(t testing.TB, fn func()) string {
	t.Helper()
	return capture(t, 2, fn)
}

func capture(t testing.TB, fd int, fn func()) string {
	t.Helper()
	fflush := vendorlib.FlushC()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	saved, err := syscall.Dup(fd)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	fflush()
	if err := syscall.Dup3(int(w.Fd()), fd, 0); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	savedStderr := os.Stderr
	if fd == 2 && os.Stderr == os.Stdout {
		os.Stderr = w
	}
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	func() {
		defer func() {
			fflush()
			os.Stderr = savedStderr
			_ = syscall.Dup3(saved, fd, 0)
			_ = syscall.Close(saved)
			_ = w.Close()
		}()
		fn()
	}()
	out := <-done
	_ = r.Close()
	return out
}
