package rocr

// A KERNEL_DISPATCH's Reserved2 carries, beside DispatchCooperative, the
// thread-block cluster dimensions of a launch in clusters (CUDA's
// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, sm_90 and later): x in bits
// 8-15, y in 16-23, z in 24-31, in work-groups; all zero for a launch
// without clusters. Only agents whose AgentInfo.MaxClusterSize is above 0
// get such packets: the submitter checks the dimensions first (each
// divides the grid's work-groups in its dimension, their product within
// the agent's limit or the kernel's non-portable one).
const clusterShift = 8

// ClusterBits is the Reserved2 field for cluster dimensions dims, each
// 1 to 255.
func ClusterBits(dims [3]uint32) uint64 {
	return uint64(dims[0]&0xff)<<clusterShift | uint64(dims[1]&0xff)<<(clusterShift+8) | uint64(dims[2]&0xff)<<(clusterShift+16)
}

// ClusterDims is the cluster dimensions a packet's Reserved2 carries;
// zero for a dispatch without clusters.
func ClusterDims(reserved2 uint64) [3]uint32 {
	return [3]uint32{uint32(reserved2>>clusterShift) & 0xff, uint32(reserved2>>(clusterShift+8)) & 0xff, uint32(reserved2>>(clusterShift+16)) & 0xff}
}

// AllowNonPortableClusters lets kernel k launch in clusters larger than
// the agent's portable MaxClusterSize, where the hardware allows (see
// Clusters).
func (a *Agent) AllowNonPortableClusters(k *KernelSymbol, allow bool) error {
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
func (a *Agent) MaxPotentialClusterSize(k *KernelSymbol, grid, group [3]uint32, dynGroupMem int) (int, error) {
	const op = "cluster size"
	c, err := a.clusters(op, k)
	if err != nil {
		return 0, err
	}
	if dynGroupMem < 0 {
		return 0, Errorf(StatusErrorInvalidArgument, op, "kernel %s: dynamic group memory %d", k.Name, dynGroupMem)
	}
	return c.MaxPotentialClusterSize(k, grid, group, dynGroupMem)
}

func (a *Agent) clusters(op string, k *KernelSymbol) (Clusters, error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, Errorf(StatusErrorInvalidArgument, op, "nil kernel")
	}
	c, ok := a.drv.(Clusters)
	if !ok || a.info.MaxClusterSize == 0 {
		return nil, Newf(ErrNotSupported, StatusErrorNotSupported, op, "%s has no thread-block clusters", a)
	}
	return c, nil
}
