package aql_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr/aql"
)

// The cluster field of Reserved2 keeps its dimensions and leaves the
// cooperative mark alone.
func TestClusterBits(t *testing.T) {
	for _, d := range [][3]uint32{{1, 1, 1}, {8, 1, 1}, {2, 2, 2}, {16, 1, 1}, {1, 4, 2}, {255, 255, 255}} {
		r := aql.ClusterBits(d) | aql.DispatchCooperative
		assert.Equal(t, d, aql.ClusterDims(r), "%v", d)
		assert.Equal(t, aql.DispatchCooperative, r&aql.DispatchCooperative)
	}
	assert.Equal(t, [3]uint32{}, aql.ClusterDims(aql.DispatchCooperative), "no clusters")
	assert.Zero(t, aql.ClusterBits([3]uint32{}))
}
