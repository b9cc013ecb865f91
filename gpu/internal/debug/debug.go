// Package debug holds the debug switches HIP users know (AMD_LOG_LEVEL,
// AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, HIP_LAUNCH_BLOCKING), read
// when the runtime opens, for every package of the API.
package debug

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// Debug switches that HIP users know, read when the runtime opens:
//
//	AMD_LOG_LEVEL=N         log to stderr: 1 errors, 2 warnings, 3 info (every launch, copy and sync), 4 debug
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
	out    io.Writer
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

// ReadEnv reads the switches; gpu calls it when the runtime opens.
func ReadEnv() {
	debug.level.Store(envInt("AMD_LOG_LEVEL"))
	k := envInt("AMD_SERIALIZE_KERNEL")
	if os.Getenv("HIP_LAUNCH_BLOCKING") == "1" {
		k |= 2
	}
	debug.kernel.Store(k)
	debug.copies.Store(envInt("AMD_SERIALIZE_COPY"))
	debug.deps.Store(os.Getenv("HIPGO_CHECK_DEPS") == "1")
}

// SetOutput sends log output to w instead of stderr.
func SetOutput(w io.Writer) {
	debug.mu.Lock()
	debug.out = w
	debug.mu.Unlock()
}

// Logging reports whether messages of level are logged; callers check it
// before building a message, so disabled logging costs nothing.
func Logging(level int) bool { return int(debug.level.Load()) >= level }

// Logf logs a message at level if AMD_LOG_LEVEL allows it.
func Logf(level int, format string, args ...any) {
	if !Logging(level) {
		return
	}
	debug.mu.Lock()
	defer debug.mu.Unlock()
	w := debug.out
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, ":%d:hipgo: %s\n", level, fmt.Sprintf(format, args...))
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
