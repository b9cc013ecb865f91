package stream_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// multi is a runtime of n cpu agents, each with the test kernels loaded.
type multi struct {
	t    *testing.T
	devs []*gpu.Device
	mods []*module.Module
}

func setupMulti(t *testing.T, n int) *multi {
	t.Helper()
	t.Setenv("HIPGO_CPU_AGENTS", fmt.Sprint(n))
	e := setup(t)
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != n || devs[0] != e.dev {
		t.Fatalf("HIPGO_CPU_AGENTS=%d gave %d devices", n, len(devs))
	}
	m := &multi{t: t, devs: devs}
	for _, d := range devs {
		mod, err := module.Load(d, kernelSet)
		if err != nil {
			t.Fatal(err)
		}
		m.mods = append(m.mods, mod)
	}
	return m
}

func (m *multi) stream(i int) *stream.Stream {
	m.t.Helper()
	s, err := stream.New(m.devs[i])
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { _ = s.Destroy() })
	return s
}

// launch launches kernel name on s, a stream of device i, as one work-item.
func (m *multi) launch(i int, s *stream.Stream, name string, args ...any) error {
	f, err := m.mods[i].Function(name)
	if err != nil {
		return err
	}
	return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, args...)
}

func (m *multi) mustLaunch(i int, s *stream.Stream, name string, args ...any) {
	m.t.Helper()
	if err := m.launch(i, s, name, args...); err != nil {
		m.t.Fatal(err)
	}
}

func fromSlice(t *testing.T, dev *gpu.Device, v []int32) *buffer.Buffer[int32] {
	t.Helper()
	b, err := buffer.FromSlice(dev, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func contents(t *testing.T, b *buffer.Buffer[int32]) string {
	t.Helper()
	v, err := b.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v)
}

// A copy on device 1's stream from device 0's buffer is ErrNotOwner until
// device 1 has peer access; then it is one packet on the stream. CopyPeer
// stages it through host memory without peer access.
func TestPeerCopy(t *testing.T) {
	m := setupMulti(t, 2)
	d0, d1 := m.devs[0], m.devs[1]
	s1 := m.stream(1)
	a := fromSlice(t, d0, []int32{1, 2, 3, 4})
	b := newBuf(t, d1, 4)
	if err := s1.Copy(b, 0, a, 0, 4); !errors.Is(err, gpu.ErrNotOwner) {
		t.Fatalf("copy from device 0's buffer without peer access: %v", err)
	}

	// Staged: synchronous, after the stream's earlier work.
	m.mustLaunch(1, s1, "test_sleep", int32(50))
	w := written(s1)
	start := time.Now()
	if err := s1.CopyPeer(b, 0, a, 0, 4); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("staged CopyPeer returned after %v, before the stream's 50 ms kernel", d)
	}
	if got := written(s1) - w; got != 0 {
		t.Errorf("staged CopyPeer submitted %d packets to the stream", got)
	}
	if got := contents(t, b); got != "[1 2 3 4]" {
		t.Errorf("staged copy: %v", got)
	}
	if err := s1.CopyPeer(b, 2, a, 0, 3); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("staged copy past the end: %v", err)
	}

	// Peer access: one packet on device 1's queue, in both directions.
	if err := d1.EnablePeerAccess(d0); err != nil {
		t.Fatal(err)
	}
	if err := stream.Fill(s1, a, int32(9)); err != nil {
		t.Fatal(err)
	}
	w = written(s1)
	if err := s1.Copy(b, 1, a, 0, 2); err != nil {
		t.Fatal(err)
	}
	if got := written(s1) - w; got != 1 {
		t.Errorf("peer copy submitted %d packets, want 1", got)
	}
	if err := s1.CopyPeer(a, 3, b, 0, 1); err != nil {
		t.Fatal(err)
	}
	if got := written(s1) - w; got != 2 {
		t.Errorf("CopyPeer with peer access submitted %d packets in all, want 2", got)
	}
	sync(t, s1)
	if got := contents(t, b); got != "[1 9 9 4]" {
		t.Errorf("peer copy to device 1: %v", got)
	}
	if got := contents(t, a); got != "[9 9 9 1]" {
		t.Errorf("peer copy to device 0: %v", got)
	}
	// Device 0's streams still need a copy staged.
	s0 := m.stream(0)
	if err := s0.Copy(a, 0, b, 0, 1); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("device 0's stream copying device 1's buffer: %v", err)
	}
}

