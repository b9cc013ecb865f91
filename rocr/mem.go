package rocr

import "github.com/hipgo/hipgo/rocr/spi"

// Sanitizing reports whether agents that can check memory use (the cpu
// agent) track which bytes of device memory were written since
// allocation, and whether the API reports buffers used on unordered
// streams where automatic dependencies are off (HIPGO_SANITIZE=1 or an
// spi.EnableSanitize not yet undone: gputest.Sanitize).
func Sanitizing() bool { return spi.Sanitizing() }
