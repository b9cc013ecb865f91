package gokernel_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// kernel.Printf prints on the cpu agent and on NVIDIA GPUs what
// fmt.Printf prints for the same arguments, a line per work-item.
func TestPrintf(t *testing.T) {
	const n, scale = 70, float32(1.25)
	var want []string
	for i := range n {
		v := float32(i) * scale
		want = append(want, fmt.Sprintf("hipgo hello %d of %v: %5.2f %e %.4g %t %x %-3d|", i, int32(n), v, float64(v)/3, v, i%2 == 0, uint32(i)*255, int8(i)))
	}
	for _, drv := range []string{"cpu", "cuda"} {
		t.Run(drv, func(t *testing.T) {
			dev := gputest.DeviceOf(t, drv)
			s, err := stream.New(dev)
			require.NoError(t, err)
			defer s.Destroy()
			out := testenv.CaptureStdout(t, func() {
				require.NoError(t, faulty.LaunchHello(s, gpu.D1(2), gpu.D1(64), 0, n, scale))
				require.NoError(t, s.Synchronize())
			})
			var got []string
			for l := range strings.Lines(out) {
				if strings.HasPrefix(l, "hipgo hello ") {
					got = append(got, strings.TrimSuffix(l, "\n"))
				}
			}
			slices.Sort(got)
			w := slices.Clone(want)
			slices.Sort(w)
			assert.Equal(t, w, got, "the lines printed on %s", dev)
		})
	}
}
