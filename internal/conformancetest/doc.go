// Package conformance holds hipgo's reproduction of HIP's own conformance
// suite (ROCm/hip-tests, the catch2 tests under catch/unit): each test
// names the hip-tests file and TEST_CASE whose assertions it follows, and
// each t.Run the SECTION. They run on the cpu agent in CI and on any GPU
// that HIPGO_DRIVER selects.
//
// A case where hipgo differs from HIP on purpose asserts hipgo's
// documented behaviour (README's HIP table says why) and says so in a
// "documented difference" comment.
package conformancetest
