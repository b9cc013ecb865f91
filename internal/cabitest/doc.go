// Package cabitest checks Go declarations against a C ABI at test time: it
// writes a small C program that includes some headers and prints the value of
// each expression it is given (sizeof, offsetof, enumerators, macros),
// compiles it with the system C compiler, runs it and returns the values.
//
// It exists so that tests can prove that hipgo's cgo-free mirrors of C types
// (the AQL packets of rocr/aql, the status codes of rocr, the structures the
// rocm driver passes to libhsa-runtime64) are bit-exact with the installed
// headers, for example Debian's libhsa-runtime-dev:
//
//	v := cabitest.Eval(t, []string{"hsa/hsa.h"}, []string{
//		"sizeof(hsa_kernel_dispatch_packet_t)",
//		"offsetof(hsa_kernel_dispatch_packet_t, grid_size_x)",
//		"HSA_PACKET_TYPE_BARRIER_OR",
//	})
//	if v["HSA_PACKET_TYPE_BARRIER_OR"] != 5 { ... }
//
// Every expression is cast to long long, so values above math.MaxInt64 come
// back wrapped. <stdio.h>, <stddef.h> and <stdint.h> are always included.
//
// The library itself stays cgo-free; only tests import this package, and it
// shells out to the compiler named by $CC (default cc, then gcc). When no
// compiler is found or the headers do not compile, the calling test is
// skipped with the reason, unless the feature word (Program.Feature, "hsa"
// for the package-level functions) is listed in the comma-separated
// environment variable HIPGO_REQUIRE (internal/testenv.Require): then the
// test fails instead, so CI that installed the headers cannot silently skip
// the check.
//
// All functions are safe to call from parallel tests. Each call compiles and
// runs one program (two for EvalDeclared when something is missing), which
// takes a few hundred milliseconds; batch expressions into one call.
package cabitest
