package reliability_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// stressSize is the default load; HIPGO_STRESS=large (make stress) runs
// ten times as many operations per goroutine, HIPGO_STRESS_OPS=n n.
func stressSize() (goroutines, ops int) {
	// About 20 s under -race on two cores; the same without race takes
	// a fraction of that.
	goroutines, ops = 8, 100000
	if os.Getenv("HIPGO_STRESS") == "large" {
		ops *= 10
	}
	if n, err := strconv.Atoi(os.Getenv("HIPGO_STRESS_OPS")); err == nil && n > 0 {
		ops = n
	}
	return
}

// stressStreams is how many streams TestStress shares out: three on each
// of three cpu agents, all nine on one GPU.
const stressStreams = 9

// TestStress runs goroutines that each drive their own buffers (device
// buffers on three cpu agents and host buffers) through random kernels,
// copies, fills, transfers and event-ordered host round trips, on nine
// streams that all goroutines share. Buffers pass from stream to stream,
// so the automatic barriers carry the dependencies; host round trips
// depend on explicit events. Every read-back and every final buffer is
// checked against a sequential reference computed on the host.
//
// Under HIPGO_RELIABILITY_DRIVER the same operations run on that driver's
// devices; with one device (the H200) its nine streams carry them and the
// transfers and cross-device copies, which need two, do not occur.
func TestStress(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("HIPGO_STRESS_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (HIPGO_STRESS_SEED=%d reproduces the operations)", seed, seed)
	f := openDriver(t, 3)
	var streams [][]*stream.Stream // by device
	for _, dev := range f.devs {
		var ss []*stream.Stream
		for i := 0; i < max(1, stressStreams/len(f.devs)); i++ {
			ss = append(ss, f.stream(dev))
		}
		streams = append(streams, ss)
	}
	g, ops := stressSize()
	var wg sync.WaitGroup
	counts := make([]stressCounts, g)
	start := time.Now()
	for i := 0; i < g; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorld(t, f, streams, rand.New(rand.NewPCG(seed, uint64(i))))
			counts[i] = w.run(ops)
		}()
	}
	wg.Wait()
	var total stressCounts
	for _, c := range counts {
		total.launches += c.launches
		total.copies += c.copies
		total.events += c.events
		total.checks += c.checks
	}
	t.Logf("%d goroutines: %d launches, %d copies and fills, %d events, %d checks in %v",
		g, total.launches, total.copies, total.events, total.checks, time.Since(start).Round(time.Millisecond))
	for _, ss := range streams {
		for _, s := range ss {
			if err := s.Synchronize(); err != nil {
				t.Errorf("stream: %v", err)
			}
		}
	}
}

type stressCounts struct{ launches, copies, events, checks int }

const stressN = 256

// slot is one buffer of a world and its reference value.
type slot struct {
	coarse *buffer.Buffer[uint32] // or
	host   *buffer.Host[uint32]
	dev    int // owner of coarse memory
	ref    []uint32
}

func (s *slot) obj() buffer.Object {
	if s.coarse != nil {
		return s.coarse
	}
	return s.host
}

// world is one goroutine's buffers; it shares the streams.
type world struct {
	t       *testing.T
	f       *fixture
	streams [][]*stream.Stream
	rng     *rand.Rand
	slots   []*slot
	c       stressCounts
}

func newWorld(t *testing.T, f *fixture, streams [][]*stream.Stream, rng *rand.Rand) *world {
	w := &world{t: t, f: f, streams: streams, rng: rng}
	for i := 0; i < 5; i++ {
		init := make([]uint32, stressN)
		for j := range init {
			init[j] = rng.Uint32()
		}
		s := &slot{ref: init}
		if i < 3 {
			s.dev = rng.IntN(len(f.devs))
			b, err := buffer.FromSlice(f.devs[s.dev], init)
			if err != nil {
				t.Error(err)
				return w
			}
			s.coarse = b
			s.ref = append([]uint32(nil), init...)
		} else {
			h, err := buffer.NewHost[uint32](f.devs[rng.IntN(len(f.devs))], stressN)
			if err != nil {
				t.Error(err)
				return w
			}
			copy(h.Slice(), init)
			s.host, s.dev = h, -1
			s.ref = append([]uint32(nil), init...)
		}
		w.slots = append(w.slots, s)
	}
	return w
}

// streamFor picks a stream whose device may use every slot given.
func (w *world) streamFor(ss ...*slot) (*stream.Stream, int, bool) {
	dev := -1
	for _, s := range ss {
		if s.dev >= 0 {
			if dev >= 0 && dev != s.dev {
				return nil, 0, false
			}
			dev = s.dev
		}
	}
	if dev < 0 {
		dev = w.rng.IntN(len(w.streams))
	}
	return w.streams[dev][w.rng.IntN(len(w.streams[dev]))], dev, true
}

func (w *world) fail(op string, err error) bool {
	if err != nil {
		w.t.Errorf("%s: %v", op, err)
		return true
	}
	return false
}

