package aql

// DispatchCooperative, in a KERNEL_DISPATCH packet's Reserved2, marks a
// cooperative dispatch (hipLaunchCooperativeKernel): every work-group of
// the grid is resident at once, so the kernel may wait at a grid-wide
// barrier. The submitter checks the grid against the agent's occupancy
// before it sets the mark; a driver that runs packets itself acts on it
// (the cpu agent runs each group on its own goroutine and gives them a
// barrier, cuda launches with the cooperative attribute). Command
// processors ignore Reserved2 (ROCm's runtime keeps profiler correlation
// ids there), so on rocm the packet is an ordinary dispatch, as HIP's is.
const DispatchCooperative uint64 = 1

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
