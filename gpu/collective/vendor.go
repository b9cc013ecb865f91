package collective

import "github.com/hipgo/hipgo/gpu"

func vendorAll(drv string, devs []*gpu.Device) ([]backend, error) {
	return nil, gpu.Errorf(gpu.ErrorNotSupported, "collective init", "no %s backend yet", drv)
}
