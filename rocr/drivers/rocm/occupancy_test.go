package rocm

import (
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/amdgpu"
	"github.com/hipgo/hipgo/rocr/spi"
)

// loadKernelLibrary loads the kernel library's code object for target into the
// fake agent, its kernels carrying their metadata as gpu/module passes it.
func loadKernelLibrary(t *testing.T, f *fakeHSA, ag *rocr.Agent, target string) spi.Executable {
	t.Helper()
	b, err := os.ReadFile("../../../kernels/gen/kernels.hipfb")
	require.NoError(t, err)
	spec, err := codeobj.Parse(b)
	require.NoError(t, err)
	obj, err := spec.Select(target)
	require.NoError(t, err)
	code := &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "kernels.hipfb", Target: obj.Target, Data: obj.Image}
	f.mu.Lock()
	for i := range obj.Kernels {
		k := &obj.Kernels[i]
		code.Kernels = append(code.Kernels, hsa.KernelSymbol{Name: k.Name, GroupSegmentSize: k.GroupSegmentSize,
			MaxFlatWorkGroupSize: int(k.MaxFlatWorkgroup), Wavefront: int(k.WavefrontSize), Meta: k})
		f.symbols[k.Name+".kd"] = fakeSymbol{obj: uint64(0x10_0000 * (i + 1)), kaSize: k.KernargSize, kaAlign: 8, group: k.GroupSegmentSize}
	}
	f.mu.Unlock()
	exe, err := ag.Load(code)
	require.NoError(t, err)
	return exe
}

// The fake GPU is a gfx90a with 104 CUs. The library's gfx90a kernels at
// 256 work-items are 4 waves of 64 in 32 wave slots: 8 groups per CU
// (rocr/internal/amdgpu's TestKernelLibrary derives it); transpose with
// 16 KiB of dynamic LDS besides its 4224 B static: 20992 B in 512-byte
// blocks, 3 per 64 KiB.
func TestOccupancy(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	exe := loadKernelLibrary(t, f, ag, ag.Info().ISA) // "gfx90a:sramecc+:xnack-" selects the bundle's gfx90a
	ks := exe.Kernels()
	require.Len(t, ks, 14) // every kernel and its checked entry point
	for i := range ks {
		n, err := ag.MaxActiveGroups(&ks[i], 256, 0)
		require.NoError(t, err, ks[i].Name)
		assert.Equal(t, 8, n, ks[i].Name)
		grid, size, err := ag.MaxPotentialGroupSize(&ks[i], 0, 0)
		require.NoError(t, err, ks[i].Name)
		assert.Equal(t, 1024, size, ks[i].Name)
		assert.Equal(t, 2*104, grid, ks[i].Name)
	}
	tr, err := rocr.FindKernel(exe, "transpose")
	require.NoError(t, err)
	n, err := ag.MaxActiveGroups(tr, 256, 16<<10)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	n, err = ag.MaxActiveGroups(tr, 256, 64<<10) // more than a work-group may have
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	n, err = ag.MaxActiveGroups(tr, 2048, 0) // beyond .max_flat_workgroup_size
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	grid, size, err := ag.MaxPotentialGroupSize(tr, 0, 100)
	require.NoError(t, err)
	assert.Equal(t, 64, size) // 1 wave: 14 groups by LDS
	assert.Equal(t, 14*104, grid)

	// The loaded descriptor's static LDS counts when it says more than
	// the metadata (here 40 KiB: one group per CU).
	big := *tr
	big.GroupSegmentSize = 40 << 10
	f.mu.Lock()
	f.symbols["transpose.kd"] = fakeSymbol{obj: 0x7700_0000, group: 40 << 10}
	f.mu.Unlock()
	exe2, err := ag.Load(&hsa.Code{Kind: hsa.CodeAMDGPU, Name: "big", Data: []byte("\x7fELF"), Kernels: []hsa.KernelSymbol{{Name: "transpose", Meta: tr.Meta}}})
	require.NoError(t, err)
	n, err = ag.MaxActiveGroups(&exe2.Kernels()[0], 256, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.NoError(t, exe2.Destroy())
}

func TestOccupancyErrors(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	exe := loadKernelLibrary(t, f, ag, "gfx90a")
	k, err := rocr.FindKernel(exe, "sgemm")
	require.NoError(t, err)

	// Without metadata there is nothing to compute from.
	bare := *k
	bare.Meta = nil
	_, err = ag.MaxActiveGroups(&bare, 256, 0)
	assert.ErrorIs(t, err, hsa.ErrNotSupported)
	assert.ErrorContains(t, err, "metadata")

	// Wave32 code (gfx1030's) cannot run on gfx90a.
	spec, err := codeobj.Parse(mustRead(t, "../../../kernels/gen/kernels.hipfb"))
	require.NoError(t, err)
	rdna, err := spec.Select("gfx1030")
	require.NoError(t, err)
	w32 := *k
	w32.Meta, _ = rdna.Kernel("sgemm")
	_, err = ag.MaxActiveGroups(&w32, 256, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)
	_, _, err = ag.MaxPotentialGroupSize(&w32, 0, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)

	// Negative sizes stop in rocr.
	_, err = ag.MaxActiveGroups(k, 0, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)
	_, _, err = ag.MaxPotentialGroupSize(k, -1, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)

	// A kernel of a destroyed executable is no longer this agent's.
	require.NoError(t, exe.Destroy())
	_, err = ag.MaxActiveGroups(k, 256, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)
	assert.ErrorContains(t, err, "not loaded")
	_, _, err = ag.MaxPotentialGroupSize(k, 0, 0)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument)
}

