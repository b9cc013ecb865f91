package codeobj

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// PTX is parsed with a small lexer that drops comments and keeps string
// literals whole, so neither can fake a directive. It reads one copy of
// the text as a string, so tokens and names are substrings of it.

type tokKind uint8

const (
	tokEOF  tokKind = iota
	tokWord         // directive (.entry), identifier, number (7.8, 0x10)
	tokString
	tokPunct
)

type token struct {
	kind tokKind
	text string
	line int
	off  int
}

type ptxLexer struct {
	b    string
	pos  int
	line int
	err  error
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '%' || c == '.'
}

func (l *ptxLexer) fail(line, off int, format string, args ...any) token {
	if l.err == nil {
		l.err = errorf("PTX line "+strconv.Itoa(line), int64(off), format, args...)
	}
	l.pos = len(l.b)
	return token{kind: tokEOF, line: line, off: off}
}

func (l *ptxLexer) next() token {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '/' && l.pos+1 < len(l.b) && l.b[l.pos+1] == '/':
			for l.pos < len(l.b) && l.b[l.pos] != '\n' {
				l.pos++
			}
		case c == '/' && l.pos+1 < len(l.b) && l.b[l.pos+1] == '*':
			start, line := l.pos, l.line
			l.pos += 2
			for {
				if l.pos+1 >= len(l.b) {
					return l.fail(line, start, "unterminated /* comment")
				}
				if l.b[l.pos] == '*' && l.b[l.pos+1] == '/' {
					l.pos += 2
					break
				}
				if l.b[l.pos] == '\n' {
					l.line++
				}
				l.pos++
			}
		case c == '"':
			start, line := l.pos, l.line
			l.pos++
			for {
				if l.pos >= len(l.b) || l.b[l.pos] == '\n' {
					return l.fail(line, start, "unterminated string")
				}
				if l.b[l.pos] == '\\' {
					l.pos += 2
					continue
				}
				if l.b[l.pos] == '"' {
					l.pos++
					break
				}
				l.pos++
			}
			return token{tokString, l.b[start:l.pos], line, start}
		case isWordByte(c):
			start := l.pos
			for l.pos < len(l.b) && isWordByte(l.b[l.pos]) {
				l.pos++
			}
			return token{tokWord, l.b[start:l.pos], l.line, start}
		default:
			l.pos++
			return token{tokPunct, l.b[l.pos-1 : l.pos], l.line, l.pos - 1}
		}
	}
	return token{kind: tokEOF, line: l.line, off: l.pos}
}

// looksLikePTX reports whether the first token of b is .version.
func looksLikePTX(b []byte) bool {
	// Only the first token is read: converting a prefix keeps this cheap.
	l := &ptxLexer{b: string(b[:min(len(b), 4096)]), line: 1}
	t := l.next()
	return t.kind == tokWord && t.text == ".version"
}

type ptxParser struct {
	*parser
	lex    *ptxLexer
	tok    token
	peek   token
	peeked bool
}

func (p *ptxParser) advance() token {
	if p.peeked {
		p.tok, p.peeked = p.peek, false
	} else {
		p.tok = p.lex.next()
	}
	return p.tok
}

func (p *ptxParser) lookahead() token {
	if !p.peeked {
		p.peek, p.peeked = p.lex.next(), true
	}
	return p.peek
}

func (p *ptxParser) errorf(t token, format string, args ...any) error {
	if p.lex.err != nil {
		return p.lex.err
	}
	return errorf("PTX line "+strconv.Itoa(t.line), int64(t.off), format, args...)
}

func (p *ptxParser) expect(text string) error {
	t := p.advance()
	if t.text != text || t.kind == tokString {
		return p.errorf(t, "want %q, got %q", text, t.text)
	}
	return nil
}

// skipBlock skips a { ... } block; the opening brace is the current token.
func (p *ptxParser) skipBlock() error {
	open := p.tok
	depth := 1
	for depth > 0 {
		t := p.advance()
		switch {
		case t.kind == tokEOF:
			return p.errorf(open, "unclosed {")
		case t.kind == tokPunct && t.text == "{":
			depth++
		case t.kind == tokPunct && t.text == "}":
			depth--
		}
	}
	return nil
}

