package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/rocr"
)

// face is what every buffer kind answers, a nil one included.
type face interface {
	Len() int
	Bytes() int
	Device() *gpu.Device
	Ptr() rocr.Ptr[float32]
	String() string
}

// A nil pointer of every buffer kind answers Len, Bytes, Device, Ptr and
// String with zero values and a string that says nil, without panicking.
// The methods are declared on each kind rather than promoted from an
// embedded type: a promoted method called on a nil outer pointer panics
// while reaching the embedded field, before the method runs, which this
// test would report.
func TestNilFaceEveryKind(t *testing.T) {
	kinds := []struct {
		name string
		f    face
	}{
		{"Buffer", (*buffer.Buffer[float32])(nil)},
		{"Host", (*buffer.Host[float32])(nil)},
		{"Managed", (*buffer.Managed[float32])(nil)},
		{"Pitched", (*buffer.Pitched[float32])(nil)},
		{"Pitched3D", (*buffer.Pitched3D[float32])(nil)},
		{"Sub", (*buffer.Sub[float32])(nil)},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			assert.NotPanics(t, func() {
				assert.Zero(t, k.f.Len(), "Len")
				assert.Zero(t, k.f.Bytes(), "Bytes")
				assert.Nil(t, k.f.Device(), "Device")
				assert.Equal(t, rocr.Ptr[float32](0), k.f.Ptr(), "Ptr")
				assert.Equal(t, "buffer (nil)", k.f.String(), "String")
			})
		})
	}
}
