package testenv

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/hipgo/hipgo/internal/clangtool"
)

// Clang returns the path of clang-19 for a test that runs it, after
// checking that the programs clang runs for that test's build are present
// too (clangtool.LLD and clangtool.Bundler for AMDGPU code objects and
// bundles). Where one is missing tb skips, or fails where HIPGO_REQUIRE
// lists "clang", naming each missing program and its package.
func Clang(tb testing.TB, progs ...string) string {
	tb.Helper()
	p, err := clangtool.Find("", progs...)
	Require(tb, "clang", err)
	return p
}

// Tool returns the path of the executable name, which the Debian package
// pkg provides, for a test that runs it; where it is missing tb skips, or
// fails where HIPGO_REQUIRE lists feature.
func Tool(tb testing.TB, feature, name, pkg string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		err = fmt.Errorf("%s is not on PATH (apt-get install %s)", name, pkg)
	}
	Require(tb, feature, err)
	return p
}
