package gpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// addTo sets y[i] = x[i] + v for i < n; work-group 0 does it all.
type addToArgs struct {
	Y, X rocr.Ptr[int32]
	V, N int32
}

var addToK = kernel.Define("gpu_peer_test_add_to", func(g *kernel.Block, a *addToArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	y, x := a.Y.Slice(g, 0, int(a.N)), a.X.Slice(g, 0, int(a.N))
	for i := range y {
		y[i] = x[i] + a.V
	}
})

var peerSet = kernel.NewSet("gpu-peer-test", addToK)

// devicesN opens the runtime with n cpu agents and returns them.
func devicesN(t *testing.T, n int) []*gpu.Device {
	t.Helper()
	setup(t, "HIPGO_CPU_AGENTS", fmt.Sprint(n))
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != n {
		t.Fatalf("HIPGO_CPU_AGENTS=%d gave %d devices", n, len(devs))
	}
	return devs
}

// addTo launches addToK on a new stream of dev and waits for it.
func addTo(dev *gpu.Device, y, x buffer.Object, v, n int) error {
	m, err := module.Load(dev, peerSet)
	if err != nil {
		return err
	}
	s, err := stream.New(dev)
	if err != nil {
		return err
	}
	defer s.Destroy()
	if err := m.MustFunction("gpu_peer_test_add_to").Launch(s, gpu.D1(1), gpu.D1(1), 0, y, x, int32(v), int32(n)); err != nil {
		return err
	}
	return s.Synchronize()
}

func TestPeerErrorCodes(t *testing.T) {
	for _, c := range []struct {
		code gpu.ErrorCode
		num  int
		name string
	}{
		{gpu.ErrPeerAccessUnsupported, 217, "hipErrorPeerAccessUnsupported"},
		{gpu.ErrPeerAccessAlreadyEnabled, 704, "hipErrorPeerAccessAlreadyEnabled"},
		{gpu.ErrPeerAccessNotEnabled, 705, "hipErrorPeerAccessNotEnabled"},
	} {
		if int(c.code) != c.num || c.code.Name() != c.name {
			t.Errorf("%d %s: got %d %s", c.num, c.name, int(c.code), c.code.Name())
		}
	}
}

// Every pair of cpu agents can be peers; no device is its own peer.
func TestCanAccessPeer(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint("agents=", n), func(t *testing.T) {
			devs := devicesN(t, n)
			for _, a := range devs {
				for _, b := range devs {
					ok, err := gpu.CanAccessPeer(a, b)
					if err != nil || ok != (a != b) {
						t.Errorf("CanAccessPeer(%d, %d) = %v, %v", a.Ordinal(), b.Ordinal(), ok, err)
					}
					if a.PeerAccessEnabled(b) {
						t.Errorf("peer access %d -> %d enabled before EnablePeerAccess", a.Ordinal(), b.Ordinal())
					}
				}
			}
			if _, err := gpu.CanAccessPeer(devs[0], nil); !errors.Is(err, gpu.ErrInvalidDevice) {
				t.Errorf("CanAccessPeer with a nil device: %v", err)
			}
		})
	}
}

