package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// SetNonPortableClusterSizeAllowed lets f launch in clusters of up to 16
// blocks, past the portable 8, where the device allows
// (hipFuncSetAttribute and cuFuncSetAttribute with
// NON_PORTABLE_CLUSTER_SIZE_ALLOWED). On a device without clusters it is
// ErrNotSupported.
func (f *Function) SetNonPortableClusterSizeAllowed(allow bool) error {
	const op = "function set attribute"
	if err := f.valid(op); err != nil {
		return err
	}
	f.mod.mu.Lock() // the kernel stays loaded while the driver changes it
	defer f.mod.mu.Unlock()
	if err := f.gone(op); err != nil {
		return err
	}
	if err := f.mod.dev.Agent().AllowNonPortableClusters(&f.sym, allow); err != nil {
		return errs.Wrap(op, err)
	}
	f.nonPortable.Store(allow)
	return nil
}

// MaxPotentialClusterSize is the largest cluster, in blocks, in which a
// launch of f with cfg's grid, block and shared memory can run
// (cudaOccupancyMaxPotentialClusterSize); cfg's Cluster is ignored. On a
// device without clusters it is ErrNotSupported.
func MaxPotentialClusterSize(f *Function, cfg *LaunchConfig) (int, error) {
	const op = "occupancy max potential cluster size"
	if err := f.valid(op); err != nil {
		return 0, err
	}
	if cfg == nil {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "nil LaunchConfig")
	}
	if cfg.SharedMem < 0 {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: negative dynamic shared memory %d", f.sym.Name, cfg.SharedMem)
	}
	f.mod.mu.Lock()
	defer f.mod.mu.Unlock()
	if err := f.gone(op); err != nil {
		return 0, err
	}
	g, b := cfg.Grid, cfg.Block
	n, err := f.mod.dev.Agent().MaxPotentialClusterSize(&f.sym, [3]uint32{g.X, g.Y, g.Z}, [3]uint32{b.X, b.Y, b.Z}, cfg.SharedMem)
	return n, errs.Wrap(op, err)
}

// SetMaxDynamicSharedMemory lets launches of f ask up to n bytes of
// dynamic shared memory, past what the device's per-block limit
// (Properties.SharedMemPerBlock) leaves beside f's static shared memory,
// up to the opt-in limit (Properties.MaxSharedMemPerBlockOptin)
// (hipFuncSetAttribute with hipFuncAttributeMaxDynamicSharedMemorySize,
// cuFuncSetAttribute with MAX_DYNAMIC_SHARED_SIZE_BYTES). A launch asking
// more than f may have is ErrInvalidValue (a cooperative one
// ErrCooperativeLaunchTooLarge); so is n below 0 or past the opt-in limit.
func (f *Function) SetMaxDynamicSharedMemory(n int) error {
	const op = "function set attribute"
	if err := f.valid(op); err != nil {
		return err
	}
	if room := f.sharedMax - int(f.sym.GroupSegmentSize); n < 0 || n > room {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: max dynamic shared memory %d outside [0, %d]", f.sym.Name, n, room)
	}
	f.dynMax.Store(int64(n))
	return nil
}
