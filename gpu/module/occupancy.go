package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// OccupancyMaxPotentialBlockSize returns the block size that maximizes the
// occupancy of f's launches with dynShared bytes of dynamic shared memory
// per block (at most blockSizeLimit threads when it is positive), and the
// smallest grid that reaches that occupancy on every compute unit
// (hipOccupancyMaxPotentialBlockSize). On cuda the driver's occupancy
// calculator answers; on rocm it is computed from the code object's
// register and LDS use and the target's limits; on the cpu agent each worker runs one block at a
// time, so the answer is the kernel's largest block and one block per
// worker. Both are 0 when no block fits.
func OccupancyMaxPotentialBlockSize(f *Function, dynShared, blockSizeLimit int) (minGridSize, blockSize int, err error) {
	const op = "occupancy max potential block size"
	if err := f.valid(op); err != nil {
		return 0, 0, err
	}
	if dynShared < 0 || blockSizeLimit < 0 {
		return 0, 0, gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: dynamic shared memory %d, block size limit %d: want >= 0", f.Name(), dynShared, blockSizeLimit)
	}
	f.mod.mu.Lock() // the kernel stays loaded while the driver looks at it
	defer f.mod.mu.Unlock()
	if err := f.gone(op); err != nil {
		return 0, 0, err
	}
	minGridSize, blockSize, err = f.mod.dev.Agent().MaxPotentialGroupSize(&f.sym, dynShared, blockSizeLimit)
	return minGridSize, blockSize, errs.Wrap(op, err)
}

// OccupancyMaxActiveBlocksPerMultiprocessor returns how many blocks of
// blockSize threads with dynShared bytes of dynamic shared memory each one
// compute unit holds at once (hipOccupancyMaxActiveBlocksPerMultiprocessor);
// 0 when such a block cannot run.
func OccupancyMaxActiveBlocksPerMultiprocessor(f *Function, blockSize, dynShared int) (int, error) {
	const op = "occupancy max active blocks"
	if err := f.valid(op); err != nil {
		return 0, err
	}
	if blockSize <= 0 || dynShared < 0 {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: block size %d, dynamic shared memory %d: want a positive block and non-negative shared size", f.Name(), blockSize, dynShared)
	}
	f.mod.mu.Lock()
	defer f.mod.mu.Unlock()
	if err := f.gone(op); err != nil {
		return 0, err
	}
	n, err := f.mod.dev.Agent().MaxActiveGroups(&f.sym, blockSize, dynShared)
	return n, errs.Wrap(op, err)
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
