// Package debug holds the debug switches HIP users know (AMD_LOG_LEVEL,
// AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, HIP_LAUNCH_BLOCKING), read
// when the runtime opens, for every package of the API.
package debug

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// time0 stamps the default logger's records, which print no time.
var time0 time.Time

// Debug switches that HIP users know, read when the runtime opens:
//
//	AMD_LOG_LEVEL=N         log: 1 errors, 2 warnings, 3 info (every launch), 4 debug
//	HIPGO_LOG=LEVEL         the same by slog's names (error, warn, info, debug, off) or numbers; it wins over AMD_LOG_LEVEL
//	AMD_SERIALIZE_KERNEL=N  1: wait for the device before each launch, 2: after it, 3: both
//	AMD_SERIALIZE_COPY=N    the same for copies and fills on streams
//	HIP_LAUNCH_BLOCKING=1   every launch waits for its kernel (as AMD_SERIALIZE_KERNEL=2)
//
// Serialized launches return the kernel's own failure, which makes a
// faulting kernel easy to find.
var debug struct {
	level  atomic.Int32
	kernel atomic.Int32
	copies atomic.Int32
	deps   atomic.Bool
	mu     sync.Mutex
	out    io.Writer                   // the default logger's destination (nil: stderr)
	logger atomic.Pointer[slog.Logger] // the program's logger (nil: the default)
	set    atomic.Bool                 // the program set the level: the environment no longer does
}

// Log levels of AMD_LOG_LEVEL.
const (
	LogError   = 1
	LogWarning = 2
	LogInfo    = 3
	LogDebug   = 4
)

func envInt(name string) int32 {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v < 0 {
		return 0
	}
	return int32(v)
}

// logLevel is HIPGO_LOG's value as an AMD_LOG_LEVEL, or -1 where it is
// unset or not a level.
func logLevel(v string) int32 {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return -1
	case "off", "none", "0":
		return 0
	case "error", "1":
		return LogError
	case "warn", "warning", "2":
		return LogWarning
	case "info", "3":
		return LogInfo
	case "debug", "4":
		return LogDebug
	}
	return -1
}

// ReadEnv reads the switches; gpu calls it when the runtime opens.
func ReadEnv() {
	level := envInt("AMD_LOG_LEVEL")
	if l := logLevel(os.Getenv("HIPGO_LOG")); l >= 0 {
		level = l
	}
	if !debug.set.Load() {
		debug.level.Store(level)
	}
	k := envInt("AMD_SERIALIZE_KERNEL")
	if os.Getenv("HIP_LAUNCH_BLOCKING") == "1" {
		k |= 2
	}
	debug.kernel.Store(k)
	debug.copies.Store(envInt("AMD_SERIALIZE_COPY"))
	debug.deps.Store(os.Getenv("HIPGO_CHECK_DEPS") == "1")
}

// SetOutput sends the default logger's lines to w instead of stderr.
func SetOutput(w io.Writer) {
	debug.mu.Lock()
	debug.out = w
	debug.mu.Unlock()
}

// SetLogger sends hipgo's messages to l (nil: the default logger, lines
// on stderr or SetOutput's writer).
func SetLogger(l *slog.Logger) { debug.logger.Store(l) }

// SetLevel sets the level messages must reach to be logged, as an
// AMD_LOG_LEVEL (0: none).
func SetLevel(level int) {
	debug.set.Store(true)
	debug.level.Store(int32(max(level, 0)))
}

// ResetLevel hands the level back to the environment, read again now.
func ResetLevel() {
	debug.set.Store(false)
	ReadEnv()
}

// Level is the AMD_LOG_LEVEL in force.
func Level() int { return int(debug.level.Load()) }

// SlogLevel is the slog level of an AMD_LOG_LEVEL: 1 error, 2 warn, 3
// info, 4 debug.
func SlogLevel(level int) slog.Level {
	switch level {
	case LogError:
		return slog.LevelError
	case LogWarning:
		return slog.LevelWarn
	case LogInfo:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// Logging reports whether messages of level are logged; callers check it
// before building a message, so disabled logging costs nothing.
func Logging(level int) bool { return int(debug.level.Load()) >= level }

// Log logs msg with attrs at level (an AMD_LOG_LEVEL) if the level in
// force allows it, through the program's logger or the default one.
func Log(level int, msg string, attrs ...slog.Attr) {
	if !Logging(level) {
		return
	}
	if l := debug.logger.Load(); l != nil {
		l.LogAttrs(context.Background(), SlogLevel(level), msg, attrs...)
		return
	}
	debug.mu.Lock()
	defer debug.mu.Unlock()
	w := debug.out
	if w == nil {
		w = os.Stderr
	}
	// HIP's own form, :level:, then slog's text for the attributes.
	var b strings.Builder
	fmt.Fprintf(&b, ":%d:hipgo: %s", level, msg)
	if len(attrs) > 0 {
		var t strings.Builder
		h := slog.NewTextHandler(&t, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		}})
		r := slog.NewRecord(time0, SlogLevel(level), "", 0)
		r.AddAttrs(attrs...)
		_ = h.Handle(context.Background(), r)
		b.WriteString(" " + strings.TrimSpace(t.String()))
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(w, b.String())
}

// Kernel reports AMD_SERIALIZE_KERNEL (and HIP_LAUNCH_BLOCKING):
// wait for the stream before and after each launch.
func Kernel() (before, after bool) {
	k := debug.kernel.Load()
	return k&1 != 0, k&2 != 0
}

// Copy reports AMD_SERIALIZE_COPY for stream copies and fills.
func Copy() (before, after bool) {
	k := debug.copies.Load()
	return k&1 != 0, k&2 != 0
}

// CheckDeps reports HIPGO_CHECK_DEPS=1: streams report a dependency across
// streams that the program did not order with an event instead of
// inserting a barrier for it.
func CheckDeps() bool { return debug.deps.Load() }
