package cpplaunch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A kernel is one extern "C" __global__ function of the sources.
type kernel struct {
	Name   string  // the C name, which is also the symbol
	Params []param // in declaration order
	File   string  // where it was declared, as found from the -src paths
	Line   int
}

// A param is one kernel parameter, with its C and Go types.
type param struct {
	Name string // C name; "" when the declaration leaves it out
	C    string // normalized C type: "const float *", "unsigned int"
	Type ctype
}

func (k *kernel) where() string { return fmt.Sprintf("%s:%d", k.File, k.Line) }

// Decl is the kernel's C declaration, normalized: "vector_add(const float *a, int n)".
func (k *kernel) Decl() string {
	var b strings.Builder
	b.WriteString(k.Name)
	b.WriteByte('(')
	for i, p := range k.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.C)
		if p.Name != "" {
			if !strings.HasSuffix(p.C, "*") {
				b.WriteByte(' ')
			}
			b.WriteString(p.Name)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// ctoken is one C token. Preprocessor directives never become tokens.
type ctoken struct {
	text string
	line int
	str  bool // a string literal; text is its contents
}

// sourceSet reads kernel sources, following #include "..." once per file
// (as if every file had #pragma once: the kernel sources use include guards).
type sourceSet struct {
	seen    map[string]bool
	kernels []*kernel
	byName  map[string]*kernel
}

func newSourceSet() *sourceSet {
	return &sourceSet{seen: map[string]bool{}, byName: map[string]*kernel{}}
}

// addFile reads path and the files it includes, in include order.
func (ss *sourceSet) addFile(path string) error {
	key, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if ss.seen[key] {
		return nil
	}
	ss.seen[key] = true
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	name := filepath.ToSlash(filepath.Clean(path))
	return ss.addText(name, string(b), func(inc string) error {
		p := filepath.Join(filepath.Dir(path), filepath.FromSlash(inc))
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("#include %q: %w", inc, err)
		}
		return ss.addFile(p)
	})
}

// addText scans one file's text; include is called for each #include "..."
// where it appears, so kernels keep the order of the translation unit.
func (ss *sourceSet) addText(file, text string, include func(string) error) error {
	var toks []ctoken
	flush := func() error {
		ks, err := parseKernels(file, toks)
		if err != nil {
			return err
		}
		toks = toks[:0]
		for _, k := range ks {
			if err := ss.add(k); err != nil {
				return err
			}
		}
		return nil
	}
	err := lex(file, text, func(t ctoken) { toks = append(toks, t) }, func(line int, inc string) error {
		if err := flush(); err != nil {
			return err
		}
		if err := include(inc); err != nil {
			return fmt.Errorf("%s:%d: %w", file, line, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// add records a kernel; a second declaration of the same kernel (a
// prototype and its definition) must have the same parameter types.
func (ss *sourceSet) add(k *kernel) error {
	if old, ok := ss.byName[k.Name]; ok {
		same := len(old.Params) == len(k.Params)
		for i := 0; same && i < len(k.Params); i++ {
			same = old.Params[i].Type == k.Params[i].Type
		}
		if !same {
			return fmt.Errorf("%s: kernel %s redeclared with different parameters: %s, and at %s: %s", k.where(), k.Name, k.Decl(), old.where(), old.Decl())
		}
		return nil
	}
	ss.byName[k.Name] = k
	ss.kernels = append(ss.kernels, k)
	return nil
}

// lex splits C source into tokens, dropping comments and preprocessor
// directives; #include "file" directives are reported to include.
func lex(file, s string, emit func(ctoken), include func(line int, path string) error) error {
	line := 1
	atLineStart := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
			atLineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			line++
			continue
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(s[i:], "/*"):
			var err error
			if i, err = skipComment(file, s, i, &line); err != nil {
				return err
			}
			continue
		case c == '#' && atLineStart:
			start := line
			var d strings.Builder
			for i < len(s) && s[i] != '\n' {
				switch {
				case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n':
					i += 2
					line++
				case strings.HasPrefix(s[i:], "/*"):
					var err error
					if i, err = skipComment(file, s, i, &line); err != nil {
						return err
					}
					d.WriteByte(' ')
				case strings.HasPrefix(s[i:], "//"):
					for i < len(s) && s[i] != '\n' {
						i++
					}
				default:
					d.WriteByte(s[i])
					i++
				}
			}
			if inc, ok := includePath(d.String()); ok {
				if err := include(start, inc); err != nil {
					return err
				}
			}
			continue
		}
		atLineStart = false
		switch {
		case isIdentStart(c) || isDigit(c):
			j := i + 1
			for j < len(s) && (isIdentStart(s[j]) || isDigit(s[j]) ||
				isDigit(c) && s[j] == '\'' && j+1 < len(s) && isDigit(s[j+1])) { // 1'000
				j++
			}
			emit(ctoken{text: s[i:j], line: line})
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				if j < len(s) && s[j] == '\n' {
					return fmt.Errorf("%s:%d: unterminated literal", file, line)
				}
				j++
			}
			if j >= len(s) {
				return fmt.Errorf("%s:%d: unterminated literal", file, line)
			}
			emit(ctoken{text: s[i+1 : j], line: line, str: c == '"'})
			i = j + 1
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			emit(ctoken{text: "::", line: line})
			i += 2
		default:
			emit(ctoken{text: s[i : i+1], line: line})
			i++
		}
	}
	return nil
}

// skipComment returns the index after the /* comment at s[i:], counting
// the lines it spans.
func skipComment(file, s string, i int, line *int) (int, error) {
	end := strings.Index(s[i+2:], "*/")
	if end < 0 {
		return 0, fmt.Errorf("%s:%d: unterminated comment", file, *line)
	}
	*line += strings.Count(s[i:i+2+end], "\n")
	return i + end + 4, nil
}

// includePath returns the file of an #include "file" directive (d without
// its line breaks and comments). System includes (<...>) are not followed.
func includePath(d string) (string, bool) {
	d = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d), "#"))
	rest, ok := strings.CutPrefix(d, "include")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 2 || rest[0] != '"' {
		return "", false
	}
	end := strings.IndexByte(rest[1:], '"')
	if end < 0 {
		return "", false
	}
	return rest[1 : 1+end], true
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// kernelMarker is the macro the kernel sources declare kernels with
// (hipgo.h, which -header writes: #define HIPGO_KERNEL extern "C" __global__).
const kernelMarker = "HIPGO_KERNEL"