// A kernel on device 0 writes slowly; device 1's stream waits for an event
// of device 0's stream and then reads: it sees the write. Events are
// signals every agent waits on.
func TestCrossDeviceWaitEvent(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint("agents=", n), func(t *testing.T) {
			m := setupMulti(t, n)
			resetFlags()
			// Flags, set and read outside any buffer: only the event
			// orders the two devices. Each device waits for the one before.
			streams := make([]*stream.Stream, n)
			for i := range n {
				streams[i] = m.stream(i)
			}
			out := newBuf(t, m.devs[n-1], n)
			for i := 0; i < n-1; i++ {
				if i > 0 {
					m.mustLaunch(i, streams[i], "stream_test_flag_set", int32(i), int32(30))
				} else {
					m.mustLaunch(i, streams[i], "stream_test_flag_set", int32(i), int32(100))
				}
				ev, err := stream.NewEvent(m.devs[i], stream.EventDisableTiming)
				if err != nil {
					t.Fatal(err)
				}
				if err := streams[i].Record(ev); err != nil {
					t.Fatal(err)
				}
				if err := streams[i+1].WaitEvent(ev); err != nil {
					t.Fatal(err)
				}
				if err := ev.Destroy(); err != nil { // the wait holds its own reference
					t.Fatal(err)
				}
			}
			m.mustLaunch(n-1, streams[n-1], "stream_test_flag_get", out, int32(n))
			sync(t, streams[n-1])
			want := fmt.Sprint(append(repeat(1, n-1), 0))
			if got := contents(t, out); got != want {
				t.Errorf("device %d read the flags %s, want %s: it ran before the devices it waited for", n-1, got, want)
			}

			// The same through memory: device 0 writes its buffer slowly,
			// device 1 (with peer access) waits on the event and copies it.
			d0, d1 := m.devs[0], m.devs[1]
			if err := d1.EnablePeerAccess(d0); err != nil {
				t.Fatal(err)
			}
			x, y := newBuf(t, d0, 64), newBuf(t, d1, 64)
			m.mustLaunch(0, streams[0], "stream_test_slow_write", x, int32(7), int32(80), int32(64))
			ev, err := stream.NewEvent(d0, stream.EventDefault)
			if err != nil {
				t.Fatal(err)
			}
			defer ev.Destroy()
			if err := streams[0].Record(ev); err != nil {
				t.Fatal(err)
			}
			if err := streams[1].WaitEvent(ev); err != nil {
				t.Fatal(err)
			}
			m.mustLaunch(1, streams[1], "stream_test_copy", y, x, int32(64))
			sync(t, streams[1])
			got, err := y.ToSlice()
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != 7 || got[63] != 7 {
				t.Errorf("device 1 copied %d, %d before device 0 wrote 7", got[0], got[63])
			}
			if err := ev.Query(); err != nil {
				t.Errorf("event after the waiting stream finished: %v", err)
			}
		})
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// A buffer is device 0's; device 1 cannot use it before Transfer; a
// transfer while a stream of the owner still works on it waits for that
// work, and the new owner sees its result.
func TestTransferBetweenDevices(t *testing.T) {
	m := setupMulti(t, 2)
	d0, d1 := m.devs[0], m.devs[1]
	s0, s1 := m.stream(0), m.stream(1)
	const n = 64
	x := newBuf(t, d0, n)
	if err := m.launch(1, s1, "stream_test_inc", x, int32(n)); !errors.Is(err, gpu.ErrNotOwner) {
		t.Fatalf("device 1 using device 0's buffer before Transfer: %v", err)
	}
	if err := x.Transfer(d1); err != nil {
		t.Fatal(err)
	}
	if err := m.launch(0, s0, "stream_test_inc", x, int32(n)); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("device 0 using the buffer after it went to device 1: %v", err)
	}

	// Device 1 writes slowly; the transfer back waits for it, with no
	// synchronize in between.
	m.mustLaunch(1, s1, "stream_test_slow_write", x, int32(5), int32(100), int32(n))
	m.mustLaunch(1, s1, "stream_test_inc", x, int32(n))
	start := time.Now()
	if err := x.Transfer(d0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("Transfer returned after %v, before device 1's 100 ms kernel", d)
	}
	if err := s1.Query(); err != nil {
		t.Errorf("device 1's stream after the transfer: %v", err)
	}
	if x.Device() != d0 {
		t.Fatalf("owner after transfer back: %v", x.Device())
	}
	m.mustLaunch(0, s0, "stream_test_inc", x, int32(n))
	sync(t, s0)
	got, err := x.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 7 || got[n-1] != 7 {
		t.Errorf("after device 1's write and two increments: %d, %d, want 7", got[0], got[n-1])
	}
	if err := m.launch(1, s1, "stream_test_inc", x, int32(n)); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("device 1 after the transfer back: %v", err)
	}
}

// An event is recorded on a stream of its own device only, as in CUDA;
// a stream of another device may wait for it.
func TestRecordOnOtherDevice(t *testing.T) {
	m := setupMulti(t, 2)
	s0, s1 := m.stream(0), m.stream(1)
	ev, err := stream.NewEvent(m.devs[0], stream.EventDefault)
	require.NoError(t, err)
	defer ev.Destroy()

	err = s1.Record(ev)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "event of device 0 recorded on a stream of device 1")
	require.NoError(t, ev.Query(), "the refused record left the event unrecorded")

	require.NoError(t, s0.Record(ev))
	require.NoError(t, s1.WaitEvent(ev))
	require.NoError(t, s1.Synchronize())
}
