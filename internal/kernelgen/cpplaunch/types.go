package cpplaunch

import (
	"fmt"
	"strings"
)

// ctype is a kernel parameter's type as the launcher sees it: a scalar
// passed by value, or a pointer to scalars passed as a buffer.
type ctype struct {
	Pointer bool
	Const   bool   // a pointer to const: the kernel only reads through it
	Elem    scalar // the value's type, or the pointee's
}

// scalar is an arithmetic type with a fixed size on every GPU target
// (amdgcn and nvptx64 are both LP64).
type scalar struct {
	Go    string // "float32"
	Size  uint32
	Float bool
}

var (
	int8T    = scalar{"int8", 1, false}
	uint8T   = scalar{"uint8", 1, false}
	int16T   = scalar{"int16", 2, false}
	uint16T  = scalar{"uint16", 2, false}
	int32T   = scalar{"int32", 4, false}
	uint32T  = scalar{"uint32", 4, false}
	int64T   = scalar{"int64", 8, false}
	uint64T  = scalar{"uint64", 8, false}
	float32T = scalar{"float32", 4, true}
	float64T = scalar{"float64", 8, true}
)

// typedefs are the single-word types besides C's keywords.
var typedefs = map[string]scalar{
	"float": float32T, "double": float64T,
	"int8_t": int8T, "uint8_t": uint8T, "int16_t": int16T, "uint16_t": uint16T,
	"int32_t": int32T, "uint32_t": uint32T, "int64_t": int64T, "uint64_t": uint64T,
	"size_t": uint64T, "ssize_t": int64T, "ptrdiff_t": int64T, "intptr_t": int64T, "uintptr_t": uint64T,
}

// Size is the type's size in a kernarg segment: 8 for every pointer.
func (t ctype) Size() uint32 {
	if t.Pointer {
		return 8
	}
	return t.Elem.Size
}

// Align is the type's C alignment, which is its size for all of these.
func (t ctype) Align() uint32 { return t.Size() }

// Go is the launcher's parameter type.
func (t ctype) Go() string {
	if t.Pointer {
		return "buffer.Array[" + t.Elem.Go + "]"
	}
	return t.Elem.Go
}

// ArgsMethod is the module.Args method that adds a value of the type.
func (t ctype) ArgsMethod() string {
	switch {
	case t.Pointer && t.Const:
		return "ConstPtr"
	case t.Pointer:
		return "Ptr"
	}
	return strings.ToUpper(t.Elem.Go[:1]) + t.Elem.Go[1:]
}

// cType maps a C base type (its words joined by spaces, qualifiers
// removed) and a pointer depth onto a ctype.
func cType(base string, stars int) (ctype, error) {
	spelled := base + strings.Repeat("*", stars)
	if stars > 0 {
		spelled = base + " " + strings.Repeat("*", stars)
	}
	if stars > 1 {
		return ctype{}, fmt.Errorf("type %q: pointers to pointers are not supported", spelled)
	}
	if base == "void" {
		if stars == 0 {
			return ctype{}, fmt.Errorf("type void is not a parameter type")
		}
		return ctype{}, fmt.Errorf("type %q: an untyped pointer has no buffer element type; use a typed pointer", spelled)
	}
	s, ok := typedefs[base]
	if !ok {
		s, ok = integer(strings.Fields(base))
	}
	if !ok {
		return ctype{}, fmt.Errorf("unknown type %q", spelled)
	}
	return ctype{Pointer: stars == 1, Elem: s}, nil
}

// integer reads C's integer type specifiers in any order ("unsigned",
// "long long int", "short unsigned"). Plain char is signed, as it is on
// amdgcn and nvptx.
func integer(words []string) (scalar, bool) {
	var signed, unsigned, char, short, long, ints int
	for _, w := range words {
		switch w {
		case "signed":
			signed++
		case "unsigned":
			unsigned++
		case "char":
			char++
		case "short":
			short++
		case "long":
			long++
		case "int":
			ints++
		default:
			return scalar{}, false
		}
	}
	sizes := 0 // how many of char, short and long appear
	for _, n := range []int{char, short, long} {
		if n > 0 {
			sizes++
		}
	}
	if signed+unsigned > 1 || char > 1 || short > 1 || long > 2 || ints > 1 || sizes > 1 || char+ints > 1 {
		return scalar{}, false
	}
	u := unsigned == 1
	switch {
	case char == 1:
		return pick(u, int8T, uint8T), true
	case short == 1:
		return pick(u, int16T, uint16T), true
	case long > 0:
		return pick(u, int64T, uint64T), true
	default: // "int", "signed", "unsigned", "unsigned int"
		return pick(u, int32T, uint32T), true
	}
}

func pick(unsigned bool, s, u scalar) scalar {
	if unsigned {
		return u
	}
	return s
}
