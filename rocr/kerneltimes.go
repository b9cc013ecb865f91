package rocr

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
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
)

// KernelTime sums one kernel's dispatches, as nsys's kernel summary and
// CUDA.jl's CUDA.@profile print them.
type KernelTime struct {
	Name     string        `json:"kernel"`
	Launches int           `json:"launches"`
	Total    time.Duration `json:"total_ns"`
	Min      time.Duration `json:"min_ns"`
	Max      time.Duration `json:"max_ns"`
}

// Mean is the time of an average dispatch.
func (k KernelTime) Mean() time.Duration {
	if k.Launches == 0 {
		return 0
	}
	return k.Total / time.Duration(k.Launches)
}

func (k *KernelTime) add(d time.Duration) {
	if k.Launches == 0 || d < k.Min {
		k.Min = d
	}
	k.Max = max(k.Max, d)
	k.Total += d
	k.Launches++
}

// KernelTimes collects per-kernel times of the dispatches every queue
// runs while it is started, whether a trace is on or not. The time of a
// dispatch is the trace's: from when the queue's processor takes the
// packet to when it is done with it, which on the cpu agent is the
// kernel's run, and on an agent that completes packets asynchronously
// (cuda) only their submission: time GPU work with events there
// (gputest.Benchmark's gpu-ns/op) or nsys.
type KernelTimes struct {
	mu sync.Mutex
	m  map[string]*KernelTime
}

// kernelTimers are the started KernelTimes, replaced whole on a change so
// the processor reads them with one atomic load.
var kernelTimers struct {
	mu  sync.Mutex
	all atomic.Pointer[[]*KernelTimes]
}

// StartKernelTimes begins collecting; Stop ends it.
func StartKernelTimes() *KernelTimes {
	k := &KernelTimes{m: map[string]*KernelTime{}}
	kernelTimers.mu.Lock()
	defer kernelTimers.mu.Unlock()
	var all []*KernelTimes
	if p := kernelTimers.all.Load(); p != nil {
		all = slices.Clone(*p)
	}
	all = append(all, k)
	kernelTimers.all.Store(&all)
	return k
}

// Stop ends the collection and returns what it collected (Kernels).
func (k *KernelTimes) Stop() []KernelTime {
	kernelTimers.mu.Lock()
	if p := kernelTimers.all.Load(); p != nil {
		all := slices.DeleteFunc(slices.Clone(*p), func(x *KernelTimes) bool { return x == k })
		if len(all) == 0 {
			kernelTimers.all.Store(nil)
		} else {
			kernelTimers.all.Store(&all)
		}
	}
	kernelTimers.mu.Unlock()
	return k.Kernels()
}

// Kernels returns the kernels dispatched so far, most total time first.
func (k *KernelTimes) Kernels() []KernelTime {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]KernelTime, 0, len(k.m))
	for _, v := range k.m {
		out = append(out, *v)
	}
	sortKernelTimes(out)
	return out
}

func sortKernelTimes(ks []KernelTime) {
	slices.SortFunc(ks, func(a, b KernelTime) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

func (k *KernelTimes) record(name string, d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.m[name]
	if t == nil {
		t = &KernelTime{Name: name}
		k.m[name] = t
	}
	t.add(d)
}

// timeKernel gives a finished kernel dispatch to the started KernelTimes.
func (q *Queue) timeKernel(slot unsafe.Pointer, h aql.Header, start uint64) {
	p := kernelTimers.all.Load()
	if p == nil || h.Type() != aql.TypeKernelDispatch {
		return
	}
	d := time.Duration(clock.Now() - start)
	name := q.packetName(slot, h)
	for _, k := range *p {
		k.record(name, d)
	}
}

// ReadKernelTimes sums the kernel dispatches of a trace in the Chrome
// trace event format, as HIPGO_TRACE and Tracer.WriteTo write it. A trace
// cut short (a program that did not shut the runtime down) is read up to
// where it stops.
func ReadKernelTimes(r io.Reader) ([]KernelTime, error) {
	dec := json.NewDecoder(r)
	if err := traceEventsStart(dec); err != nil {
		return nil, Errorf(hsa.StatusErrorInvalidFile, "trace", "not a Chrome trace: %w", err)
	}
	m := map[string]*KernelTime{}
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
			return nil, Errorf(hsa.StatusErrorInvalidFile, "trace", "%w", err)
		}
		if ev.Cat != "kernel" || ev.Ph != "X" || ev.Dur == nil {
			continue
		}
		t := m[ev.Name]
		if t == nil {
			t = &KernelTime{Name: ev.Name}
			m[ev.Name] = t
		}
		t.add(time.Duration(*ev.Dur * 1e3)) // the trace's times are microseconds
	}
	out := make([]KernelTime, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	sortKernelTimes(out)
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

// WriteKernelTimes prints ks as a table: kernel, launches, total, mean,
// min and max time, and each kernel's share of the total.
func WriteKernelTimes(w io.Writer, ks []KernelTime) error {
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
