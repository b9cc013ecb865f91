// Package annotatetest builds fake profiler libraries for tests of
// hipgo's NVTX and roctx ranges: an NVTX3 injection library that attaches
// through InitializeInjectionNvtx2 as nsys's does, and a libroctx64. Both
// append one line per call to a log, which Events reads back. They are
// compiled from C at test time with clang-19, gcc or cc; without one the
// test skips, and fails where HIPGO_REQUIRE lists clang.
package annotatetest

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/internal/testenv"
)

//go:embed testdata/fake_nvtx.c
var fakeNVTX string

//go:embed testdata/fake_roctx.c
var fakeROCTX string

// compiler is the first C compiler found.
func compiler() (string, error) {
	for _, cc := range []string{"clang-19", "gcc", "cc"} {
		if p, err := exec.LookPath(cc); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no C compiler (clang-19, gcc or cc) to build the fake profiler library")
}

// PrebuiltEnv names a directory of fakes built beforehand (libfake_nvtx.so,
// libfake_roctx.so, as Build writes them), for a machine without a C
// compiler: a GPU machine running test binaries built elsewhere.
const PrebuiltEnv = "HIPGO_FAKE_PROFILERS"

// Build writes both fakes into dir.
func Build(tb testing.TB, dir string) {
	tb.Helper()
	for name, src := range map[string]string{"fake_nvtx": fakeNVTX, "fake_roctx": fakeROCTX} {
		so := build(tb, name, src)
		b, err := os.ReadFile(so)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lib"+name+".so"), b, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
}

func build(tb testing.TB, name, src string) string {
	tb.Helper()
	if dir := os.Getenv(PrebuiltEnv); dir != "" {
		// A copy per test: a path loaded before would give the library
		// as the last test left it.
		b, err := os.ReadFile(filepath.Join(dir, "lib"+name+".so"))
		if err != nil {
			tb.Fatalf("%s=%s: %v", PrebuiltEnv, dir, err)
		}
		so := filepath.Join(tb.TempDir(), "lib"+name+".so")
		if err := os.WriteFile(so, b, 0o755); err != nil {
			tb.Fatal(err)
		}
		return so
	}
	cc, err := compiler()
	if err != nil {
		testenv.Require(tb, "clang", err)
		return ""
	}
	dir := tb.TempDir()
	c := filepath.Join(dir, name+".c")
	so := filepath.Join(dir, "lib"+name+".so")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", so, c).CombinedOutput(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", cc, c, err, out)
	}
	return so
}

// Log is where the fake writes: "" to count calls only.
type Log string

// AttachNVTX builds the fake injection library and attaches it as nsys
// would (NVTX_INJECTION64_PATH), logging to a file when logged; the
// test's end detaches it. It returns the log.
func AttachNVTX(tb testing.TB, logged bool) Log {
	tb.Helper()
	return attach(tb, logged, func(so string) { tb.Setenv("NVTX_INJECTION64_PATH", so) }, "fake_nvtx", fakeNVTX)
}

// AttachROCTX builds the fake libroctx64 and attaches it as rocprofv3's
// marker trace would (ROCPROF_MARKER_API_TRACE, the library by
// HIPGO_ROCTX_LIBRARY).
func AttachROCTX(tb testing.TB, logged bool) Log {
	tb.Helper()
	return attach(tb, logged, func(so string) {
		tb.Setenv("ROCPROF_MARKER_API_TRACE", "1")
		tb.Setenv("HIPGO_ROCTX_LIBRARY", so)
	}, "fake_roctx", fakeROCTX)
}

func attach(tb testing.TB, logged bool, set func(so string), name, src string) Log {
	tb.Helper()
	so := build(tb, name, src)
	tb.Cleanup(annotate.Reset) // after the variables are restored
	for _, v := range []string{"NVTX_INJECTION64_PATH", "HIPGO_ROCTX", "ROCPROF_MARKER_API_TRACE", "ROCPROFILER_ROCTX_TRACE", "HIPGO_ROCTX_LIBRARY"} {
		tb.Setenv(v, "")
	}
	var log Log
	if logged {
		log = Log(filepath.Join(tb.TempDir(), name+".log"))
	}
	tb.Setenv("HIPGO_FAKE_LOG", string(log))
	set(so)
	annotate.Reset()
	if !annotate.On() {
		tb.Fatalf("%s did not attach: %v", so, annotate.Err())
	}
	return log
}

