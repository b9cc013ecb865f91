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

// CaptureStderr is CaptureStdout for file descriptor 2.
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
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	func() {
		defer func() {
			fflush()
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
