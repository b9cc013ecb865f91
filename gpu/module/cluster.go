package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// LaunchConfig is a launch's configuration with its attributes as fields
// (hipLaunchConfig_t and its hipLaunchAttribute list, CUDA's
// cudaLaunchConfig_t): what LaunchKernelEx and Function.LaunchEx take.
// The zero attributes make an ordinary launch.
type LaunchConfig struct {
	Grid, Block gpu.Dim3
	SharedMem   int
	Stream      *stream.Stream // nil: the device's default stream
	// Cluster is the thread-block cluster, in blocks
	// (cudaLaunchAttributeClusterDimension); zero for none. It needs a
	// device with clusters (Properties.ClusterLaunch: cuda on compute
	// capability 9.0 and later); each dimension must divide the grid's,
	// and a cluster holds at most 8 blocks, or 16 once the kernel allows
	// non-portable sizes (Function.SetNonPortableClusterSizeAllowed).
	Cluster gpu.Dim3
	// Cooperative makes every block resident at once
	// (cudaLaunchAttributeCooperative), as LaunchCooperativeKernel does.
	Cooperative bool
}

// Cluster size limits in blocks: portable, and what sm_90 allows a kernel
// that opts in.
const (
	maxPortableCluster    = 8
	maxNonPortableCluster = 16
)

// LaunchKernelEx launches f with cfg's configuration and attributes
// (hipLaunchKernelExC, cudaLaunchKernelEx). Its errors are
// LaunchKernelGGL's; a cluster that does not divide the grid or is too
// large is ErrInvalidConfiguration, and a cluster on a device without
// clusters (the cpu agent, rocm, cuda before sm_90) is ErrNotSupported,
// naming the device (errors.Is matches ErrInvalidConfiguration too).
// Nothing is queued when a check fails.
func LaunchKernelEx(cfg *LaunchConfig, f *Function, args ...any) error {
	if err := f.validAs("launch", gpu.ErrorInvalidDeviceFunction); err != nil {
		return err
	}
	e, err := cfg.entry(true)
	if err != nil {
		return err
	}
	return f.launchAny(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// LaunchKernelExArgs is LaunchKernelEx with typed arguments.
func LaunchKernelExArgs(cfg *LaunchConfig, f *Function, args *Args) error {
	if err := f.validAs("launch", gpu.ErrorInvalidDeviceFunction); err != nil {
		return err
	}
	e, err := cfg.entry(true)
	if err != nil {
		return err
	}
	return f.launchArgs(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// LaunchEx is Launch with cfg's configuration and attributes
// (hipDrvLaunchKernelEx, cuLaunchKernelEx); its errors are Launch's, and
// a cluster the device cannot take is as LaunchKernelEx says.
func (f *Function) LaunchEx(cfg *LaunchConfig, args ...any) error {
	if err := f.validAs("launch", gpu.ErrorInvalidHandle); err != nil {
		return err
	}
	e, err := cfg.entry(false)
	if err != nil {
		return err
	}
	return f.launchAny(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// entry is the entry point a launch with cfg follows.
func (cfg *LaunchConfig) entry(runtime bool) (entry, error) {
	if cfg == nil {
		return entry{}, gpu.Errorf(gpu.ErrorInvalidValue, "launch", "nil LaunchConfig")
	}
	return entry{runtime: runtime, coop: cfg.Cooperative, cluster: cfg.Cluster}, nil
}

// checkCluster checks a launch of grid blocks in clusters of c blocks
// against the device and the kernel.
func (f *Function) checkCluster(dev *gpu.Device, grid, c gpu.Dim3, e entry) error {
	const op = "launch"
	if f.clusterMax == 0 {
		return &gpu.Error{Code: gpu.ErrorNotSupported, Op: op, Err: gpu.ErrInvalidConfiguration,
			Msg: "kernel " + f.sym.Name + ": " + dev.String() + " has no thread-block clusters (cuda devices of compute capability 9.0 and later have them)"}
	}
	g := [3]uint32{grid.X, grid.Y, grid.Z}
	for i, n := range [3]uint32{c.X, c.Y, c.Z} {
		if n == 0 {
			return e.configErr(op, "kernel %s: cluster %v must be at least 1 in every dimension (or zero in all: no clusters)", f.sym.Name, c)
		}
		if g[i]%n != 0 {
			return e.configErr(op, "kernel %s: grid %v is not a whole number of clusters %v (dimension %d)", f.sym.Name, grid, c, i)
		}
	}
	limit, hint := f.clusterMax, " (Function.SetNonPortableClusterSizeAllowed raises it to 16)"
	if f.nonPortable.Load() {
		limit, hint = max(limit, maxNonPortableCluster), ""
	}
	if n := c.Count(); n > uint64(limit) {
		return e.configErr(op, "kernel %s: cluster %v of %d blocks exceeds the %d %s allows%s", f.sym.Name, c, n, limit, dev, hint)
	}
	return nil
}

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
	if f.mod.unloaded.Load() {
		return gpu.Errorf(gpu.ErrorInvalidHandle, op, "kernel %s: its module was unloaded", f.sym.Name)
	}
	if err := f.mod.dev.Agent().AllowNonPortableClusters(&f.sym, allow); err != nil {
		return gpu.Wrap(op, err)
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
		return 0, gpu.Errorf(gpu.ErrorInvalidValue, op, "nil LaunchConfig")
	}
	if cfg.SharedMem < 0 {
		return 0, gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: negative dynamic shared memory %d", f.sym.Name, cfg.SharedMem)
	}
	f.mod.mu.Lock()
	defer f.mod.mu.Unlock()
	if f.mod.unloaded.Load() {
		return 0, gpu.Errorf(gpu.ErrorInvalidHandle, op, "kernel %s: its module was unloaded", f.sym.Name)
	}
	g, b := cfg.Grid, cfg.Block
	n, err := f.mod.dev.Agent().MaxPotentialClusterSize(&f.sym, [3]uint32{g.X, g.Y, g.Z}, [3]uint32{b.X, b.Y, b.Z}, cfg.SharedMem)
	return n, gpu.Wrap(op, err)
}
