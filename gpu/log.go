package gpu

import (
	"io"

	"github.com/hipgo/hipgo/gpu/internal/debug"
)

// SetLogOutput sends AMD_LOG_LEVEL's messages to w instead of stderr.
func SetLogOutput(w io.Writer) { debug.SetOutput(w) }
