package doctor

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

func TestNCCLVersion(t *testing.T) {
	for code, want := range map[int][3]int{
		22304: {2, 23, 4}, // NCCL_VERSION(2, 23, 4)
		22203: {2, 22, 3},
		21803: {2, 18, 3},
		20901: {2, 9, 1}, // the first of the five-digit codes
		2804:  {2, 8, 4}, // before 2.9: major*1000
		2708:  {2, 7, 8},
		30002: {3, 0, 2},
	} {
		major, minor, patch := NCCLVersion(code)
		assert.Equal(t, want, [3]int{major, minor, patch}, "%d", code)
	}
	for code, ok := range map[int]bool{22300: true, 22304: true, 22703: true, 30000: true, 22203: false, 21803: false, 2804: false, 0: false} {
		assert.Equal(t, ok, MultiProcess(code), "%d", code)
	}
}

// The verdict on given versions: what runs where, in the report's words.
func TestCollectiveFindings(t *testing.T) {
	nccl := func(code int, scalable bool, err error) Collective {
		return Collective{Lib: vendorlib.NCCL, Info: vendorlib.NCCLInfo{Path: "/usr/lib/x86_64-linux-gnu/libnccl.so.2", Version: code, Scalable: scalable}, Err: err}
	}
	absent := func(lib *vendorlib.Library) Collective {
		return Collective{Lib: lib, Err: errors.New("cannot open " + lib.Name)}
	}
	for _, c := range []struct {
		name  string
		col   Collective
		level Level
		parts []string
	}{
		{"2.23.4", nccl(22304, true, nil), OK, []string{"NCCL 2.23.4 (/usr/lib/x86_64-linux-gnu/libnccl.so.2)", "across processes (NewRank, FromEnv)"}},
		{"2.21.5", nccl(22105, false, nil), Warn, []string{"NCCL 2.21.5", "in one process (NewAll) work", "need ncclCommInitRankScalable, from 2.23 on", "install NCCL 2.23 or later", "HIPGO_NCCL_LIBRARY"}},
		{"2.8.4", nccl(2804, false, nil), Warn, []string{"NCCL 2.8.4", "from 2.23 on"}},
		{"2.26.2 without the call", nccl(22602, false, nil), Warn, []string{"reports 2.23 or later but lacks ncclCommInitRankScalable"}},
		{"no version", nccl(0, true, errors.New("ncclGetVersion returned 3")), Warn, []string{"version unknown", "returned 3"}},
		{"absent on an NVIDIA machine", absent(vendorlib.NCCL), Warn, []string{"not loaded (see libnccl.so.2)", "cpu agents only", "install NCCL", "2.23 or later"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := nvidiaRuntime()
			rt.Collectives = []Collective{c.col}
			r := Check(nvidiaMachine("550.54.15", "550.54.15").system(t), rt)
			want(t, finding(t, r, "NCCL"), c.level, c.parts...)
			assert.True(t, r.GPU, "a collective library does not decide whether the GPU is used")
		})
	}
	// RCCL numbers its releases as NCCL does; where it has the call, it works.
	rt := cpuRuntime()
	rt.Collectives = []Collective{{Lib: vendorlib.RCCL, Info: vendorlib.NCCLInfo{Path: "/opt/rocm/lib/librccl.so.1", Version: 22203, Scalable: true}}, absent(vendorlib.NCCL)}
	r := Check(machine{}.system(t), rt)
	want(t, finding(t, r, "RCCL"), OK, "RCCL 2.22.3", "across processes")
	// No NVIDIA GPU here: a missing NCCL is said, not a warning.
	want(t, finding(t, r, "NCCL"), OK, "not installed; needed only for collectives on NVIDIA GPUs")
}

// Observe asks both libraries; without them (CI) each is reported absent,
// not an error of Observe's.
func TestObserveCollectives(t *testing.T) {
	t.Setenv("HIPGO_NCCL_LIBRARY", "/nonexistent/libnccl.so.2")
	t.Setenv("HIPGO_RCCL_LIBRARY", "/nonexistent/librccl.so.1")
	cs := observeCollectives()
	require.Len(t, cs, 2)
	for _, c := range cs {
		assert.Error(t, c.Err, c.Lib.Name)
		assert.Empty(t, c.Info.Path)
	}
	r := Check(machine{}.system(t), &Runtime{Collectives: cs})
	want(t, finding(t, r, "NCCL"), OK, "not installed")
	want(t, finding(t, r, "RCCL"), OK, "not installed")
}
