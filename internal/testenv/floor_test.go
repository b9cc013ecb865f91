package testenv

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// aboveFloor are the packages under internal/ that may import rocr and gpu:
// test helpers named as such and the test suites (README.md, Layout).
var aboveFloor = map[string]bool{"cputest": true, "reliability": true, "conformancetest": true, "gosemantics": true}

// The top-level internal/ is one floor of leaf helpers: no package there
// imports rocr/... or gpu/... outside its tests, but for aboveFloor.
func TestInternalFloor(t *testing.T) {
	const module = "github.com/hipgo/hipgo/"
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || aboveFloor[d.Name()] {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ok := strings.CutPrefix(path, module)
				if ok && (rel == "rocr" || rel == "gpu" || strings.HasPrefix(rel, "rocr/") || strings.HasPrefix(rel, "gpu/")) {
					t.Errorf("internal/%s/%s imports %s: the internal/ floor stays below rocr and gpu", d.Name(), filepath.Base(f), path)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no file of internal/ read: has the layout changed?")
	}
}
