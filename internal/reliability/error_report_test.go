package reliability_test

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailureReportedOnce: a kernel's failure is reported by the call that
// observes it first. Once the stream has returned it (Synchronize, a later
// Query), the buffers the kernel touched copy and fill normally; a
// synchronous copy that observes the failure first reports it, once, and
// the next copy works. The stream itself stays failed.
func TestFailureReportedOnce(t *testing.T) {
	f := open(t, 1)
	const n = 4
	// overrun's checked slice reaches past the buffer: the kernel fails
	// before it writes anything.
	cases := []struct {
		name    string
		observe func(t *testing.T, s *stream.Stream, b *bufU32) error
	}{
		{"after Synchronize", func(t *testing.T, s *stream.Stream, b *bufU32) error {
			wantErr(t, s.Synchronize(), gpu.ErrIllegalAddress, "reliability_overrun")
			return nil
		}},
		{"after Query", func(t *testing.T, s *stream.Stream, b *bufU32) error {
			for s.Query() == gpu.ErrNotReady {
				time.Sleep(time.Millisecond)
			}
			wantErr(t, s.Query(), gpu.ErrIllegalAddress, "reliability_overrun")
			return nil
		}},
		{"observed by a copy", func(t *testing.T, s *stream.Stream, b *bufU32) error {
			// Nothing reported it yet: the copy that waits for it does.
			_, err := b.ToSlice()
			wantErr(t, err, gpu.ErrIllegalAddress, "reliability_overrun")
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := f.stream(f.dev)
			b := newBuf[uint32](t, f.dev, n)
			err := reliability.Guard(t, 10*time.Second, func() error {
				if err := f.fn["reliability_overrun"].Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), int32(1), uint32(7)); err != nil {
					return err
				}
				if err := c.observe(t, s, b); err != nil {
					return err
				}
				if err := b.CopyFrom([]uint32{1, 2, 3, 4}); err != nil {
					return err
				}
				got, err := b.ToSlice()
				if err != nil {
					return err
				}
				assert.Equal(t, []uint32{1, 2, 3, 4}, got)
				if err := b.Fill(9); err != nil {
					return err
				}
				got, err = b.ToSlice()
				if err != nil {
					return err
				}
				assert.Equal(t, []uint32{9, 9, 9, 9}, got)
				// The stream stays failed.
				wantErr(t, s.Synchronize(), gpu.ErrIllegalAddress, "reliability_overrun")
				wantErr(t, f.fn["reliability_overrun"].Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), int32(0), uint32(7)), gpu.ErrIllegalAddress)
				return nil
			})
			require.NoError(t, err, "a buffer the failed kernel touched, after the failure was reported")
			assert.NoError(t, b.Free())
			assert.NoError(t, s.Destroy())
		})
	}
}
