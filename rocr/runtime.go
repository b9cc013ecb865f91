package rocr

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hipgo/hipgo/internal/visible"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// runtime is one Init..ShutDown lifetime.
type rtState struct {
	agents  []*Agent
	drivers []spi.Driver
	opened  map[string]error // why each driver did or did not open
	mu      sync.Mutex
	queues  map[*Queue]struct{}
	// perAgent counts each agent's live queues, for QueuesMax.
	perAgent map[*Agent]int
	// kept marks the agents with a queue slot reserved by
	// ReserveQueueSlot; inSlot counts the live queues in it (0 or 1).
	kept   map[*Agent]bool
	inSlot map[*Agent]int
	// deferred are memory that a Reset freed while other agents' queues
	// could still use it (deferfree.go).
	deferred []deferredFree
	// closing is set when close starts. close refuses new queues and
	// allocations, an agent's Reset holds them back (enter), and both
	// wait for those being made (Agent.creating) before they list what
	// to release, so none escapes them.
	closing bool
}

var state struct {
	mu   sync.Mutex
	refs int
	rt   *rtState
}

func currentRuntime() *rtState {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.rt
}

func checkInit(op string) error {
	state.mu.Lock()
	ok := state.refs > 0
	state.mu.Unlock()
	if !ok {
		return hsa.Errorf(hsa.StatusErrorNotInitialized, op, "call rocr.Init first")
	}
	return nil
}

// Init opens the runtime (hsa_init). It is reference counted: each Init
// needs a ShutDown. It opens every registered driver that can run here (or
// only HIPGO_DRIVER's), filters GPU agents by ROCR_VISIBLE_DEVICES, and
// keeps cpu agents last.
func Init() error {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.refs > 0 {
		state.refs++
		return nil
	}
	rt, err := open()
	if err != nil {
		return err
	}
	if err := traceFromEnv(); err != nil {
		_ = rt.close()
		return err
	}
	state.rt = rt
	state.refs = 1
	return nil
}

// ShutDown closes one reference (hsa_shut_down). The last one destroys
// every queue still open, frees every allocation and closes the drivers.
func ShutDown() error {
	state.mu.Lock()
	if state.refs == 0 {
		state.mu.Unlock()
		return hsa.Errorf(hsa.StatusErrorNotInitialized, "shut down", "runtime not initialized")
	}
	state.refs--
	if state.refs > 0 {
		state.mu.Unlock()
		return nil
	}
	rt := state.rt
	state.mu.Unlock()
	err := rt.close()
	if terr := traceFlush(); terr != nil {
		err = errors.Join(err, terr)
	}
	state.mu.Lock()
	if state.rt == rt { // an Init while it closed opened a new one
		state.rt = nil
	}
	state.mu.Unlock()
	return err
}

func open() (*rtState, error) {
	rt := &rtState{opened: map[string]error{}, queues: map[*Queue]struct{}{}, perAgent: map[*Agent]int{},
		kept: map[*Agent]bool{}, inSlot: map[*Agent]int{}}
	force := strings.TrimSpace(os.Getenv("HIPGO_DRIVER"))
	drivers := spi.Registered()
	var gpus, cpus []*Agent
	found := false
	for _, d := range drivers {
		if force != "" && d.Name() != force {
			continue
		}
		found = true
		ads, err := d.Open(theHost)
		rt.opened[d.Name()] = err
		if err != nil {
			continue
		}
		rt.drivers = append(rt.drivers, d)
		for _, ad := range ads {
			a, err := rt.newAgent(d, ad)
			if err != nil {
				rt.opened[d.Name()] = err
				continue
			}
			if a.info.Type == hsa.DeviceCPU {
				cpus = append(cpus, a)
			} else {
				gpus = append(gpus, a)
			}
		}
	}
	if force != "" && !found {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidArgument, "init", "HIPGO_DRIVER=%s: no such driver (have %v)", force, Drivers())
	}
	gpus, err := filterVisible(gpus, "ROCR_VISIBLE_DEVICES")
	if err != nil {
		rt.closeDrivers()
		return nil, err
	}
	rt.agents = append(gpus, cpus...)
	for i, a := range rt.agents {
		a.index = i
	}
	if len(rt.agents) == 0 {
		reasons := rt.reasons()
		rt.closeDrivers()
		return nil, hsa.Newf(hsa.ErrNoAgent, hsa.StatusErrorInvalidAgent, "init", "no agent: %s", reasons)
	}
	return rt, nil
}

func (rt *rtState) newAgent(d spi.Driver, ad spi.AgentDriver) (*Agent, error) {
	a := &Agent{drv: ad, info: ad.Info(), rt: rt}
	a.info.Driver = d.Name()
	for _, pd := range ad.Pools() {
		info := pd.Info()
		lim, err := heapLimit(info)
		if err != nil {
			return nil, err
		}
		a.pools = append(a.pools, &Pool{drv: pd, info: info, agent: a, limit: lim})
	}
	return a, nil
}

func (rt *rtState) reasons() string {
	var parts []string
	for name, err := range rt.opened {
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return strings.Join(parts, "; ")
}

// filterVisible applies a comma-separated list of indexes (or UUIDs) to
// agents, in the list's order, as ROCR_VISIBLE_DEVICES does. An index past
// the end ends the list there, as in ROCR.
func filterVisible(agents []*Agent, env string) ([]*Agent, error) {
	v, ok := os.LookupEnv(env)
	if !ok {
		return agents, nil
	}
	out, err := visible.SelectExcept(agents, v, func(a *Agent) string { return a.info.UUID },
		func(a *Agent) bool { return a.AppliesVisible(env) })
	if err != nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "init", "%s: %w", env, err)
	}
	return out, nil
}

