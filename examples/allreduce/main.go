// Command allreduce is data-parallel training in miniature: every visible
// device holds a replica of a linear model's weights and its own shard of
// the data, computes the gradient on its shard, and the replicas average
// their gradients with an all-reduce before each step, so they stay
// identical and learn what one device would learn from all the data.
//
// It prints the weights each device ends with and checks that they agree
// and are close to the weights that generated the data. It runs on every
// GPU of the first device's driver, or on the cpu agents
// (HIPGO_CPU_AGENTS=4 gives four).
package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

const (
	samples = 256 // per device
	dim     = 4
	steps   = 300
	rate    = 0.2
)

var trueW = [dim]float32{0.5, -1.25, 2, 0.75}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "allreduce:", err)
		os.Exit(1)
	}
}

// replica is one device's model, data and scratch space.
type replica struct {
	s          *stream.Stream
	x, xt      *buffer.Buffer[float32] // samples×dim and its transpose
	y, r       *buffer.Buffer[float32] // targets, residuals
	w, grad    *buffer.Buffer[float32]
	allocation []interface{ Free() error }
}

// shard makes device d's data: inputs from a fixed generator, targets
// from trueW.
func shard(d int) (x, y []float32) {
	seed := uint32(12345 + 977*d)
	next := func() float32 {
		seed = seed*1664525 + 1013904223
		return float32(seed>>8)/float32(1<<24)*2 - 1
	}
	x, y = make([]float32, samples*dim), make([]float32, samples)
	for i := range samples {
		for j := range dim {
			x[i*dim+j] = next()
			y[i] += trueW[j] * x[i*dim+j]
		}
	}
	return x, y
}

func newReplica(dev *gpu.Device, d int) (*replica, error) {
	r := &replica{}
	s, err := stream.New(dev)
	if err != nil {
		return nil, err
	}
	r.s = s
	hx, hy := shard(d)
	for _, b := range []struct {
		p    **buffer.Buffer[float32]
		init []float32
		n    int
	}{{&r.x, hx, 0}, {&r.y, hy, 0}, {&r.xt, nil, samples * dim}, {&r.r, nil, samples}, {&r.w, nil, dim}, {&r.grad, nil, dim}} {
		if b.init != nil {
			*b.p, err = buffer.FromSlice(dev, b.init)
		} else {
			*b.p, err = buffer.New[float32](dev, b.n)
		}
		if err != nil {
			r.free()
			return nil, err
		}
		r.allocation = append(r.allocation, *b.p)
	}
	if err := r.w.Fill(0); err != nil {
		r.free()
		return nil, err
	}
	return r, kernels.Transpose(s, r.x, r.xt, samples, dim)
}

func (r *replica) free() {
	for _, b := range r.allocation {
		_ = b.Free()
	}
	_ = r.s.Destroy()
}

// gradient computes grad = Xᵀ(Xw − y)/samples on the replica's stream.
func (r *replica) gradient() error {
	if err := r.s.Copy(r.r, 0, r.y, 0, samples); err != nil {
		return err
	}
	if err := kernels.Sgemm(r.s, samples, 1, dim, 1, r.x, r.w, -1, r.r); err != nil {
		return err
	}
	return kernels.Sgemm(r.s, dim, 1, samples, 1.0/samples, r.xt, r.r, 0, r.grad)
}

// devices is every device of the first device's driver.
func devices() ([]*gpu.Device, error) {
	all, err := gpu.Devices()
	if err != nil {
		return nil, err
	}
	var out []*gpu.Device
	for _, d := range all {
		if d.Properties().Driver == all[0].Properties().Driver {
			out = append(out, d)
		}
	}
	return out, nil
}

func run(out io.Writer) error {
	defer gpu.Shutdown()
	devs, err := devices()
	if err != nil {
		return err
	}
	comms, err := collective.NewAll(devs...)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range comms {
			_ = c.Destroy()
		}
	}()
	reps := make([]*replica, len(devs))
	for i, d := range devs {
		if reps[i], err = newReplica(d, i); err != nil {
			return err
		}
		defer reps[i].free()
	}
	fmt.Fprintf(out, "%d devices (%s), %d samples each\n", len(devs), devs[0].Properties().Driver, samples)
	for range steps {
		// One goroutine drives every replica: a group queues each
		// device's all-reduce without waiting for the others.
		for _, r := range reps {
			if err := r.gradient(); err != nil {
				return err
			}
		}
		g, err := collective.GroupStart(comms...)
		if err != nil {
			return err
		}
		for i, r := range reps {
			if err := collective.AllReduce(comms[i], r.s, r.grad, r.grad, collective.Avg); err != nil {
				return err
			}
		}
		if err := g.End(); err != nil {
			return err
		}
		for _, r := range reps {
			if err := kernels.Saxpy(r.s, -rate, r.grad, r.w, dim); err != nil {
				return err
			}
		}
	}
	var first []float32
	for i, r := range reps {
		if err := r.s.Synchronize(); err != nil {
			return err
		}
		w, err := r.w.ToSlice()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "device %d: w = %.4f\n", i, w)
		if i == 0 {
			first = w
			continue
		}
		for j := range w {
			if w[j] != first[j] {
				return fmt.Errorf("FAILED: device %d's w[%d] = %v, device 0's %v: the replicas diverged", i, j, w[j], first[j])
			}
		}
	}
	for j := range first {
		if math.Abs(float64(first[j]-trueW[j])) > 1e-3 {
			return fmt.Errorf("FAILED: w[%d] = %v, want %v", j, first[j], trueW[j])
		}
	}
	fmt.Fprintf(out, "replicas agree; w matches %.4f within 1e-3\n", trueW)
	return nil
}
