package rocm

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// asOther makes h look like another process's handle, as the opening
// process receives it: the fake plays both processes.
func asOther(h rocr.IPCHandle) rocr.IPCHandle {
	binary.LittleEndian.PutUint32(h[12:], uint32(os.Getpid()+1))
	return h
}

// Memory of the IPC pool is exported with hsa_amd_ipc_memory_create and
// opened with attach for the handle's size, for the opening agent; Free
// detaches it. A handle changed in ROCR's part, or claiming more than was
// shared, opens nothing.
func TestIPCMemory(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	p, err := ag.IPCPool()
	require.NoError(t, err)
	al, err := p.Allocate(8192)
	require.NoError(t, err)
	defer func() { assert.NoError(t, al.Free()) }()
	mem := hostmem.Bytes(al.Base, al.Size)
	mem[0] = 7
	h, err := al.ExportIPC()
	require.NoError(t, err)
	assert.EqualValues(t, 8192, h.Size())
	_, err = ag.OpenIPC(h)
	assert.Equal(t, hsa.StatusErrorInvalidArgument, hsa.StatusOf(err), "a handle of this process: %v", err)

	_, err = rocr.OpenIPCSignal(ag, asOther(h))
	assert.Error(t, err, "a memory handle opened as a signal")
	op, err := ag.OpenIPC(asOther(h))
	require.NoError(t, err)
	assert.NotEqual(t, al.Base, op.Base)
	assert.EqualValues(t, 8192, op.Size)
	require.NoError(t, op.CheckAccess(ag))
	got := hostmem.Bytes(op.Base, op.Size)
	assert.EqualValues(t, 7, got[0], "the exporter's bytes")
	got[1] = 9
	_, err = op.ExportIPC()
	assert.Error(t, err, "an opened allocation is not exported again")
	require.NoError(t, op.Free())
	assert.EqualValues(t, 9, mem[1], "the opener's write reached the exporter's memory")
	assert.Error(t, op.Free(), "closing twice")

	forged := asOther(h)
	forged[32] ^= 1
	_, err = ag.OpenIPC(forged)
	assert.Equal(t, hsa.StatusErrorInvalidArgument, hsa.StatusOf(err), "forged ROCR handle: %v", err)
	bigger := asOther(h)
	binary.LittleEndian.PutUint64(bigger[24:], 1<<20)
	_, err = ag.OpenIPC(bigger)
	assert.Equal(t, hsa.StatusErrorInvalidArgument, hsa.StatusOf(err), "more than was shared: %v", err)
	short := asOther(h)
	short[11] = 31
	short[32+31] = 0
	_, err = ag.OpenIPC(short)
	assert.Error(t, err, "a ROCR handle is 32 bytes")

	plain, err := ag.Pools()[0].Allocate(4096)
	require.NoError(t, err)
	_, err = plain.ExportIPC()
	assert.Error(t, err, "memory of another pool is not shareable")
	require.NoError(t, plain.Free())
	assert.Contains(t, f.calls, "ipc_memory_detach")
}

// An IPC signal is hsa_amd_signal_create(HSA_AMD_SIGNAL_IPC), exported
// with hsa_amd_ipc_signal_create; the signal attach gives shares its value.
func TestIPCSignal(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	sig, h, err := rocr.NewIPCSignal(ag)
	require.NoError(t, err)
	_, err = ag.OpenIPC(asOther(h))
	assert.Error(t, err, "a signal handle opened as memory")
	_, err = rocr.OpenIPCSignal(ag, h)
	assert.Error(t, err, "a handle of this process")
	peer, err := rocr.OpenIPCSignal(ag, asOther(h))
	require.NoError(t, err)
	sig.Store(5, hsa.Release)
	assert.EqualValues(t, 5, peer.Load(hsa.Acquire))
	peer.Sub(5, hsa.Release)
	assert.EqualValues(t, 0, sig.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive))
	forged := asOther(h)
	forged[33] ^= 1
	_, err = rocr.OpenIPCSignal(ag, forged)
	assert.Equal(t, hsa.StatusErrorInvalidArgument, hsa.StatusOf(err), "forged: %v", err)
	require.NoError(t, peer.Destroy())
	require.NoError(t, sig.Destroy())
	assert.Contains(t, f.calls, "amd_signal_create ipc")
}
