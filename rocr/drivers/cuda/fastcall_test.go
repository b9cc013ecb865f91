package cuda

// The launch path's foreign calls, checked against libc.

import (
	"fmt"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/spi"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mirroredPurego is the purego release whose private syscallArgs sysArgs
// mirrors and whose trampoline callLinked enters.
const mirroredPurego = "v0.11.3"

// moduleVersion is the version of module path that the test binary
// links, from its build information or else from the module's go.mod
// (test binaries may carry no dependency list).
func moduleVersion(t *testing.T, path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for i := range bi.Deps {
			if m := bi.Deps[i]; m.Path == path {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	gomod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		return "" // a test binary run away from its source tree
	}
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	return ""
}

func libc(t *testing.T, name string) uintptr {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		t.Skip(err)
	}
	f, err := purego.Dlsym(h, name)
	require.NoError(t, err)
	return f
}

// TestFastCallLayout fails when purego changes under the linked call: a
// new release must be checked (syscallArgs in purego's syscall.go, the
// trampoline's use of it) before the pin in go.mod and mirroredPurego move.
func TestFastCallLayout(t *testing.T) {
	version := moduleVersion(t, "github.com/ebitengine/purego")
	if version == "" {
		// Away from the source tree (a GPU machine's test pack), with no
		// dependency list in the binary: CI, which has both, checks it.
		t.Log("purego's version is unknown here; the layout checks below still run")
		version = mirroredPurego
	}
	require.Equal(t, mirroredPurego, version, "purego changed: the linked call mirrors %s's private syscallArgs; check its layout and trampoline, or run with HIPGO_CUDA_SYSCALLN=1", mirroredPurego)
	// fn, 32 integer arguments, 8 floats and r8 come first, in that order.
	var s sysArgs
	assert.Equal(t, uintptr(8), unsafe.Offsetof(s.a))
	assert.Equal(t, uintptr(8+32*8), unsafe.Offsetof(s.f))
	assert.Equal(t, uintptr(8+40*8), unsafe.Offsetof(s.r8))

	// Every argument a launch passes lands where C reads it: snprintf
	// prints twelve integer arguments, six of them on the stack.
	snprintf := libc(t, "snprintf")
	buf, err := spi.MapAnonymous(4096)
	require.NoError(t, err)
	defer spi.Unmap(buf, 4096)
	format := append([]byte("%lx %lx %lx %lx %lx %lx %lx %lx %lx %lx"), 0)
	dst := hostmem.Bytes(buf+1024, uintptr(len(format)))
	// A loop, not copy: go1.26.8's compiler fails on copy into this slice
	// (internal compiler error in disjointTypes).
	//lint:ignore S1001 see above
	for i, b := range format {
		dst[i] = b
	}
	args := []uintptr{buf, 1024, buf + 1024, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xa}
	want := "1 2 3 4 5 6 7 8 9 a"
	for _, c := range []struct {
		name string
		call func(*sysArgs, uintptr, []uintptr) cuResult
	}{{"linked", (*sysArgs).callLinked}, {"public", (*sysArgs).callPublic}} {
		n := c.call(new(sysArgs), snprintf, args)
		got := string(hostmem.Bytes(buf, uintptr(len(want))))
		assert.Equal(t, want, got, "%s call", c.name)
		assert.Equal(t, cuResult(len(want)), n, "%s call's result", c.name)
		clear(hostmem.Bytes(buf, 1024))
	}
}

func TestFastCallAllocs(t *testing.T) {
	labs := libc(t, "labs")
	for _, public := range []bool{false, true} {
		t.Run(fmt.Sprintf("public=%v", public), func(t *testing.T) {
			old := publicCall
			publicCall = public
			defer func() { publicCall = old }()
			s := new(sysArgs)
			assert.Equal(t, cuResult(5), s.call(labs, ^uintptr(4)))
			n := testing.AllocsPerRun(1000, func() { s.call(labs, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) })
			assert.Zero(t, n, "allocations per call")
		})
	}
}

// BenchmarkForeignCall times the two ways into C on libc's labs with a
// launch's eleven arguments: what each adds to every driver call.
func BenchmarkForeignCall(b *testing.B) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		b.Skip(err)
	}
	labs, err := purego.Dlsym(h, "labs")
	if err != nil {
		b.Fatal(err)
	}
	s := new(sysArgs)
	b.Run("linked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.callLinked(labs, []uintptr{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
		}
	})
	b.Run("public", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.callPublic(labs, []uintptr{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
		}
	})
}
