package gpu

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// exportedCodes reads the package's sources for its exported ErrorCode
// constants, name by name. A second exported name for a code (an alias
// constant, or a variable initialized from a code) fails t.
func exportedCodes(t *testing.T) map[string]ErrorCode {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	codes := map[string]ErrorCode{}
	aliases := map[string]string{} // exported name -> the code identifier it copies
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, _ := vs.Type.(*ast.Ident)
				for i, id := range vs.Names {
					if !id.IsExported() || i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.BasicLit:
						if gd.Tok != token.CONST || typ == nil || typ.Name != "ErrorCode" {
							continue
						}
						n, err := strconv.Atoi(v.Value)
						if err != nil {
							t.Fatalf("%s: %s = %s: %v", fset.Position(id.Pos()), id.Name, v.Value, err)
						}
						codes[id.Name] = ErrorCode(n)
					case *ast.Ident:
						aliases[id.Name] = v.Name
					}
				}
			}
		}
	}
	for name, of := range aliases {
		if _, ok := codes[of]; ok {
			t.Errorf("%s is a second name for %s", name, of)
		}
	}
	return codes
}

// Every code has exactly one exported name: HIP's hipErrorX is ErrX, and
// its Name and Error are HIP's.
func TestOneNamePerCode(t *testing.T) {
	codes := exportedCodes(t)
	byCode := map[ErrorCode]string{}
	for name, c := range codes {
		if other, ok := byCode[c]; ok {
			t.Errorf("code %d has two names: %s and %s", int(c), name, other)
		}
		byCode[c] = name
		want := "hipSuccess"
		if name != "Success" {
			x, ok := strings.CutPrefix(name, "Err")
			if !ok || strings.HasPrefix(x, "or") {
				t.Errorf("%s: a code is named Success or ErrX", name)
				continue
			}
			want = "hipError" + x
		}
		if got := codeNames[c]; got != want {
			t.Errorf("%s (%d): HIP's name is %q, want %q", name, int(c), got, want)
		}
		if c.Name() != want || c.Error() != want {
			t.Errorf("%s: Name %q, Error %q, want %q", name, c.Name(), c.Error(), want)
		}
	}
	for c, n := range codeNames {
		if _, ok := byCode[c]; !ok {
			t.Errorf("%s (%d) has no exported name", n, int(c))
		}
	}
}

// errors.Is finds a code in an *Error, in an error that wraps one, and in
// the bare code; CodeOf gives the same code back, and no other code matches.
func TestErrorsIsEveryCode(t *testing.T) {
	for c, name := range codeNames {
		if c == Success {
			continue
		}
		forms := map[string]error{
			"*Error":         Errorf(c, "op", "what"),
			"wrapped *Error": fmt.Errorf("outer: %w", Errorf(c, "op", "what")),
			"bare code":      c,
			"wrapped code":   fmt.Errorf("outer: %w", c),
			"Wrap of code":   wrap("op", c),
		}
		for form, err := range forms {
			if !errors.Is(err, c) {
				t.Errorf("%s as %s: errors.Is is false", name, form)
			}
			if got := CodeOf(err); got != c {
				t.Errorf("%s as %s: CodeOf %s", name, form, got.Name())
			}
			other := ErrInvalidValue
			if c == ErrInvalidValue {
				other = ErrUnknown
			}
			if errors.Is(err, other) {
				t.Errorf("%s as %s matches %s", name, form, other.Name())
			}
		}
	}
}

// A rocr error that Wrap gives a code matches both: the code and rocr's
// sentinel. ErrNotOwner, rocr's, is not a code; its code is ErrInvalidValue.
func TestErrorsIsRocr(t *testing.T) {
	err := fmt.Errorf("outer: %w", wrap("access", hsa.Newf(hsa.ErrNotOwner, hsa.StatusErrorInvalidAgent, "access", "owned by another")))
	for _, target := range []error{ErrInvalidValue, ErrNotOwner, hsa.ErrNotOwner, hsa.StatusErrorInvalidAgent} {
		if !errors.Is(err, target) {
			t.Errorf("%v does not match %v", err, target)
		}
	}
	if errors.Is(err, ErrNoDevice) {
		t.Errorf("%v matches ErrNoDevice", err)
	}
	var c ErrorCode
	if errors.As(ErrNotOwner, &c) {
		t.Errorf("ErrNotOwner is a code (%s)", c.Name())
	}
}
