package collective

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// driverOf is the driver of a device the caller checked.
func driverOf(dev *gpu.Device) string { return dev.Agent().Info().Driver }

func checkDevice(op string, i int, dev *gpu.Device) error {
	if dev == nil {
		return gpu.Errorf(gpu.ErrInvalidDevice, op, "device %d is nil", i)
	}
	if err := dev.Valid(); err != nil {
		return errs.Wrap(op, err)
	}
	return nil
}

// NewAll makes a communicator over devs in this process, one rank per
// device in the order given (ncclCommInitAll). The devices are distinct
// and of one driver.
func NewAll(devs ...*gpu.Device) ([]*Comm, error) {
	const op = "collective init"
	if len(devs) == 0 {
		return nil, argErr(op, "no devices")
	}
	for i, d := range devs {
		if err := checkDevice(op, i, d); err != nil {
			return nil, err
		}
		for j := range i {
			if devs[j].Agent() == d.Agent() {
				return nil, argErr(op, "%s is given twice (ranks %d and %d): one rank per device", d, j, i)
			}
		}
		if driverOf(d) != driverOf(devs[0]) {
			return nil, gpu.Errorf(gpu.ErrNotSupported, op, "%s and %s have different drivers: a communicator spans one kind of device", devs[0], d)
		}
	}
	var bes []backend
	switch drv := driverOf(devs[0]); drv {
	case "cpu":
		for _, r := range newCPUAll(len(devs)) {
			bes = append(bes, r)
		}
	case "cuda", "rocm":
		var err error
		if bes, err = vendorAll(drv, devs); err != nil {
			return nil, err
		}
	default:
		return nil, gpu.Errorf(gpu.ErrNotSupported, op, "no collectives for driver %q of %s", drv, devs[0])
	}
	comms := make([]*Comm, len(devs))
	for i, d := range devs {
		comms[i] = newComm(d, i, len(devs), bes[i])
	}
	return comms, nil
}
