package cuda_test

import (
	"testing"

	"github.com/hipgo/hipgo/internal/fakecuda"
)

// gpuTests are this package's tests that need a CUDA device. Each runs
// as it is on a GPU, and again here against the fake libcuda (a twin), so
// that the executor, its completions, barriers, event records and fault
// paths run where there is no GPU.
var gpuTests = []string{
	"TestAgentProperties",
	"TestCompletionWrite",
	"TestCopiesAndFills",
	"TestVectorAdd",
	"TestBarrierAcrossQueues",
	"TestEventTimestamps",
	"TestHostCallback",
	"TestLoadErrors",
	"TestCrossQueueSignalReuse",
	"TestRecordPassesBeforeTheWorkAfterIt",
	"TestRecordsInFlight",
	"TestZZKernelFault",
}

// TestFakeCUDA runs the GPU tests, and the tests of the fake's own
// (TestFake...), each in a process of its own whose driver opens the fake.
func TestFakeCUDA(t *testing.T) {
	so := fakecuda.Build(t)
	fakecuda.Run(t, so, gpuTests...)
}
