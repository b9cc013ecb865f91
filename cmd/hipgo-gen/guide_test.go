package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/clangtool"
	"github.com/hipgo/hipgo/internal/testenv"
)

// A guide is what a doc tells a newcomer to do: files to write (a
// paragraph that begins with the file's name in backquotes and ends with a
// colon, before a fenced block) and shell blocks to run, in order: the
// setup from the published module, the setup from a checkout ($HIPGO),
// then the build and run.
type guide struct {
	files   map[string]string
	scripts []string // the unlabeled ```sh blocks
}

var fileLabel = regexp.MustCompile("^`([^`]+)`")

func readGuide(t *testing.T, doc string) guide {
	t.Helper()
	b, err := os.ReadFile(doc)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("not in the source tree: %v", err)
	}
	require.NoError(t, err)
	g := guide{files: map[string]string{}}
	var para []string // the paragraph before the line being read
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "```") {
			if strings.TrimSpace(line) == "" {
				if len(para) > 0 && para[len(para)-1] != "" {
					para = append(para, "")
				}
			} else {
				if len(para) > 0 && para[len(para)-1] == "" {
					para = nil
				}
				para = append(para, line)
			}
			continue
		}
		label := ""
		if len(para) > 0 {
			last := para[len(para)-1]
			if last == "" && len(para) > 1 {
				last = para[len(para)-2]
			}
			if m := fileLabel.FindStringSubmatch(para[0]); m != nil && strings.HasSuffix(last, ":") {
				label = m[1]
			}
		}
		para = nil
		lang := strings.TrimPrefix(line, "```")
		var body strings.Builder
		for sc.Scan() && sc.Text() != "```" {
			body.WriteString(sc.Text() + "\n")
		}
		switch {
		case label != "":
			g.files[label] = body.String()
		case lang == "sh":
			g.scripts = append(g.scripts, body.String())
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, g.scripts, 3, "%s: a setup block from the published module, one from a checkout, and a build-and-run block", doc)
	assert.Contains(t, g.scripts[0], "go get github.com/hipgo/hipgo@latest", "%s: the first setup is the published module's", doc)
	assert.Contains(t, g.scripts[1], "$HIPGO", "%s: the second setup is a checkout's", doc)
	return g
}

// follow does what the guide says, word for word, in an empty directory
// outside this repository, from a checkout: this tree is $HIPGO, as the
// guide's reader sets it. GOPROXY=off keeps the run offline (the module
// cache already holds hipgo's dependencies: this test's own build needed
// them), and GOFLAGS=-mod=mod lets go commands update go.mod as they
// would for the reader.
func follow(t *testing.T, g guide) string {
	t.Helper()
	testenv.GoTool(t)
	testenv.Tool(t, "go", "sh", "dash")
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	env := append(os.Environ(), "HIPGO="+root, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "HIPGO_DRIVER=cpu", "HIPGO_REQUIRE=")
	tmp := t.TempDir()
	sh := func(dir, script string) string {
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "in %s:\n%s\n%s", dir, script, out)
		return string(out)
	}
	sh(tmp, g.scripts[1])
	ents, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, ents, 1, "the setup block makes one module directory")
	mod := filepath.Join(tmp, ents[0].Name())
	for name, text := range g.files {
		p := filepath.Join(mod, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	out := sh(mod, g.scripts[2])
	// What the guide promises of the module: hipgo from the checkout,
	// and the generator as a tool.
	gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "github.com/hipgo/hipgo v0.0.0")
	assert.Contains(t, string(gomod), "tool github.com/hipgo/hipgo/cmd/hipgo-gen")
	return out
}

// docs/go-kernels.md's guide, from an empty directory to its own Go
// kernel running on the cpu agent, with nothing copied from this tree.
func TestGuideGoKernel(t *testing.T) {
	t.Parallel()
	// go generate runs clang-19 where it is on PATH, and then needs the
	// programs it runs for AMD code objects too.
	if _, err := exec.LookPath(clangtool.Clang); err == nil {
		testenv.Clang(t, clangtool.LLD, clangtool.Bundler)
	}
	g := readGuide(t, filepath.Join("..", "..", "docs", "go-kernels.md"))
	out := follow(t, g)
	assert.Contains(t, out, "cpu driver")
	assert.Contains(t, out, "[16384 16384 16384 16384]") // 2^20 bytes of i%256, 64 bins of the low six bits
}

// docs/cpp-kernels.md's guide: a HIP kernel compiled by clang-19 with the
// header and the loader hipgo-gen writes, run on the cpu agent through its
// Go twin.
func TestGuideCppKernel(t *testing.T) {
	t.Parallel()
	testenv.Clang(t, clangtool.LLD, clangtool.Bundler)
	g := readGuide(t, filepath.Join("..", "..", "docs", "cpp-kernels.md"))
	out := follow(t, g)
	assert.Contains(t, out, "cpu driver")
	assert.Contains(t, out, "[-0.5 3 4.5 16]")
}
