package conformancetest

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// eventFlags are the flags hip-tests makes its events with, by SECTION name.
var eventFlags = []struct {
	name  string
	flags stream.EventFlags
}{
	{"Flag = hipEventDefault", stream.EventDefault},
	{"Flag = hipEventBlockingSync", stream.EventBlockingSync},
	{"Flag = hipEventDisableTiming", stream.EventDisableTiming},
}

// fillNode adds a launch of the fill kernel setting b to v.
func fillNode(t *testing.T, g *graph.Graph, fill *module.Function, b *buffer.Buffer[int32], v int32, deps ...*graph.Node) *graph.Node {
	t.Helper()
	n, err := g.AddKernel(graph.Kernel{Func: fill, Grid: gpu.D1(1), Block: gpu.D1(uint32(b.Len())), Args: []any{b, v, int32(b.Len())}}, deps...)
	require.NoError(t, err)
	return n
}

// slowNode adds a host node that takes a while and then adds 1 to done:
// work ordered after it sees it done. (Buffers order themselves in
// hipgo, so only host state shows whether an event kept the order.)
func slowNode(t *testing.T, g *graph.Graph, done *atomic.Int32, deps ...*graph.Node) *graph.Node {
	t.Helper()
	n, err := g.AddHost(func() error { time.Sleep(20 * time.Millisecond); done.Add(1); return nil }, deps...)
	require.NoError(t, err)
	return n
}

func contents(t *testing.T, b *buffer.Buffer[int32]) []int32 {
	t.Helper()
	out, err := b.ToSlice()
	require.NoError(t, err)
	return out
}

// addEventNode is the add call under test: AddEventRecord or AddEventWait.
type addEventNode func(g *graph.Graph, ev *stream.Event, deps ...*graph.Node) (*graph.Node, error)

