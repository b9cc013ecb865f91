package errtext

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJoin(t *testing.T) {
	cause := errors.New("cause")
	assert.Equal(t, "op: msg: cause", Join("op", "msg", cause))
	assert.Equal(t, "op: cause", Join("op", "", cause))
	assert.Equal(t, "msg: cause", Join("", "msg", cause))
	assert.Equal(t, "op: msg", Join("op", "msg", nil))
	assert.Equal(t, "cause", Join("", "", cause))
	assert.Equal(t, "", Join("", "", nil))
	// A cause of the same operation is named once.
	assert.Equal(t, "stream: x: cause", Join("stream", "", errors.New("stream: x: cause")))
	assert.Equal(t, "stream: msg: x", Join("stream", "msg", errors.New("stream: x")))
	assert.Equal(t, "init: streams: x", Join("init", "", errors.New("streams: x")))
}

func TestTag(t *testing.T) {
	assert.Equal(t, "x (A) (B)", Tag("x (A)", "B"))
	assert.Equal(t, "x (A)", Tag("x (A)", "A"))
	assert.Equal(t, "x (A)", Tag("x", "A"))
	assert.Equal(t, "log\nline (A)", Tag("log\nline\n", "A"))
	assert.Equal(t, "x (A)", Tag("x (A)\n", "A"))
}
