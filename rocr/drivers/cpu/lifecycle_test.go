package cpu_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// vmSize is the process's mapped address space in bytes.
func vmSize(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmSize:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Skip("no VmSize in /proc/self/status")
	return 0
}

// Init/ShutDown cycles that use every pool and a queue give their address
// space back: 300 cycles map no more than a few MiB for good.
func TestInitShutdownKeepsAddressSpace(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	cycle := func() {
		require.NoError(t, rocr.Init())
		ags, err := rocr.Agents()
		require.NoError(t, err)
		for _, a := range ags {
			for _, flags := range []hsa.GlobalFlag{hsa.FlagCoarseGrained, hsa.FlagFineGrained, hsa.FlagKernargInit} {
				p, err := a.Pool(hsa.SegmentGlobal, flags)
				require.NoError(t, err)
				for _, n := range []uint64{256, 64 << 10, 2 << 20} {
					al, err := p.Allocate(n)
					require.NoError(t, err)
					hostmem.Bytes(al.Base, al.Size)[n-1] = 1 // touch it
					require.NoError(t, al.Free())
				}
			}
			q, err := a.CreateQueue(64, hsa.QueueMulti, nil)
			require.NoError(t, err)
			require.NoError(t, q.Destroy())
		}
		require.NoError(t, rocr.ShutDown())
	}
	for range 5 { // warm up
		cycle()
	}
	before, mappedBefore := vmSize(t), hostmem.Mapped()
	const cycles = 300
	for range cycles {
		cycle()
	}
	grew := int64(vmSize(t)) - int64(before)
	t.Logf("VmSize grew %d KiB over %d Init/ShutDown cycles", grew>>10, cycles)
	// The runtime's own mappings come back exactly. Before the chunks were
	// unmapped, 300 cycles kept 6000 MiB.
	assert.Equal(t, mappedBefore, hostmem.Mapped(), "%d Init/ShutDown cycles left memory mapped", cycles)
	// VmSize also holds threads' stacks and the C allocator's arenas (with
	// cgo, 72 MiB per thread, more threads on more processors) and the
	// race detector's shadow: a loose bound per processor.
	bound := int64(64<<20) + int64(runtime.GOMAXPROCS(0))*(72<<20)
	if raceflag.Enabled {
		bound += 512 << 20
	}
	assert.Less(t, grew, bound, "%d Init/ShutDown cycles left %d MiB mapped", cycles, grew>>20)
}
