package codeobj

import "github.com/ianlancetaylor/demangle"

// Demangle returns the C++ reading of an Itanium-mangled kernel name
// ("_Z5scaleIfEvPT_S0_i" gives "void scale<float>(float*, float, int)"),
// or name itself when it is not mangled or does not parse.
func Demangle(name string) string {
	return demangle.Filter(name)
}
