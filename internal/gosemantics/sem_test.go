package gosemantics_test

import (
	"fmt"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	sem "github.com/hipgo/hipgo/internal/gosemantics"
)

// runOps evaluates every input pair on dev, the float slots that may be
// out of range cleared.
func runOps(dev *gpu.Device) ([]uint64, error) {
	xs, ys, fs := sem.Inputs()
	bx, err := buffer.FromSlice(dev, xs)
	if err != nil {
		return nil, err
	}
	defer bx.Free()
	by, err := buffer.FromSlice(dev, ys)
	if err != nil {
		return nil, err
	}
	defer by.Free()
	bf, err := buffer.FromSlice(dev, fs)
	if err != nil {
		return nil, err
	}
	defer bf.Free()
	out, err := buffer.New[uint64](dev, len(xs)*sem.N)
	if err != nil {
		return nil, err
	}
	defer out.Free()
	if err := out.Memset(0); err != nil {
		return nil, err
	}
	s, err := stream.New(dev)
	if err != nil {
		return nil, err
	}
	defer s.Destroy()
	if err := sem.LaunchOps(s, gpu.D1(gpu.Blocks(len(xs), 64)), gpu.D1(64), 0, bx, by, bf, out); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	got, err := out.ToSlice()
	for i := range got {
		if i%sem.N >= sem.FloatSlots {
			got[i] = 0
		}
	}
	return got, err
}

// runFaults runs each fault case on dev: the fault's kind and index, or
// zeros, and out[0].
func runFaults(dev *gpu.Device) ([]int64, error) {
	var res []int64
	for _, c := range sem.FaultCases {
		x, err := buffer.FromSlice(dev, []int32{10, 11, 12, 13, 14})
		if err != nil {
			return nil, err
		}
		o, err := buffer.FromSlice(dev, []int32{0})
		if err != nil {
			return nil, err
		}
		s, err := stream.New(dev) // a failed launch fails its stream
		if err != nil {
			return nil, err
		}
		err = sem.LaunchFaults(s, gpu.D1(1), gpu.D1(1), 0, x, c.Which, c.K, o)
		if err == nil {
			err = s.Synchronize()
		}
		var kind int
		var index int64
		if err != nil {
			var ok bool
			if kind, index, _, ok = sem.ParseFault(err.Error()); !ok {
				return nil, fmt.Errorf("case %v: %w", c, err)
			}
			if kind == sem.FaultShift {
				index = int64(c.K)
			}
		}
		got, rerr := o.ToSlice()
		_ = s.Destroy()
		x.Free()
		o.Free()
		if rerr != nil {
			return nil, rerr
		}
		res = append(res, int64(kind), index, int64(got[0]))
	}
	return res, nil
}

// Every rule of the subset's integer semantics gives the cpu agent's
// results on every GPU present (the GPU test pack), and each fault of
// checked mode is the same fault. internal/kernelgen's TestSemanticsRun
// holds the cpu agent and the emitted C++ to plain Go.
func TestSemanticsDifferential(t *testing.T) {
	gputest.Differential(t, runOps)
	gputest.Differential(t, runFaults)
}
