package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envName is the shape of an environment variable's name.
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

// readerCalls are the functions whose call reads the environment: os's,
// vendorlib.Env's and the helpers named after them (a getenv parameter,
// vendorlib's getenv).
var readerCalls = map[string]bool{"Getenv": true, "LookupEnv": true, "getenv": true}

// envReads lists the environment variables the module's non-test code
// reads. A top-level declaration (a function, or a var block with
// functions in it) that calls a reader, or a function of its package that
// does, reads the environment; the variable names it reads are its
// string literals of an environment variable's shape, the string
// constants it passes to a reader, and the literals of the package-level
// variables it refers to (tables of names). Callers of a reading function
// with a literal argument (filterVisible(agents, "ROCR_VISIBLE_DEVICES"))
// read that name.
func envReads(t *testing.T, root string) map[string][]string {
	t.Helper()
	type unit struct {
		file string
		node ast.Node
		name string // the function's name, "" for a var block
	}
	type pkg struct {
		units []unit
		vars  map[string]ast.Node // package-level variables
	}
	pkgs := map[string]*pkg{}
	consts := map[string]map[string]string{} // string constants by directory and name
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "report") {
				return filepath.SkipDir // report is a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := pkgs[dir]
		if p == nil {
			p = &pkg{vars: map[string]ast.Node{}}
			pkgs[dir] = p
		}
		rel, _ := filepath.Rel(root, path)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				p.units = append(p.units, unit{rel, d, d.Name.Name})
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, n := range vs.Names {
						if d.Tok == token.VAR {
							p.vars[n.Name] = vs
						}
						if d.Tok == token.CONST && i < len(vs.Values) {
							if l, ok := vs.Values[i].(*ast.BasicLit); ok && l.Kind == token.STRING {
								if consts[dir] == nil {
									consts[dir] = map[string]string{}
								}
								consts[dir][n.Name], _ = strconv.Unquote(l.Value)
							}
						}
					}
				}
				if d.Tok == token.VAR {
					p.units = append(p.units, unit{rel, d, ""})
				}
			}
		}
		return nil
	})
	require.NoError(t, err)

	callee := func(c *ast.CallExpr) string {
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return f.Name
		case *ast.SelectorExpr:
			return f.Sel.Name
		}
		return ""
	}
	// literal is e's string value: a literal, a constant of the package
	// in dir, or pkg.Name, a constant of a package whose directory is
	// named pkg.
	literal := func(dir string, e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				s, err := strconv.Unquote(e.Value)
				return s, err == nil
			}
		case *ast.Ident:
			s, ok := consts[dir][e.Name]
			return s, ok
		case *ast.SelectorExpr:
			if x, ok := e.X.(*ast.Ident); ok {
				for d, cs := range consts {
					if filepath.Base(d) == x.Name {
						if s, ok := cs[e.Sel.Name]; ok {
							return s, true
						}
					}
				}
			}
		}
		return "", false
	}
	reads := map[string][]string{}
	add := func(name, where string) {
		if envName.MatchString(name) && !slices.Contains(reads[name], where) {
			reads[name] = append(reads[name], where)
		}
	}
	for dir, p := range pkgs {
		// The package's functions that read, to a fixed point.
		readers := maps.Clone(readerCalls)
		reading := make([]bool, len(p.units))
		for changed := true; changed; {
			changed = false
			for i, u := range p.units {
				if reading[i] {
					continue
				}
				ast.Inspect(u.node, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok && readers[callee(c)] {
						reading[i] = true
					}
					return !reading[i]
				})
				if reading[i] {
					changed = true
					if u.name != "" {
						readers[u.name] = true
					}
				}
			}
		}
		for i, u := range p.units {
			where := u.file
			if u.name != "" {
				where += " " + u.name
			}
			ast.Inspect(u.node, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if readers[callee(n)] {
						for _, a := range n.Args {
							if s, ok := literal(dir, a); ok {
								add(s, where)
							}
						}
					}
				case *ast.BasicLit:
					if s, ok := literal(dir, n); ok && reading[i] {
						add(s, where)
					}
				case *ast.Ident:
					if v, ok := p.vars[n.Name]; ok && reading[i] && v != u.node {
						ast.Inspect(v, func(m ast.Node) bool {
							if s, ok := literal(dir, asLit(m)); ok {
								add(s, where)
							}
							return true
						})
					}
				}
				return true
			})
		}
	}
	return reads
}

func asLit(n ast.Node) ast.Expr {
	if l, ok := n.(*ast.BasicLit); ok {
		return l
	}
	return nil
}

// notVariables are literals of a variable's shape in code that reads the
// environment that name no variable.
var notVariables = map[string]bool{
	"NCCL": true, // gpu/collective: the library's name in a message
}

// TestEnvironmentDocumented fails when the code reads an environment
// variable that docs/environment.md does not name.
func TestEnvironmentDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "environment.md"))
	require.NoError(t, err)
	reads := envReads(t, root)
	for _, v := range []string{"HIPGO_DRIVER", "HIPGO_CUDA_LIBRARY", "ROCR_VISIBLE_DEVICES", "AMD_LOG_LEVEL", "MASTER_PORT", "CUDA_PATH"} {
		assert.Contains(t, reads, v, "the scan misses a variable it should find")
	}
	var missing []string
	for name, where := range reads {
		if notVariables[name] {
			continue
		}
		if !regexp.MustCompile("`[^`]*\\b" + name + "\\b").Match(doc) {
			missing = append(missing, name+" (read in "+strings.Join(where, ", ")+")")
		}
	}
	slices.Sort(missing)
	assert.Empty(t, missing, "docs/environment.md lists every variable the code reads; add these")
}
