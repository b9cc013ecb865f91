package collective_test

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// The package's tests run on four cpu agents unless the environment says
// otherwise (a GPU run sets HIPGO_DRIVER); a test re-executed as another
// process's rank keeps what its parent set.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.DefaultEnv("HIPGO_DRIVER", "cpu"), testenv.DefaultEnv("HIPGO_CPU_AGENTS", "4"), testenv.Setenv("NCCL_NVLS_ENABLE", "0"))
}

// driver is the driver the tests run on.
func driver() string {
	if d := os.Getenv("HIPGO_DRIVER"); d != "" {
		return d
	}
	return "cpu"
}

// ranks is a communicator over n devices with a stream per rank, released
// when the test ends.
type ranks struct {
	comms   []*collective.Comm
	streams []*stream.Stream
}

func newRanks(t *testing.T, n int) *ranks {
	t.Helper()
	devs := gputest.Devices(t, driver(), n)
	comms, err := collective.NewAll(devs...)
	skipUnsupported(t, err)
	require.NoError(t, err)
	r := &ranks{comms: comms}
	for _, d := range devs {
		s, err := stream.New(d)
		require.NoError(t, err)
		r.streams = append(r.streams, s)
	}
	t.Cleanup(func() {
		for _, c := range r.comms {
			_ = c.Destroy() // some tests destroy or abort them first
		}
		for _, s := range r.streams {
			_ = s.Destroy()
		}
	})
	return r
}

// upload makes a buffer on dev holding v, freed when the test ends.
func upload[T collective.Element](t testing.TB, dev *gpu.Device, v []T) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.FromSlice(dev, v)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func zeros[T collective.Element](t testing.TB, dev *gpu.Device, n int) *buffer.Buffer[T] {
	t.Helper()
	return upload(t, dev, make([]T, n))
}

func read[T collective.Element](t testing.TB, b *buffer.Buffer[T]) []T {
	t.Helper()
	v, err := b.ToSlice()
	require.NoError(t, err)
	return v
}

// within fails t if f does not return within d: a collective that hangs
// is a failure, not a stuck test binary.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %v", what, d)
	}
}

// parallel runs f for every rank on its own goroutine and waits.
func parallel(n int, f func(r int)) {
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(r)
		}()
	}
	wg.Wait()
}

func name(parts ...any) string { return fmt.Sprint(parts...) }

func newDevs(t *testing.T, n int) []*gpu.Device { return gputest.Devices(t, driver(), n) }

// cpuOnly skips t on GPUs: it checks what only the cpu agents' backend
// detects (NCCL hangs or computes garbage on mismatched operations).
func cpuOnly(t *testing.T) {
	t.Helper()
	if driver() != "cpu" {
		t.Skipf("checks the cpu agents' backend, not %s", driver())
	}
}

// skipUnsupported skips t when the collective library is missing here,
// unless HIPGO_REQUIRE names it (nccl, rccl).
func skipUnsupported(t testing.TB, err error) {
	t.Helper()
	if !errors.Is(err, gpu.ErrNotSupported) {
		return
	}
	if lib := map[string]string{"cuda": "nccl", "rocm": "rccl"}[driver()]; lib != "" {
		testenv.Require(t, lib, err)
	}
	t.Skipf("no collectives here: %v", err)
}