// Detach makes the next use read an environment with no profiler.
func Detach(tb testing.TB) {
	tb.Helper()
	tb.Cleanup(annotate.Reset)
	for _, v := range []string{"NVTX_INJECTION64_PATH", "HIPGO_ROCTX", "ROCPROF_MARKER_API_TRACE", "ROCPROFILER_ROCTX_TRACE"} {
		tb.Setenv(v, "")
	}
	annotate.Reset()
	if annotate.On() {
		tb.Fatal("a profiler is attached with none in the environment")
	}
}

// Event is one call the fake took: Kind is push, pop, start, end, mark,
// init or error; TID the calling thread; ID a process range's.
type Event struct {
	Kind string
	TID  int
	ID   uint64
	Name string
}

// Events reads the log.
func (l Log) Events(tb testing.TB) []Event {
	tb.Helper()
	f, err := os.Open(string(l))
	if err != nil {
		tb.Fatalf("the fake wrote no log: %v", err)
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		e := Event{Kind: kind}
		if kind == "error" {
			tb.Fatalf("the fake refused the client: %s", rest)
		}
		t, rest, _ := strings.Cut(rest, " ")
		e.TID, _ = strconv.Atoi(t)
		switch kind {
		case "start", "end":
			id, name, _ := strings.Cut(rest, " ")
			e.ID, _ = strconv.ParseUint(id, 10, 64)
			e.Name = name
		default:
			e.Name = rest
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return evs
}

// Range is a closed range: its name, the names of the ranges open around
// it (process ranges, then its thread's, outermost first).
type Range struct {
	Name   string
	Inside []string
}

func (r Range) String() string {
	if len(r.Inside) == 0 {
		return r.Name
	}
	return strings.Join(r.Inside, " > ") + " > " + r.Name
}

// Ranges checks that every pop closes a push of its own thread and every
// end a start, and that nothing is left open; it returns the ranges in the
// order they closed, as "outer > inner" strings.
func Ranges(tb testing.TB, evs []Event) []string {
	tb.Helper()
	stacks := map[int][]string{}
	var open []Event // process ranges
	var out []string
	inside := func(tid int) []string {
		var in []string
		for _, o := range open {
			in = append(in, o.Name)
		}
		return append(in, stacks[tid]...)
	}
	for i, e := range evs {
		switch e.Kind {
		case "push":
			stacks[e.TID] = append(stacks[e.TID], e.Name)
		case "pop":
			st := stacks[e.TID]
			if len(st) == 0 {
				tb.Fatalf("event %d: pop on thread %d with no range open there", i, e.TID)
			}
			stacks[e.TID] = st[:len(st)-1]
			out = append(out, Range{Name: st[len(st)-1], Inside: inside(e.TID)}.String())
		case "start":
			open = append(open, e)
		case "end":
			j := -1
			for k, o := range open {
				if o.ID == e.ID {
					j = k
				}
			}
			if j < 0 {
				tb.Fatalf("event %d: end of range %d, which is not open", i, e.ID)
			}
			name := open[j].Name
			open = append(open[:j], open[j+1:]...)
			out = append(out, Range{Name: name, Inside: inside(-1)}.String())
		case "mark":
			out = append(out, Range{Name: "mark " + e.Name, Inside: inside(e.TID)}.String())
		}
	}
	for tid, st := range stacks {
		if len(st) > 0 {
			tb.Fatalf("thread %d left %v open", tid, st)
		}
	}
	if len(open) > 0 {
		tb.Fatalf("process ranges left open: %v", open)
	}
	return out
}

// String is for failure messages.
func (e Event) String() string { return fmt.Sprintf("%s %d %d %s", e.Kind, e.TID, e.ID, e.Name) }
