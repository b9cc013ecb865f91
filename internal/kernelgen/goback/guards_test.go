package goback

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

func TestGlobalGuards(t *testing.T) {
	const src = `package p
func guarded(t kernel.Thread, a []float32, n int32, m int, alpha float32) {
	if i := t.GlobalX(); i < int(n) {
		a[i] = alpha
	}
	for k := 0; k < m; k++ {
	}
}
func mirrored(t kernel.Thread, a []float32, n int32) {
	i := t.GlobalX()
	if int(n) > i {
		a[i] = 0
	}
}
func direct(t kernel.Thread, a []float32, n int) {
	if t.GlobalX() < n {
		a[0] = 1
	}
}
func unguarded(t kernel.Thread, a []float32, n int32) {
	if n < 3 {
		a[t.GlobalX()] = 0
	}
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	require.NoError(t, err)
	decl := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		decl[fd.Name.Name] = fd
	}
	slice := kernelgen.Param{Name: "a", Kind: kernelgen.Slice, Type: types.Typ[types.Float32]}
	scalar := func(name string, k types.BasicKind) kernelgen.Param {
		return kernelgen.Param{Name: name, Kind: kernelgen.Scalar, Type: types.Typ[k]}
	}
	cases := []struct {
		fn     string
		params []kernelgen.Param
		want   []int
	}{
		// m bounds a loop counter, not the global index; alpha is no integer.
		{"guarded", []kernelgen.Param{slice, scalar("n", types.Int32), scalar("m", types.Int), scalar("alpha", types.Float32)}, []int{1}},
		{"mirrored", []kernelgen.Param{slice, scalar("n", types.Int32)}, []int{1}},
		{"direct", []kernelgen.Param{slice, scalar("n", types.Int)}, []int{1}},
		{"unguarded", []kernelgen.Param{slice, scalar("n", types.Int32)}, nil},
	}
	for _, c := range cases {
		k := &kernelgen.Kernel{GoName: c.fn, Decl: decl[c.fn], Params: c.params}
		assert.Equal(t, c.want, globalGuards(k), c.fn)
	}
	assert.Nil(t, globalGuards(&kernelgen.Kernel{}), "a kernel without a declaration")
}
