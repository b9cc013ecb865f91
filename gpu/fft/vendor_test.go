package fft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/testenv"
)

// The package's transform tests, run through the cuFFT and rocFFT
// bindings against the Go fake: the results match the naive DFT only if
// each binding passes the shape, layout, kind, direction and buffers as
// its library reads them.
func TestVendorBindings(t *testing.T) {
	for _, driver := range []string{"cuda", "rocm"} {
		t.Run(driver, func(t *testing.T) {
			f := withFake(t, driver)
			for name, test := range map[string]func(*testing.T){
				"C2C": TestC2CMatchesDFT, "real": TestRealMatchesDFT,
				"layout C2C": TestLayoutC2C, "layout real": TestLayoutReal, "in place": TestInPlace,
				"graph": TestGraphCapture, "two streams": TestPlanOnTwoStreams, "errors": TestErrors,
			} {
				t.Run(name, test)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			assert.Empty(t, f.plans, "every plan destroyed")
			if driver == "rocm" {
				assert.Empty(t, f.descs, "every description destroyed")
				assert.Equal(t, f.calls["rocfft_setup"], f.calls["rocfft_cleanup"], "rocfft_cleanup after the last plan")
				assert.Positive(t, f.calls["rocfft_setup"])
			}
		})
	}
}

// A library's failure is a gpu error naming the entry point, at NewPlan
// for plan creation.
func TestVendorErrors(t *testing.T) {
	for driver, entry := range map[string]string{"cuda": "cufftPlanMany", "rocm": "rocfft_plan_create"} {
		f := withFake(t, driver)
		dev, _ := newStream(t)
		f.failOn = entry
		_, err := NewPlan(dev, C2C, []int{8}, 1)
		assert.ErrorContains(t, err, entry, driver)
		var ge *gpu.Error
		assert.ErrorAs(t, err, &ge, driver)
	}
	f := withFake(t, "cuda")
	dev, s := newStream(t)
	p := newPlan(t, dev, C2C, []int{8}, 1)
	in, out := upload(t, dev, make([]complex64, 8)), upload(t, dev, make([]complex64, 8))
	f.failOn = "cufftExecC2C"
	require.NoError(t, C2CExec(p, s, in, out, Forward), "queued")
	err := s.Synchronize()
	assert.ErrorContains(t, err, "CUFFT_INTERNAL_ERROR")
	f.failOn = ""
}

// The cuFFT and rocFFT paths allocate nothing per execution either.
func TestVendorExecAllocs(t *testing.T) {
	for _, driver := range []string{"cuda", "rocm"} {
		f := withFake(t, driver)
		f.quiet = true
		dev, s := newStream(t)
		p := newPlan(t, dev, C2C, []int{64}, 4)
		a, b := upload(t, dev, make([]complex64, 256)), upload(t, dev, make([]complex64, 256))
		run := func() {
			require.NoError(t, C2CExec(p, s, a, b, Forward))
			require.NoError(t, C2CExec(p, s, b, b, Inverse))
			require.NoError(t, s.Synchronize())
		}
		for range 3 {
			run()
		}
		testenv.SkipAllocsUnderRace(t)
		assert.Zero(t, testing.AllocsPerRun(30, run), "%s: two executions + Synchronize", driver)
	}
}
