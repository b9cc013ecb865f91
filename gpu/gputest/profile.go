package gputest

import (
	"strings"
	"testing"

	"github.com/hipgo/hipgo/rocr/kerneltime"
)

// Profile runs f and logs, in tb's log, a summary of the kernels the
// runtime dispatched meanwhile: per kernel, its launches and their total,
// mean, min and max time, most total time first, as nsys's kernel summary
// and CUDA.jl's CUDA.@profile print. It returns the same figures. Kernels
// other goroutines dispatch while f runs are counted too. The times are
// those of the HIPGO_TRACE timeline (kerneltime.Collector says what they
// are on each agent); gpuinfo trace FILE prints the same table from a
// trace file.
func Profile(tb testing.TB, f func()) []kerneltime.Kernel {
	tb.Helper()
	k := kerneltime.Start()
	defer func() {
		ks := k.Stop()
		var b strings.Builder
		if len(ks) == 0 {
			tb.Logf("gputest: profile of %s: no kernels", tb.Name())
			return
		}
		_ = kerneltime.Write(&b, ks)
		tb.Logf("gputest: profile of %s:\n%s", tb.Name(), b.String())
	}()
	f()
	return k.Kernels()
}
