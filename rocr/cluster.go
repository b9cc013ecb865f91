package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// AllowNonPortableClusters lets kernel k launch in clusters larger than
// the agent's portable MaxClusterSize, where the hardware allows (see
// Clusters).
func (a *Agent) AllowNonPortableClusters(k *hsa.KernelSymbol, allow bool) error {
	const op = "cluster size"
	c, err := a.clusters(op, k)
	if err != nil {
		return err
	}
	return c.AllowNonPortableClusters(k, allow)
}

// MaxPotentialClusterSize is the largest cluster, in work-groups, in
// which a launch of kernel k of grid work-groups of group work-items with
// dynGroupMem bytes of dynamic group memory each can run (see Clusters).
func (a *Agent) MaxPotentialClusterSize(k *hsa.KernelSymbol, grid, group [3]uint32, dynGroupMem int) (int, error) {
	const op = "cluster size"
	c, err := a.clusters(op, k)
	if err != nil {
		return 0, err
	}
	if dynGroupMem < 0 {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: dynamic group memory %d", k.Name, dynGroupMem)
	}
	return c.MaxPotentialClusterSize(k, grid, group, dynGroupMem)
}

func (a *Agent) clusters(op string, k *hsa.KernelSymbol) (spi.Clusters, error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "nil kernel")
	}
	c, ok := a.drv.(spi.Clusters)
	if !ok || a.info.MaxClusterSize == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s has no thread-block clusters", a)
	}
	return c, nil
}
