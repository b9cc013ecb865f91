package collective_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/collective"
)

// A secret file another user owns is refused, even 0600: that user
// chose the secret (the rtc cache refuses its key file the same way).
func TestStoreSecretFileOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	t.Setenv("HIPGO_COLLECTIVE_SECRET", "")
	t.Setenv("HIPGO_COLLECTIVE_INSECURE", "")
	name := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(name, []byte(testSecret+"\n"), 0o600))
	require.NoError(t, os.Chown(name, 65534, 65534))
	t.Setenv("HIPGO_COLLECTIVE_SECRET_FILE", name)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	srv, err := collective.NewStore(addr, true)
	if err == nil {
		_ = srv.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "owned by uid 65534")
}
