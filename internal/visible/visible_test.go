package visible

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelect(t *testing.T) {
	items := []string{"a", "b", "c", "d"}
	uuid := func(s string) string { return "GPU-" + s }
	for _, tc := range []struct {
		list  string
		want  []string
		twice int // the index named twice, or -1
	}{
		{"", []string{}, -1},
		{"  ", []string{}, -1},
		{"0", []string{"a"}, -1},
		{"1,0", []string{"b", "a"}, -1},
		{"3, 1 ,2", []string{"d", "b", "c"}, -1},
		{"2,9,0", []string{"c"}, -1}, // an index past the end ends the list
		{"-1,0", []string{}, -1},     // so does a negative one
		{"GPU-c,0", []string{"c", "a"}, -1},
		{"gpu-D", []string{"d"}, -1}, // UUIDs compare case-insensitively
		{"GPU-x,1", []string{}, -1},  // an unknown UUID ends the list
		{"1,nope", []string{"b"}, -1},
		{"0,0", nil, 0},
		{"GPU-b,1", nil, 1},
	} {
		got, err := Select(items, tc.list, uuid)
		if tc.twice < 0 {
			require.NoError(t, err, "%q", tc.list)
			assert.Equal(t, tc.want, got, "%q", tc.list)
			continue
		}
		var te *TwiceError
		require.True(t, errors.As(err, &te), "%q: %v", tc.list, err)
		assert.Equal(t, tc.twice, te.Index, "%q", tc.list)
		assert.Equal(t, tc.list, te.List)
		assert.Nil(t, got)
	}
}

// SelectExcept keeps the items a vendor library filtered itself, first,
// and indexes the others by the list.
func TestSelectExcept(t *testing.T) {
	items := []string{"own", "a", "b"}
	applied := func(s string) bool { return s == "own" }
	got, err := SelectExcept(items, "1", func(string) string { return "" }, applied)
	require.NoError(t, err)
	assert.Equal(t, []string{"own", "b"}, got)
	_, err = SelectExcept(items, "0,0", func(string) string { return "" }, applied)
	var te *TwiceError
	assert.ErrorAs(t, err, &te)
}
