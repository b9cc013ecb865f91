package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deprecatedSDK are the cpu driver's kernel SDK names that
// rocr/drivers/cpu/deprecated.go keeps for one release (CHANGELOG says
// what replaces each).
var deprecatedSDK = map[string]bool{
	"Define": true, "Group": true, "Kernel": true, "Set": true, "NewSet": true,
	"Option": true, "StaticShared": true, "MaxThreads": true, "Shared": true,
	"SharedFloat32": true, "Atomic": true, "AtomicAdd": true, "AtomicCAS": true,
	"AtomicExch": true, "AtomicMin": true, "AtomicMax": true,
}

const cpuPath = "github.com/hipgo/hipgo/rocr/drivers/cpu"

// oldNameInDoc is a deprecated name as docs spell it.
var oldNameInDoc = regexp.MustCompile(`\bcpu\.(Define|Group|Kernel|Set|NewSet|Option|StaticShared|MaxThreads|Shared|SharedFloat32|Atomic[A-Za-z]*)\b`)

// Nothing in the module but the deprecation file, its test (and CHANGELOG's old →
// new list) uses the cpu driver's old SDK: kernels, tests, examples and
// docs use rocr/kernel.
func TestNoDeprecatedSDK(t *testing.T) {
	root := filepath.Join("..", "..")
	var goFiles, docs int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "gpu-tests") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "rocr/drivers/cpu/deprecated.go" || rel == "rocr/drivers/cpu/deprecated_test.go" || rel == "CHANGELOG.md":
			return nil
		case strings.HasSuffix(path, ".md"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs++
			for i, line := range strings.Split(string(b), "\n") {
				if m := oldNameInDoc.FindString(line); m != "" {
					t.Errorf("%s:%d: %s is deprecated: use rocr/kernel (CHANGELOG lists the new name)", rel, i+1, m)
				}
			}
		case strings.HasSuffix(path, ".go"):
			goFiles++
			for _, use := range oldSDKUses(t, path, strings.HasPrefix(rel, "rocr/drivers/cpu/") && !strings.Contains(strings.TrimPrefix(rel, "rocr/drivers/cpu/"), "/")) {
				pos, name, _ := strings.Cut(strings.Replace(use, path, rel, 1), " ")
				t.Errorf("%s: %s is deprecated: use rocr/kernel (CHANGELOG lists the new name)", pos, name)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, goFiles, 100, "too few Go files read: has the layout changed?")
	require.Greater(t, docs, 5, "too few docs read: has the layout changed?")
}

// oldSDKUses lists the uses of the deprecated names in the Go file at
// path, each as "file:line:col name": selectors on the cpu package's
// import, and, in the cpu package itself (inPkg), calls of the
// deprecated functions and pointers to the deprecated types.
func oldSDKUses(t *testing.T, path string, inPkg bool) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
	require.NoError(t, err, path)
	cpuName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == cpuPath {
			cpuName = "cpu"
			if imp.Name != nil {
				cpuName = imp.Name.Name
			}
		}
	}
	inPkg = inPkg && f.Name.Name == "cpu"
	var uses []string
	report := func(n ast.Node, name string) {
		uses = append(uses, fset.Position(n.Pos()).String()+" "+name)
	}
	// Comments document what to call: they name the new API too.
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if m := oldNameInDoc.FindString(c.Text); m != "" {
				report(c, m)
			}
		}
	}
	unqualified := func(e ast.Expr) string {
		if ix, ok := e.(*ast.IndexExpr); ok {
			e = ix.X
		}
		if id, ok := e.(*ast.Ident); ok && deprecatedSDK[id.Name] {
			return id.Name
		}
		return ""
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && cpuName != "" && x.Name == cpuName && deprecatedSDK[n.Sel.Name] {
				report(n, "cpu."+n.Sel.Name)
			}
		case *ast.CallExpr:
			if name := unqualified(n.Fun); inPkg && name != "" {
				report(n, name)
			}
		case *ast.StarExpr:
			if name := unqualified(n.X); inPkg && name != "" {
				report(n, "*"+name)
			}
		}
		return true
	})
	return uses
}

// The check finds what it looks for.
func TestNoDeprecatedSDKFinds(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import c "github.com/hipgo/hipgo/rocr/drivers/cpu"

var k = c.Define("k", func(g *c.Group, a *struct{}) {})

// k is a cpu.Kernel.
`
	p := filepath.Join(dir, "p.go")
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	uses := oldSDKUses(t, p, false)
	assert.Len(t, uses, 3)
	assert.Contains(t, strings.Join(uses, "\n"), "cpu.Kernel")
	assert.Contains(t, strings.Join(uses, "\n"), "cpu.Define")
	assert.Contains(t, strings.Join(uses, "\n"), "cpu.Group")
	inPkg := "package cpu\n\nvar k = Define(\"k\", func(g *Group, a *struct{}) {})\n"
	require.NoError(t, os.WriteFile(p, []byte(inPkg), 0o644))
	assert.Len(t, oldSDKUses(t, p, true), 2)
	assert.True(t, oldNameInDoc.MatchString("var x = cpu.NewSet(\"a\")"))
}
