package gpu

import (
	"io"
	"log/slog"

	"github.com/hipgo/hipgo/gpu/internal/debug"
)

// SetLogOutput sends the default logger's lines (`:3:hipgo: launch
// kernel=…`, HIP's form) to w instead of stderr.
func SetLogOutput(w io.Writer) { debug.SetOutput(w) }

// SetLogger sends hipgo's log messages to l, at slog's levels:
// AMD_LOG_LEVEL 1 is slog.LevelError, 2 LevelWarn, 3 LevelInfo (every
// launch, with the kernel, grid, block, shared memory and device as
// attributes) and 4 LevelDebug. nil restores the default logger. Which
// messages hipgo makes is set by AMD_LOG_LEVEL or HIPGO_LOG (slog's level
// names, or off) when the runtime opens, or by SetLogLevel; l's handler
// may drop more.
func SetLogger(l *slog.Logger) { debug.SetLogger(l) }

// SetLogLevel sets the least level hipgo logs at, in place of
// AMD_LOG_LEVEL and HIPGO_LOG: slog.LevelDebug logs everything, a level
// above slog.LevelError nothing. Disabled levels cost a load and a compare.
func SetLogLevel(level slog.Level) {
	switch {
	case level <= slog.LevelDebug:
		debug.SetLevel(debug.LogDebug)
	case level <= slog.LevelInfo:
		debug.SetLevel(debug.LogInfo)
	case level <= slog.LevelWarn:
		debug.SetLevel(debug.LogWarning)
	case level <= slog.LevelError:
		debug.SetLevel(debug.LogError)
	default:
		debug.SetLevel(0)
	}
}