// A GPU whose target has no table answers ErrNotSupported.
func TestOccupancyUnknownTarget(t *testing.T) {
	f := newFake()
	f.agents[1].isas = []string{"amdgcn-amd-amdhsa--gfx1201"}
	f.agents[1].str[agentName] = "gfx1201"
	ag := initFake(t, f)
	exe := loadKernelLibrary(t, f, ag, "gfx1100") // the fake loads anything
	_, err := ag.MaxActiveGroups(&exe.Kernels()[0], 64, 0)
	assert.ErrorIs(t, err, hsa.ErrNotSupported)
	assert.ErrorContains(t, err, "gfx1201")
	_, _, err = ag.MaxPotentialGroupSize(&exe.Kernels()[0], 0, 0)
	assert.ErrorIs(t, err, hsa.ErrNotSupported)
}

// Occupancy queries race with loads and unloads of other executables.
func TestOccupancyRace(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	exe := loadKernelLibrary(t, f, ag, "gfx90a")
	k, err := rocr.FindKernel(exe, "vector_add")
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				n, err := ag.MaxActiveGroups(k, 256, 0)
				if err == nil && n != 8 {
					t.Errorf("%d groups", n)
				}
				if _, _, e := ag.MaxPotentialGroupSize(k, 0, 0); e != nil && err == nil {
					err = e
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			e, err := ag.Load(&hsa.Code{Kind: hsa.CodeAMDGPU, Name: "other", Data: []byte("\x7fELF"), Kernels: []hsa.KernelSymbol{{Name: "sgemm"}}})
			if err != nil {
				errs <- err
				return
			}
			if err := e.Destroy(); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return b
}

// TestDeviceOccupancy loads the kernel library onto a real AMD GPU, through
// ROCR's executables, and computes each kernel's occupancy at 256
// work-items: 8 work-groups per CU on gfx90a and gfx94x, 4 on RDNA in CU
// mode (see rocr/internal/amdgpu's TestKernelLibrary). An agent the
// library has no code object for must be a target the occupancy table
// lacks, and the driver must refuse its occupancy with ErrNotSupported;
// any other agent fails the test. It skips without an AMD GPU unless
// HIPGO_REQUIRE names rocm; it has not run on one yet.
func TestDeviceOccupancy(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", Name)
	if err := rocr.Init(); err != nil {
		testenv.Require(t, "rocm", err)
	}
	defer rocr.ShutDown()
	as, err := rocr.Agents()
	require.NoError(t, err)
	spec, err := codeobj.Parse(mustRead(t, "../../../kernels/gen/kernels.hipfb"))
	require.NoError(t, err)
	want := map[string]int{"gfx90a": 8, "gfx940": 8, "gfx941": 8, "gfx942": 8, "gfx1030": 4, "gfx1100": 4}
	for _, ag := range as {
		in := ag.Info()
		obj, err := spec.Select(in.ISA)
		if err != nil {
			// Without the library's code there is nothing to load: the
			// agent must then be one whose occupancy the driver refuses.
			if _, lerr := amdgpu.Lookup(in.ISA); lerr == nil {
				t.Errorf("%s (%s): the occupancy table knows this target but the kernel library has no code object for it (%v), so its occupancy is unchecked: add it to gfxTargets in cmd/hipgo-gen/gokernel.go", ag, in.ISA, err)
				continue
			}
			_, err := ag.MaxActiveGroups(&hsa.KernelSymbol{Name: "unloaded"}, 256, 0)
			assert.ErrorIs(t, err, hsa.ErrNotSupported, "%s (%s): occupancy on a target the table lacks", ag, in.ISA)
			continue
		}
		w, ok := want[obj.ID.Processor]
		if !ok {
			t.Errorf("%s (%s): no expected occupancy for %s in this test", ag, in.ISA, obj.ID.Processor)
		}
		code := &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "kernels.hipfb", Target: obj.Target, Data: obj.Image}
		for i := range obj.Kernels {
			k := &obj.Kernels[i]
			code.Kernels = append(code.Kernels, hsa.KernelSymbol{Name: k.Name, GroupSegmentSize: k.GroupSegmentSize,
				MaxFlatWorkGroupSize: int(k.MaxFlatWorkgroup), Wavefront: int(k.WavefrontSize), Meta: k})
		}
		exe, err := ag.Load(code)
		require.NoError(t, err, "%s", ag)
		ks := exe.Kernels()
		for i := range ks {
			n, err := ag.MaxActiveGroups(&ks[i], 256, 0)
			require.NoError(t, err, "%s %s", ag, ks[i].Name)
			grid, size, err := ag.MaxPotentialGroupSize(&ks[i], 0, 0)
			require.NoError(t, err, "%s %s", ag, ks[i].Name)
			t.Logf("%s %s: %d groups of 256 per CU; best %d items, grid %d", in.ISA, ks[i].Name, n, size, grid)
			if ok {
				assert.Equal(t, w, n, "%s %s", in.ISA, ks[i].Name)
			}
			assert.Positive(t, size)
		}
		require.NoError(t, exe.Destroy())
	}
}
