// Package body is a Go source file's text after its imports, what
// hipgo-gen copies of a library's device functions.
package body

import (
	"bytes"
	"go/parser"
	"go/token"
)

// Of is src (the file path) from the end of its last import on, with the
// blank lines at its start dropped.
func Of(path string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	end := f.Name.End()
	if len(f.Decls) > 0 {
		end = f.Decls[len(f.Decls)-1].End()
	}
	return bytes.TrimLeft(src[fset.Position(end).Offset:], "\n"), nil
}
