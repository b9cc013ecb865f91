package collective_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Every device contributes [rank, 10·(rank+1)] and all end with the
// average. On a machine without GPUs the cpu agents stand in
// (HIPGO_CPU_AGENTS=2 or more); one GPU is a one-rank communicator.
func ExampleAllReduce() {
	defer gpu.Shutdown()
	devs, err := gpu.Devices()
	if err != nil {
		fmt.Println(err)
		return
	}
	comms, err := collective.NewAll(devs...)
	if err != nil {
		fmt.Println(err)
		return
	}
	n := float32(len(devs))
	var streams []*stream.Stream
	var bufs []*buffer.Buffer[float32]
	for i, d := range devs {
		s, _ := stream.New(d)
		b, _ := buffer.FromSlice(d, []float32{float32(i), 10 * float32(i+1)})
		streams, bufs = append(streams, s), append(bufs, b)
	}
	// One goroutine drives every rank: a group queues them all without
	// waiting for any.
	g, _ := collective.GroupStart(comms...)
	for i, c := range comms {
		_ = collective.AllReduce(c, streams[i], bufs[i], bufs[i], collective.Avg) // in place
	}
	if err := g.End(); err != nil {
		fmt.Println(err)
		return
	}
	// The averages of 0..n-1 and of 10..10n.
	want := []float32{(n - 1) / 2, 5 * (n + 1)}
	agree := true
	for i := range devs {
		_ = streams[i].Synchronize()
		v, _ := bufs[i].ToSlice()
		agree = agree && len(v) == 2 && v[0] == want[0] && v[1] == want[1]
		_ = bufs[i].Free()
		_ = comms[i].Destroy()
		_ = streams[i].Destroy()
	}
	fmt.Println("every rank holds the average:", agree)
	// Output:
	// every rank holds the average: true
}
