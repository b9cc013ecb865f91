package kernelgen

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	loadOnce sync.Once
	loaded   *Result
	loadErr  error
)

// loadK translates testdata/k once for the package's tests.
func loadK(t *testing.T) *Result {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = Load(filepath.Join("testdata", "k")) })
	require.NoError(t, loadErr)
	return loaded
}

func TestDump(t *testing.T) {
	r := loadK(t)
	if p := os.Getenv("KERNELGEN_DUMP"); p != "" {
		require.NoError(t, os.WriteFile(p, []byte(r.Source), 0o644))
	}
}
