package rocr_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr"
	_ "github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/spi"
)

// namedDriver is a driver that only has a name: Register asks for nothing
// else before it panics.
type namedDriver struct {
	spi.Driver
	name string
}

func (d namedDriver) Name() string { return d.name }

// Register panics on a second driver of one name, as sql.Register does,
// and leaves the registered ones as they were.
func TestRegisterDuplicatePanics(t *testing.T) {
	before := rocr.Drivers()
	if !slices.Contains(before, "cpu") {
		t.Fatalf("Drivers() = %v: the cpu driver is not registered", before)
	}
	assert.PanicsWithValue(t, "rocr: Register called twice for driver cpu", func() {
		spi.Register(namedDriver{name: "cpu"})
	})
	assert.Panics(t, func() { spi.Register(nil) })
	assert.Equal(t, before, rocr.Drivers())
}
