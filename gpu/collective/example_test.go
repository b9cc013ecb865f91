package collective_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Two devices average their values. On a machine without GPUs the cpu
// agents stand in (HIPGO_CPU_AGENTS=2 or more).
func ExampleAllReduce() {
	defer gpu.Shutdown()
	all, _ := gpu.Devices()
	if len(all) < 2 {
		fmt.Println("an all-reduce wants two devices")
		return
	}
	devs := all[:2]
	comms, err := collective.NewAll(devs...)
	if err != nil {
		fmt.Println(err)
		return
	}
	var streams []*stream.Stream
	var bufs []*buffer.Buffer[float32]
	for i, d := range devs {
		s, _ := stream.New(d)
		b, _ := buffer.FromSlice(d, []float32{float32(i), 10 * float32(i+1)})
		streams, bufs = append(streams, s), append(bufs, b)
	}
	// One goroutine drives both ranks: a group queues both without
	// waiting for either.
	g, _ := collective.GroupStart(comms...)
	for i, c := range comms {
		_ = collective.AllReduce(c, streams[i], bufs[i], bufs[i], collective.Avg)
	}
	if err := g.End(); err != nil {
		fmt.Println(err)
		return
	}
	for i := range devs {
		_ = streams[i].Synchronize()
		v, _ := bufs[i].ToSlice()
		fmt.Println("rank", i, v)
		_ = bufs[i].Free()
		_ = comms[i].Destroy()
		_ = streams[i].Destroy()
	}
	// Output:
	// rank 0 [0.5 15]
	// rank 1 [0.5 15]
}
