package gputest

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/devstate"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Device returns a device for tb: the default device (gpu.Default: the
// first GPU, else the cpu agent), seen through a view of tb's own. It
// skips tb when the runtime cannot open (HIPGO_DRIVER names a driver that
// has no device here), or fails it where HIPGO_REQUIRE names that driver.
func Device(tb testing.TB) *gpu.Device {
	tb.Helper()
	dev, err := gpu.Default()
	if err != nil {
		driver := strings.TrimSpace(os.Getenv("HIPGO_DRIVER"))
		if driver == "" || driver == "cpu" {
			tb.Fatalf("gputest: no device: %v", err) // the cpu agent is always there
		}
		unavailable(tb, driver, "no %s device: %v", driver, err)
	}
	return open(tb, dev)
}

// DeviceOf returns the first device of driver ("cpu", "cuda", "rocm") for
// tb, skipping tb (or failing it, where HIPGO_REQUIRE names the driver)
// when there is none.
func DeviceOf(tb testing.TB, driver string) *gpu.Device {
	tb.Helper()
	return Devices(tb, driver, 1)[0]
}

// Devices returns n distinct devices of driver for tb, skipping tb (or
// failing it, where HIPGO_REQUIRE names the driver) when there are
// fewer; when there is at least one device of the driver but fewer than
// n, the word HIPGO_REQUIRE must name to fail is multi-gpu. The cpu
// driver has as many agents as HIPGO_CPU_AGENTS says when the runtime
// opens: set it in TestMain.
func Devices(tb testing.TB, driver string, n int) []*gpu.Device {
	tb.Helper()
	if n < 1 {
		tb.Fatalf("gputest: %d devices asked for", n)
	}
	all, err := gpu.Devices()
	var found []*gpu.Device
	for _, d := range all {
		if d.Properties().Driver == driver {
			found = append(found, d)
		}
	}
	if len(found) < n {
		why := fmt.Sprintf("%d %s device(s), %d needed", len(found), driver, n)
		if err != nil {
			why += ": " + err.Error()
		} else if driver == "cpu" {
			why += fmt.Sprintf(" (set HIPGO_CPU_AGENTS=%d before the runtime opens, in TestMain)", n)
		}
		// One device where two are needed is the machine's shape, not a
		// missing driver: multi-gpu decides.
		word := driver
		if n > 1 && len(found) > 0 {
			word = "multi-gpu"
		}
		unavailable(tb, word, "%s", why)
	}
	out := make([]*gpu.Device, n)
	for i := range out {
		out[i] = open(tb, found[i])
	}
	return out
}

// unavailable skips tb, or fails it where HIPGO_REQUIRE lists word.
func unavailable(tb testing.TB, word, format string, args ...any) {
	tb.Helper()
	testenv.Requiref(tb, word, "gputest: "+format, args...)
}

// open makes tb's view of dev and registers its end.
func open(tb testing.TB, dev *gpu.Device) *gpu.Device {
	tb.Helper()
	view, err := devstate.OpenView(devstate.Of(dev), dev, tb.Name())
	if err != nil {
		tb.Fatalf("gputest: %v", err)
	}
	tb.Cleanup(func() { finish(tb, view) })
	return view
}

// finish waits for the view's streams, reports what the test left alive,
// then releases it so nothing accumulates over a long test run.
func finish(tb testing.TB, view *gpu.Device) {
	tb.Helper()
	if err := view.Synchronize(); err != nil {
		// The test may have provoked the failure on purpose: say, don't fail.
		tb.Logf("gputest: %s: device work ended with: %v", tb.Name(), err)
	}
	scope := core.Scope(view)
	settleCollected(scope)
	if err := devstate.CloseView(devstate.Of(view), view); err != nil {
		tb.Errorf("gputest: %s: release %s: %v", tb.Name(), view, err)
	}
	leaked, collected := scope.Live(), scope.Collected()
	if len(leaked)+len(collected) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gputest: %s leaked %d object(s) on %s:", tb.Name(), len(leaked)+len(collected), view)
	for _, e := range leaked {
		if obj := e.Obj(); obj != nil {
			fmt.Fprintf(&b, "\n\t%s, made at %s", describe(obj), where(e))
		} else {
			fmt.Fprintf(&b, "\n\tan object dropped unfreed (its backstop release is pending), made at %s", where(e))
		}
	}
	for _, e := range collected {
		fmt.Fprintf(&b, "\n\t%s, made at %s: dropped unfreed, released by the garbage collector's backstop", e.Desc, where(e))
	}
	tb.Error(b.String())
	var errs []error
	for i := len(leaked) - 1; i >= 0; i-- {
		if obj := leaked[i].Obj(); obj != nil {
			errs = append(errs, release(obj))
		}
	}
	if err := errors.Join(errs...); err != nil {
		tb.Logf("gputest: %s: releasing what leaked: %v", tb.Name(), err)
	}
}

