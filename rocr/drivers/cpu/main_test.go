package cpu_test

import (
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

// TestMain checks that no queue processor or worker outlives ShutDown.
func TestMain(m *testing.M) { testenv.Main(m) }
