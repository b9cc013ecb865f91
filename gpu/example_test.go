package gpu_test

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/gpu"
)

// The default device is the first GPU, or the cpu agent when there is none
// (the tests force the cpu agent with HIPGO_DRIVER=cpu).
func ExampleDefault() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	p := dev.Properties()
	fmt.Println("target:", p.GCNArchName)
	fmt.Println("driver:", p.Driver)
	fmt.Println("warp size:", p.WarpSize)
	fmt.Println("max threads per block:", p.MaxThreadsPerBlock)
	// Output:
	// target: go
	// driver: cpu
	// warp size: 32
	// max threads per block: 1024
}

// Errors carry HIP's codes; errors.Is matches them.
func ExampleErrorCode() {
	_, err := gpu.Get(42)
	fmt.Println(errors.Is(err, gpu.ErrInvalidDevice))
	var ge *gpu.Error
	if errors.As(err, &ge) {
		fmt.Println(int(ge.Code), ge.Code.Name())
	}
	gpu.Shutdown()
	// Output:
	// true
	// 101 hipErrorInvalidDevice
}
