package buffer_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hipMallocAsync and hipFreeAsync: memory freed on a stream is handed to
// the same stream's next allocation without waiting for the device.
func ExampleNewAsync() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()
	pool, _ := buffer.DefaultMemPool(dev)
	// Keep up to 1 MiB of freed memory across synchronizations, so that
	// each iteration reuses the last one's block.
	pool.SetReleaseThreshold(1 << 20)
	for i := range 3 {
		b, err := buffer.NewAsync[float32](s, 1024)
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = stream.Fill(s, b, float32(i))
		out := make([]float32, 2)
		_ = stream.CopyToHost(s, out, b, 0)
		_ = b.FreeAsync(s)
		_ = s.Synchronize()
		fmt.Println(out)
	}
	st := pool.Stats()
	fmt.Println("used", st.Used, "reserved", st.Reserved, "high-water", st.UsedHigh)
	pool.SetReleaseThreshold(0)
	_ = dev.Synchronize() // returns unused memory above the release threshold
	fmt.Println("reserved after synchronize", pool.Stats().Reserved)
	// Output:
	// [0 0]
	// [1 1]
	// [2 2]
	// used 0 reserved 4096 high-water 4096
	// reserved after synchronize 0
}
