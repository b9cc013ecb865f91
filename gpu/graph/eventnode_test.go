package graph_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// An event record node records its event after the nodes before it, at
// every launch; a wait node holds the nodes after it until its event.
func TestEventNodes(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	s := newStream(t, dev)
	start, end := newEvent(t, dev), newEvent(t, dev)
	g := graph.New()
	r0, err := g.AddEventRecord(start)
	require.NoError(t, err)
	k, err := g.AddKernel(saxpy(ks, 1, x, y), r0)
	require.NoError(t, err)
	r1, err := g.AddEventRecord(end, k)
	require.NoError(t, err)
	assert.Equal(t, "event record", r1.Kind())
	got, err := r1.RecordedEvent()
	require.NoError(t, err)
	assert.Same(t, end, got)
	_, err = r1.WaitedEvent()
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "a record node is no wait node")

	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	assert.False(t, graph.Lowered(e), "a graph with event nodes is replayed in parts")
	for i := 1; i <= 3; i++ {
		require.NoError(t, e.Launch(s))
		require.NoError(t, end.Synchronize())
		assert.InDelta(t, float64(i), read(t, y)[0], 1e-6, "the end event follows the kernel")
		_, err := stream.Elapsed(start, end)
		assert.NoError(t, err)
	}

	// A wait node: the kernel after it waits for an event a host
	// function on another stream records late.
	other := newStream(t, dev)
	gate, late := newEvent(t, dev), make(chan struct{})
	require.NoError(t, other.LaunchHostFunc(func() error { <-late; return nil }))
	require.NoError(t, other.Record(gate))
	w := graph.New()
	wn, err := w.AddEventWait(gate)
	require.NoError(t, err)
	_, err = w.AddKernel(saxpy(ks, 1, x, y), wn)
	require.NoError(t, err)
	we, err := w.Instantiate(dev)
	require.NoError(t, err)
	defer we.Destroy()
	require.NoError(t, we.Launch(s))
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, gpu.ErrNotReady, codeOf(s.Query()), "the graph waits for the event")
	close(late)
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 4.0, read(t, y)[0], 1e-6)

	// The exec setter changes the launch, not the graph.
	other2 := newEvent(t, dev)
	require.NoError(t, e.SetRecordedEvent(r1, other2))
	require.NoError(t, e.Launch(s))
	require.NoError(t, other2.Synchronize())
	got, err = r1.RecordedEvent()
	require.NoError(t, err)
	assert.Same(t, end, got)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.SetWaitedEvent(r1, other2)))
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.SetRecordedEvent(k, other2)))

	// A destroyed event fails the launch before any of it is queued.
	require.NoError(t, other2.Destroy())
	assert.Equal(t, gpu.ErrInvalidHandle, codeOf(e.Launch(s)))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 5.0, read(t, y)[0], 1e-6, "the refused launch ran nothing")
}

// Event nodes, their setters and exec setters race launches, Destroy of
// the exec, the graph and the events, and a capture ending.
func TestEventNodeRaces(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	evs := make([]*stream.Event, 4)
	for i := range evs {
		evs[i] = newEvent(t, dev)
	}
	g := graph.New()
	r, err := g.AddEventRecord(evs[0])
	require.NoError(t, err)
	k, err := g.AddKernel(saxpy(ks, 1, x, y), r)
	require.NoError(t, err)
	wn, err := g.AddEventWait(evs[1], k)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)

	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for i := 0; i < 20; i++ {
				if err := e.Launch(s); err != nil {
					assert.Contains(t, []gpu.ErrorCode{gpu.ErrInvalidValue, gpu.ErrInvalidHandle}, codeOf(err), "%v", err)
				}
			}
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			_ = e.SetRecordedEvent(r, evs[i%3])
			_ = e.SetWaitedEvent(wn, evs[(i+1)%3])
			assert.NoError(t, r.SetRecordedEvent(evs[i%3]))
			_, _ = r.RecordedEvent()
			if e2, err := g.Instantiate(dev); err == nil {
				_ = e2.Destroy()
			}
		}
		assert.NoError(t, evs[3].Destroy()) // not in e: a no-op for the launches
		_ = r.SetRecordedEvent(evs[3])
	}()
	// A capture that looks at and edits its dependencies while the
	// graph's events are recorded and waited for around it.
	wg.Add(1)
	go func() {
		defer wg.Done()
		s, err := stream.New(dev)
		if !assert.NoError(t, err) {
			return
		}
		defer s.Destroy()
		for i := 0; i < 10; i++ {
			if !assert.NoError(t, graph.BeginCapture(s)) {
				return
			}
			assert.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 1, x, y, n))
			var cg *graph.Graph
			done := make(chan struct{})
			go func() {
				defer close(done)
				g2, deps, err := graph.CaptureGraph(s)
				if err != nil || g2 == nil {
					return // ended meanwhile
				}
				cg = g2
				if m, err := g2.AddEmpty(deps...); err == nil {
					err := graph.UpdateCaptureDependencies(s, []*graph.Node{m}, graph.SetCaptureDependencies)
					if err != nil {
						assert.Equal(t, gpu.ErrIllegalState, codeOf(err), "%v", err)
					}
				}
			}()
			got, err := graph.EndCapture(s)
			<-done
			if assert.NoError(t, err) {
				if cg != nil {
					assert.Same(t, cg, got)
				}
				assert.NoError(t, got.Destroy())
			}
		}
	}()
	wg.Wait()
	require.NoError(t, dev.Synchronize())

	// Destroy of the events, the exec and the graph racing launches and
	// setters: each call works or says what is gone.
	gone := []gpu.ErrorCode{gpu.ErrInvalidValue, gpu.ErrInvalidHandle}
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for i := 0; i < 20; i++ {
				if err := e.Launch(s); err != nil {
					assert.Contains(t, gone, codeOf(err), "%v", err)
				}
				if err := e.SetWaitedEvent(wn, evs[2]); err != nil {
					assert.Contains(t, gone, codeOf(err), "%v", err)
				}
				if _, err := r.RecordedEvent(); err != nil {
					assert.Contains(t, gone, codeOf(err), "%v", err)
				}
			}
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, ev := range evs[:3] {
			assert.NoError(t, ev.Destroy())
		}
		assert.NoError(t, e.Destroy())
		assert.NoError(t, g.Destroy())
	}()
	wg.Wait()
	require.NoError(t, dev.Synchronize())
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.Launch(nil)))
}