// AppliesVisible reports whether the agent's driver library applied env
// itself.
func (a *Agent) AppliesVisible(env string) bool {
	if f, ok := a.drv.(spi.VisibleFilter); ok {
		return f.AppliesVisible(env)
	}
	return false
}

// Agents lists the agents, GPUs first (in ROCR_VISIBLE_DEVICES order), cpu
// agents last (hsa_iterate_agents).
func Agents() ([]*Agent, error) {
	if err := checkInit("agents"); err != nil {
		return nil, err
	}
	rt := currentRuntime()
	return append([]*Agent(nil), rt.agents...), nil
}

// DriverStatus reports, for each driver Init tried, nil or why it did not
// open (for a doctor).
func DriverStatus() (map[string]error, error) {
	if err := checkInit("driver status"); err != nil {
		return nil, err
	}
	rt := currentRuntime()
	out := map[string]error{}
	for k, v := range rt.opened {
		out[k] = v
	}
	return out, nil
}

// enter admits the creation of a queue or allocation on agent a unless
// the runtime is closing, after any Reset of a in progress; the caller
// calls a.creating.Done once it is tracked or gone.
func (rt *rtState) enter(a *Agent, op string) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for {
		if rt.closing {
			return hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s belongs to a runtime that was shut down", a)
		}
		if a.resetting == nil {
			break
		}
		if q := RunningQueue(); q != nil && q.agent == a {
			// The Reset waits for this packet.
			return hsa.Errorf(hsa.StatusError, op, "%s is being reset, which waits for this packet of queue %d: %w", a, q.id, ErrSelfWait)
		}
		c := a.resetting
		rt.mu.Unlock()
		<-c
		rt.mu.Lock()
	}
	a.creating.Add(1)
	return nil
}

// track counts a new queue against its agent's QueuesMax: queues
// outside the reserved slot may take every slot but that one.
func (rt *rtState) track(q *Queue) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	a := q.agent
	if q.reserved && rt.inSlot[a] > 0 {
		// The slot's last queue is still being torn down (a Device.Reset
		// racing a copy): take an ordinary slot, as CreateQueue would.
		q.reserved = false
	}
	if err := rt.roomFor(a, q.reserved && rt.kept[a]); err != nil {
		return err
	}
	rt.queues[q] = struct{}{}
	rt.perAgent[a]++
	if q.reserved {
		rt.inSlot[a]++
	}
	return nil
}

// roomFor reports whether a has a slot free for one more queue, the
// reserved slot included when inSlot. Called with rt.mu held.
func (rt *rtState) roomFor(a *Agent, inSlot bool) error {
	limit := a.info.QueuesMax
	if limit <= 0 || inSlot {
		return nil
	}
	if !rt.kept[a] {
		if rt.perAgent[a] >= limit {
			return hsa.Errorf(hsa.StatusErrorOutOfResources, "queue create", "%s already has %d queues, its QueuesMax: destroy queues (streams) no longer needed", a, limit)
		}
		return nil
	}
	if rt.perAgent[a]-rt.inSlot[a] >= limit-1 {
		return hsa.Errorf(hsa.StatusErrorOutOfResources, "queue create", "%s already has %d queues, its QueuesMax less the one kept for the runtime's copies: destroy queues (streams) no longer needed", a, limit-1)
	}
	return nil
}

func (rt *rtState) untrack(q *Queue) {
	rt.mu.Lock()
	if _, ok := rt.queues[q]; ok {
		delete(rt.queues, q)
		rt.perAgent[q.agent]--
		if q.reserved {
			rt.inSlot[q.agent]--
		}
	}
	rt.mu.Unlock()
}

// ReserveQueueSlot keeps one of the agent's QueuesMax for
// CreateReservedQueue: CreateQueue makes at most QueuesMax-1 queues from
// then on, so that a runtime's own queue (the one synchronous copies
// use) never depends on how many queues the program holds. It fails when
// every slot is taken; reserving again does nothing.
func (a *Agent) ReserveQueueSlot() error {
	rt := a.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.kept[a] {
		return nil
	}
	if err := rt.roomFor(a, false); err != nil {
		return err
	}
	rt.kept[a] = true
	return nil
}

func (rt *rtState) close() error {
	var errs []error
	rt.mu.Lock()
	rt.closing = true
	rt.mu.Unlock()
	for _, a := range rt.agents {
		a.creating.Wait()
	}
	rt.mu.Lock()
	qs := make([]*Queue, 0, len(rt.queues))
	for q := range rt.queues {
		qs = append(qs, q)
	}
	rt.mu.Unlock()
	for _, q := range qs {
		// An abandoned kernel is reported; other errors of a queue that
		// was destroyed meanwhile are not.
		if err := q.Destroy(); err != nil && (!q.Destroyed() || errors.Is(err, hsa.ErrAbandoned)) {
			errs = append(errs, err)
		}
		// A queue destroyed from its error callback is released by its
		// processor: wait for that too.
		<-q.done
	}
	for _, al := range allocs.all() {
		if al.pool.agent.rt == rt {
			if err := al.freeIfLive(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	rt.releaseDeferred(true)
	forgetManaged(rt)
	forgetIPC(rt)
	for _, a := range rt.agents {
		if err := a.drv.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := rt.closeDrivers(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (rt *rtState) closeDrivers() error {
	var errs []error
	for _, d := range rt.drivers {
		if err := d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
