package collective

import (
	"context"
	"errors"
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
// ranks have met, on Close, or after the rendezvous timeout
// (HIPGO_COLLECTIVE_TIMEOUT, five minutes by default); a process keeps
// at most 64 open at once.
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

// readID is ReadID that passes on a *gpu.Error of r's own (a Store's
// timeout) as it is.
func readID(r io.Reader) (ID, error) {
	var id ID
	if _, err := io.ReadFull(r, id[:]); err != nil {
		var ge *gpu.Error
		if errors.As(err, &ge) {
			return ID{}, err
		}
		return ID{}, gpu.Errorf(gpu.ErrInvalidValue, "collective id", "read the ID: %v", err)
	}
	return id, nil
}

// NewRank joins rank of a communicator of size ranks named by id, on dev
// (ncclCommInitRank). It returns once every rank has joined, or fails
// after the rendezvous timeout (HIPGO_COLLECTIVE_TIMEOUT, five minutes
// by default) with an error wrapping context.DeadlineExceeded.
func NewRank(dev *gpu.Device, id ID, rank, size int) (*Comm, error) {
	return NewRankContext(context.Background(), dev, id, rank, size)
}

// NewRankContext is NewRank that gives up when ctx is done, or at ctx's
// deadline where that comes before the rendezvous timeout; the error
// wraps ctx's. On NVIDIA and AMD GPUs the library's own rendezvous is
// not cut short.
func NewRankContext(ctx context.Context, dev *gpu.Device, id ID, rank, size int) (*Comm, error) {
	const op = "collective init rank"
	if err := checkDevice(op, 0, dev); err != nil {
		return nil, err
	}
	if size < 1 || rank < 0 || rank >= size {
		return nil, argErr(op, "rank %d of %d ranks", rank, size)
	}
	if err := checkTimeoutEnv(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var be backend
	var err error
	switch drv := driverOf(dev); drv {
	case "cpu":
		be, err = newCPURank(ctx, id, rank, size)
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
	return JoinContext(context.Background(), dev, rw, rank, size)
}

// JoinContext is Join whose rendezvous (NewRankContext's) gives up when
// ctx is done. Reads and writes of rw are rw's to bound: a Store's
// Key does, through the context FromEnvContext gives it.
func JoinContext(ctx context.Context, dev *gpu.Device, rw io.ReadWriter, rank, size int) (*Comm, error) {
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
			_ = id.Close()
			var ge *gpu.Error
			if errors.As(err, &ge) {
				return nil, err
			}
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "write the ID: %v", err)
		}
	} else if id, err = readID(rw); err != nil {
		return nil, err
	}
	c, err := NewRankContext(ctx, dev, id, rank, size)
	if err != nil && rank == 0 {
		_ = id.Close()
	}
	return c, err
}
