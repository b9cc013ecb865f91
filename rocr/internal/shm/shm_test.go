package shm

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/hsa"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A signal opened from its payload (here by this process, through
// /proc/self as another process would) shares the exporter's value.
func TestSignalShared(t *testing.T) {
	s, payload, err := NewSignal()
	require.NoError(t, err)
	o, err := OpenSignal(payload, os.Getpid())
	require.NoError(t, err)
	s.Store(3)
	assert.Equal(t, int64(3), o.Load())
	assert.Equal(t, int64(2), o.Add(-1))
	assert.Equal(t, int64(2), s.Load())
	assert.Equal(t, int64(2), s.CAS(2, 0))
	assert.Equal(t, int64(0), o.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive))
	require.NoError(t, o.Destroy())
	assert.Error(t, o.Destroy(), "twice")
	assert.Equal(t, int64(0), o.Load(), "a destroyed signal reads 0")
	require.NoError(t, s.Destroy())
}

// Payloads come from another process: a wrong length, a changed nonce or
// a descriptor that is not a memfd of this package opens nothing.
func TestOpenRefuses(t *testing.T) {
	s, payload, err := NewSignal()
	require.NoError(t, err)
	defer s.Destroy()
	_, err = OpenSignal(payload[:3], os.Getpid())
	assert.ErrorContains(t, err, "payload of 3 bytes")
	bad := append([]byte(nil), payload...)
	bad[len(bad)-1] ^= 1
	_, err = OpenSignal(bad, os.Getpid())
	assert.ErrorContains(t, err, "does not name shared memory")
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	other := append([]byte(nil), payload...)
	other[0], other[1], other[2], other[3] = byte(f.Fd()), byte(f.Fd()>>8), 0, 0
	_, err = OpenSignal(other, os.Getpid())
	assert.Error(t, err, "a descriptor that is not a memfd")
	_, _, err = Open("test", payload, os.Getpid(), 1<<20)
	assert.Error(t, err, "more bytes than were shared")
}
