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
}