func (w *world) run(ops int) stressCounts {
	if len(w.slots) < 5 {
		return w.c
	}
	for i := 0; i < ops && !w.t.Failed(); i++ {
		a, b := w.slots[w.rng.IntN(5)], w.slots[w.rng.IntN(5)]
		switch op := w.rng.IntN(10); {
		case op < 3: // a = a*x + y
			s, dev, _ := w.streamFor(a)
			x, y := w.rng.Uint32()|1, w.rng.Uint32()
			if w.fail("axpb", w.f.function0(dev, "reliability_axpb").Launch(s, gpu.D1(stressN/64), gpu.D1(64), 0, a.obj(), x, y, int32(stressN))) {
				return w.c
			}
			for j := range a.ref {
				a.ref[j] = a.ref[j]*x + y
			}
			w.c.launches++
		case op < 5: // a += b
			if a == b {
				continue
			}
			s, dev, ok := w.streamFor(a, b)
			if !ok { // buffers of two devices: a synchronous staged copy
				if w.fail("copy across devices", buffer.Copy(a.obj(), 0, b.obj(), 0, stressN)) {
					return w.c
				}
				copy(a.ref, b.ref)
				w.c.copies++
				continue
			}
			if w.fail("add", w.f.function0(dev, "reliability_add").Launch(s, gpu.D1(stressN/64), gpu.D1(64), 0, a.obj(), b.obj(), int32(stressN))) {
				return w.c
			}
			for j := range a.ref {
				a.ref[j] += b.ref[j]
			}
			w.c.launches++
		case op < 6: // a[lo:hi] = b[lo:hi] on a stream
			s, _, ok := w.streamFor(a, b)
			if !ok || a == b {
				continue
			}
			lo := w.rng.IntN(stressN)
			n := w.rng.IntN(stressN - lo + 1)
			if w.fail("stream copy", s.Copy(a.obj(), lo, b.obj(), lo, n)) {
				return w.c
			}
			copy(a.ref[lo:lo+n], b.ref[lo:lo+n])
			w.c.copies++
		case op < 7: // fill
			s, _, _ := w.streamFor(a)
			v := w.rng.Uint32()
			if w.fail("fill", stream.Fill(s, a.obj(), v)) {
				return w.c
			}
			for j := range a.ref {
				a.ref[j] = v
			}
			w.c.copies++
		case op < 8: // read back and check
			s, _, _ := w.streamFor(a)
			tmp := make([]uint32, stressN)
			ev, err := stream.NewEvent(s.Device(), stream.EventDisableTiming)
			if w.fail("event", err) || w.fail("read back", stream.CopyToHost(s, tmp, a.obj(), 0)) || w.fail("record", s.Record(ev)) || w.fail("event synchronize", ev.Synchronize()) {
				return w.c
			}
			w.check("read back", tmp, a.ref)
			_ = ev.Destroy()
			w.c.copies++
			w.c.events++
		case op < 9: // b -> host -> a, ordered by an event only
			if a == b {
				continue
			}
			x, _, _ := w.streamFor(b)
			y, _, _ := w.streamFor(a)
			tmp := make([]uint32, stressN)
			ev, err := stream.NewEvent(x.Device(), stream.EventDisableTiming)
			if w.fail("event", err) || w.fail("to host", stream.CopyToHost(x, tmp, b.obj(), 0)) || w.fail("record", x.Record(ev)) ||
				w.fail("wait event", y.WaitEvent(ev)) || w.fail("to device", stream.CopyToDevice(y, a.obj(), 0, tmp)) {
				return w.c
			}
			_ = ev.Destroy() // allowed while y still waits on it
			copy(a.ref, b.ref)
			w.c.copies += 2
			w.c.events++
		default: // move a device buffer to another device
			if a.coarse == nil || len(w.f.devs) < 2 {
				continue
			}
			to := w.rng.IntN(len(w.f.devs))
			if w.fail("transfer", a.coarse.Transfer(w.f.devs[to])) {
				return w.c
			}
			a.dev = to
		}
	}
	for i, s := range w.slots {
		var got []uint32
		var err error
		if s.coarse != nil {
			got, err = s.coarse.ToSlice()
		} else {
			err = syncAll() // host memory is read after every device's work on it
			got = s.host.Slice()
		}
		if w.fail("final read", err) {
			return w.c
		}
		w.check(fmt.Sprintf("final buffer %d", i), got, s.ref)
		w.c.checks++
	}
	return w.c
}

func (w *world) check(what string, got, want []uint32) {
	w.c.checks++
	for j := range want {
		if got[j] != want[j] {
			w.t.Errorf("%s: [%d] = %d, want %d (the sequential reference)", what, j, got[j], want[j])
			return
		}
	}
}

// syncAll waits for the work of every device.
func syncAll() error {
	devs, err := gpu.Devices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		if err := d.Synchronize(); err != nil {
			return err
		}
	}
	return nil
}
