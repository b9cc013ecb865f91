package stream_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

func TestEventRecordQueryElapsed(t *testing.T) {
	e := setup(t)
	s := e.stream()
	start, end := e.event(stream.EventDefault), e.event(stream.EventBlockingSync)
	if err := end.Query(); err != nil {
		t.Errorf("query of an event never recorded: %v", err)
	}
	if err := end.Synchronize(); err != nil {
		t.Errorf("synchronize of an event never recorded: %v", err)
	}
	if _, err := stream.Elapsed(start, end); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("elapsed of events never recorded: %v", err)
	}
	if err := s.Record(start); err != nil {
		t.Fatal(err)
	}
	e.launch(s, "test_sleep", int32(5))
	if err := s.Record(end); err != nil {
		t.Fatal(err)
	}
	if err := end.Query(); err != gpu.ErrNotReady {
		t.Errorf("query while the kernel runs: %v", err)
	}
	if _, err := stream.Elapsed(start, end); !errors.Is(err, gpu.ErrNotReady) {
		t.Errorf("elapsed before the end event completed: %v", err)
	}
	if err := end.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := end.Query(); err != nil {
		t.Errorf("query after synchronize: %v", err)
	}
	d, err := stream.Elapsed(start, end)
	if err != nil {
		t.Fatal(err)
	}
	if d < 4*time.Millisecond || d > time.Second {
		t.Errorf("elapsed over a 5 ms kernel: %v", d)
	}
	ms, err := stream.ElapsedMillis(start, end)
	if err != nil || ms < 4 || ms > 1000 {
		t.Errorf("elapsed millis: %v %v", ms, err)
	}
	// Elapsed does not order its events: the other way round it is
	// negative, as between independent streams where end fell first.
	if back, err := stream.Elapsed(end, start); err != nil || back != -d {
		t.Errorf("elapsed from end back to start: %v %v, want %v", back, err, -d)
	}

	// Re-recording moves the event; the old record does not complete it.
	e.launch(s, "test_sleep", int32(30))
	if err := s.Record(end); err != nil {
		t.Fatal(err)
	}
	if err := end.Query(); err != gpu.ErrNotReady {
		t.Errorf("query of a re-recorded event: %v", err)
	}
	if err := end.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if d2, _ := stream.Elapsed(start, end); d2 < d+25*time.Millisecond {
		t.Errorf("elapsed to the second record %v, first %v", d2, d)
	}

	nt := e.event(stream.EventDisableTiming)
	if err := s.Record(nt); err != nil {
		t.Fatal(err)
	}
	if err := nt.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Elapsed(start, nt); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("elapsed with EventDisableTiming: %v", err)
	}
	if _, err := stream.NewEvent(e.dev, 16); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("unknown event flags: %v", err)
	}

	if err := nt.Destroy(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"destroy":     nt.Destroy(),
		"query":       nt.Query(),
		"synchronize": nt.Synchronize(),
		"record":      s.Record(nt),
		"wait":        s.WaitEvent(nt),
		"elapsed":     func() error { _, err := stream.Elapsed(start, nt); return err }(),
	} {
		if !errors.Is(err, gpu.ErrInvalidHandle) {
			t.Errorf("%s of a destroyed event: %v", name, err)
		}
	}
	var nilEv *stream.Event
	if err := s.Record(nilEv); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("record of a nil event: %v", err)
	}
}

// Synchronize waits for everything submitted, event records included:
// a record that waits behind another stream's work is not complete when
// the stream's last kernel is.
func TestSynchronizeWaitsForRecords(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	evA, evB := e.event(0), e.event(0)
	e.launch(b, "test_empty")
	sync(t, b)
	e.launch(a, "test_sleep", int32(40))
	if err := a.Record(evA); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitEvent(evA); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(evB); err != nil {
		t.Fatal(err)
	}
	sync(t, b)
	if err := evB.Query(); err != nil {
		t.Errorf("event recorded on b after b's synchronize: %v", err)
	}
	if err := evA.Query(); err != nil {
		t.Errorf("event b waited for, after b's synchronize: %v", err)
	}
}