// addNodeNegatives are hip-tests' GraphAddNodeCommonNegativeTests
// (graph_tests_common.hh) that have a Go form, and the event cases of
// Unit_hipGraphAddEventRecordNode_Negative / _hipGraphAddEventWaitNode_Negative.
func addNodeNegatives(t *testing.T, dev *gpu.Device, add addEventNode) {
	ev := newEvent(t, dev, stream.EventDefault)
	g := graph.New()
	defer g.Destroy()
	root, err := g.AddEmpty()
	require.NoError(t, err)
	t.Run("graph is nullptr", func(t *testing.T) {
		_, err := add(nil, ev)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("Node in dependency is from different graph", func(t *testing.T) {
		other := graph.New()
		defer other.Destroy()
		n, err := other.AddEmpty()
		require.NoError(t, err)
		_, err = add(g, ev, n)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("Duplicate node in dependencies", func(t *testing.T) {
		_, err := add(g, ev, root, root)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("dependency is nullptr", func(t *testing.T) {
		_, err := add(g, ev, nil)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("event = nullptr", func(t *testing.T) {
		_, err := add(g, nil)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("event is uninitialized", func(t *testing.T) {
		_, err := add(g, &stream.Event{})
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
		gone, err := stream.NewEvent(dev, stream.EventDefault)
		require.NoError(t, err)
		require.NoError(t, gone.Destroy())
		_, err = add(g, gone)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "a destroyed event: %v", err)
	})
	assert.Equal(t, 1, g.Len(), "a refused add adds nothing")
}

// addNodePositives is Unit_hipGraphAddEventRecordNode_Positive_Parameters
// and Unit_hipGraphAddEventWaitNode_Positive_Parameters.
func addNodePositives(t *testing.T, dev *gpu.Device, add addEventNode) {
	ev := newEvent(t, dev, stream.EventDefault)
	g := graph.New()
	defer g.Destroy()
	a, err := g.AddEmpty()
	require.NoError(t, err)
	b, err := g.AddEmpty()
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		deps []*graph.Node
	}{
		{"numDependencies is zero, dependencies is not nullptr", nil},
		{"numDependencies < dependencies length", []*graph.Node{a}},
		{"numDependencies == dependencies length", []*graph.Node{a, b}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := add(g, ev, c.deps...)
			require.NoError(t, err)
			assert.Len(t, n.Dependencies(), len(c.deps))
		})
	}
}

// recordGraph is validateAddEventRecordNode's graph: start record → fills
// of x and y → copies → fill kernel of z after them → copy of z → end
// record. A slow host node before the end record makes its ordering
// observable: done counts the launches it finished.
func recordGraph(t *testing.T, dev *gpu.Device, start, end *stream.Event) (*graph.Graph, *buffer.Buffer[int32], *atomic.Int32) {
	t.Helper()
	_, _, fill := functions(t, dev)
	x, y, z, out := newBuffer[int32](t, dev, 64), newBuffer[int32](t, dev, 64), newBuffer[int32](t, dev, 64), newBuffer[int32](t, dev, 64)
	g := graph.New()
	t.Cleanup(func() { _ = g.Destroy() })
	rs, err := g.AddEventRecord(start)
	require.NoError(t, err)
	fx, err := graph.AddFill(g, x, int32(1), rs)
	require.NoError(t, err)
	fy, err := graph.AddFill(g, y, int32(2), rs)
	require.NoError(t, err)
	cy, err := g.AddCopy(y, 0, x, 0, 64, fx, fy)
	require.NoError(t, err)
	k := fillNode(t, g, fill, z, 3, cy)
	cz, err := g.AddCopy(out, 0, z, 0, 64, k)
	require.NoError(t, err)
	done := new(atomic.Int32)
	_, err = g.AddEventRecord(end, slowNode(t, g, done, cz))
	require.NoError(t, err)
	return g, out, done
}

func runRecordGraph(t *testing.T, dev *gpu.Device, flags stream.EventFlags, runs int, timed bool) {
	start, end := newEvent(t, dev, flags), newEvent(t, dev, flags)
	g, out, done := recordGraph(t, dev, start, end)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	s := newStream(t, dev)
	for i := range runs {
		require.NoError(t, e.Launch(s))
		require.NoError(t, end.Synchronize())
		assert.Equal(t, int32(i+1), done.Load(), "the end event follows the graph's work")
		assert.Equal(t, int32(3), contents(t, out)[63])
		if timed {
			d, err := stream.Elapsed(start, end)
			require.NoError(t, err)
			assert.Greater(t, d, time.Duration(0))
		}
	}
	require.NoError(t, s.Synchronize())
}

// hip-tests catch/unit/graph/hipGraphAddEventRecordNode.cc
func TestGraphAddEventRecordNode(t *testing.T) {
	dev := device(t)
	t.Run("Functional_Simple", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		_, err := g.AddEventRecord(ev)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		require.NoError(t, ev.Synchronize())
		_, err = stream.Elapsed(ev, ev)
		assert.NoError(t, err, "the event was recorded")
	})
	t.Run("Functional_WithoutFlags", func(t *testing.T) { runRecordGraph(t, dev, stream.EventDefault, 1, false) })
	t.Run("Functional_ElapsedTime", func(t *testing.T) { runRecordGraph(t, dev, stream.EventDefault, 1, true) })
	t.Run("Functional_WithFlags", func(t *testing.T) {
		for _, f := range eventFlags {
			t.Run(f.name, func(t *testing.T) { runRecordGraph(t, dev, f.flags, 1, false) })
		}
	})
	t.Run("MultipleRun", func(t *testing.T) { runRecordGraph(t, dev, stream.EventDefault, 10, false) })
	t.Run("Functional_TimingDisabled", func(t *testing.T) {
		start, end := newEvent(t, dev, stream.EventDisableTiming), newEvent(t, dev, stream.EventDisableTiming)
		a := newBuffer[int32](t, dev, 256)
		g := graph.New()
		defer g.Destroy()
		rs, err := g.AddEventRecord(start)
		require.NoError(t, err)
		m, err := graph.AddFill(g, a, int32(0), rs)
		require.NoError(t, err)
		_, err = g.AddEventRecord(end, m)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.Launch(newStream(t, dev)))
		require.NoError(t, end.Synchronize())
		_, err = stream.Elapsed(start, end)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
	t.Run("Positive_Parameters", func(t *testing.T) {
		addNodePositives(t, dev, (*graph.Graph).AddEventRecord)
	})
	t.Run("Negative", func(t *testing.T) {
		addNodeNegatives(t, dev, (*graph.Graph).AddEventRecord)
	})
}

// waitGraphs is validate_hipGraphAddEventWaitNode_internodedep's two
// graphs: graph 1 fills x and records ev; graph 2 waits for ev and fills
// y. The two touch no common buffer, so only the event orders them.
func waitGraphs(t *testing.T, dev *gpu.Device, ev *stream.Event) (g1, g2 *graph.Graph, y *buffer.Buffer[int32], rec, wait *graph.Node) {
	t.Helper()
	_, _, fill := functions(t, dev)
	x := newBuffer[int32](t, dev, 64)
	y = newBuffer[int32](t, dev, 64)
	g1, g2 = graph.New(), graph.New()
	t.Cleanup(func() { _ = g1.Destroy(); _ = g2.Destroy() })
	rec, err := g1.AddEventRecord(ev, fillNode(t, g1, fill, x, 7))
	require.NoError(t, err)
	wait, err = g2.AddEventWait(ev)
	require.NoError(t, err)
	fillNode(t, g2, fill, y, 7, wait)
	return g1, g2, y, rec, wait
}

// gate holds s's later work until release is called: s waits for an
// event recorded on a third stream after a host function that blocks.
func gate(t *testing.T, dev *gpu.Device, s *stream.Stream) (release func()) {
	t.Helper()
	s3 := newStream(t, dev)
	ev := newEvent(t, dev, stream.EventDefault)
	ch := make(chan struct{})
	require.NoError(t, s3.LaunchHostFunc(func() error { <-ch; return nil }))
	require.NoError(t, s3.Record(ev))
	require.NoError(t, s.WaitEvent(ev))
	return func() { close(ch) }
}

// launchPair launches e1 on s1, held by a gate, and e2 on s2, and checks
// that e2's work waits for e1's event.
func launchPair(t *testing.T, dev *gpu.Device, e1, e2 *graph.Exec, s1, s2 *stream.Stream, y *buffer.Buffer[int32]) {
	t.Helper()
	require.NoError(t, y.Memset(0))
	release := gate(t, dev, s1)
	require.NoError(t, e1.Launch(s1))
	require.NoError(t, e2.Launch(s2))
	if s1 != s2 {
		time.Sleep(10 * time.Millisecond)
		assert.Equal(t, gpu.ErrNotReady, code(s2.Query()), "graph 2 waits for graph 1's event")
	}
	release()
	require.NoError(t, s2.Synchronize())
	assert.Equal(t, int32(7), contents(t, y)[63])
	require.NoError(t, s1.Synchronize())
}

func runWaitGraphs(t *testing.T, dev *gpu.Device, flags stream.EventFlags, runs int, oneStream bool) {
	ev := newEvent(t, dev, flags)
	g1, g2, y, _, _ := waitGraphs(t, dev, ev)
	e1, err := g1.Instantiate(dev)
	require.NoError(t, err)
	defer e1.Destroy()
	e2, err := g2.Instantiate(dev)
	require.NoError(t, err)
	defer e2.Destroy()
	s1 := newStream(t, dev)
	s2 := s1
	if !oneStream {
		s2 = newStream(t, dev)
	}
	for range runs {
		launchPair(t, dev, e1, e2, s1, s2, y)
	}
}

// hip-tests catch/unit/graph/hipGraphAddEventWaitNode.cc
func TestGraphAddEventWaitNode(t *testing.T) {
	dev := device(t)
	t.Run("Functional_Simple", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		r, err := g.AddEventRecord(ev)
		require.NoError(t, err)
		w, err := g.AddEventWait(ev)
		require.NoError(t, err)
		require.NoError(t, g.AddDependencies([]*graph.Node{r}, []*graph.Node{w}))
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		assert.NoError(t, s.Synchronize())
	})
	t.Run("MultGraphMultStrmDependency", func(t *testing.T) { runWaitGraphs(t, dev, stream.EventDefault, 1, false) })
	t.Run("MultipleRun", func(t *testing.T) { runWaitGraphs(t, dev, stream.EventDefault, 10, false) })
	t.Run("MultGraphOneStrmDependency", func(t *testing.T) { runWaitGraphs(t, dev, stream.EventDefault, 1, true) })
	t.Run("differentFlags", func(t *testing.T) {
		t.Run("flag = hipEventBlockingSync", func(t *testing.T) { runWaitGraphs(t, dev, stream.EventBlockingSync, 1, false) })
		t.Run("graph = hipEventDisableTiming", func(t *testing.T) { runWaitGraphs(t, dev, stream.EventDisableTiming, 1, false) })
	})
	t.Run("Positive_Parameters", func(t *testing.T) {
		addNodePositives(t, dev, (*graph.Graph).AddEventWait)
	})
	t.Run("Negative", func(t *testing.T) {
		addNodeNegatives(t, dev, (*graph.Graph).AddEventWait)
	})
}

// eventNodeAPI is one of the two node kinds' get and set calls.
type eventNodeAPI struct {
	add      addEventNode
	addOther addEventNode // the other kind's add
	get      func(*graph.Node) (*stream.Event, error)
	set      func(*graph.Node, *stream.Event) error
	execSet  func(*graph.Exec, *graph.Node, *stream.Event) error
}

var (
	recordAPI = eventNodeAPI{(*graph.Graph).AddEventRecord, (*graph.Graph).AddEventWait, (*graph.Node).RecordedEvent, (*graph.Node).SetRecordedEvent, (*graph.Exec).SetRecordedEvent}
	waitAPI   = eventNodeAPI{(*graph.Graph).AddEventWait, (*graph.Graph).AddEventRecord, (*graph.Node).WaitedEvent, (*graph.Node).SetWaitedEvent, (*graph.Exec).SetWaitedEvent}
)

// getEventCases are Unit_hipGraphEvent{Record,Wait}NodeGetEvent_Functional
// and _Negative.
func getEventCases(t *testing.T, dev *gpu.Device, api eventNodeAPI) {
	t.Run("Functional", func(t *testing.T) {
		for _, f := range eventFlags {
			t.Run(f.name, func(t *testing.T) {
				ev := newEvent(t, dev, f.flags)
				g := graph.New()
				defer g.Destroy()
				n, err := api.add(g, ev)
				require.NoError(t, err)
				got, err := api.get(n)
				require.NoError(t, err)
				assert.Same(t, ev, got)
			})
		}
	})
	t.Run("Negative", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		other, err := api.addOther(g, ev)
		require.NoError(t, err)
		b := newBuffer[int32](t, dev, 16)
		for _, c := range []struct {
			name string
			node func() *graph.Node
		}{
			{"node = nullptr", func() *graph.Node { return nil }},
			{"input node is empty node", func() *graph.Node { n, _ := g.AddEmpty(); return n }},
			{"input node is memset node", func() *graph.Node { n, _ := graph.AddFill(g, b, int32(0)); return n }},
			{"input node is the other event node", func() *graph.Node { return other }},
			{"input node is uninitialized node", func() *graph.Node { return &graph.Node{} }},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := api.get(c.node())
				assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
			})
		}
	})
}

// setEventCases are Unit_hipGraphEvent{Record,Wait}NodeSetEvent_SetGet
// and _Negative.
func setEventCases(t *testing.T, dev *gpu.Device, api eventNodeAPI) {
	t.Run("SetGet", func(t *testing.T) {
		for _, f := range eventFlags {
			t.Run(f.name, func(t *testing.T) {
				ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, f.flags)
				g := graph.New()
				defer g.Destroy()
				n, err := api.add(g, ev1)
				require.NoError(t, err)
				require.NoError(t, api.set(n, ev2))
				got, err := api.get(n)
				require.NoError(t, err)
				assert.Same(t, ev2, got)
			})
		}
	})
	t.Run("Negative", func(t *testing.T) {
		ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		n, err := api.add(g, ev1)
		require.NoError(t, err)
		other, err := api.addOther(g, ev1)
		require.NoError(t, err)
		b := newBuffer[int32](t, dev, 16)
		for _, c := range []struct {
			name string
			node func() *graph.Node
			ev   *stream.Event
		}{
			{"node = nullptr", func() *graph.Node { return nil }, ev2},
			{"event_out = nullptr", func() *graph.Node { return n }, nil},
			{"input node is empty node", func() *graph.Node { m, _ := g.AddEmpty(); return m }, ev2},
			{"input node is memset node", func() *graph.Node { m, _ := graph.AddFill(g, b, int32(0)); return m }, ev2},
			{"input node is the other event node", func() *graph.Node { return other }, ev2},
			{"input node is uninitialized node", func() *graph.Node { return &graph.Node{} }, ev2},
			{"input event is uninitialized", func() *graph.Node { return n }, &stream.Event{}},
		} {
			t.Run(c.name, func(t *testing.T) {
				err := api.set(c.node(), c.ev)
				assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
			})
		}
		got, err := api.get(n)
		require.NoError(t, err)
		assert.Same(t, ev1, got, "a refused set changes nothing")
	})
}

// execSetNegatives are Unit_hipGraphExecEvent{Record,Wait}NodeSetEvent_Negative.
func execSetNegatives(t *testing.T, dev *gpu.Device, api eventNodeAPI) {
	ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
	b := newBuffer[int32](t, dev, 16)
	g := graph.New()
	defer g.Destroy()
	n, err := api.add(g, ev1)
	require.NoError(t, err)
	other, err := api.addOther(g, ev1)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	cases := []struct {
		name string
		exec func() *graph.Exec
		node func() *graph.Node
		ev   *stream.Event
	}{
		{"hGraphExec = nullptr", func() *graph.Exec { return nil }, func() *graph.Node { return n }, ev2},
		{"hNode = nullptr", func() *graph.Exec { return e }, func() *graph.Node { return nil }, ev2},
		{"event = nullptr", func() *graph.Exec { return e }, func() *graph.Node { return n }, nil},
		{"hGraphExec is uninitialized", func() *graph.Exec { return &graph.Exec{} }, func() *graph.Node { return n }, ev2},
		{"hNode is uninitialized", func() *graph.Exec { return e }, func() *graph.Node { return &graph.Node{} }, ev2},
		{"event is uninitialized", func() *graph.Exec { return e }, func() *graph.Node { return n }, &stream.Event{}},
		{"event node does not exist", func() *graph.Exec {
			g1 := graph.New()
			t.Cleanup(func() { _ = g1.Destroy() })
			_, err := graph.AddFill(g1, b, int32(0))
			require.NoError(t, err)
			e1, err := g1.Instantiate(dev)
			require.NoError(t, err)
			t.Cleanup(func() { _ = e1.Destroy() })
			return e1
		}, func() *graph.Node { return n }, ev2},
		{"pass memset node as hNode", func() *graph.Exec { return e }, func() *graph.Node { m, _ := graph.AddFill(g, b, int32(0)); return m }, ev2},
		{"pass the other event node as hNode", func() *graph.Exec { return e }, func() *graph.Node { return other }, ev2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := api.execSet(c.exec(), c.node(), c.ev)
			assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
		})
	}
}

// hip-tests catch/unit/graph/hipGraphEventRecordNodeGetEvent.cc
func TestGraphEventRecordNodeGetEvent(t *testing.T) { getEventCases(t, device(t), recordAPI) }

// hip-tests catch/unit/graph/hipGraphEventWaitNodeGetEvent.cc
func TestGraphEventWaitNodeGetEvent(t *testing.T) { getEventCases(t, device(t), waitAPI) }

// hip-tests catch/unit/graph/hipGraphEventRecordNodeSetEvent.cc
func TestGraphEventRecordNodeSetEvent(t *testing.T) {
	dev := device(t)
	setEventCases(t, dev, recordAPI)
	// Unit_hipGraphEventRecordNodeSetEvent_SetEventProperty: the graph's
	// node changes after Instantiate; the executable graph keeps the
	// events it was made with (as HIP's, whose exec nodes are copies),
	// so the timing-disabled events are never recorded and timing them
	// fails either way.
	t.Run("SetEventProperty", func(t *testing.T) {
		s1, e1 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		s2, e2 := newEvent(t, dev, stream.EventDisableTiming), newEvent(t, dev, stream.EventDisableTiming)
		a := newBuffer[int32](t, dev, 256)
		g := graph.New()
		defer g.Destroy()
		rs, err := g.AddEventRecord(s1)
		require.NoError(t, err)
		m, err := graph.AddFill(g, a, int32(0), rs)
		require.NoError(t, err)
		re, err := g.AddEventRecord(e1, m)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		_, err = stream.Elapsed(s1, e1)
		require.NoError(t, err)
		require.NoError(t, rs.SetRecordedEvent(s2))
		require.NoError(t, re.SetRecordedEvent(e2))
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		_, err = stream.Elapsed(s2, e2)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
}

// hip-tests catch/unit/graph/hipGraphEventWaitNodeSetEvent.cc
func TestGraphEventWaitNodeSetEvent(t *testing.T) { setEventCases(t, device(t), waitAPI) }

// hip-tests catch/unit/graph/hipGraphExecEventRecordNodeSetEvent.cc
func TestGraphExecEventRecordNodeSetEvent(t *testing.T) {
	dev := device(t)
	t.Run("Functional", func(t *testing.T) {
		start, end1, end2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		g, out, done := recordGraph(t, dev, start, end1)
		var endNode *graph.Node
		for _, n := range g.Nodes() {
			if ev, err := n.RecordedEvent(); err == nil && ev == end1 {
				endNode = n
			}
		}
		require.NotNil(t, endNode)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.SetRecordedEvent(endNode, end2))
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		require.NoError(t, end2.Synchronize())
		assert.Equal(t, int32(1), done.Load(), "end2 marks the graph's end")
		require.NoError(t, s.Synchronize())
		assert.Equal(t, int32(3), contents(t, out)[63])
		d, err := stream.Elapsed(start, end2)
		require.NoError(t, err)
		assert.Greater(t, d, time.Duration(0))
		_, err = stream.Elapsed(start, end1)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "end1 was never recorded: %v", err)
	})
	t.Run("VerifyEventNotChanged", func(t *testing.T) {
		ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		n, err := g.AddEventRecord(ev1)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.SetRecordedEvent(n, ev2))
		got, err := n.RecordedEvent()
		require.NoError(t, err)
		assert.Same(t, ev1, got)
	})
	t.Run("Positive_DifferentDevices", func(t *testing.T) {
		d0, d1 := twoDevices(t)
		ev1, ev2 := newEvent(t, d0, stream.EventDefault), newEvent(t, d1, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		n, err := g.AddEventRecord(ev1)
		require.NoError(t, err)
		e, err := g.Instantiate(d0)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.SetRecordedEvent(n, ev2))
		s := newStream(t, d0)
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		assert.NoError(t, ev2.Query(), "the other device's event was recorded")
	})
	t.Run("Negative", func(t *testing.T) { execSetNegatives(t, dev, recordAPI) })
}

