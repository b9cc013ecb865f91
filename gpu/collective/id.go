package collective

import (
	"io"

	"github.com/hipgo/hipgo/gpu"
)

// ID names one communicator while its ranks join it (ncclUniqueId: 128
// opaque bytes). One rank makes it with NewID and hands it to the others.
type ID [128]byte

// NewID makes the ID of a new communicator over devices like dev
// (ncclGetUniqueId). For cpu agents it starts, in this process, the
// listener the ranks meet at, and the ID carries a secret of 256 bits
// from crypto/rand that every connection of the communicator proves it
// holds: hand the ID only to the ranks. The listener closes once the
// ranks have met, on Close, or after the rendezvous timeout (five
// minutes); a process keeps at most 64 open at once.
func NewID(dev *gpu.Device) (ID, error) {
	const op = "collective id"
	if err := checkDevice(op, 0, dev); err != nil {
		return ID{}, err
	}
	switch drv := driverOf(dev); drv {
	case "cpu":
		return newCPUID()
	case "cuda", "rocm":
		return vendorID(drv)
	default:
		return ID{}, gpu.Errorf(gpu.ErrNotSupported, op, "no collectives for driver %q of %s", drv, dev)
	}
}

// Close releases the listener NewID started for id in this process, if
// it still waits for ranks (those that have not all met fail). It does
// nothing for an ID made elsewhere, or by NCCL or RCCL.
func (id ID) Close() error {
	closeCPUID(id)
	return nil
}

// WriteTo writes the ID's 128 bytes to w.
func (id ID) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(id[:])
	return int64(n), err
}

// ReadID reads an ID that WriteTo wrote.
func ReadID(r io.Reader) (ID, error) {
	var id ID
	if _, err := io.ReadFull(r, id[:]); err != nil {
		return ID{}, gpu.Errorf(gpu.ErrInvalidValue, "collective id", "read the ID: %v", err)
	}
	return id, nil
}

// NewRank joins rank of a communicator of size ranks named by id, on dev
// (ncclCommInitRank). It returns once every rank has joined.
func NewRank(dev *gpu.Device, id ID, rank, size int) (*Comm, error) {
	const op = "collective init rank"
	if err := checkDevice(op, 0, dev); err != nil {
		return nil, err
	}
	if size < 1 || rank < 0 || rank >= size {
		return nil, argErr(op, "rank %d of %d ranks", rank, size)
	}
	var be backend
	var err error
	switch drv := driverOf(dev); drv {
	case "cpu":
		be, err = newCPURank(id, rank, size)
	case "cuda", "rocm":
		be, err = vendorRank(drv, dev, id, rank, size)
	default:
		err = gpu.Errorf(gpu.ErrNotSupported, op, "no collectives for driver %q of %s", drv, dev)
	}
	if err != nil {
		return nil, err
	}
	return newComm(dev, rank, size, be), nil
}

// Join is NewRank with the ID handed through rw: rank 0 makes it and
// writes it there, the other ranks read it (rw reaches all of them: a
// Store's Key, a pipe or connection per peer that the caller fans out).
func Join(dev *gpu.Device, rw io.ReadWriter, rank, size int) (*Comm, error) {
	const op = "collective join"
	if rw == nil {
		return nil, argErr(op, "nil rendezvous")
	}
	if size < 1 || rank < 0 || rank >= size {
		return nil, argErr(op, "rank %d of %d ranks", rank, size)
	}
	var id ID
	var err error
	if rank == 0 {
		if id, err = NewID(dev); err != nil {
			return nil, err
		}
		if _, err := id.WriteTo(rw); err != nil {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "write the ID: %v", err)
		}
	} else if id, err = ReadID(rw); err != nil {
		return nil, err
	}
	return NewRank(dev, id, rank, size)
}