// ptx parses PTX text.
func (pp *parser) ptx(b []byte) (*CodeObject, error) {
	if err := pp.spend("PTX", 0, len(b)+int(unsafe.Sizeof(CodeObject{}))); err != nil {
		return nil, err
	}
	p := &ptxParser{parser: pp, lex: &ptxLexer{b: string(b), line: 1}}
	o := &CodeObject{Format: FormatPTX, Image: b}
	for {
		t := p.advance()
		if t.kind == tokEOF {
			if p.lex.err != nil {
				return nil, p.lex.err
			}
			break
		}
		if t.kind != tokWord && !(t.kind == tokPunct && t.text == "{") {
			continue
		}
		switch t.text {
		case ".version":
			v := p.advance()
			if v.kind != tokWord || !isVersion(v.text) {
				return nil, p.errorf(v, ".version wants MAJOR.MINOR, got %q", v.text)
			}
			o.PTXVersion = v.text
		case ".target":
			for {
				v := p.advance()
				if v.kind != tokWord {
					return nil, p.errorf(v, ".target wants a name, got %q", v.text)
				}
				if strings.HasPrefix(v.text, "sm_") && o.Target == "" {
					o.Target = v.text
				}
				if n := p.lookahead(); n.kind != tokPunct || n.text != "," {
					break
				}
				p.advance()
			}
		case ".address_size":
			v := p.advance()
			n, err := strconv.Atoi(v.text)
			if err != nil || (n != 32 && n != 64) {
				return nil, p.errorf(v, ".address_size wants 32 or 64, got %q", v.text)
			}
			o.AddressSize = n
		case ".entry":
			k, ok, err := p.entry()
			if err != nil {
				return nil, err
			}
			if ok {
				if o.Kernels, err = grow(p.parser, o.Kernels, "PTX", int64(t.off)); err != nil {
					return nil, err
				}
				o.Kernels = append(o.Kernels, k)
			}
		case ".func":
			if err := p.skipDecl(); err != nil {
				return nil, err
			}
		case "{":
			if err := p.skipBlock(); err != nil {
				return nil, err
			}
		}
	}
	if o.PTXVersion == "" {
		return nil, errorf("PTX", 0, "no .version directive")
	}
	if o.Target == "" {
		return nil, errorf("PTX", 0, "no .target sm_XX directive")
	}
	if o.AddressSize == 0 {
		o.AddressSize = 32 // the PTX default
	}
	return o, nil
}

func isVersion(s string) bool {
	a, b, ok := strings.Cut(s, ".")
	_, e1 := strconv.Atoi(a)
	_, e2 := strconv.Atoi(b)
	return ok && e1 == nil && e2 == nil
}

// skipDecl skips a .func up to the end of its body or its ';'.
func (p *ptxParser) skipDecl() error {
	start := p.tok
	for {
		t := p.advance()
		switch {
		case t.kind == tokEOF:
			return p.errorf(start, ".func without body or ';'")
		case t.kind == tokPunct && t.text == ";":
			return nil
		case t.kind == tokPunct && t.text == "{":
			return p.skipBlock()
		}
	}
}

// entry parses ".entry name (params) directives { body }" after .entry.
// A declaration without a body (";") yields ok false.
func (p *ptxParser) entry() (k Kernel, ok bool, err error) {
	name := p.advance()
	if name.kind != tokWord || name.text[0] == '.' {
		return k, false, p.errorf(name, ".entry wants a name, got %q", shorten(name.text))
	}
	k = Kernel{Name: name.text, Symbol: name.text, KernargAlign: 1}
	if n := p.lookahead(); n.kind == tokPunct && n.text == "(" {
		p.advance()
		if err := p.params(&k); err != nil {
			return k, false, err
		}
	}
	for {
		t := p.advance()
		switch {
		case t.kind == tokEOF:
			return k, false, p.errorf(name, ".entry %s has no body", name.text)
		case t.kind == tokPunct && t.text == ";":
			return k, false, nil
		case t.kind == tokPunct && t.text == "{":
			if err := p.skipBlock(); err != nil {
				return k, false, err
			}
			k.MaxFlatWorkgroup = product(k.ReqNTID)
			if k.MaxFlatWorkgroup == 0 {
				k.MaxFlatWorkgroup = product(k.MaxNTID)
			}
			if k.ReqNTID != [3]uint32{} {
				k.ReqdWorkgroupSize = k.ReqNTID
			}
			return k, true, nil
		case t.text == ".maxntid" || t.text == ".reqntid":
			d, err := p.dims()
			if err != nil {
				return k, false, err
			}
			// The product is the limit the loader enforces: one that
			// wrapped around would read as no limit at all.
			if n := uint64(d[0]) * uint64(d[1]) * uint64(d[2]); n > math.MaxUint32 {
				return k, false, p.errorf(t, "kernel %s: %s %d,%d,%d asks for %d threads per block, over the limit of %d", shorten(k.Name), t.text, d[0], d[1], d[2], n, uint32(math.MaxUint32))
			}
			if t.text == ".maxntid" {
				k.MaxNTID = d
			} else {
				k.ReqNTID = d
			}
		case t.text == ".minnctapersm" || t.text == ".maxnreg":
			v := p.advance()
			n, err := strconv.ParseUint(v.text, 0, 32)
			if err != nil {
				return k, false, p.errorf(v, "%s wants a number, got %q", t.text, v.text)
			}
			if t.text == ".maxnreg" {
				k.MaxNReg = uint32(n)
			} else {
				k.MinNCTAPerSM = uint32(n)
			}
		}
	}
}

func product(d [3]uint32) uint32 {
	if d == [3]uint32{} {
		return 0
	}
	return d[0] * d[1] * d[2]
}

// dims reads "x[, y[, z]]"; missing dimensions are 1.
func (p *ptxParser) dims() ([3]uint32, error) {
	d := [3]uint32{1, 1, 1}
	for i := 0; ; i++ {
		v := p.advance()
		n, err := strconv.ParseUint(v.text, 0, 32)
		if err != nil || i > 2 || n == 0 {
			return d, p.errorf(v, "want up to 3 positive dimensions, got %q", v.text)
		}
		d[i] = uint32(n)
		if t := p.lookahead(); t.kind != tokPunct || t.text != "," {
			return d, nil
		}
		p.advance()
	}
}

