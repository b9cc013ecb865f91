package gpu_test

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

func TestDevices(t *testing.T) {
	setup(t, "HIPGO_CPU_AGENTS", "2")
	n, err := gpu.Count()
	if err != nil || n != 2 {
		t.Fatalf("Count = %d, %v; want 2", n, err)
	}
	devs, err := gpu.Devices()
	if err != nil || len(devs) != 2 {
		t.Fatalf("Devices: %v %v", devs, err)
	}
	for i, d := range devs {
		g, err := gpu.Get(i)
		if err != nil || g != d || d.Ordinal() != i {
			t.Errorf("Get(%d) = %v, %v; Devices()[%d] = %v", i, g, err, i, d)
		}
		if d.Valid() != nil || d.Target() != "go" || d.Agent() == nil {
			t.Errorf("device %d: valid %v target %q", i, d.Valid(), d.Target())
		}
		if !strings.Contains(d.String(), "device") || !strings.Contains(d.String(), "cpu") {
			t.Errorf("String() = %q", d)
		}
	}
	devs[0] = nil // Devices returns a copy
	if again, _ := gpu.Devices(); again[0] == nil {
		t.Error("Devices returned the internal slice")
	}
	for _, i := range []int{-1, 2, 100} {
		if _, err := gpu.Get(i); !errors.Is(err, gpu.ErrInvalidDevice) {
			t.Errorf("Get(%d): %v, want ErrInvalidDevice", i, err)
		}
	}
	d, err := gpu.Default()
	if err != nil || d.Ordinal() != 0 {
		t.Errorf("Default: %v %v", d, err)
	}
	if err := gpu.Init(); err != nil {
		t.Errorf("Init on an open runtime: %v", err)
	}
}

func TestDefaultDeviceEnv(t *testing.T) {
	setup(t, "HIPGO_CPU_AGENTS", "2")
	for v, want := range map[string]int{"1": 1, " 0 ": 0, "": 0} {
		t.Setenv("HIPGO_DEVICE", v)
		d, err := gpu.Default()
		if err != nil || d.Ordinal() != want {
			t.Errorf("HIPGO_DEVICE=%q: %v %v, want device %d", v, d, err, want)
		}
	}
	for _, v := range []string{"2", "-1", "one", "1x"} {
		t.Setenv("HIPGO_DEVICE", v)
		if _, err := gpu.Default(); !errors.Is(err, gpu.ErrInvalidDevice) {
			t.Errorf("HIPGO_DEVICE=%q: %v, want ErrInvalidDevice", v, err)
		}
	}
}

// HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES select GPUs; the cpu agents
// are not GPUs and stay, whatever the lists say.
func TestVisibleDevicesKeepCPUAgents(t *testing.T) {
	for _, env := range []string{"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"} {
		for _, v := range []string{"", "0", "1,0", "7", "GPU-none"} {
			t.Run(env+"="+v, func(t *testing.T) {
				setup(t, "HIPGO_CPU_AGENTS", "2", env, v)
				n, err := gpu.Count()
				if err != nil || n != 2 {
					t.Errorf("%s=%q: %d devices, %v; want the 2 cpu agents", env, v, n, err)
				}
			})
		}
	}
}

func TestProperties(t *testing.T) {
	setup(t)
	d, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	p := d.Properties()
	checks := []struct {
		name string
		ok   bool
	}{
		{"Name", p.Name != ""},
		{"GCNArchName", p.GCNArchName == "go"},
		{"Vendor", p.Vendor != ""},
		{"Driver", p.Driver == "cpu"},
		{"TotalGlobalMem", p.TotalGlobalMem >= 64<<20},
		{"SharedMemPerBlock", p.SharedMemPerBlock == cpu.GroupMemory},
		{"MaxSharedMemPerBlockOptin", p.MaxSharedMemPerBlockOptin >= p.SharedMemPerBlock},
		{"WarpSize", p.WarpSize == 32},
		{"MaxThreadsPerBlock", p.MaxThreadsPerBlock == 1024},
		{"MaxThreadsDim", p.MaxThreadsDim[0] == 1024 && p.MaxThreadsDim[1] >= 1 && p.MaxThreadsDim[2] >= 1},
		{"MaxGridSize", p.MaxGridSize[0] == math.MaxInt32 && p.MaxGridSize[1] > 0 && p.MaxGridSize[2] > 0},
		{"MultiProcessorCount", p.MultiProcessorCount == runtime.GOMAXPROCS(0)},
		{"ClockRate", p.ClockRate == 1000*1000},
		{"UUID", p.UUID == "CPU-00000000"},
		{"IsCPU", p.IsCPU},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s wrong in %+v", c.name, p)
		}
	}
}

