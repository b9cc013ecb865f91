package kernelgen

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// basicC is the C spelling of each fixed-size Go basic type.
var basicC = map[types.BasicKind]string{
	types.Int8: "int8_t", types.Int16: "int16_t", types.Int32: "int32_t", types.Int64: "int64_t",
	types.Uint8: "uint8_t", types.Uint16: "uint16_t", types.Uint32: "uint32_t", types.Uint64: "uint64_t",
	types.Int: "long long", types.Uint: "unsigned long long",
	types.Float32: "float", types.Float64: "double", types.Bool: "bool",
	types.UntypedBool: "bool",
}

// cType is the C++ spelling of typ; pos names the place for an error. A
// slice is its non-const view.
func (t *translator) cType(typ types.Type, pos token.Pos) string {
	switch u := typ.(type) {
	case *types.TypeParam:
		return cName(u.Obj().Name())
	case *types.Alias:
		return t.cType(types.Unalias(u), pos)
	case *types.Named:
		if isKernelType(u, "Dim") {
			return "hg_dim"
		}
		if isThread(u) {
			t.errorf(pos, "a kernel.Thread value", "pass the Thread itself to device functions")
			return "void"
		}
		if st, ok := u.Underlying().(*types.Struct); ok {
			if u.Obj().Pkg() != t.pkg.Types {
				t.errorf(pos, "struct type "+u.String(), "only the package's own struct types cross into kernels")
				return "void"
			}
			if u.TypeArgs().Len() > 0 {
				t.errorf(pos, "generic struct type "+u.String(), "")
				return "void"
			}
			if u.Obj().Parent() != t.pkg.Types.Scope() {
				t.errorf(pos, "local type "+u.Obj().Name(), "declare it at package level")
				return "void"
			}
			t.addStruct(u, st, pos)
			return cName(u.Obj().Name())
		}
		return t.cType(u.Underlying(), pos)
	case *types.Basic:
		if c, ok := basicC[u.Kind()]; ok {
			return c
		}
		switch {
		case u.Info()&types.IsString != 0:
			t.errorf(pos, "string", "kernels have no strings")
		case u.Info()&types.IsComplex != 0:
			t.errorf(pos, "complex number", "")
		default:
			t.errorf(pos, "type "+u.String(), "")
		}
		return "void"
	case *types.Array:
		return fmt.Sprintf("hg_array<%s, %d>", t.cType(u.Elem(), pos), u.Len())
	case *types.Slice:
		return fmt.Sprintf("hg_slice<%s>", t.cType(u.Elem(), pos))
	case *types.Pointer:
		return t.cType(u.Elem(), pos) + "*"
	case *types.Map:
		t.errorf(pos, "map", "")
	case *types.Chan:
		t.errorf(pos, "channel", "")
	case *types.Interface:
		t.errorf(pos, "interface", "")
	case *types.Signature:
		t.errorf(pos, "function value", "")
	case *types.Struct:
		t.errorf(pos, "anonymous struct type", "declare a named struct type")
	default:
		t.errorf(pos, "type "+typ.String(), "")
	}
	return "void"
}

// sliceC is the C++ view type of a slice of elem: const when ro.
func (t *translator) sliceC(elem types.Type, ro bool, pos token.Pos) string {
	e := t.cType(elem, pos)
	if ro {
		e = "const " + e
	}
	return "hg_slice<" + e + ">"
}

// addStruct records a package struct type for a C definition, after the
// struct types its fields hold.
func (t *translator) addStruct(n *types.Named, st *types.Struct, pos token.Pos) {
	if t.structSeen[n] {
		return
	}
	t.structSeen[n] = true
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !fixedSize(f.Type()) {
			t.errorf(pos, fmt.Sprintf("struct field %s.%s of type %s", n.Obj().Name(), f.Name(), f.Type()), "struct fields are fixed-size numbers, bools, arrays and structs")
			continue
		}
		t.cType(f.Type(), pos)
	}
	t.structs = append(t.structs, n)
}

