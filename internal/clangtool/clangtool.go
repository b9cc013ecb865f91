// Package clangtool finds Debian's clang-19 and the programs it runs for a
// GPU build, so that a missing one is reported by its package before a
// compile fails with clang's own "Executable "lld" doesn't exist!".
//
// An AMDGPU code object is linked by lld (lld-19), an offload bundle is
// written by clang-offload-bundler (clang-tools-19); PTX (-S for NVPTX)
// needs clang-19 alone. clang looks for both in its own installation
// directory before PATH, so they are asked of clang (-print-prog-name), not
// of PATH.
package clangtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Clang is the compiler's name on PATH.
const Clang = "clang-19"

// The programs clang runs for AMDGPU builds.
const (
	LLD     = "lld"                   // links code objects (--offload-arch=gfx...)
	Bundler = "clang-offload-bundler" // packs several targets into one bundle
)

// Packages maps each program onto the Debian package that installs it.
var Packages = map[string]string{
	Clang:   "clang-19",
	LLD:     "lld-19",
	Bundler: "clang-tools-19",
}

// Find returns the path of clang (Clang when empty) and checks that each
// of progs is where clang will look for it. The error names every missing
// program and the package that provides it.
func Find(clang string, progs ...string) (string, error) {
	if clang == "" {
		clang = Clang
	}
	path, err := exec.LookPath(clang)
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH (apt-get install %s)", clang, pkg(clang))
	}
	var missing []string
	for _, p := range progs {
		out, err := exec.Command(path, "-print-prog-name="+p).Output()
		if err != nil {
			return "", fmt.Errorf("%s -print-prog-name=%s: %w", clang, p, err)
		}
		if !executable(strings.TrimSpace(string(out))) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		pkgs := make([]string, len(missing))
		for i, m := range missing {
			pkgs[i] = pkg(m)
		}
		return "", fmt.Errorf("%s cannot build AMDGPU code objects: %s not found (apt-get install %s)",
			clang, strings.Join(missing, " and "), strings.Join(pkgs, " "))
	}
	return path, nil
}

// executable reports whether p names an executable file; clang prints a
// bare name when it found none.
func executable(p string) bool {
	if !filepath.IsAbs(p) {
		var err error
		if p, err = exec.LookPath(p); err != nil {
			return false
		}
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func pkg(name string) string {
	name = filepath.Base(name)
	if p, ok := Packages[name]; ok {
		return p
	}
	if strings.HasPrefix(name, "clang") {
		return Packages[Clang]
	}
	return name
}
