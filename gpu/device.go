package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/devstate"
	"github.com/hipgo/hipgo/internal/visible"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Device is one GPU, or the cpu agent, as HIP presents it.
type Device struct {
	state   // streams, per-device values, resets; a test's view: the device it views
	agent   *rocr.Agent
	ordinal int
	props   Properties
	prio    [2]int      // least and greatest stream priority
	closed  atomic.Bool // set by Shutdown: every call on the device fails
	resetMu sync.Mutex  // one Reset at a time
}

// state is embedded under this name so that the field stays unexported.
type state = devstate.State[Device]

var lib struct {
	mu      sync.Mutex
	devices []*Device
	gen     int
	// closing is closed when the Shutdown in progress (nil: none) has
	// released the runtime; the runtime opens again only after it.
	closing chan struct{}
}

// Init opens the runtime. Calls that need a device do it themselves, as
// HIP does; Init is there to get the error early.
func Init() error {
	_, err := devices()
	return err
}

func devices() ([]*Device, error) {
	lib.mu.Lock()
	for lib.devices == nil && lib.closing != nil {
		c := lib.closing
		lib.mu.Unlock()
		if q := rocr.RunningQueue(); q != nil {
			// Shutdown waits for this packet: waiting for it would hang.
			return nil, Errorf(ErrContextIsDestroyed, "init", "the runtime is being shut down, which waits for this kernel or host function of queue %d", q.ID())
		}
		<-c
		lib.mu.Lock()
	}
	defer lib.mu.Unlock()
	if lib.devices != nil {
		return lib.devices, nil
	}
	debug.ReadEnv()
	if err := rocr.Init(); err != nil {
		return nil, wrap("init", err)
	}
	agents, err := rocr.Agents()
	if err != nil {
		_ = rocr.ShutDown()
		return nil, wrap("init", err)
	}
	var gpus, cpus []*rocr.Agent
	for _, a := range agents {
		if a.Info().Type == hsa.DeviceCPU {
			cpus = append(cpus, a)
		} else {
			gpus = append(gpus, a)
		}
	}
	gpus, err = visibleGPUs(gpus, func(a *rocr.Agent) string { return a.Info().UUID }, (*rocr.Agent).AppliesVisible)
	if err != nil {
		_ = rocr.ShutDown()
		return nil, wrap("init", err)
	}
	var devs []*Device
	for _, a := range append(gpus, cpus...) {
		// The copy engine's queue (gpu/internal/core) takes this
		// slot, so that the program's streams cannot exhaust it.
		if err := a.ReserveQueueSlot(); err != nil {
			_ = rocr.ShutDown()
			return nil, wrap("init", err)
		}
		d := &Device{agent: a, ordinal: len(devs)}
		devstate.Init(&d.state, d, &views)
		d.props = propertiesOf(a)
		if least, greatest, err := a.StreamPriorityRange(); err == nil {
			d.prio = [2]int{least, greatest} // else the one priority 0, as a device without priorities
		}
		devs = append(devs, d)
	}
	if len(devs) == 0 {
		_ = rocr.ShutDown()
		return nil, Errorf(ErrNoDevice, "init", "no device")
	}
	lib.devices = devs
	lib.gen++
	return devs, nil
}

// visibleGPUs applies HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES when
// that is unset, to the GPU agents; a GPU whose vendor library applied the
// variable itself (applied) keeps its place. The cpu agents are not GPUs:
// they stay visible whatever the lists say, so a program always has a
// device.
func visibleGPUs[T any](gpus []T, uuid func(T) string, applied func(T, string) bool) ([]T, error) {
	for _, env := range []string{"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"} {
		v, ok := os.LookupEnv(env)
		if !ok {
			continue
		}
		out, err := visible.SelectExcept(gpus, v, uuid, func(g T) bool { return applied(g, env) })
		if err != nil {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "init", "%s: %w", env, err)
		}
		return out, nil
	}
	return gpus, nil
}

