package rocm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	_ "github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// realLibrary opens the installed ROCR, skipping when it is absent unless
// HIPGO_REQUIRE lists rocm-lib.
func realLibrary(t *testing.T) hsaAPI {
	t.Helper()
	api, err := openLibrary()
	if err != nil {
		if !testenv.Required("rocm-lib") && !errors.Is(err, hsa.ErrNotSupported) || !strings.Contains(err.Error(), LibraryName) {
			t.Errorf("a missing library must say where it looked, wrapping ErrNotSupported: %v", err)
		}
		testenv.Require(t, "rocm-lib", err)
	}
	return api
}

// noGPU skips where hsa_init may succeed: this test is about machines
// without an AMD GPU.
func noGPU(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/kfd"); err == nil {
		t.Skip("/dev/kfd exists: this machine may have an AMD GPU; see TestDevice")
	}
}

// TestRealInitFails runs the installed ROCR for real: with no /dev/kfd
// hsa_init fails, the driver reports no AMD agent in ROCR's words, and
// rocr.Init goes on to the cpu agent.
func TestRealInitFails(t *testing.T) {
	api := realLibrary(t)
	noGPU(t)
	t.Setenv("HIPGO_DRIVER", "")
	os.Unsetenv("HIPGO_DRIVER")
	_, err := theDriver.Open(rocr.Host())
	if err == nil {
		t.Fatal("hsa_init succeeded without /dev/kfd")
	}
	if !errors.Is(err, hsa.ErrNoAgent) {
		t.Fatalf("err = %v, want ErrNoAgent", err)
	}
	text := api.StatusString(hsaStatus(hsa.StatusOf(err)))
	if !strings.HasPrefix(text, "HSA_STATUS_") || !strings.Contains(err.Error(), "no AMD agent: "+text) {
		t.Errorf("err = %q: want ROCR's own status string %q", err, text)
	}
	t.Logf("ROCR says: %v", err)

	if err := rocr.Init(); err != nil {
		t.Fatalf("rocr.Init with no AMD GPU: %v", err)
	}
	defer rocr.ShutDown()
	// No rocm agent, and the cpu agent; other drivers linked into this
	// binary (cuda, through gpu) may add theirs.
	as, err := rocr.Agents()
	if err != nil || len(as) == 0 {
		t.Fatalf("agents %v, %v: want the cpu agent", as, err)
	}
	cpuAgent := false
	for _, a := range as {
		if a.Info().Driver == Name {
			t.Fatalf("agents %v: a rocm agent without an AMD GPU", as)
		}
		cpuAgent = cpuAgent || a.Info().Driver == "cpu"
	}
	if !cpuAgent {
		t.Fatalf("agents %v: want the cpu agent", as)
	}
	st, _ := rocr.DriverStatus()
	if !errors.Is(st[Name], hsa.ErrNoAgent) {
		t.Errorf("driver status of rocm: %v", st[Name])
	}
	// A second Init retries hsa_init and fails the same way.
	if _, err := theDriver.Open(rocr.Host()); !errors.Is(err, hsa.ErrNoAgent) {
		t.Errorf("second open: %v", err)
	}
}

// TestRealForcedNoGPU: HIPGO_DRIVER=rocm without a GPU is an error naming
// the reason.
func TestRealForcedNoGPU(t *testing.T) {
	realLibrary(t)
	noGPU(t)
	t.Setenv("HIPGO_DRIVER", Name)
	err := rocr.Init()
	if err == nil {
		rocr.ShutDown()
		t.Fatal("rocr.Init succeeded with HIPGO_DRIVER=rocm and no AMD GPU")
	}
	if !errors.Is(err, hsa.ErrNoAgent) || !strings.Contains(err.Error(), "no AMD agent: HSA_STATUS_") {
		t.Errorf("err = %v", err)
	}
}

// TestLibraryMissing: a library that is not there is ErrNotSupported,
// naming every path tried.
func TestLibraryMissing(t *testing.T) {
	_, err := loadLibrary([]string{"/nonexistent/libhsa-runtime64.so.1", "/also/not/here.so"})
	if !errors.Is(err, hsa.ErrNotSupported) || !strings.Contains(err.Error(), "/nonexistent/libhsa-runtime64.so.1") || !strings.Contains(err.Error(), "/also/not/here.so") {
		t.Errorf("err = %v", err)
	}
	// A library without ROCR's functions is refused by name.
	if _, err := loadLibrary([]string{"libc.so.6"}); !errors.Is(err, hsa.ErrNotSupported) || !strings.Contains(err.Error(), "lacks hsa_init") {
		t.Errorf("libc as ROCR: %v", err)
	}
}

func TestLibraryPaths(t *testing.T) {
	t.Setenv(LibraryEnv, "")
	t.Setenv("ROCM_PATH", "/opt/rocm-6.2.0")
	want := []string{LibraryName, "/opt/rocm-6.2.0/lib/" + LibraryName, "/opt/rocm/lib/" + LibraryName}
	if got := libraryPaths(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paths %v, want %v", got, want)
	}
	t.Setenv(LibraryEnv, "/x/libhsa.so")
	if got := libraryPaths(); len(got) != 1 || got[0] != "/x/libhsa.so" {
		t.Errorf("with %s: %v", LibraryEnv, got)
	}
}