func TestPeerEnableDisableErrors(t *testing.T) {
	devs := devicesN(t, 3)
	d0, d1, d2 := devs[0], devs[1], devs[2]
	if err := d0.EnablePeerAccess(d0); !errors.Is(err, gpu.ErrInvalidDevice) {
		t.Errorf("enable access to itself: %v", err)
	}
	if err := d0.EnablePeerAccess(nil); !errors.Is(err, gpu.ErrInvalidDevice) {
		t.Errorf("enable access to nil: %v", err)
	}
	if err := d1.DisablePeerAccess(d0); !errors.Is(err, gpu.ErrPeerAccessNotEnabled) || !strings.Contains(err.Error(), "hipErrorPeerAccessNotEnabled") {
		t.Errorf("disable before enable: %v", err)
	}
	if err := d1.EnablePeerAccess(d0); err != nil {
		t.Fatal(err)
	}
	err := d1.EnablePeerAccess(d0)
	var ge *gpu.Error
	if !errors.Is(err, gpu.ErrPeerAccessAlreadyEnabled) || !errors.As(err, &ge) || ge.Code != 704 {
		t.Errorf("enable twice: %v", err)
	}
	// One way: 1 may use 0's memory; 0 may not use 1's, nor 2 0's.
	if !d1.PeerAccessEnabled(d0) || d0.PeerAccessEnabled(d1) || d2.PeerAccessEnabled(d0) {
		t.Errorf("enabled: 1->0 %v, 0->1 %v, 2->0 %v", d1.PeerAccessEnabled(d0), d0.PeerAccessEnabled(d1), d2.PeerAccessEnabled(d0))
	}
	if err := d0.DisablePeerAccess(d1); !errors.Is(err, gpu.ErrPeerAccessNotEnabled) {
		t.Errorf("disable the other direction: %v", err)
	}
	if err := d1.DisablePeerAccess(d0); err != nil {
		t.Fatal(err)
	}
	if err := d1.DisablePeerAccess(d0); !errors.Is(err, gpu.ErrPeerAccessNotEnabled) {
		t.Errorf("disable twice: %v", err)
	}
	if err := d1.EnablePeerAccess(d0); err != nil {
		t.Errorf("enable after disable: %v", err)
	}
	// A new runtime starts with no peer access, and old devices are dead.
	if err := gpu.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := d1.EnablePeerAccess(d0); !errors.Is(err, gpu.ErrContextIsDestroyed) {
		t.Errorf("enable after shutdown: %v", err)
	}
	if _, err := gpu.CanAccessPeer(d0, d1); !errors.Is(err, gpu.ErrContextIsDestroyed) {
		t.Errorf("can access peer after shutdown: %v", err)
	}
	again, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if again[1].PeerAccessEnabled(again[0]) {
		t.Error("peer access survived Shutdown")
	}
}

// A kernel on device 1 reads device 0's buffer only after device 1 has
// peer access to device 0; access is one way and ends with DisablePeerAccess.
func TestPeerKernel(t *testing.T) {
	devs := devicesN(t, 2)
	d0, d1 := devs[0], devs[1]
	x := must[*buffer.Buffer[int32]](t)(buffer.FromSlice(d0, []int32{1, 2, 3, 4}))
	y := must[*buffer.Buffer[int32]](t)(buffer.New[int32](d1, 4))
	err := addTo(d1, y, x, 10, 4)
	if !errors.Is(err, gpu.ErrNotOwner) || !strings.Contains(err.Error(), x.String()) {
		t.Fatalf("device 1 reading device 0's buffer without peer access: %v", err)
	}
	if err := d1.EnablePeerAccess(d0); err != nil {
		t.Fatal(err)
	}
	if err := addTo(d1, y, x, 10, 4); err != nil {
		t.Fatalf("with peer access: %v", err)
	}
	if got := must[[]int32](t)(y.ToSlice()); fmt.Sprint(got) != "[11 12 13 14]" {
		t.Errorf("device 1 read %v", got)
	}
	// Device 1 may also write device 0's memory; device 0 still may not
	// touch device 1's.
	if err := addTo(d1, x, y, 1, 4); err != nil {
		t.Fatalf("device 1 writing device 0's buffer: %v", err)
	}
	if got := must[[]int32](t)(x.ToSlice()); fmt.Sprint(got) != "[12 13 14 15]" {
		t.Errorf("device 1 wrote %v", got)
	}
	if err := addTo(d0, x, y, 1, 4); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("device 0 reading device 1's buffer (access is one way): %v", err)
	}
	if x.Device() != d0 || y.Device() != d1 {
		t.Errorf("peer access changed owners: %v %v", x.Device(), y.Device())
	}
	if err := d1.DisablePeerAccess(d0); err != nil {
		t.Fatal(err)
	}
	if err := addTo(d1, y, x, 10, 4); !errors.Is(err, gpu.ErrNotOwner) {
		t.Errorf("after DisablePeerAccess: %v", err)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
