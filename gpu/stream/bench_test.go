package stream_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// BenchmarkLaunchSync is one empty kernel launched and waited for, through
// the API (module.Launch + Stream.Synchronize) and, as its peer in the
// same run, through rocr directly: a KERNEL_DISPATCH packet built by hand
// in a queue's slot and a host wait on its completion signal. The API's
// overhead is api/rocr - 1; the target is 10 %.
func BenchmarkLaunchSync(b *testing.B) {
	b.Run("api", func(b *testing.B) {
		e := setup(b)
		s := e.stream()
		f, err := e.mod.Function("test_empty")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// api with the device's default stream-ordered pool in use (release
	// threshold 0, as HIP's): each Synchronize returns what the pool holds
	// over its threshold (core.TrimPools), which costs nothing while it
	// holds nothing.
	b.Run("api-pool", func(b *testing.B) {
		e := setup(b)
		s := e.stream()
		f, err := e.mod.Function("test_empty")
		if err != nil {
			b.Fatal(err)
		}
		x, err := buffer.NewAsync[int32](s, 256)
		if err != nil {
			b.Fatal(err)
		}
		if err := x.FreeAsync(s); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The stream layer alone: the dispatch a checked launch would build,
	// submitted with core's Launch (gpu/module's checks left out).
	b.Run("stream", func(b *testing.B) {
		e := setup(b)
		s := e.stream()
		d := core.Dispatch{Object: cputest.Empty.Symbol().Object, Grid: [3]uint32{1, 1, 1}, Block: [3]uint16{1, 1, 1}, Dims: 1}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			l, err := (*core.Stream)(s).BeginLaunch("launch")
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Commit(&d); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rocr", func(b *testing.B) {
		e := setup(b)
		q, err := e.dev.Agent().CreateQueue(stream.QueueSize, hsa.QueueMulti, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer q.Destroy()
		sig, err := rocr.NewSignal(1)
		if err != nil {
			b.Fatal(err)
		}
		defer sig.Destroy()
		obj := cputest.Empty.Symbol().Object
		h := aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sig.Store(1, hsa.Relaxed)
			id, err := q.Reserve()
			if err != nil {
				b.Fatal(err)
			}
			p := (*aql.KernelDispatch)(q.Slot(id))
			p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = 1, 1, 1
			p.GridSizeX, p.GridSizeY, p.GridSizeZ = 1, 1, 1
			p.PrivateSegmentSize, p.GroupSegmentSize = 0, 0
			p.KernelObject = obj
			p.KernargAddress = uint64(q.Kernarg(id))
			p.CompletionSignal = sig.Handle()
			q.Publish(id, h, 1)
			sig.Wait(hsa.CondLT, 1, 0, hsa.WaitActive)
			if err := sig.Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLaunchAsync is the submission side alone: launches that are not
// waited for one by one (HIP's asynchronous launch rate).
func BenchmarkLaunchAsync(b *testing.B) {
	e := setup(b)
	s := e.stream()
	f, err := e.mod.Function("test_empty")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCrossStreamDependency is a kernel on stream a and one on b that
// uses a's buffer: the automatic BARRIER_AND resolved across queues.
func BenchmarkCrossStreamDependency(b *testing.B) {
	e := setup(b)
	sa, sb := e.stream(), e.stream()
	x := newBuf(b, e.dev, 1)
	f, err := e.mod.Function("stream_test_inc")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = f.Launch(sa, gpu.D1(1), gpu.D1(1), 0, x, int32(1))
		_ = f.Launch(sb, gpu.D1(1), gpu.D1(1), 0, x, int32(1))
		if err := sb.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
}