func TestDims(t *testing.T) {
	if d := gpu.D3(2, 3, 4); d.Count() != 24 || d.Dims() != 3 {
		t.Errorf("D3: %v", d)
	}
	if d := gpu.D2(2, 3); d.Count() != 6 || d.Dims() != 2 {
		t.Errorf("D2: %v", d)
	}
	if d := gpu.D1(5); d.Count() != 5 || d.Dims() != 1 || d != (gpu.Dim3{5, 1, 1}) {
		t.Errorf("D1: %v", d)
	}
	for _, c := range []struct {
		n     int
		block uint32
		want  uint32
	}{{1000, 256, 4}, {1024, 256, 4}, {1, 256, 1}, {0, 256, 0}, {-3, 256, 0}, {10, 0, 0}} {
		if got := gpu.Blocks(c.n, c.block); got != c.want {
			t.Errorf("Blocks(%d, %d) = %d, want %d", c.n, c.block, got, c.want)
		}
	}
}

var kernelSet = kernel.NewSet("gpu-test", cputest.Sleep, cputest.Fail)

// Device.Synchronize waits for every stream of the device, the default
// stream included, and returns a stream's failure.
func TestDeviceSynchronize(t *testing.T) {
	setup(t)
	dev, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	m, err := module.Load(dev, kernelSet)
	if err != nil {
		t.Fatal(err)
	}
	sleep := m.MustFunction("test_sleep")
	a, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	b, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Synchronize(); err != nil {
		t.Fatalf("idle device: %v", err)
	}
	start := time.Now()
	for i, s := range []*stream.Stream{a, b, nil} {
		if err := sleep.Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(30+20*i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := dev.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 65*time.Millisecond {
		t.Errorf("device synchronize returned after %v, before the 70 ms kernel ended", d)
	}
	def, _ := stream.DefaultStream(dev)
	for i, s := range []*stream.Stream{a, b, def} {
		if err := s.Query(); err != nil {
			t.Errorf("stream %d after device synchronize: %v", i, err)
		}
	}
	// A destroyed stream is no longer waited for.
	if err := b.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := m.MustFunction("test_fail").Launch(a, gpu.D1(1), gpu.D1(1), 0, int32(10)); err != nil {
		t.Fatal(err)
	}
	err = dev.Synchronize()
	if !errors.Is(err, gpu.ErrLaunchFailure) || !strings.Contains(err.Error(), "test_fail") {
		t.Errorf("device synchronize after a failed kernel: %v", err)
	}
}

func TestShutdown(t *testing.T) {
	setup(t, "HIPGO_CPU_AGENTS", "2")
	d, err := gpu.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := gpu.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := gpu.Shutdown(); err != nil {
		t.Errorf("second shutdown: %v", err)
	}
	for name, err := range map[string]error{
		"valid":       d.Valid(),
		"synchronize": d.Synchronize(),
		"load":        func() error { _, err := module.Load(d, kernelSet); return err }(),
	} {
		if !errors.Is(err, gpu.ErrContextIsDestroyed) {
			t.Errorf("%s after shutdown: %v, want ErrContextIsDestroyed", name, err)
		}
	}
	// The next call opens the runtime again, with new devices.
	d2, err := gpu.Get(1)
	if err != nil || d2 == d || d2.Valid() != nil {
		t.Fatalf("reopen: %v %v", d2, err)
	}
	var nilDev *gpu.Device
	if err := nilDev.Valid(); !errors.Is(err, gpu.ErrInvalidDevice) {
		t.Errorf("nil device: %v", err)
	}
}

func TestInitErrors(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "no-such-driver")
	_, err := gpu.Count()
	if !errors.Is(err, gpu.ErrNotSupported) || !strings.Contains(err.Error(), "no-such-driver") {
		t.Errorf("HIPGO_DRIVER=no-such-driver: %v", err)
	}
	var ge *gpu.Error
	if !errors.As(err, &ge) || ge.Status() != hsa.StatusErrorInvalidArgument {
		t.Errorf("status not kept: %#v", err)
	}
	t.Setenv("HIPGO_DRIVER", "cpu")
	t.Setenv("HIPGO_CPU_AGENTS", "0")
	if _, err := gpu.Count(); !errors.Is(err, gpu.ErrNoDevice) {
		t.Errorf("no agent: %v, want ErrNoDevice", err)
		_ = gpu.Shutdown()
	}
}
