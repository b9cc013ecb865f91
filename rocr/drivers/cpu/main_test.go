package cpu_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no queue processor or worker outlives ShutDown.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
