package cuda

// The launch path's foreign call, checked against libc's labs.

import (
	"testing"

	"github.com/ebitengine/purego"
)

func TestFastCallAllocatesNothing(t *testing.T) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		t.Skip(err)
	}
	f, err := purego.Dlsym(h, "labs")
	if err != nil {
		t.Fatal(err)
	}
	s := new(sysArgs)
	if r := s.call(f, ^uintptr(4)); r != 5 {
		t.Fatal(r)
	}
	n := testing.AllocsPerRun(1000, func() { s.call(f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) })
	if n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}
