package collective

import "github.com/hipgo/hipgo/gpu"

func vendorAll(drv string, devs []*gpu.Device) ([]backend, error) {
	return nil, gpu.Errorf(gpu.ErrorNotSupported, "collective init", "no %s backend yet", drv)
}

func vendorID(drv string) (ID, error) {
	return ID{}, gpu.Errorf(gpu.ErrorNotSupported, "collective id", "no %s backend yet", drv)
}

func vendorRank(drv string, dev *gpu.Device, id ID, rank, size int) (backend, error) {
	return nil, gpu.Errorf(gpu.ErrorNotSupported, "collective init rank", "no %s backend yet", drv)
}
