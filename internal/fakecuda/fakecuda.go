// Package fakecuda builds and drives a fake libcuda for tests of the cuda
// driver, as the rocm driver's tests have a fake HSA: a small C library
// (testdata/fakecuda.c) that exports the driver API entry points the cuda
// driver binds and simulates one device. Device memory is host memory, so
// copies and fills really copy; each stream is a FIFO run by a thread of
// its own; events and stream memory operations behave as CUDA documents
// them; kernels are not computed, except a few the fake knows by name
// (vector_add, the driver's timestamp kernel, fakecuda_fill and
// fakecuda_fault). The fake counts calls, logs the kernels it ran, and
// injects failures on request (Fake.Fail, Fake.Fault).
//
// The driver opens libcuda once per process, so a test runs against the
// fake in a process of its own: Run starts the test binary again with
// HIPGO_CUDA_LIBRARY naming the fake, once per test, and the test finds
// the fake with Open. The library is compiled at test time with $CC, cc or
// gcc; without one the test skips, and fails where HIPGO_REQUIRE lists
// fakecuda. The fake is a test fixture: nothing but tests imports this
// package.
package fakecuda

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/cabitest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

//go:embed testdata/fakecuda.c
var source string

// Feature is the HIPGO_REQUIRE word that makes a missing C compiler fail
// the tests that build the fake.
const Feature = "fakecuda"

// PrebuiltEnv names a fake built beforehand (as Build writes it), for a
// machine without a C compiler: a GPU machine running test binaries built
// elsewhere.
const PrebuiltEnv = "HIPGO_FAKECUDA"

// childEnv marks a process that Run started: its cuda driver opens the fake.
const childEnv = "HIPGO_FAKECUDA_CHILD"

// CUresult values the tests inject.
const (
	ErrorInvalidValue   = 1
	ErrorOutOfMemory    = 2
	ErrorNoDevice       = 100
	ErrorIllegalAddress = 700
	ErrorLaunchFailed   = 719
)

// Build compiles the fake library into a temporary directory of tb and
// returns its path. Where there is no C compiler tb skips, or fails where
// HIPGO_REQUIRE lists fakecuda; a fake that does not compile fails tb.
func Build(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(PrebuiltEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("%s=%s: %v", PrebuiltEnv, p, err)
		}
		return p
	}
	cc, err := cabitest.Compiler()
	if err != nil {
		testenv.Require(tb, Feature, fmt.Errorf("build the fake libcuda: %w", err))
		return ""
	}
	dir := tb.TempDir()
	c, so := filepath.Join(dir, "fakecuda.c"), filepath.Join(dir, "libfakecuda.so")
	if err := os.WriteFile(c, []byte(source), 0o644); err != nil {
		tb.Fatal(err)
	}
	args := append(cc[1:len(cc):len(cc)], "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", so, c, "-lpthread")
	if out, err := exec.Command(cc[0], args...).CombinedOutput(); err != nil {
		tb.Fatalf("fakecuda: %s %s: %v\n%s", cc[0], c, err, out)
	}
	return so
}

// Child reports whether this process is one that Run started.
func Child() bool { return os.Getenv(childEnv) != "" }

// Run runs each named test of this test binary in a process of its own
// whose cuda driver opens the fake at so, as a subtest of t by the same
// name. A child that fails, or skips, fails its subtest: against the fake
// every test must run. In a child, Run does nothing.
func Run(t *testing.T, so string, names ...string) {
	t.Helper()
	if Child() {
		t.Skip("a child of Run runs no children")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if d, ok := t.Deadline(); ok {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
				defer cancel()
			}
			args := []string{"-test.run=^" + regexp.QuoteMeta(name) + "$", "-test.v", "-test.count=1"}
			if testing.Short() {
				args = append(args, "-test.short")
			}
			cmd := exec.CommandContext(ctx, os.Args[0], args...)
			cmd.Env = append(os.Environ(),
				childEnv+"=1",
				vendorlib.CUDA.Env+"="+so,
				"HIPGO_DRIVER=cuda",
				// The fake is the device: a test that finds none fails.
				testenv.RequireEnv+"=cuda",
			)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: "+name+" ") {
				t.Fatalf("%s against the fake libcuda: %v\n%s", name, err, out)
			}
			t.Logf("%s", lastLines(string(out), 20))
		})
	}
}

// lastLines is the end of a child's output, for the log.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Fake is the fake library loaded in this process.
type Fake struct {
	calls, fault, ran, pending uintptr
	fail, keep                 uintptr
}

// Open returns the fake this process's cuda driver opened. Outside a
// child of Run it skips tb: the tests that drive the fake run as Run's
// children.
func Open(tb testing.TB) *Fake {
	tb.Helper()
	if !Child() {
		tb.Skip("runs against the fake libcuda, in a process of its own that fakecuda.Run starts")
	}
	h, err := vendorlib.CUDA.Open()
	if err != nil {
		tb.Fatalf("fakecuda: %v", err)
	}
	f := &Fake{}
	for p, name := range map[*uintptr]string{&f.calls: "fakecuda_calls", &f.fail: "fakecuda_fail", &f.fault: "fakecuda_fault", &f.ran: "fakecuda_ran", &f.pending: "fakecuda_pending", &f.keep: "fakecuda_keep_faults"} {
		if *p = h.Sym(name); *p == 0 {
			tb.Fatalf("fakecuda: %s, opened as libcuda, lacks %s: not the fake", h.Path, name)
		}
	}
	return f
}

// cstr is s as a NUL-terminated byte slice.
func cstr(s string) []byte { return append([]byte(s), 0) }

// Calls returns how many times the driver called entry point name so far
// ("" for all of them).
func (f *Fake) Calls(name string) int64 {
	b := cstr(name)
	r, _, _ := purego.SyscallN(f.calls, uintptr(unsafe.Pointer(&b[0])))
	return int64(r)
}

// Fail makes the nth call of entry point name from now (1: the next)
// return the CUresult result without doing anything.
func (f *Fake) Fail(tb testing.TB, name string, nth, result int) {
	tb.Helper()
	b := cstr(name)
	if r, _, _ := purego.SyscallN(f.fail, uintptr(unsafe.Pointer(&b[0])), uintptr(nth), uintptr(result)); int32(r) != 0 {
		tb.Fatalf("fakecuda: too many failures injected at once")
	}
}

// Fault makes the nth kernel to run from now (1: the next) fail with the
// CUresult result as it runs; the context's error is then sticky, as a
// real fault leaves it.
func (f *Fake) Fault(nth, result int) {
	purego.SyscallN(f.fault, uintptr(nth), uintptr(result))
}

// Ran lists the kernels the fake ran so far, in the order they ran.
func (f *Fake) Ran() []string {
	buf := make([]byte, 1<<16)
	r, _, _ := purego.SyscallN(f.ran, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	s := strings.TrimSuffix(string(buf[:min(int(r), len(buf))]), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Pending returns the operations queued on the fake's streams and not yet
// done.
func (f *Fake) Pending() int64 {
	r, _, _ := purego.SyscallN(f.pending)
	return int64(r)
}

// KeepFaults makes a fault outlive a reset of the primary context, as
// the CUDA driver 580 on an H200 did (benchmarks/peers/reset_probe.c),
// or, off (the default), a reset clear it, as CUDA documents.
func (f *Fake) KeepFaults(on bool) {
	v := uintptr(0)
	if on {
		v = 1
	}
	purego.SyscallN(f.keep, v)
}
