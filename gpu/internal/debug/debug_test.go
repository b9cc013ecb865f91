package debug

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/internal/testenv"
)

func TestLogLevels(t *testing.T) {
	for v, want := range map[string]int32{"": -1, "off": 0, "error": 1, "WARN": 2, "warning": 2, "info": 3, " debug ": 4, "3": 3, "loud": -1} {
		assert.Equal(t, want, logLevel(v), "HIPGO_LOG=%q", v)
	}
	t.Cleanup(ResetLevel)
	t.Setenv("AMD_LOG_LEVEL", "1")
	t.Setenv("HIPGO_LOG", "info")
	ReadEnv()
	assert.Equal(t, LogInfo, Level(), "HIPGO_LOG wins over AMD_LOG_LEVEL")
	t.Setenv("HIPGO_LOG", "")
	ReadEnv()
	assert.Equal(t, LogError, Level())
	SetLevel(LogDebug)
	ReadEnv()
	assert.Equal(t, LogDebug, Level(), "the program's level outlives the environment")
	ResetLevel()
	assert.Equal(t, LogError, Level())
}

func TestLogThroughSlog(t *testing.T) {
	t.Cleanup(ResetLevel)
	t.Cleanup(func() { SetLogger(nil); SetOutput(nil) })
	var out bytes.Buffer
	SetOutput(&out)
	SetLevel(LogWarning)
	Log(LogInfo, "not logged")
	Log(LogWarning, "cache refused", slog.String("dir", "/tmp/x y"), slog.Int("n", 3))
	assert.Equal(t, ":2:hipgo: cache refused dir=\"/tmp/x y\" n=3\n", out.String(), "the default logger writes HIP's form")

	rec := &testenv.LogRecorder{}
	SetLogger(slog.New(rec))
	SetLevel(LogDebug)
	Log(LogError, "launch failed", slog.String("kernel", "k"))
	Log(LogDebug, "step 7")
	recs := rec.Records()
	if assert.Len(t, recs, 2) {
		assert.Equal(t, slog.LevelError, recs[0].Level)
		assert.Equal(t, "launch failed", recs[0].Message)
		recs[0].Attrs(func(a slog.Attr) bool {
			assert.Equal(t, "kernel=k", a.String())
			return true
		})
		assert.Equal(t, slog.LevelDebug, recs[1].Level)
		assert.Equal(t, "step 7", recs[1].Message)
	}
	assert.Equal(t, ":2:hipgo: cache refused dir=\"/tmp/x y\" n=3\n", out.String(), "nothing more on the default writer")
}
