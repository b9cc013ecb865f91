package codeobj

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hipgo/hipgo/internal/clangtool"
	"github.com/hipgo/hipgo/internal/testenv"
)

// TestFixturesUpToDate rebuilds the fixtures with gen.sh and checks that
// they parse to what the committed ones parse to.
func TestFixturesUpToDate(t *testing.T) {
	// gen.sh links AMDGPU code objects (lld) and writes offload bundles
	// (clang-offload-bundler) besides the PTX.
	testenv.Tool(t, "clang", "sh", "dash")
	testenv.Clang(t, clangtool.LLD, clangtool.Bundler)
	if testing.Short() {
		t.Skip("compiles the fixtures")
	}
	out := t.TempDir()
	cmd := exec.Command("sh", "gen.sh")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, b)
	}
	for _, name := range []string{"gfx90a_v4.co", "gfx1100_v5.co", "gfx942_v6.co", "bundle.hipfb", "compressed.hipfb", "host.o", "k.ptx", "printf_gfx90a.co", "hostcall_gfx90a.co"} {
		fresh, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(fresh, fixture(t, name)) {
			continue
		}
		if a, b := Describe(mustParse(t, fixture(t, name))), Describe(mustParse(t, fresh)); a != b {
			t.Errorf("testdata/%s is stale; run testdata/gen.sh\ncommitted:\n%s\nfresh:\n%s", name, a, b)
		}
	}
}

// A linked host image whose .hip_fatbin is not named: the device code is
// found through the __hipFatBinaryWrapper's pointer.
func TestHostWrapperPointer(t *testing.T) {
	b := append([]byte(nil), fixture(t, "host.o")...)
	f, err := openELF(b)
	if err != nil {
		t.Fatal(err)
	}
	shoff := le.Uint64(b[40:])
	var fatbin, seg int
	for i, s := range f.sections {
		switch s.name {
		case ".hip_fatbin":
			fatbin = i
		case ".hipFatBinSegment":
			seg = i
		}
	}
	if fatbin == 0 || seg == 0 {
		t.Fatal("host.o lacks .hip_fatbin or .hipFatBinSegment")
	}
	// Give the sections addresses as a linker would, hide the name, and
	// store the relocated pointer in the wrapper.
	const addr = 0x10000
	le.PutUint64(b[shoff+uint64(fatbin)*shdrSize+16:], addr)
	nameOff := le.Uint32(b[shoff+uint64(fatbin)*shdrSize:])
	strtab := f.sections[le.Uint16(b[62:])]
	b[strtab.off+uint64(nameOff)+1] = 'X' // ".Xip_fatbin"
	le.PutUint64(b[f.sections[seg].off+8:], addr)

	s := mustParse(t, b)
	if len(s.Objects) != 1 || s.Objects[0].Target != "gfx90a" {
		t.Fatalf("via wrapper: %v", s.Targets())
	}
	le.PutUint64(b[f.sections[seg].off+8:], 0x999999)
	if _, err := Parse(b); err == nil {
		t.Error("dangling wrapper pointer accepted")
	}
}
