package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// LaunchCooperativeKernel launches f so that every block of the grid is
// resident at once (hipLaunchCooperativeKernel, in LaunchKernelGGL's
// argument order): the kernel may wait at a grid-wide barrier, cpu.Group's
// GridSync in a Go kernel, cooperative_groups::this_grid().sync() in HIP
// or CUDA source. A grid of more blocks than the device holds at once
// (OccupancyMaxActiveBlocksPerMultiprocessor x its compute units) is
// ErrCooperativeLaunchTooLarge, and nothing is queued.
//
// Its errors are LaunchKernelGGL's; those of f.LaunchCooperative[Args] are
// Launch's (hipModuleLaunchCooperativeKernel).
func LaunchCooperativeKernel(f *Function, grid, block gpu.Dim3, sharedMem int, s *stream.Stream, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{runtime: true, coop: true})
}

// LaunchCooperative is Launch as a cooperative launch (see
// LaunchCooperativeKernel).
func (f *Function) LaunchCooperative(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{coop: true})
}

// LaunchCooperativeArgs is LaunchArgs as a cooperative launch.
func (f *Function) LaunchCooperativeArgs(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args) error {
	return f.launchArgs(s, grid, block, sharedMem, args, entry{coop: true})
}

// MaxCooperativeBlocks is the largest grid, in blocks of blockSize threads
// with dynShared bytes of dynamic shared memory, that a cooperative launch
// of f accepts: the blocks one compute unit holds times the compute units.
func MaxCooperativeBlocks(f *Function, blockSize, dynShared int) (int, error) {
	per, err := OccupancyMaxActiveBlocksPerMultiprocessor(f, blockSize, dynShared)
	if err != nil {
		return 0, err
	}
	return per * f.mod.dev.Agent().Info().ComputeUnits, nil
}

// checkCoResident refuses a cooperative grid larger than the device holds.
func (f *Function) checkCoResident(grid, block gpu.Dim3, sharedMem int) error {
	const op = "launch cooperative"
	limit, err := MaxCooperativeBlocks(f, int(block.Count()), sharedMem)
	if err != nil {
		return gpu.Wrap(op, err)
	}
	if n := grid.Count(); n > uint64(limit) {
		return gpu.Errorf(gpu.ErrorCooperativeLaunchTooLarge, op, "kernel %s: grid of %d blocks of %d threads exceeds the %d the device holds at once", f.sym.Name, n, block.Count(), limit)
	}
	return nil
}
