package gputest_test

import (
	"errors"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// buffer32 is a buffer of n float32, all 1.
func buffer32(dev *gpu.Device, n int) (*buffer.Buffer[float32], error) {
	x, err := buffer.New[float32](dev, n)
	if err != nil {
		return nil, err
	}
	if err := x.Fill(1); err != nil {
		return nil, errors.Join(err, x.Free())
	}
	return x, nil
}
