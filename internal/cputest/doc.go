// Package cputest is what tests above rocr share on the cpu agent: a
// runtime opened on cpu agents alone, and the test kernels that many
// packages' tests launch (sleep, fail, panic, empty, overrun), defined once.
//
// It imports rocr and its cpu driver, so rocr's and the cpu driver's own
// in-package tests cannot use it; their external tests (package rocr_test,
// cpu_test) can. Kernels that pair with GPU code of the same name (the
// reliability tests' PTX) keep their own definitions.
//
// Agents may be called by any test; tests that open the runtime must not
// run in parallel with each other, as the runtime is process-wide.
package cputest
