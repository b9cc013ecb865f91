package cuda

import (
	"testing"

	"github.com/hipgo/hipgo/rocr/aql"
)

// Only a barrier without dependencies (an event record) is made
// observable at once, by an event of its own or a progress write; a
// stream's wait for an event leaves it to whoever observes the wait.
func TestIsRecord(t *testing.T) {
	var p aql.BarrierAnd
	if !isRecord(&p) {
		t.Error("a barrier without dependencies is an event record")
	}
	p.DepSignal[3] = 1
	if isRecord(&p) {
		t.Error("a barrier with a dependency is a wait, not a record")
	}
}
