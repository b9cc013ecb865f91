package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// MaxActiveGroups asks the agent's driver how many work-groups of kernel k
// fit on one compute unit (see Occupancy).
func (a *Agent) MaxActiveGroups(k *hsa.KernelSymbol, groupSize, dynGroupMem int) (int, error) {
	const op = "occupancy"
	o, err := a.occupancy(op, k)
	if err != nil {
		return 0, err
	}
	if groupSize <= 0 || dynGroupMem < 0 {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: group size %d, dynamic group memory %d", k.Name, groupSize, dynGroupMem)
	}
	return o.MaxActiveGroups(k, groupSize, dynGroupMem)
}

// MaxPotentialGroupSize asks the agent's driver for the work-group size
// that maximizes occupancy of kernel k (see Occupancy).
func (a *Agent) MaxPotentialGroupSize(k *hsa.KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error) {
	const op = "occupancy"
	o, err := a.occupancy(op, k)
	if err != nil {
		return 0, 0, err
	}
	if dynGroupMem < 0 || limit < 0 {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: dynamic group memory %d, group size limit %d", k.Name, dynGroupMem, limit)
	}
	return o.MaxPotentialGroupSize(k, dynGroupMem, limit)
}

func (a *Agent) occupancy(op string, k *hsa.KernelSymbol) (spi.Occupancy, error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "nil kernel")
	}
	o, ok := a.drv.(spi.Occupancy)
	if !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s has no occupancy calculator", a)
	}
	return o, nil
}

// StreamPriorityRange asks the agent's driver for its range of stream
// priorities (see StreamPriorities): (0, 0) where the driver has none.
func (a *Agent) StreamPriorityRange() (least, greatest int, err error) {
	const op = "stream priority range"
	if err := a.check(op); err != nil {
		return 0, 0, err
	}
	p, ok := a.drv.(spi.StreamPriorities)
	if !ok {
		return 0, 0, nil
	}
	return p.StreamPriorityRange()
}
