package rocr

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
