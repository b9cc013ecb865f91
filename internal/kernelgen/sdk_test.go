package kernelgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostOnly are the exported functions of package kernel that a kernel
// does not call: what a host or a cpu-agent kernel set uses.
var hostOnly = map[string]bool{
	"Define": true, "NewSet": true, "Var": true, "MaxThreads": true, "StaticShared": true,
	"GroupShared": true, "Nth": true,
}

// Every function and kernel.Thread method of the kernel SDK has a row in
// the translator's table, or is one a kernel does not call: a new SDK call
// without a row would be refused as untranslatable at generate time.
func TestSDKTableCoversKernelPackage(t *testing.T) {
	dir := filepath.Join("..", "..", "rocr", "kernel")
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files)
	var missing []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() || hostOnly[fd.Name.Name] {
				continue
			}
			method := fd.Recv != nil
			if method {
				recv := fd.Recv.List[0].Type
				if id, ok := recv.(*ast.Ident); !ok || id.Name != "Thread" {
					continue
				}
			}
			seen[fd.Name.Name] = true
			c, ok := LookupSDK(fd.Name.Name)
			switch {
			case !ok:
				missing = append(missing, fd.Name.Name)
			case c.Thread != method:
				t.Errorf("kernel.%s: the table says Thread method %v, the package %v", fd.Name.Name, c.Thread, method)
			}
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "kernel SDK calls without a row in sdkCalls")
	for _, c := range sdkCalls {
		assert.True(t, seen[c.Name], "row %s names no function or Thread method of package kernel", c.Name)
	}
}

// The table's C++ spellings are the prelude's helpers.
func TestSDKTableSpellsPreludeHelpers(t *testing.T) {
	prel := prelude + memoryPrelude + vectorPrelude + warpPrelude
	for _, c := range sdkCalls {
		switch c.Form {
		case formShared, formDynamicShared, formMath, formPrintf:
			continue
		}
		name, _, _ := strings.Cut(c.CPP, "(")
		assert.Contains(t, prel, name, "kernel.%s: %s is not in the prelude", c.Name, name)
		if c.Mask {
			assert.True(t, c.Warp(), "kernel.%s takes a mask but is no warp operation", c.Name)
		}
	}
}