var ptxTypeSize = map[string]uint32{
	".u8": 1, ".s8": 1, ".b8": 1, ".pred": 1,
	".u16": 2, ".s16": 2, ".b16": 2, ".f16": 2, ".bf16": 2,
	".u32": 4, ".s32": 4, ".b32": 4, ".f32": 4, ".f16x2": 4, ".bf16x2": 4,
	".u64": 8, ".s64": 8, ".b64": 8, ".f64": 8,
	".b128": 16,
}

// maxParamBytes bounds one kernel's parameter space (CUDA allows 32764).
const maxParamBytes = 1 << 20

// params reads the parameter list after "(" and lays it out as the CUDA
// ABI does: each parameter at the next offset aligned to its alignment
// (its type's size, or .align), in order.
func (p *ptxParser) params(k *Kernel) error {
	var off uint64
	for {
		t := p.advance()
		if t.kind == tokPunct && t.text == ")" && len(k.Args) == 0 {
			return nil
		}
		if t.text != ".param" {
			return p.errorf(t, "kernel %s: want .param, got %q", k.Name, t.text)
		}
		a := Arg{Kind: KindByValue}
		var align uint64
		var elem uint32
		sawPtr := false
		for {
			t = p.advance()
			if t.kind != tokWord {
				return p.errorf(t, "kernel %s: parameter wants a name, got %q", k.Name, t.text)
			}
			switch {
			case t.text == ".align":
				v := p.advance()
				n, err := strconv.ParseUint(v.text, 0, 32)
				if err != nil || n == 0 || n&(n-1) != 0 {
					return p.errorf(v, "kernel %s: .align wants a power of two, got %q", k.Name, v.text)
				}
				if sawPtr {
					a.PointeeAlign = uint32(n)
				} else {
					align = n
				}
				continue
			case t.text == ".ptr":
				sawPtr = true
				continue
			case sawPtr && (t.text == ".global" || t.text == ".const" || t.text == ".local" || t.text == ".shared"):
				a.AddressSpace = strings.TrimPrefix(t.text, ".")
				if a.AddressSpace == "const" {
					a.AddressSpace = "constant"
				}
				if a.AddressSpace == "global" {
					a.Kind = KindGlobalBuffer
				}
				continue
			case ptxTypeSize[t.text] != 0:
				if elem != 0 {
					return p.errorf(t, "kernel %s: second type %q", k.Name, t.text)
				}
				elem = ptxTypeSize[t.text]
				a.TypeName = t.text
				continue
			case t.text[0] == '.':
				return p.errorf(t, "kernel %s: unknown parameter qualifier %q", k.Name, t.text)
			}
			break
		}
		if elem == 0 {
			return p.errorf(t, "kernel %s: parameter %s has no type", k.Name, t.text)
		}
		a.Name = t.text
		size := uint64(elem)
		for {
			n := p.lookahead()
			if n.kind != tokPunct || n.text != "[" {
				break
			}
			p.advance()
			v := p.advance()
			c, err := strconv.ParseUint(v.text, 0, 32)
			if err != nil || c == 0 {
				return p.errorf(v, "kernel %s: parameter %s wants a positive array size, got %q", k.Name, a.Name, v.text)
			}
			if err := p.expect("]"); err != nil {
				return err
			}
			size *= c
			if size > maxParamBytes {
				return p.errorf(v, "kernel %s: parameter %s over %d bytes", k.Name, a.Name, maxParamBytes)
			}
		}
		if align == 0 {
			align = uint64(elem)
		}
		off = (off + align - 1) &^ (align - 1)
		if off+size > maxParamBytes {
			return p.errorf(t, "kernel %s: parameters over %d bytes", k.Name, maxParamBytes)
		}
		a.Offset, a.Size, a.Align = uint32(off), uint32(size), uint32(align)
		off += size
		var err error
		if k.Args, err = grow(p.parser, k.Args, "PTX", int64(t.off)); err != nil {
			return err
		}
		k.Args = append(k.Args, a)
		k.KernargAlign = max(k.KernargAlign, uint32(align))
		k.KernargSize = uint32(off)
		t = p.advance()
		if t.kind == tokPunct && t.text == ")" {
			return nil
		}
		if t.kind != tokPunct || t.text != "," {
			return p.errorf(t, "kernel %s: want ',' or ')' after parameter %s, got %q", k.Name, a.Name, t.text)
		}
	}
}

// String of a PTX parameter for Describe, e.g. ".align 8 .b8 p[24]".
func ptxParamString(a Arg) string {
	s := a.TypeName
	if a.Kind == KindGlobalBuffer {
		s += " .ptr.global"
	}
	if sz := ptxTypeSize[a.TypeName]; sz != 0 && a.Size != sz {
		s = fmt.Sprintf("%s[%d]", s, a.Size/sz)
	}
	return s
}