// WaitEvent orders stream b after a by the event alone: the kernels share
// no buffer, so no automatic barrier is involved.
func TestWaitEvent(t *testing.T) {
	e := setup(t)
	resetFlags()
	a, b := e.stream(), e.stream()
	out, err := buffer.NewHost[int32](e.dev, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev := e.event(0)
	e.launch(a, "stream_test_flag_set", int32(0), int32(50))
	if err := a.Record(ev); err != nil {
		t.Fatal(err)
	}
	w := written(b)
	if err := b.WaitEvent(ev); err != nil {
		t.Fatal(err)
	}
	if n := written(b) - w; n != 1 {
		t.Errorf("WaitEvent submitted %d packets, want one BARRIER_AND", n)
	}
	e.launch(b, "stream_test_flag_get", out, int32(1))
	sync(t, b)
	if got := out.Slice()[0]; got != 1 {
		t.Errorf("b ran before a's kernel finished: flag %d", got)
	}
	sync(t, a)

	// Waiting on a completed event costs no packet.
	w = written(b)
	if err := b.WaitEvent(ev); err != nil {
		t.Fatal(err)
	}
	if n := written(b) - w; n != 0 {
		t.Errorf("waiting on a completed event submitted %d packets", n)
	}
}

// Seven events need two BARRIER_AND packets (five signals each), chained.
func TestWaitEventsChained(t *testing.T) {
	e := setup(t)
	resetFlags()
	const n = 7
	var evs []*stream.Event
	for i := 0; i < n; i++ {
		s := e.stream()
		ev := e.event(0)
		// The later events finish first, so a barrier that waited only on
		// the first packet's signals would be seen to be wrong.
		e.launch(s, "stream_test_flag_set", int32(i), int32(10+10*(n-i)))
		if err := s.Record(ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	// The last event's work is the slowest: put it in the second packet.
	evs[0], evs[n-1] = evs[n-1], evs[0]
	b := e.stream()
	out, err := buffer.NewHost[int32](e.dev, n)
	if err != nil {
		t.Fatal(err)
	}
	w := written(b)
	if err := b.WaitEvents(evs...); err != nil {
		t.Fatal(err)
	}
	if got := written(b) - w; got != 2 {
		t.Errorf("waiting on %d events submitted %d packets, want 2", n, got)
	}
	e.launch(b, "stream_test_flag_get", out, int32(n))
	sync(t, b)
	if got := fmt.Sprint(out.Slice()); got != "[1 1 1 1 1 1 1]" {
		t.Errorf("b ran before every event: flags %s", got)
	}
	if err := e.dev.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

// Destroying an event that a stream waits on neither hangs that stream nor
// frees the signal under the packets that use it: as in HIP, the waiting
// stream still waits for the work the event marks.
func TestDestroyEventWhileWaited(t *testing.T) {
	e := setup(t)
	resetFlags()
	a, b := e.stream(), e.stream()
	out, err := buffer.NewHost[int32](e.dev, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev := e.event(0)
	e.launch(a, "stream_test_flag_set", int32(0), int32(60))
	if err := a.Record(ev); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitEvent(ev); err != nil {
		t.Fatal(err)
	}
	e.launch(b, "stream_test_flag_get", out, int32(1))
	if err := ev.Destroy(); err != nil {
		t.Fatal(err)
	}
	// Churn the fence pool while a's record is pending, so a signal freed
	// too early would be handed to these packets.
	c := e.stream()
	x := newBuf(t, e.dev, 1)
	for i := 0; i < 100; i++ {
		e.launch(c, "stream_test_inc", x, int32(1))
		if err := c.Record(e.event(0)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- b.Synchronize() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("b after the event it waits on was destroyed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("b hangs after the event it waits on was destroyed")
	}
	if got := out.Slice()[0]; got != 1 {
		t.Errorf("b ran before the destroyed event's work: flag %d", got)
	}
	for _, s := range []*stream.Stream{a, c} {
		if err := s.Synchronize(); err != nil {
			t.Errorf("stream after the event was destroyed: %v", err)
		}
	}
	if got, _ := x.ToSlice(); got[0] != 100 {
		t.Errorf("churn stream: %d increments, want 100", got[0])
	}
	if err := b.WaitEvent(ev); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("wait on a destroyed event: %v", err)
	}
}