// Shutdown releases every device: streams, memory and the runtime
// (hipDeviceReset on all devices). Objects made before are invalid after
// it; the next call that needs a device opens the runtime again.
func Shutdown() error {
	// Shutdown waits for every queue: from one of their packets it would
	// wait for itself.
	if q := rocr.RunningQueue(); q != nil {
		return &Error{Code: ErrNotPermitted, Op: "shutdown", Msg: fmt.Sprintf("called from a kernel or host function of queue %d, which Shutdown would wait for", q.ID()), Err: rocr.ErrSelfWait}
	}
	lib.mu.Lock()
	devs := lib.devices
	lib.devices = nil
	for _, d := range devs {
		d.closed.Store(true)
	}
	if devs == nil {
		lib.mu.Unlock()
		return nil
	}
	// A call that opens the runtime meanwhile waits until it is released:
	// it would otherwise open it again under the Shutdown's feet.
	closing := make(chan struct{})
	lib.closing = closing
	lib.mu.Unlock()
	defer func() {
		lib.mu.Lock()
		lib.closing = nil
		lib.mu.Unlock()
		close(closing)
	}()
	var errs []error
	for _, d := range devs {
		for _, f := range devstate.Closers(&d.state) {
			if err := f(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := rocr.ShutDown(); err != nil {
		errs = append(errs, err)
	}
	// The queues are gone: what the streams still hold for their packets
	// (pinned host slices, fences) can be let go.
	for _, d := range devs {
		for _, s := range devstate.Syncers(&d.state) {
			if r, ok := s.(shutdownReleaser); ok {
				r.ReleaseAfterShutdown()
			}
		}
	}
	return errors.Join(errs...)
}

// shutdownReleaser is implemented by the streams: after the runtime shut
// down, they drop what their packets held.
type shutdownReleaser interface {
	ReleaseAfterShutdown()
}

// Count is hipGetDeviceCount.
func Count() (int, error) {
	devs, err := devices()
	if err != nil {
		return 0, err
	}
	return len(devs), nil
}

// Devices lists every device, GPUs first, the cpu agent last.
func Devices() ([]*Device, error) {
	devs, err := devices()
	if err != nil {
		return nil, err
	}
	return append([]*Device(nil), devs...), nil
}

// Get returns device i (hipSetDevice's ordinal).
func Get(i int) (*Device, error) {
	devs, err := devices()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(devs) {
		return nil, Errorf(ErrInvalidDevice, "get device", "ordinal %d out of range [0, %d)", i, len(devs))
	}
	return devs[i], nil
}

// Default is the device hipgo uses when none is named: HIPGO_DEVICE's
// ordinal if set, else device 0 (the first GPU, or the cpu agent when there
// is no GPU).
func Default() (*Device, error) {
	i := 0
	if v := strings.TrimSpace(os.Getenv("HIPGO_DEVICE")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, Errorf(ErrInvalidDevice, "default device", "HIPGO_DEVICE=%q is not an ordinal", v)
		}
		i = n
	}
	return Get(i)
}

// Agent is the rocr agent behind the device, for programs that mix the
// HIP-level API with the runtime below it (queues, signals and pools of
// rocr), as HIP programs use HSA interop on ROCm.
func (d *Device) Agent() *rocr.Agent {
	if d == nil {
		return nil
	}
	return d.agent
}

// Ordinal is the device's index in Devices; -1 for a nil device.
func (d *Device) Ordinal() int {
	if d == nil {
		return -1
	}
	return d.ordinal
}

// Properties is hipGetDeviceProperties; a nil device has none (the zero
// Properties: PropertiesOf says hipErrorInvalidDevice).
func (d *Device) Properties() Properties {
	if d == nil {
		return Properties{}
	}
	return d.props
}

// PropertiesOf is hipGetDeviceProperties with HIP's error: ErrInvalidDevice
// for a nil device or one from before a Shutdown.
func PropertiesOf(d *Device) (Properties, error) {
	if err := d.Valid(); err != nil {
		return Properties{}, err
	}
	return d.props, nil
}

// Target is the device's code object target: "gfx90a:xnack-", "sm_90", "go".
func (d *Device) Target() string {
	if d == nil {
		return ""
	}
	return d.agent.ISA()
}

// StreamPriorityRange is the range of stream priorities
// (hipDeviceGetStreamPriorityRange): a lower number is a higher priority,
// so least >= greatest, and stream.NewWithFlags clamps into
// [greatest, least]. cuda asks the driver (cuCtxGetStreamPriorityRange);
// the cpu agent and rocm have (0, -1). A device without priorities has
// (0, 0), and so does a nil device.
func (d *Device) StreamPriorityRange() (least, greatest int) {
	if d == nil {
		return 0, 0
	}
	return d.prio[0], d.prio[1]
}

func (d *Device) String() string {
	if d == nil {
		return "device <nil>"
	}
	return fmt.Sprintf("device %d (%s, %s, %s driver)", d.ordinal, d.props.Name, d.props.GCNArchName, d.props.Driver)
}

// Valid reports whether the device belongs to the open runtime (it is not
// from before a Shutdown).
func (d *Device) Valid() error {
	if d == nil {
		return Errorf(ErrInvalidDevice, "device", "nil device")
	}
	if !d.closed.Load() && !d.root().closed.Load() {
		return nil
	}
	return Errorf(ErrContextIsDestroyed, "device", "%s belongs to a runtime that was shut down", d)
}

// root is the device a test's view views, or d.
func (d *Device) root() *Device { return devstate.Device(devstate.Root(&d.state)) }

// Reset returns the device to a fresh state (hipDeviceReset): its work in
// flight is cancelled, and every buffer, stream, event and module made on
// it before returns ErrContextIsDestroyed from then on (its memory is
// freed); the driver rebuilds its state for the device, so a device that a
// faulting kernel left unusable works again, on the cpu agent and where
// the vendor driver allows it. The CUDA driver does not: it keeps a
// kernel fault for the rest of the process, so on NVIDIA GPUs Reset after
// a fault returns an error wrapping hsa.ErrDeviceLost that says to
// restart the process (the device stays lost). The Device itself stays
// valid: new streams, buffers and modules work. Other devices are not
// touched. Reset from a kernel or host function of the device is
// ErrNotPermitted. A test's view (gpu/gputest) resets the device it views.
func (d *Device) Reset() error {
	const op = "device reset"
	if err := d.Valid(); err != nil {
		return wrap(op, err)
	}
	r := d.root()
	if q := rocr.RunningQueue(); q != nil && q.Agent() == r.agent {
		return &Error{Code: ErrNotPermitted, Op: op, Msg: fmt.Sprintf("called from a kernel or host function of queue %d of %s, which the reset would wait for", q.ID(), d), Err: rocr.ErrSelfWait}
	}
	r.resetMu.Lock()
	defer r.resetMu.Unlock()
	// From here on every object made before fails its checks; objects
	// made while the reset runs are stale at its end too.
	defer devstate.CountReset(&r.state)()
	var errs []error
	if err := r.agent.Reset(); err != nil {
		errs = append(errs, wrap(op, err))
	}
	// The per-device values (default stream, copy engine, loaded
	// libraries) are made again on first use. Their queues and code are
	// gone already: what closing them says is of no interest.
	for _, dev := range []*Device{d, r} {
		devstate.Clear(&dev.state)
		if dev == r {
			break
		}
	}
	// The queues are gone: the streams made before let go of what their
	// packets held and stop counting for Synchronize.
	for _, dev := range []*Device{d, r} {
		for _, s := range devstate.Release(&dev.state) {
			if rl, ok := s.(shutdownReleaser); ok {
				rl.ReleaseAfterShutdown()
			}
		}
		if dev == r {
			break
		}
	}
	return errors.Join(errs...)
}

// Synchronize waits for all work on the device (hipDeviceSynchronize) and
// returns the first failure of any of its streams.
func (d *Device) Synchronize() error { return d.SynchronizeContext(context.Background()) }

// SynchronizeContext is Synchronize that gives up when ctx is done,
// returning an error that wraps both ErrNotReady and ctx's error; the work
// goes on, and a later Synchronize waits for it.
func (d *Device) SynchronizeContext(ctx context.Context) error {
	if err := d.Valid(); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var first error
	for _, s := range devstate.Syncers(&d.state) {
		var err error
		if c, ok := s.(interface {
			SynchronizeContext(context.Context) error
		}); ok {
			err = c.SynchronizeContext(ctx)
		} else {
			err = s.Synchronize()
		}
		if ctx.Err() != nil && errors.Is(err, ErrNotReady) {
			return err
		}
		if d, ok := s.(interface{ Destroyed() bool }); ok && err != nil && d.Destroyed() {
			continue // destroyed meanwhile: Destroy waited for its work
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
