package cpu_test

import (
	"sort"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Run with: go test -run '^$' -bench . -count 5 ./rocr/drivers/cpu/
// Each benchmark has its peer in the same run: a Go channel round trip for
// the dispatch and barrier latencies, a channel fan-in for throughput.

var kernelHeader = aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)

// submitEmpty writes an empty 1x1 dispatch, patched in place.
func submitEmpty(b *testing.B, q *rocr.Queue, sig uint64) {
	id, err := q.Reserve()
	if err != nil {
		b.Fatal(err)
	}
	p := (*aql.KernelDispatch)(q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = 1, 1, 1
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = 1, 1, 1
	p.PrivateSegmentSize, p.GroupSegmentSize = 0, 0
	p.KernelObject = cputest.Empty.Symbol().Object
	p.KernargAddress = 0
	p.CompletionSignal = sig
	q.Publish(id, kernelHeader, 1)
}

// reportMedian reports the median of per-iteration samples in ns.
func reportMedian(b *testing.B, samples []time.Duration, unit string) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), unit)
}

// BenchmarkDispatchWait: an empty Go kernel dispatched, its completion
// signal waited for.
func BenchmarkDispatchWait(b *testing.B) {
	ag := setup(b)
	q, err := ag.CreateQueue(256, hsa.QueueSingle, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Destroy()
	sig, _ := rocr.NewSignal(0)
	defer sig.Destroy()
	h := sig.Handle()
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		sig.Store(1, hsa.Relaxed)
		submitEmpty(b, q, h)
		sig.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive)
		samples = append(samples, time.Since(t0))
	}
	b.StopTimer()
	if sig.Err() != nil {
		b.Fatal(sig.Err())
	}
	reportMedian(b, samples, "median_ns")
}

// BenchmarkChannelRoundTrip: the peer of DispatchWait, a round trip to
// another goroutine over unbuffered channels.
func BenchmarkChannelRoundTrip(b *testing.B) {
	req, resp := make(chan struct{}), make(chan struct{})
	go func() {
		for range req {
			resp <- struct{}{}
		}
		close(resp)
	}()
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		req <- struct{}{}
		<-resp
		samples = append(samples, time.Since(t0))
	}
	b.StopTimer()
	close(req)
	<-resp
	reportMedian(b, samples, "median_ns")
}

// BenchmarkBarrierCrossQueue: queue B's BARRIER_AND waits on a signal that
// queue A completes. resolve_ns is the time from A completing the signal
// (its end timestamp) to B completing the barrier (its end timestamp).
func BenchmarkBarrierCrossQueue(b *testing.B) {
	ag := setup(b)
	qa, err := ag.CreateQueue(256, hsa.QueueSingle, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer qa.Destroy()
	qb, err := ag.CreateQueue(256, hsa.QueueSingle, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer qb.Destroy()
	dep, _ := rocr.NewSignal(0)
	defer dep.Destroy()
	done, _ := rocr.NewSignal(0)
	defer done.Destroy()
	barrierHeader := aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)
	bar := aql.BarrierAnd{DepSignal: [5]uint64{dep.Handle()}, CompletionSignal: done.Handle()}
	total := make([]time.Duration, 0, b.N)
	resolve := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		dep.Store(1, hsa.Relaxed)
		done.Store(1, hsa.Relaxed)
		if _, err := qb.Submit(unsafe.Pointer(&bar), barrierHeader); err != nil {
			b.Fatal(err)
		}
		submitEmpty(b, qa, dep.Handle())
		done.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive)
		total = append(total, time.Since(t0))
		_, aEnd := dep.Timestamps()
		_, bEnd := done.Timestamps()
		resolve = append(resolve, time.Duration(bEnd-aEnd))
	}
	b.StopTimer()
	if done.Err() != nil {
		b.Fatal(done.Err())
	}
	reportMedian(b, resolve, "resolve_median_ns")
	reportMedian(b, total, "median_ns")
}

// BenchmarkQueueThroughput4Producers: 4 goroutines submit empty dispatches
// to one queue; packets/s is what the processor sustains.
func BenchmarkQueueThroughput4Producers(b *testing.B) {
	ag := setup(b)
	q, err := ag.CreateQueue(1024, hsa.QueueMulti, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Destroy()
	sig, _ := rocr.NewSignal(0)
	defer sig.Destroy()
	const producers = 4
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	sig.Store(int64(b.N), hsa.Relaxed)
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		n := b.N / producers
		if p < b.N%producers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				submitEmpty(b, q, sig.Handle())
			}
		}()
	}
	wg.Wait()
	sig.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive)
	el := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "packets/s")
}

// BenchmarkChannelThroughput4Producers: the peer of QueueThroughput, 4
// goroutines sending to one consumer over a buffered channel.
func BenchmarkChannelThroughput4Producers(b *testing.B) {
	const producers = 4
	ch := make(chan uint64, 1024)
	done := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			<-ch
		}
		close(done)
	}()
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for p := 0; p < producers; p++ {
		n := b.N / producers
		if p < b.N%producers {
			n++
		}
		go func() {
			for i := 0; i < n; i++ {
				ch <- uint64(i)
			}
		}()
	}
	<-done
	el := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "packets/s")
}
