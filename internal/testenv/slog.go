package testenv

import (
	"context"
	"log/slog"
	"sync"
)

// LogRecorder is a slog.Handler that keeps every record it is handed,
// for tests of what a program's logger receives.
type LogRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

// Enabled implements slog.Handler: every level.
func (r *LogRecorder) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (r *LogRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}

// WithAttrs implements slog.Handler; the recorder keeps no attributes of its own.
func (r *LogRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup implements slog.Handler; the recorder keeps no groups.
func (r *LogRecorder) WithGroup(string) slog.Handler { return r }

// Records is what the recorder has kept so far.
func (r *LogRecorder) Records() []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slog.Record(nil), r.recs...)
}
