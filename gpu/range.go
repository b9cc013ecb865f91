package gpu

import (
	"context"
	"log/slog"
	"runtime/trace"

	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/internal/annotate"
)

func init() {
	annotate.SetReport(func(err error) {
		debug.Log(debug.LogWarning, "profiler ranges off", slog.Any("error", err))
	})
}

// Range is a named span of the program's own, shown by the profiler it
// runs under beside hipgo's ranges for kernels, copies, fills and graph
// launches: an NVTX range in Nsight Systems (nsys), a roctx range in
// rocprof, and a region of ctx's task in a Go execution trace
// (runtime/trace). The zero Range is one no profiler saw; End is then a
// no-op.
type Range struct {
	id     annotate.ID
	region *trace.Region
	on     bool
}

// StartRange opens a range named name (nvtxRangeStartA, roctxRangeStartA
// and trace.StartRegion); End closes it:
//
//	defer gpu.StartRange(ctx, "step").End()
//
// The range is the process's, not the thread's, so the goroutine may move
// between threads, block or start others before End. When a Go execution
// trace is recorded, End must run on the goroutine that started the
// range, as trace.Region requires. With no profiler attached and no trace
// recorded, StartRange and End cost a few nanoseconds and allocate
// nothing.
func StartRange(ctx context.Context, name string) Range {
	var r Range
	if trace.IsEnabled() {
		r.region = trace.StartRegion(ctx, name)
	}
	if annotate.On() {
		r.id, r.on = annotate.Start(name), true
	}
	return r
}

// End closes the range. A Range is ended once.
func (r Range) End() {
	if r.on {
		annotate.Stop(r.id)
	}
	if r.region != nil {
		r.region.End()
	}
}

// Mark records an instant event named name (nvtxMarkA, roctxMarkA, and a
// log message of category "hipgo" in a Go execution trace).
func Mark(ctx context.Context, name string) {
	if trace.IsEnabled() {
		trace.Log(ctx, "hipgo", name)
	}
	if annotate.On() {
		annotate.Mark(name)
	}
}