// Each stream of a capture has its own dependencies; nodes added by hand
// and named in UpdateCaptureDependencies order the next captured
// operation, and a node destroyed meanwhile orders nothing.
func TestCaptureGraphFork(t *testing.T) {
	dev, ks := setup(t)
	x, y, z := newBuf(t, dev, 1), newBuf(t, dev, 0), newBuf(t, dev, 0)
	s, s2 := newStream(t, dev), newStream(t, dev)
	fork, join := newEvent(t, dev), newEvent(t, dev)

	require.NoError(t, graph.BeginCapture(s))
	require.NoError(t, stream.Fill(s, y, float32(1)))
	require.NoError(t, s.Record(fork))
	require.NoError(t, s2.WaitEvent(fork))
	require.NoError(t, stream.Fill(s2, z, float32(2)))
	g, d1, err := graph.CaptureGraph(s)
	require.NoError(t, err)
	g2, d2, err := graph.CaptureGraph(s2)
	require.NoError(t, err)
	assert.Same(t, g, g2, "one capture, one graph")
	require.Len(t, d1, 1)
	require.Len(t, d2, 1)
	assert.Equal(t, []*graph.Node{d1[0]}, d2[0].Dependencies(), "the fork")

	// s2's next operation runs after a node added by hand instead.
	k, err := g.AddKernel(saxpy(ks, 1, x, z), d2[0])
	require.NoError(t, err)
	dead, err := g.AddEmpty()
	require.NoError(t, err)
	require.NoError(t, graph.UpdateCaptureDependencies(s2, []*graph.Node{k, dead}, graph.SetCaptureDependencies))
	require.NoError(t, g.DestroyNode(dead))
	require.NoError(t, s2.Copy(y, 0, z, 0, n))
	require.NoError(t, s2.Record(join))
	require.NoError(t, s.WaitEvent(join))
	_, last, err := graph.CaptureGraph(s)
	require.NoError(t, err)
	require.Len(t, last, 2, "s's fill and s2's copy")
	assert.Equal(t, []*graph.Node{k}, last[1].Dependencies(), "the copy runs after the node added by hand, not the destroyed one")

	got, err := graph.EndCapture(s)
	require.NoError(t, err)
	assert.Same(t, g, got)
	assert.Equal(t, 4, got.Len(), "two fills, the kernel, the copy")
	e, err := got.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 3.0, read(t, y)[0], 1e-6, "z = 2 + 1·x, copied to y")
	assert.NoError(t, got.Destroy())
}

// A forked stream whose dependencies are several nodes (after a wait for
// two events, or UpdateCaptureDependencies) is joined back by one event
// recorded after them.
func TestCaptureJoinSeveral(t *testing.T) {
	dev, _ := setup(t)
	y, z := newBuf(t, dev, 0), newBuf(t, dev, 0)
	s, s2 := newStream(t, dev), newStream(t, dev)
	fork, join := newEvent(t, dev), newEvent(t, dev)
	require.NoError(t, graph.BeginCapture(s))
	require.NoError(t, stream.Fill(s, y, float32(1)))
	require.NoError(t, s.Record(fork))
	require.NoError(t, s2.WaitEvent(fork))
	require.NoError(t, stream.Fill(s2, z, float32(2)))
	g, deps, err := graph.CaptureGraph(s2)
	require.NoError(t, err)
	extra, err := g.AddEmpty()
	require.NoError(t, err)
	require.NoError(t, graph.UpdateCaptureDependencies(s2, []*graph.Node{extra}, graph.AddCaptureDependencies))
	_, now, err := graph.CaptureGraph(s2)
	require.NoError(t, err)
	assert.Equal(t, append(deps, extra), now)
	require.NoError(t, s2.Record(join))
	require.NoError(t, s.WaitEvent(join))
	got, err := graph.EndCapture(s)
	require.NoError(t, err, "s2 was joined back")
	assert.NoError(t, got.Destroy())
}
