package gpu

// The drivers register themselves with rocr; this is the one place in
// gpu/* that names them, so a plain import of gpu finds every device.
import (
	_ "github.com/hipgo/hipgo/rocr/drivers/cpu"
	_ "github.com/hipgo/hipgo/rocr/drivers/cuda"
	_ "github.com/hipgo/hipgo/rocr/drivers/rocm"
)
