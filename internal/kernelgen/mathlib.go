package kernelgen

import (
	"fmt"
	"sort"
	"strings"
)

// mathFn is one float function on each path: the runtime compilers
// (NVRTC, hipRTC: their CUDA/HIP math library), clang offline for AMDGPU
// and for NVPTX (no device library: what the backend lowers itself).
// An empty offline spelling is a function the backend cannot lower.
type mathFn struct {
	args             int
	rtc32, rtc64     string
	amd32, amd64     string
	nvptx32, nvptx64 string
}

// Offline NVPTX has no libdevice: exp, log, sin and cos are the PTX
// approximations (ex2/lg2/sin/cos.approx.f32: about 2 ULP in their reduced
// ranges, sin/cos absolute error 2^-20.9 in [-pi, pi] and worse outside),
// composed with a multiply (one more rounding). tanh and pow are composed
// of those (a few more ULP; pow of a negative base is NaN). NVRTC and
// hipRTC use the vendors' libraries (CUDA's documented bounds, HIP's ocml).
var mathFns = map[string]mathFn{
	"sqrt":  {1, "sqrtf(a)", "sqrt(a)", "__builtin_sqrtf(a)", "__builtin_sqrt(a)", "__builtin_sqrtf(a)", "__builtin_sqrt(a)"},
	"rsqrt": {1, "rsqrtf(a)", "rsqrt(a)", "1.0f / __builtin_sqrtf(a)", "1.0 / __builtin_sqrt(a)", "__nvvm_rsqrt_approx_f(a)", "1.0 / __builtin_sqrt(a)"},
	"exp":   {1, "expf(a)", "exp(a)", "__builtin_expf(a)", "", "__nvvm_ex2_approx_f(a * 1.44269504088896341f)", ""},
	"exp2":  {1, "exp2f(a)", "exp2(a)", "__builtin_exp2f(a)", "", "__nvvm_ex2_approx_f(a)", ""},
	"log":   {1, "logf(a)", "log(a)", "__builtin_logf(a)", "", "__nvvm_lg2_approx_f(a) * 0.693147180559945309f", ""},
	"log2":  {1, "log2f(a)", "log2(a)", "__builtin_log2f(a)", "", "__nvvm_lg2_approx_f(a)", ""},
	"sin":   {1, "sinf(a)", "sin(a)", "__builtin_sinf(a)", "", "__nvvm_sin_approx_f(a)", ""},
	"cos":   {1, "cosf(a)", "cos(a)", "__builtin_cosf(a)", "", "__nvvm_cos_approx_f(a)", ""},
	"tanh":  {1, "tanhf(a)", "tanh(a)", "hg_tanh_exp(a)", "", "hg_tanh_exp(a)", ""},
	"pow":   {2, "powf(a, b)", "pow(a, b)", "__builtin_exp2f(b * __builtin_log2f(a))", "", "__nvvm_ex2_approx_f(b * __nvvm_lg2_approx_f(a))", ""},
	"abs":   {1, "fabsf(a)", "fabs(a)", "__builtin_fabsf(a)", "__builtin_fabs(a)", "__builtin_fabsf(a)", "__builtin_fabs(a)"},
	"floor": {1, "floorf(a)", "floor(a)", "__builtin_floorf(a)", "__builtin_floor(a)", "__builtin_floorf(a)", "__builtin_floor(a)"},
	"ceil":  {1, "ceilf(a)", "ceil(a)", "__builtin_ceilf(a)", "__builtin_ceil(a)", "__builtin_ceilf(a)", "__builtin_ceil(a)"},
	"trunc": {1, "truncf(a)", "trunc(a)", "__builtin_truncf(a)", "__builtin_trunc(a)", "__builtin_truncf(a)", "__builtin_trunc(a)"},
	"fma":   {3, "fmaf(a, b, c)", "fma(a, b, c)", "__builtin_fmaf(a, b, c)", "__builtin_fma(a, b, c)", "__builtin_fmaf(a, b, c)", "__builtin_fma(a, b, c)"},
}

// useMath records that hg_name is called on float32 (bits 32) or float64.
func (t *translator) useMath(name string, bits int) {
	t.math[fmt.Sprintf("%s/%d", name, bits)] = true
}

// mathSource is the definitions of the math helpers the kernels use.
func (t *translator) mathSource() string {
	if len(t.math) == 0 {
		return ""
	}
	var keys []string
	for k := range t.math {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("// ---- math ----\n\n")
	if t.math["tanh/32"] {
		b.WriteString(`#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
// tanh from exp (offline builds have no tanhf): 1 - 2/(e^2x + 1), and
// its series near 0 where that would cancel.
HG_DEV float hg_tanh_exp(float a) {
  float x2 = a * a;
  if (x2 < 0.015625f) return a * (1.0f - x2 * (0.333333333f - x2 * 0.133333333f));
#if defined(HG_NVPTX)
  float e = __nvvm_ex2_approx_f(a * 2.88539008177792681f);
#else
  float e = __builtin_exp2f(a * 2.88539008177792681f);
#endif
  return 1.0f - 2.0f / (e + 1.0f);
}
#endif
`)
	}
	for _, k := range keys {
		name, bits, _ := strings.Cut(k, "/")
		m := mathFns[name]
		ct, rtc, amd, nv := "float", m.rtc32, m.amd32, m.nvptx32
		if bits == "64" {
			ct, rtc, amd, nv = "double", m.rtc64, m.amd64, m.nvptx64
		}
		params := []string{ct + " a", ct + " b", ct + " c"}[:m.args]
		sig := fmt.Sprintf("HG_DEV %s hg_%s(%s)", ct, name, strings.Join(params, ", "))
		fmt.Fprintf(&b, "#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)\n%s { return %s; }\n", sig, rtc)
		for _, p := range []struct{ macro, body, target string }{{"HG_AMD", amd, "AMDGPU"}, {"HG_NVPTX", nv, "NVPTX"}} {
			fmt.Fprintf(&b, "#elif defined(%s)\n", p.macro)
			if p.body == "" {
				fmt.Fprintf(&b, "#error \"hipgo kernels: %s on %s needs the vendor's device library, which clang offline builds do not link: compile this source with %s, which has it\"\n",
					strings.ToUpper(name[:1])+name[1:]+"(float"+bits+")", p.target, map[string]string{"AMDGPU": "hipRTC", "NVPTX": "NVRTC"}[p.target])
				continue
			}
			fmt.Fprintf(&b, "%s { return %s; }\n", sig, p.body)
		}
		b.WriteString("#endif\n")
	}
	b.WriteString("\n")
	return b.String()
}
