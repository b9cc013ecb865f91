package cpplaunch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parse reads kernels from one source text without includes.
func parse(t *testing.T, src string) ([]*kernel, error) {
	t.Helper()
	ss := newSourceSet()
	err := ss.addText("t.hip", src, func(string) error { return nil })
	return ss.kernels, err
}

func TestParseSignatures(t *testing.T) {
	src := `
#include "hipgo.h"
#define HIPGO_KERNEL extern "C" __global__  // a directive: not a kernel
// HIPGO_KERNEL void commented_out(int x) {}
/* HIPGO_KERNEL void also_commented(int x);
   spanning lines */
HIPGO_KERNEL void empty() {}
HIPGO_KERNEL void empty_void(void) {}
HIPGO_KERNEL void ptrs(const float *a, float* b, float*c, const double * const d,
                       int *e, unsigned int *f, unsigned char *g, float *__restrict__ h) {
  const char *s = "HIPGO_KERNEL void not_a_kernel(int)"; int big = 1'000'000; char q = '\'';
}
extern "C" __global__ void values(int a, unsigned b, unsigned int c, float d, double e,
    long long f, unsigned long long g, int64_t h, size_t i, short j, long int k,
    const int l, uint32_t m) {}
__launch_bounds__(256)
HIPGO_KERNEL __launch_bounds__(64, 2) void attrs(float x, int /* n */ n) {}
HIPGO_KERNEL void unnamed(float *, int);
HIPGO_KERNEL void array(float a[], int n[4]);
HIPGO_KERNEL void
spaced ( const   float   *   a ,
         unsigned
         n ) {}
`
	ks, err := parse(t, src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ decl, goTypes string }{
		{"empty()", ""},
		{"empty_void()", ""},
		{"ptrs(const float *a, float *b, float *c, const double *d, int *e, unsigned int *f, unsigned char *g, float *h)",
			"buffer.Array[float32] buffer.Array[float32] buffer.Array[float32] buffer.Array[float64] buffer.Array[int32] buffer.Array[uint32] buffer.Array[uint8] buffer.Array[float32]"},
		{"values(int a, unsigned b, unsigned int c, float d, double e, long long f, unsigned long long g, int64_t h, size_t i, short j, long int k, const int l, uint32_t m)",
			"int32 uint32 uint32 float32 float64 int64 uint64 int64 uint64 int16 int64 int32 uint32"},
		{"attrs(float x, int n)", "float32 int32"},
		{"unnamed(float *, int)", "buffer.Array[float32] int32"},
		{"array(float *a, int *n)", "buffer.Array[float32] buffer.Array[int32]"},
		{"spaced(const float *a, unsigned n)", "buffer.Array[float32] uint32"},
	}
	if len(ks) != len(want) {
		var got []string
		for _, k := range ks {
			got = append(got, k.Decl())
		}
		t.Fatalf("found %d kernels, want %d:\n%s", len(ks), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		k := ks[i]
		if k.Decl() != w.decl {
			t.Errorf("kernel %d: %s, want %s", i, k.Decl(), w.decl)
		}
		var types []string
		for _, p := range k.Params {
			types = append(types, p.Type.Go())
		}
		if got := strings.Join(types, " "); got != w.goTypes {
			t.Errorf("%s: Go types %q, want %q", k.Name, got, w.goTypes)
		}
	}
	if ks[2].Line != 9 || ks[2].File != "t.hip" {
		t.Errorf("ptrs declared at %s, want t.hip:9", ks[2].where())
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"HIPGO_KERNEL void k(float2 *v) {}", `t.hip:1: kernel k parameter 0 (v): unknown type "float2 *"`},
		{"HIPGO_KERNEL void k(int a,\n struct s b) {}", `kernel k parameter 1 (b): unknown type "struct s"`},
		{"HIPGO_KERNEL void k(void *p) {}", `kernel k parameter 0 (p): type "void *": an untyped pointer`},
		{"HIPGO_KERNEL void k(float **p) {}", `pointers to pointers are not supported`},
		{"HIPGO_KERNEL void k(bool b) {}", `unknown type "bool"`},
		{"HIPGO_KERNEL void k(long double x) {}", `unknown type "long double"`},
		{"HIPGO_KERNEL void k(unsigned signed x) {}", `unknown type "unsigned signed"`},
		{"HIPGO_KERNEL void k(float &x) {}", `reference parameters are not supported`},
		{"HIPGO_KERNEL void k(int n = 3) {}", `default arguments are not supported`},
		{"HIPGO_KERNEL int k(int n) {}", `want return type void, got "int"`},
		{"HIPGO_KERNEL void k(int n {}", `unbalanced parentheses`},
		{"HIPGO_KERNEL void k(int a b) {}", `unknown type "int a"`},
		{"HIPGO_KERNEL void k(float *a b) {}", `unexpected "b"`},
		{"HIPGO_KERNEL void k(int a); HIPGO_KERNEL void k(float a) {}", `kernel k redeclared with different parameters`},
		{"/* HIPGO_KERNEL void k(int a);", `unterminated comment`},
	} {
		_, err := parse(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.src, err, c.want)
		}
	}
	// A prototype and its definition are one kernel.
	ks, err := parse(t, "HIPGO_KERNEL void k(const float *a, int n);\nHIPGO_KERNEL void k(const float *b, int m) {}")
	if err != nil || len(ks) != 1 {
		t.Errorf("prototype and definition: %d kernels, %v", len(ks), err)
	}
}

func TestIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("all.hip", "#include \"common.h\"\nHIPGO_KERNEL void first(int n) {}\n#  include \"sub/b.hip\" // comment\n#include <stdio.h>\n#include \"a.hip\"\n")
	write("common.h", "#ifndef C\n#define C\n#define HIPGO_KERNEL extern \"C\" __global__ \\\n  /* continued */\n#endif\n")
	write("a.hip", "#include \"common.h\"\n#include \"all.hip\"\nHIPGO_KERNEL void from_a(float x) {}\n")
	write("sub/b.hip", "#include \"../common.h\"\nHIPGO_KERNEL void from_b(double *p) {}\n")
	ss := newSourceSet()
	if err := ss.addFile(filepath.Join(dir, "all.hip")); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range ss.kernels {
		names = append(names, k.Name+"@"+filepath.Base(k.File))
	}
	if got := strings.Join(names, " "); got != "first@all.hip from_b@b.hip from_a@a.hip" {
		t.Errorf("kernels %s", got)
	}

	write("bad.hip", "HIPGO_KERNEL void k() {}\n#include \"missing.hip\"\n")
	err := newSourceSet().addFile(filepath.Join(dir, "bad.hip"))
	if err == nil || !strings.Contains(err.Error(), `bad.hip:2: #include "missing.hip"`) {
		t.Errorf("missing include: %v", err)
	}
}

func TestGoNames(t *testing.T) {
	for in, want := range map[string]string{"vector_add": "VectorAdd", "fill_f32": "FillF32", "sgemm": "Sgemm", "__k_": "K", "_3d": "K3d"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	ks, err := parse(t, "HIPGO_KERNEL void k(int s, float *grid, int type, int err, int, int stream, float *fs) {}")
	if err != nil {
		t.Fatal(err)
	}
	gks, err := goNames(Config{Loader: "set"}, ks)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(gks[0].Params, " "); got != "sArg gridArg typeArg errArg arg4 streamArg fsArg" {
		t.Errorf("parameter names %s", got)
	}
	ks, _ = parse(t, "HIPGO_KERNEL void a_b() {}\nHIPGO_KERNEL void aB() {}")
	if _, err := goNames(Config{Loader: "set"}, ks); err == nil || !strings.Contains(err.Error(), "both become AB") {
		t.Errorf("name clash: %v", err)
	}
}
