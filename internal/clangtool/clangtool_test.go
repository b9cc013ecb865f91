package clangtool_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/clangtool"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A fake clang that answers -print-prog-name as clang does: the path where
// it found the program, or the bare name where it found none.
func fakeClang(t *testing.T, found ...string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n"
	for _, f := range found {
		p := filepath.Join(dir, f)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
		script += "-print-prog-name=" + f + ") echo " + p + ";;\n"
	}
	script += "-print-prog-name=*) echo \"${1#-print-prog-name=}\";;\nesac\n"
	cc := filepath.Join(dir, "fake-clang")
	require.NoError(t, os.WriteFile(cc, []byte(script), 0o755))
	return cc
}

func TestFind(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		testenv.Requiref(t, "sh", "the fake clang is a shell script: %v", err)
	}
	cc := fakeClang(t, clangtool.LLD, clangtool.Bundler)
	p, err := clangtool.Find(cc, clangtool.LLD, clangtool.Bundler)
	require.NoError(t, err)
	assert.Equal(t, cc, p)

	cc = fakeClang(t, clangtool.Bundler)
	_, err = clangtool.Find(cc, clangtool.LLD, clangtool.Bundler)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lld not found (apt-get install lld-19)")

	cc = fakeClang(t)
	_, err = clangtool.Find(cc, clangtool.LLD, clangtool.Bundler)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lld and clang-offload-bundler not found (apt-get install lld-19 clang-tools-19)")

	_, err = clangtool.Find(filepath.Join(t.TempDir(), "clang-19"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "apt-get install clang-19")
}