// hip-tests catch/unit/graph/hipGraphExecEventWaitNodeSetEvent.cc
func TestGraphExecEventWaitNodeSetEvent(t *testing.T) {
	dev := device(t)
	t.Run("SetAndVerifyMemory", func(t *testing.T) {
		ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		g1, g2, y, rec, wait := waitGraphs(t, dev, ev1)
		e1, err := g1.Instantiate(dev)
		require.NoError(t, err)
		defer e1.Destroy()
		e2, err := g2.Instantiate(dev)
		require.NoError(t, err)
		defer e2.Destroy()
		s1, s2 := newStream(t, dev), newStream(t, dev)
		launchPair(t, dev, e1, e2, s1, s2, y)
		require.NoError(t, e1.SetRecordedEvent(rec, ev2))
		require.NoError(t, e2.SetWaitedEvent(wait, ev2))
		launchPair(t, dev, e1, e2, s1, s2, y)
	})
	t.Run("VerifyEventNotChanged", func(t *testing.T) {
		ev1, ev2 := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		g := graph.New()
		defer g.Destroy()
		n, err := g.AddEventWait(ev1)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.SetWaitedEvent(n, ev2))
		got, err := n.WaitedEvent()
		require.NoError(t, err)
		assert.Same(t, ev1, got)
	})
	t.Run("Negative", func(t *testing.T) { execSetNegatives(t, dev, waitAPI) })
}