// declForms says, for errors, which declarations hipgo-gen reads.
const declForms = `hipgo-gen reads kernels declared as HIPGO_KERNEL void name(...) (hipgo.h, from hipgo-gen -header) or extern "C" __global__ void name(...), attributes such as __launch_bounds__(n) allowed before void; a __global__ function without extern "C" has a C++-mangled name and is not read`

// parseKernels finds the kernels declared in toks: HIPGO_KERNEL or
// extern "C" __global__, then attributes, then void name(params).
func parseKernels(file string, toks []ctoken) ([]*kernel, error) {
	var out []*kernel
	for i := 0; i < len(toks); i++ {
		var j int
		switch {
		case toks[i].text == kernelMarker && !toks[i].str:
			j = i + 1
		case toks[i].text == "extern" && i+2 < len(toks) && toks[i+1].str && toks[i+1].text == "C" && toks[i+2].text == "__global__":
			j = i + 3
		default:
			continue
		}
		k, next, err := parseKernel(file, toks, j, toks[i].line)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
		i = next - 1
	}
	return out, nil
}

// parseKernel reads "attributes void name ( params )" from toks[i:].
func parseKernel(file string, toks []ctoken, i, line int) (*kernel, int, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	// Attributes may stand between the marker and the return type.
	for i < len(toks) {
		switch t := toks[i].text; t {
		case "__launch_bounds__", "__attribute__", "__declspec", "__attribute":
			i++
			end, ok := skipParens(toks, i)
			if !ok {
				return nil, 0, errf("unbalanced parentheses after %s", t)
			}
			i = end
			continue
		case "static", "inline", "__inline__", "__forceinline__", "__host__", "__device__":
			i++
			continue
		}
		break
	}
	if i >= len(toks) || toks[i].text != "void" {
		got := "end of file"
		if i < len(toks) {
			got = fmt.Sprintf("%q", toks[i].text)
		}
		return nil, 0, errf("kernel declaration: want return type void, got %s", got)
	}
	i++
	if i >= len(toks) || !isIdent(toks[i]) {
		return nil, 0, errf("kernel declaration: want a name after void")
	}
	k := &kernel{Name: toks[i].text, File: file, Line: toks[i].line}
	i++
	if i >= len(toks) || toks[i].text != "(" {
		return nil, 0, errf("kernel %s: want ( after the name", k.Name)
	}
	end, ok := skipParens(toks, i)
	if !ok {
		return nil, 0, errf("kernel %s: unbalanced parentheses in the parameter list", k.Name)
	}
	params := splitParams(toks[i+1 : end-1])
	if len(params) == 1 && len(params[0]) == 1 && params[0][0].text == "void" {
		params = nil
	}
	for n, ptoks := range params {
		p, err := parseParam(ptoks)
		if err != nil {
			return nil, 0, errf("kernel %s parameter %d%s: %v", k.Name, n, nameOf(ptoks), err)
		}
		k.Params = append(k.Params, p)
	}
	return k, end, nil
}

