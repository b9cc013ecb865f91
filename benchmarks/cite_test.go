package benchmarks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedDocs are the files whose figures cite benchmarks/results, relative
// to this package's directory: the READMEs and the guides under docs/.
func citedDocs() []string {
	docs, _ := filepath.Glob("../docs/*.md")
	return append([]string{"../README.md", "README.md"}, docs...)
}

// fence matches a fenced code block: commands there name files a run will
// write (results/cpu-$(date ...)/suite.txt), not files a figure comes from.
var fence = regexp.MustCompile("(?ms)^```.*?^```[^\n]*$")

// citation matches a path into the results directory, as README.md
// (benchmarks/results/...) and this directory's README (results/...)
// write it.
var citation = regexp.MustCompile("(?:\\.\\./|benchmarks/)*results/[^\\s)\\]`'\"|,;]*")

// citations returns the results paths text cites outside code blocks,
// relative to the results directory. Paths with a placeholder in them
// (<date>, $(date ...), *.txt) are examples, not citations.
func citations(text string) []string {
	var out []string
	for _, m := range citation.FindAllString(fence.ReplaceAllString(text, ""), -1) {
		if strings.ContainsAny(m, "$<>*{") {
			continue
		}
		m = strings.TrimRight(m, ".:")
		_, rest, _ := strings.Cut(m, "results/")
		out = append(out, rest)
	}
	return out
}

// Every results file the READMEs cite for a figure exists.
func TestResultsCited(t *testing.T) {
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Skipf("not in the source tree (%v): the READMEs are not here", err)
	}
	n := 0
	for _, doc := range citedDocs() {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range citations(string(b)) {
			n++
			if _, err := os.Stat(filepath.Join("results", c)); err != nil {
				t.Errorf("%s cites results/%s, which does not exist", filepath.Clean(doc), c)
			}
		}
	}
	if n == 0 {
		t.Error("no citation of a results file found: has the layout changed?")
	}
}

func TestCitations(t *testing.T) {
	text := "([raw](benchmarks/results/cpu-20261130/graph.txt)), `results/cpu.txt`.\n" +
		"[x](results/h200-20261201b/summary.txt) and benchmarks/results/cpu-<date>/suite.txt\n" +
		"```sh\ngo run . ../results/h200-<date>/native.txt ../results/native.txt\n```\n" +
		"| ... | cpu-a.txt | results/cpu-20261129/REPORT.md |\n"
	want := []string{"cpu-20261130/graph.txt", "cpu.txt", "h200-20261201b/summary.txt", "cpu-20261129/REPORT.md"}
	got := citations(text)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("citations = %q, want %q", got, want)
	}
}

// runDir is the results folder scheme: <machine>-<date>, a letter after the
// date for a later run of that machine on the same day.
var runDir = regexp.MustCompile(`^[a-z0-9]+-20[0-9]{6}[a-z]?$`)

// Every results file lies in a run's folder, results/<machine>-<date>/.
func TestResultsLayout(t *testing.T) {
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Skipf("not in the source tree (%v)", err)
	}
	n := 0
	err := filepath.WalkDir("results", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel("results", path)
		dir, _, ok := strings.Cut(filepath.ToSlash(rel), "/")
		if !ok || !runDir.MatchString(dir) {
			t.Errorf("results/%s: not in a results/<machine>-<date>/ folder", filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no results file found: has the layout changed?")
	}
}
