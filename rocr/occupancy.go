package rocr

// Occupancy is implemented by agent drivers that can say how many
// work-groups of a kernel fit on one compute unit at once
// (hipOccupancyMaxActiveBlocksPerMultiprocessor) and which work-group size
// fills the agent best (hipOccupancyMaxPotentialBlockSize). The cuda driver
// asks the driver's occupancy calculator; the rocm driver computes it from
// the kernel's code object and its target's limits; the cpu driver answers
// from its worker model. Agents whose drivers lack it answer ErrNotSupported.
type Occupancy interface {
	// MaxActiveGroups is the number of work-groups of groupSize work-items
	// with dynGroupMem bytes of dynamic group memory each that one compute
	// unit holds at once; 0 when such a group cannot run at all.
	MaxActiveGroups(k *KernelSymbol, groupSize, dynGroupMem int) (int, error)
	// MaxPotentialGroupSize is the work-group size (at most limit, when
	// limit > 0) that maximizes occupancy, and the smallest grid, in
	// work-groups, that reaches it on every compute unit.
	MaxPotentialGroupSize(k *KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error)
}

// MaxActiveGroups asks the agent's driver how many work-groups of kernel k
// fit on one compute unit (see Occupancy).
func (a *Agent) MaxActiveGroups(k *KernelSymbol, groupSize, dynGroupMem int) (int, error) {
	const op = "occupancy"
	o, err := a.occupancy(op, k)
	if err != nil {
		return 0, err
	}
	if groupSize <= 0 || dynGroupMem < 0 {
		return 0, Errorf(StatusErrorInvalidArgument, op, "kernel %s: group size %d, dynamic group memory %d", k.Name, groupSize, dynGroupMem)
	}
	return o.MaxActiveGroups(k, groupSize, dynGroupMem)
}

// MaxPotentialGroupSize asks the agent's driver for the work-group size
// that maximizes occupancy of kernel k (see Occupancy).
func (a *Agent) MaxPotentialGroupSize(k *KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error) {
	const op = "occupancy"
	o, err := a.occupancy(op, k)
	if err != nil {
		return 0, 0, err
	}
	if dynGroupMem < 0 || limit < 0 {
		return 0, 0, Errorf(StatusErrorInvalidArgument, op, "kernel %s: dynamic group memory %d, group size limit %d", k.Name, dynGroupMem, limit)
	}
	return o.MaxPotentialGroupSize(k, dynGroupMem, limit)
}

func (a *Agent) occupancy(op string, k *KernelSymbol) (Occupancy, error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, Errorf(StatusErrorInvalidArgument, op, "nil kernel")
	}
	o, ok := a.drv.(Occupancy)
	if !ok {
		return nil, Newf(ErrNotSupported, StatusErrorNotSupported, op, "%s has no occupancy calculator", a)
	}
	return o, nil
}