// nameOf is " (name)" for error messages, from a parameter's last ctoken.
func nameOf(toks []ctoken) string {
	if len(toks) > 1 && isIdent(toks[len(toks)-1]) && !cKeywords[toks[len(toks)-1].text] {
		return " (" + toks[len(toks)-1].text + ")"
	}
	return ""
}

// skipParens returns the index after the parenthesized group that starts
// at toks[i].
func skipParens(toks []ctoken, i int) (int, bool) {
	if i >= len(toks) || toks[i].text != "(" {
		return 0, false
	}
	depth := 0
	for ; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// splitParams splits a parameter list at its top-level commas.
func splitParams(toks []ctoken) [][]ctoken {
	if len(toks) == 0 {
		return nil
	}
	var out [][]ctoken
	depth, start := 0, 0
	for i, t := range toks {
		switch t.text {
		case "(", "[", "<", "{":
			depth++
		case ")", "]", ">", "}":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(out, toks[start:])
}

func isIdent(t ctoken) bool { return !t.str && len(t.text) > 0 && isIdentStart(t.text[0]) }

// qualifiers are dropped from parameter types: they do not change the
// kernarg layout.
var qualifiers = map[string]bool{
	"const": true, "volatile": true, "restrict": true, "__restrict": true, "__restrict__": true,
}

// cKeywords are the words of C's built-in arithmetic types; a parameter's
// last ctoken is its name unless it is one of these.
var cKeywords = map[string]bool{
	"void": true, "char": true, "short": true, "int": true, "long": true, "signed": true, "unsigned": true,
	"float": true, "double": true, "bool": true, "_Bool": true,
}

// parseParam reads one parameter declaration: qualifiers, a type, stars,
// an optional name and an optional [] (which makes it a pointer, as in C).
func parseParam(toks []ctoken) (param, error) {
	if len(toks) == 0 {
		return param{}, fmt.Errorf("empty parameter")
	}
	var (
		p           param
		isConst     bool
		stars       int
		words       []string
		sawArray    bool
		arrayClosed bool
	)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.str:
			return param{}, fmt.Errorf("unexpected string %q", t.text)
		case t.text == "*":
			if sawArray {
				return param{}, fmt.Errorf("unexpected * after []")
			}
			stars++
		case t.text == "&" || t.text == "&&":
			return param{}, fmt.Errorf("reference parameters are not supported")
		case t.text == "[":
			if sawArray || len(words) == 0 {
				return param{}, fmt.Errorf("unexpected [")
			}
			sawArray = true
		case t.text == "]":
			if !sawArray || arrayClosed {
				return param{}, fmt.Errorf("unexpected ]")
			}
			arrayClosed = true
		case sawArray && !arrayClosed:
			// An array size: ignored, the parameter is a pointer.
		case t.text == "=":
			return param{}, fmt.Errorf("default arguments are not supported")
		case t.text == "__attribute__" || t.text == "__attribute":
			end, ok := skipParens(toks, i+1)
			if !ok {
				return param{}, fmt.Errorf("unbalanced parentheses after %s", t.text)
			}
			i = end - 1
		case qualifiers[t.text]:
			if t.text == "const" && stars == 0 {
				isConst = true
			}
		case isIdent(t):
			if stars > 0 || len(words) > 0 && !cKeywords[t.text] || len(words) > 0 && !cKeywords[words[len(words)-1]] {
				// After the type: the name. Another word after it makes
				// the name part of the type ("struct s b").
				if sawArray || p.Name != "" && stars > 0 {
					return param{}, fmt.Errorf("unexpected %q", t.text)
				}
				if p.Name != "" {
					words = append(words, p.Name)
				}
				p.Name = t.text
				continue
			}
			if p.Name != "" {
				return param{}, fmt.Errorf("unexpected %q", t.text)
			}
			words = append(words, t.text)
		default:
			return param{}, fmt.Errorf("unexpected %q", t.text)
		}
	}
	if sawArray && !arrayClosed {
		return param{}, fmt.Errorf("unterminated [")
	}
	if sawArray {
		stars++
	}
	if len(words) == 0 {
		return param{}, fmt.Errorf("no type")
	}
	base := strings.Join(words, " ")
	ct, err := cType(base, stars)
	if err != nil {
		return param{}, err
	}
	ct.Const = isConst && stars > 0
	p.Type = ct
	p.C = base
	if isConst {
		p.C = "const " + p.C
	}
	if stars > 0 {
		p.C += " " + strings.Repeat("*", stars)
	}
	return p, nil
}