// fixedSize reports whether typ is a number, bool, or an array or struct
// of them.
func fixedSize(typ types.Type) bool {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		_, ok := basicC[u.Kind()]
		return ok && u.Kind() != types.UntypedBool
	case *types.Array:
		return fixedSize(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if !fixedSize(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// structDef is the C definition of a package struct type.
func (t *translator) structDef(n *types.Named) string {
	st := n.Underlying().(*types.Struct)
	var b strings.Builder
	fmt.Fprintf(&b, "struct %s {\n", cName(n.Obj().Name()))
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		fmt.Fprintf(&b, "  %s %s;\n", t.cType(f.Type(), n.Obj().Pos()), cName(f.Name()))
	}
	b.WriteString("};\n")
	return b.String()
}

// basicOf is the basic type under typ, or nil (type parameters included).
func basicOf(typ types.Type) *types.Basic {
	b, _ := typ.Underlying().(*types.Basic)
	return b
}

func isInteger(typ types.Type) bool {
	b := basicOf(typ)
	return b != nil && b.Info()&types.IsInteger != 0
}

func isUnsigned(typ types.Type) bool {
	b := basicOf(typ)
	return b != nil && b.Info()&types.IsUnsigned != 0
}

func isFloat(typ types.Type) bool {
	b := basicOf(typ)
	return b != nil && b.Info()&types.IsFloat != 0
}

// isNarrow reports whether typ is an integer narrower than int32, which C++
// promotes to int: its results are cut back to its width.
func isNarrow(typ types.Type) bool {
	b := basicOf(typ)
	if b == nil {
		return false
	}
	switch b.Kind() {
	case types.Int8, types.Int16, types.Uint8, types.Uint16:
		return true
	}
	return false
}

func isTypeParam(typ types.Type) bool {
	_, ok := typ.(*types.TypeParam)
	return ok
}

// literal is the exact C++ literal of the constant v of type typ.
func (t *translator) literal(v constant.Value, typ types.Type, pos token.Pos) string {
	if isTypeParam(typ) {
		c := cName(typ.(*types.TypeParam).Obj().Name())
		if v.Kind() == constant.Float {
			f, _ := constant.Float64Val(v)
			return fmt.Sprintf("(%s)%s", c, floatLit(f, false))
		}
		if v.Kind() == constant.Int {
			return fmt.Sprintf("(%s)%s", c, intLit(v, types.Typ[types.Int]))
		}
	}
	b := basicOf(typ)
	if b == nil {
		t.errorf(pos, "constant of type "+typ.String(), "")
		return "0"
	}
	if b.Info()&types.IsUntyped != 0 {
		b = types.Default(b).(*types.Basic)
	}
	switch {
	case b.Info()&types.IsBoolean != 0:
		return strconv.FormatBool(constant.BoolVal(v))
	case b.Info()&types.IsInteger != 0:
		return intLit(constant.ToInt(v), b)
	case b.Info()&types.IsFloat != 0:
		f, _ := constant.Float64Val(constant.ToFloat(v))
		if b.Kind() == types.Float32 {
			return floatLit(float64(float32(f)), true)
		}
		return floatLit(f, false)
	case b.Info()&types.IsString != 0:
		t.errorf(pos, "string", "kernels have no strings")
	default:
		t.errorf(pos, "constant of type "+typ.String(), "")
	}
	return "0"
}

func intLit(v constant.Value, b *types.Basic) string {
	s := v.ExactString()
	switch b.Kind() {
	case types.Int, types.Int64:
		if s == "-9223372036854775808" {
			return "(-9223372036854775807LL - 1)"
		}
		return s + "LL"
	case types.Uint, types.Uint64:
		return s + "ULL"
	case types.Int32:
		if s == "-2147483648" {
			return "(-2147483647 - 1)"
		}
		return s
	case types.Uint32:
		return s + "U"
	default:
		return "(" + basicC[b.Kind()] + ")" + s
	}
}

// floatLit is the shortest decimal that reads back as f exactly (with an f
// suffix for float32).
func floatLit(f float64, f32 bool) string {
	bits := 64
	if f32 {
		bits = 32
	}
	var s string
	switch {
	case math.IsInf(f, 1):
		s = "__builtin_huge_val()"
	case math.IsInf(f, -1):
		s = "-__builtin_huge_val()"
	default:
		s = strconv.FormatFloat(f, 'g', -1, bits)
		if !strings.ContainsAny(s, ".en") {
			s += ".0"
		}
	}
	if f32 {
		if strings.HasPrefix(s, "-__") || strings.HasPrefix(s, "__") {
			return strings.Replace(s, "val()", "valf()", 1)
		}
		return s + "f"
	}
	return s
}

// cKeywords are C++ keywords and names of the prelude that a Go
// identifier must not take.
var cKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`alignas alignof and and_eq asm auto bitand bitor bool catch char char8_t char16_t char32_t class
	compl concept const consteval constexpr constinit const_cast co_await co_return co_yield decltype delete do double
	dynamic_cast else enum explicit export extern false float friend inline int long mutable namespace new noexcept not
	not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires restrict short signed sizeof
	static static_assert static_cast struct template this thread_local throw true try typedef typeid typename union unsigned
	using virtual void volatile wchar_t while xor xor_eq main Checked
	int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t`) {
		cKeywords[w] = true
	}
	// HIP's and CUDA's vector types (float4, uchar2, ...), which hipRTC
	// and NVRTC declare before the translation unit.
	for _, b := range strings.Fields("char uchar short ushort int uint long ulong longlong ulonglong float double") {
		for n := 1; n <= 4; n++ {
			cKeywords[fmt.Sprintf("%s%d", b, n)] = true
		}
	}
	cKeywords["dim3"] = true
}

// cName is the C++ spelling of a Go identifier: itself, unless it is a
// C++ keyword or takes the prelude's names (hg_, __), then with a trailing _.
// A letter outside ASCII, which C++ may not take in an identifier where Go
// does (U+037A), is spelled U and its code point in hex.
func cName(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if r < utf8.RuneSelf {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, "U%06X", r)
			}
		}
		s = b.String()
	}
	if cKeywords[s] || strings.HasPrefix(s, "hg_") || strings.HasPrefix(s, "HG_") || strings.HasPrefix(s, "__") {
		return s + "_"
	}
	return s
}

// snake is GoName in snake case: VectorAdd → vector_add, SGEMM → sgemm,
// HTTPServer → http_server.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		up := c >= 'A' && c <= 'Z'
		if up && i > 0 {
			prev := r[i-1]
			prevLow := (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9')
			nextLow := i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z'
			if prevLow || (prev >= 'A' && prev <= 'Z' && nextLow) {
				b.WriteByte('_')
			}
		}
		if up {
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}
