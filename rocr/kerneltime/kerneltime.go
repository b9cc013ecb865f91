// Package kerneltime sums the kernel dispatches of every queue, or of a
// trace file, per kernel: launches, total, mean, min and max time, as
// nsys's kernel summary and CUDA.jl's CUDA.@profile print them.
//
// A Collector is started with Start and collects from every queue of the
// process until Stop; several may run at once. Every function is safe for
// concurrent use.
package kerneltime

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// Kernel sums one kernel's dispatches, as nsys's kernel summary and
// CUDA.jl's CUDA.@profile print them.
type Kernel struct {
	Name     string        `json:"kernel"`
	Launches int           `json:"launches"`
	Total    time.Duration `json:"total_ns"`
	Min      time.Duration `json:"min_ns"`
	Max      time.Duration `json:"max_ns"`
}

// Mean is the time of an average dispatch.
func (k Kernel) Mean() time.Duration {
	if k.Launches == 0 {
		return 0
	}
	return k.Total / time.Duration(k.Launches)
}

func (k *Kernel) add(d time.Duration) {
	if k.Launches == 0 || d < k.Min {
		k.Min = d
	}
	k.Max = max(k.Max, d)
	k.Total += d
	k.Launches++
}

// Collector collects per-kernel times of the dispatches every queue
// runs while it is started, whether a trace is on or not. The time of a
// dispatch is the trace's: from when the queue's processor takes the
// packet to when it is done with it, which on the cpu agent is the
// kernel's run, and on an agent that completes packets asynchronously
// (cuda) only their submission: time GPU work with events there
// (gputest.Benchmark's gpu-ns/op) or nsys.
type Collector struct {
	mu sync.Mutex
	m  map[string]*Kernel
}

// collectors are the started Collector, replaced whole on a change so
// the processor reads them with one atomic load.
var collectors struct {
	mu  sync.Mutex
	all atomic.Pointer[[]*Collector]
}

// Start begins collecting; Stop ends it.
func Start() *Collector {
	k := &Collector{m: map[string]*Kernel{}}
	collectors.mu.Lock()
	defer collectors.mu.Unlock()
	var all []*Collector
	if p := collectors.all.Load(); p != nil {
		all = slices.Clone(*p)
	}
	all = append(all, k)
	collectors.all.Store(&all)
	return k
}

// Stop ends the collection and returns what it collected (Kernels).
func (k *Collector) Stop() []Kernel {
	collectors.mu.Lock()
	if p := collectors.all.Load(); p != nil {
		all := slices.DeleteFunc(slices.Clone(*p), func(x *Collector) bool { return x == k })
		if len(all) == 0 {
			collectors.all.Store(nil)
		} else {
			collectors.all.Store(&all)
		}
	}
	collectors.mu.Unlock()
	return k.Kernels()
}

// Kernels returns the kernels dispatched so far, most total time first.
func (k *Collector) Kernels() []Kernel {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Kernel, 0, len(k.m))
	for _, v := range k.m {
		out = append(out, *v)
	}
	sortKernels(out)
	return out
}

func sortKernels(ks []Kernel) {
	slices.SortFunc(ks, func(a, b Kernel) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

func (k *Collector) record(name string, d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.m[name]
	if t == nil {
		t = &Kernel{Name: name}
		k.m[name] = t
	}
	t.add(d)
}

// Read sums the kernel dispatches of a trace in the Chrome
// trace event format, as HIPGO_TRACE and Tracer.WriteTo write it. A trace
// cut short (a program that did not shut the runtime down) is read up to
// where it stops.
func Read(r io.Reader) ([]Kernel, error) {
	dec := json.NewDecoder(r)
	if err := traceEventsStart(dec); err != nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "not a Chrome trace: %w", err)
	}
	m := map[string]*Kernel{}
	for dec.More() {
		var ev struct {
			Name string   `json:"name"`
			Cat  string   `json:"cat"`
			Ph   string   `json:"ph"`
			Dur  *float64 `json:"dur"`
		}
		if err := dec.Decode(&ev); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return nil, hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "%w", err)
		}
		if ev.Cat != "kernel" || ev.Ph != "X" || ev.Dur == nil {
			continue
		}
		t := m[ev.Name]
		if t == nil {
			t = &Kernel{Name: ev.Name}
			m[ev.Name] = t
		}
		t.add(time.Duration(*ev.Dur * 1e3)) // the trace's times are microseconds
	}
	out := make([]Kernel, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	sortKernels(out)
	return out, nil
}

// traceEventsStart moves dec to the first element of the traceEvents
// array, skipping the other keys of the top-level object.
func traceEventsStart(dec *json.Decoder) error {
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok != json.Delim('{') {
		return fmt.Errorf("want an object, found %v", tok)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key == "traceEvents" {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			if tok != json.Delim('[') {
				return fmt.Errorf("traceEvents is not an array")
			}
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return fmt.Errorf("no traceEvents")
}

// Write prints ks as a table: kernel, launches, total, mean,
// min and max time, and each kernel's share of the total.
func Write(w io.Writer, ks []Kernel) error {
	var all time.Duration
	for _, k := range ks {
		all += k.Total
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "time %\tlaunches\ttotal\tmean\tmin\tmax\t kernel")
	for _, k := range ks {
		share := 0.0
		if all > 0 {
			share = 100 * float64(k.Total) / float64(all)
		}
		fmt.Fprintf(tw, "%.1f\t%d\t%v\t%v\t%v\t%v\t %s\n", share, k.Launches, k.Total, k.Mean(), k.Min, k.Max, k.Name)
	}
	return tw.Flush()
}

// Active reports whether a Collector is started: the runtime's queues
// time their kernel dispatches only then.
func Active() bool { return collectors.all.Load() != nil }

// Record gives every started Collector one dispatch of the kernel name
// that took d. The runtime's queue processors call it.
func Record(name string, d time.Duration) {
	p := collectors.all.Load()
	if p == nil {
		return
	}
	for _, k := range *p {
		k.record(name, d)
	}
}
