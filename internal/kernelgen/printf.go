package kernelgen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// printfCall writes kernel.Printf(t, format, args...) as hg_printf: the
// Go format turned into C's, verb by verb, for the arguments' types, so
// that a GPU prints what fmt.Printf prints on the cpu agent.
func (e *emitter) printfCall(x *ast.CallExpr) string {
	if x.Ellipsis.IsValid() {
		e.errorf(x, "kernel.Printf with args...", "pass the arguments one by one")
		return "0"
	}
	if len(x.Args) < 2 {
		e.errorf(x, "kernel.Printf without a format", "")
		return "0"
	}
	tv, ok := e.info.Types[x.Args[1]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		e.errorf(x.Args[1], "kernel.Printf with a format that is not a constant string", "write the format as a string literal or constant")
		return "0"
	}
	format := constant.StringVal(tv.Value)
	args := x.Args[2:]
	var c strings.Builder
	var cargs []string
	next := 0
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' {
			c.WriteString(cEscape(ch))
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+- 0#", format[j]) >= 0 {
			j++
		}
		flags := format[i+1 : j]
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		prec := false
		if j < len(format) && format[j] == '.' {
			prec = true
			j++
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
		}
		if j >= len(format) {
			e.errorf(x.Args[1], fmt.Sprintf("kernel.Printf format %q ending in %q", format, format[i:]), "")
			return "0"
		}
		spec, verb := format[i+1:j], format[j]
		i = j
		if verb == '%' && spec == "" {
			c.WriteString("%%")
			continue
		}
		if strings.ContainsRune(flags, '#') {
			e.errorf(x.Args[1], fmt.Sprintf("kernel.Printf verb %%%s%c", spec, verb), "the # flag prints differently in C")
			return "0"
		}
		if next >= len(args) {
			e.errorf(x, fmt.Sprintf("kernel.Printf format %q with too few arguments", format), "")
			return "0"
		}
		a := args[next]
		next++
		cv, arg, why := printfVerb(e.info.TypeOf(a), verb, prec, bare(e.expr(a)))
		if why != "" {
			e.errorf(a, fmt.Sprintf("kernel.Printf verb %%%s%c for %s", spec, verb, e.info.TypeOf(a)), "%s", why)
			return "0"
		}
		c.WriteString("%" + spec + cv)
		cargs = append(cargs, arg)
	}
	if next < len(args) {
		e.errorf(args[next], fmt.Sprintf("kernel.Printf format %q with too many arguments", format), "")
		return "0"
	}
	return fmt.Sprintf("hg_printf(%s)", strings.Join(append([]string{`"` + c.String() + `"`}, cargs...), ", "))
}

// printfVerb is C's conversion for Go's verb on a value of type t (C++
// arg), the argument as C passes it, or why there is none.
func printfVerb(t types.Type, verb byte, prec bool, arg string) (conv, carg, why string) {
	b := basicOf(t)
	if b == nil {
		return "", "", "Printf prints numbers and bools"
	}
	info := b.Info()
	wide := b.Kind() == types.Int || b.Kind() == types.Int64 || b.Kind() == types.Uint || b.Kind() == types.Uint64 || b.Kind() == types.Uintptr
	switch {
	case info&types.IsBoolean != 0:
		if verb == 't' || verb == 'v' {
			return "s", fmt.Sprintf(`((%s) ? "true" : "false")`, arg), ""
		}
	case info&types.IsInteger != 0:
		unsigned := info&types.IsUnsigned != 0
		switch verb {
		case 'd', 'v':
			switch {
			case wide && unsigned:
				return "llu", "(unsigned long long)" + parenthesize(arg), ""
			case wide:
				return "lld", "(long long)" + parenthesize(arg), ""
			case unsigned:
				return "u", "(unsigned)" + parenthesize(arg), ""
			}
			return "d", "(int)" + parenthesize(arg), ""
		case 'x', 'X', 'o':
			if !unsigned {
				return "", "", "Go prints a negative value with a minus sign and C does not: convert it to an unsigned type"
			}
			if wide {
				return "ll" + string(verb), "(unsigned long long)" + parenthesize(arg), ""
			}
			return string(verb), "(unsigned)" + parenthesize(arg), ""
		}
	case info&types.IsFloat != 0:
		switch verb {
		case 'f', 'F', 'e', 'E':
			return string(verb), "(double)" + parenthesize(arg), ""
		case 'g', 'G':
			if prec {
				return string(verb), "(double)" + parenthesize(arg), ""
			}
			return "", "", "Go's %g without a precision prints the shortest exact digits, C's six: give a precision (%.6g) or use %f or %e"
		case 'v':
			return "", "", "Go's %v prints a float's shortest exact digits, C's printf has no such verb: use %f, %e or %g with a precision"
		}
	default:
		return "", "", "Printf prints numbers and bools"
	}
	return "", "", "not a verb Printf translates (%d %v %x %X %o %t %f %F %e %E %g %G)"
}

// cEscape is the byte ch inside a C string literal.
func cEscape(ch byte) string {
	switch ch {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	}
	if ch < 0x20 || ch >= 0x7f {
		return fmt.Sprintf(`\%03o`, ch)
	}
	return string(ch)
}
