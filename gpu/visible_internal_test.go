package gpu

import (
	"fmt"
	"os"
	"testing"
)

// visibleGPUs on a made-up list of GPUs: the cpu driver has none, so the
// selection logic is tested here and the end-to-end effect (cpu agents
// stay) in device_test.go.
func TestVisibleGPUs(t *testing.T) {
	gpus := []string{"GPU-aaaa", "GPU-bbbb", "GPU-cccc"}
	uuid := func(s string) string { return s }
	cases := []struct {
		hip, cuda *string
		want      string
		err       bool
	}{
		{nil, nil, "[GPU-aaaa GPU-bbbb GPU-cccc]", false},
		{ptr("2,0"), nil, "[GPU-cccc GPU-aaaa]", false},
		{ptr(""), nil, "[]", false},
		{ptr(" 1 "), nil, "[GPU-bbbb]", false},
		{ptr("GPU-cccc,1"), nil, "[GPU-cccc GPU-bbbb]", false},
		{ptr("1,7,0"), nil, "[GPU-bbbb]", false}, // the first bad entry ends the list
		{ptr("-1,0"), nil, "[]", false},
		{ptr("0,0"), nil, "", true},
		{nil, ptr("1"), "[GPU-bbbb]", false},
		{nil, ptr(""), "[]", false},
		{ptr("2"), ptr("0"), "[GPU-cccc]", false}, // HIP's list wins
		{ptr(""), ptr("0"), "[]", false},
	}
	for _, c := range cases {
		setOrUnset(t, "HIP_VISIBLE_DEVICES", c.hip)
		setOrUnset(t, "CUDA_VISIBLE_DEVICES", c.cuda)
		got, err := visibleGPUs(gpus, uuid, func(string, string) bool { return false })
		if c.err {
			if err == nil {
				t.Errorf("HIP=%v CUDA=%v: got %v, want an error", show(c.hip), show(c.cuda), got)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("HIP=%v CUDA=%v: got %v %v, want %s", show(c.hip), show(c.cuda), got, err, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

func show(p *string) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprintf("%q", *p)
}

func setOrUnset(t *testing.T, k string, v *string) {
	t.Setenv(k, "")
	if v == nil {
		os.Unsetenv(k)
	} else {
		os.Setenv(k, *v)
	}
}

// A GPU whose vendor library applied the list itself (libcuda reads
// CUDA_VISIBLE_DEVICES) is not filtered a second time; the list indexes the
// others.
func TestVisibleGPUsAppliedByLibrary(t *testing.T) {
	gpus := []string{"cuda-0", "rocm-0", "rocm-1"}
	uuid := func(s string) string { return s }
	applied := func(g, env string) bool { return env == "CUDA_VISIBLE_DEVICES" && g == "cuda-0" }
	t.Setenv("CUDA_VISIBLE_DEVICES", "1")
	got, err := visibleGPUs(gpus, uuid, applied)
	if err != nil || fmt.Sprint(got) != "[cuda-0 rocm-1]" {
		t.Fatalf("got %v %v, want [cuda-0 rocm-1]", got, err)
	}
}