// Backstops is the number of objects the program dropped unfreed and the
// garbage collector's backstop released, since the process started. A
// test's own are reported as leaks when it ends; a test can also compare
// the count around the code it checks.
func Backstops() int64 { return core.Backstops() }

// settleCollected lets the backstop finish the releases of the scope's
// objects that the garbage collector already took, so that the report
// can describe them: a bounded number of rounds, only while some are
// pending.
func settleCollected(scope *live.Scope) {
	for i := 0; i < 20; i++ {
		pending := false
		for _, e := range scope.Live() {
			if e.Obj() == nil {
				pending = true
				break
			}
		}
		if !pending {
			return
		}
		runtime.GC()
		core.WaitBackstops()
		runtime.Gosched()
	}
}

func describe(obj any) string {
	switch o := obj.(type) {
	case *core.Mem:
		kind := "buffer"
		if o.IsHost() {
			kind = "host buffer"
		}
		if core.GraphAllocOf(o) != nil {
			kind = "graph memory (an alloc node's buffer)"
		}
		return fmt.Sprintf("%s of %d %s (%d bytes) at %#x", kind, o.Len(), o.Elem(), o.Size(), o.Addr())
	case *core.Stream:
		return fmt.Sprintf("stream (queue %d)", o.Queue().ID())
	case *stream.Event:
		return "event"
	case *module.Module:
		return fmt.Sprintf("module (%s code for %s, kernels %s)", o.Kind(), o.Target(), strings.Join(o.Kernels(), ", "))
	}
	return fmt.Sprintf("%T", obj)
}

func release(obj any) error {
	switch o := obj.(type) {
	case *core.Mem:
		return o.Free()
	case *core.Stream:
		return o.Destroy()
	case *stream.Event:
		return o.Destroy()
	case *module.Module:
		return o.Unload()
	}
	return nil
}

// where is the first frame of the stack that made e outside hipgo's API
// packages: the user's call.
func where(e *live.Entry) string {
	frames := e.Frames()
	first := ""
	for {
		f, more := frames.Next()
		if f.Function != "" {
			s := fmt.Sprintf("%s:%d (%s)", shortFile(f.File), f.Line, f.Function)
			if first == "" {
				first = s
			}
			if !internalPkg(f.Function) {
				return s
			}
		}
		if !more {
			return first
		}
	}
}

// internalPkg reports whether fn belongs to the runtime or to a package
// that makes objects on a user's behalf.
func internalPkg(fn string) bool {
	pkg := fn
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		if j := strings.Index(pkg[i:], "."); j >= 0 {
			pkg = pkg[:i+j]
		}
	} else if j := strings.Index(pkg, "."); j >= 0 {
		pkg = pkg[:j]
	}
	switch pkg {
	case "runtime",
		"github.com/hipgo/hipgo/gpu",
		"github.com/hipgo/hipgo/gpu/internal/core",
		"github.com/hipgo/hipgo/gpu/buffer",
		"github.com/hipgo/hipgo/gpu/stream",
		"github.com/hipgo/hipgo/gpu/module",
		"github.com/hipgo/hipgo/gpu/graph",
		"github.com/hipgo/hipgo/gpu/blas",
		"github.com/hipgo/hipgo/gpu/collective",
		"github.com/hipgo/hipgo/gpu/rtc",
		"github.com/hipgo/hipgo/gpu/internal/live",
		"github.com/hipgo/hipgo/gpu/gputest",
		"github.com/hipgo/hipgo/kernels":
		return true
	}
	return false
}

func shortFile(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		if j := strings.LastIndex(path[:i], "/"); j >= 0 {
			return path[j+1:]
		}
	}
	return path
}
