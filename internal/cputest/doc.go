// Package cputest is what tests above rocr share on the cpu agent: the
// runtime opened on cpu agents alone (Agents, Agent), the gpu layer opened
// on the cpu driver (Device), and the test kernels that many packages'
// tests launch (sleep, fail, panic, empty, overrun), defined once.
//
// Only tests import it: it is the one helper of the internal/ floor that
// sits above rocr and gpu (README.md, Layout). As it imports rocr and its
// cpu driver, rocr's and the cpu driver's own in-package tests cannot use
// it; their external tests (package rocr_test, cpu_test) can. Kernels that
// pair with GPU code of the same name (the reliability tests' PTX) keep
// their own definitions.
//
// Tests that open the runtime this way must not run in parallel with each
// other: Agents and Device set environment variables (t.Setenv) and shut
// the process-wide runtime down when the test ends.
package cputest
