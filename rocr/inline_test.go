package rocr_test

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// offers records what an InlineExecutor is offered (the function code it
// reads beside the one submitted) and declines it, so the processor runs
// the packet.
type offers struct {
	want     atomic.Uint32 // the function code being submitted
	n, wrong atomic.Int32
	got      atomic.Uint32 // the last wrong code read
	enter    atomic.Int32
}

func (o *offers) Inline(h aql.Header, slot unsafe.Pointer) bool {
	if h.Type() == aql.TypeAgentDispatch {
		o.n.Add(1)
		if fn := (*aql.AgentDispatch)(slot).Type; uint32(fn) != o.want.Load() {
			o.wrong.Add(1)
			o.got.Store(uint32(fn))
		}
	}
	return false
}
func (o *offers) Enter() { o.enter.Add(1) }
func (o *offers) Leave() {}

// An executor offered an AGENT_DISPATCH packet to run inline reads its
// function code (the setup half of the first word, published last), and
// a declined packet runs once, on the processor. A packet is offered only
// when the processor does not hold the queue at that moment, so the test
// submits enough of them to see offers.
func TestInlineOfferReadsFunctionCode(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 8, nil)
	o := &offers{}
	defer rocr.SetInline(q, o)()
	const n = 256
	buf := allocate(t, a, hsa.FlagCoarseGrained, n)
	sig := newSignal(t, 1)
	var called atomic.Int32
	const rounds = 40
	for i := range rounds {
		call := aql.FillWork{Dst: uint64(buf.Base), Pattern: uint64(i + 1), Count: n, ElemSize: 1}.Call()
		if i%2 == 1 {
			call = aql.NativeWork{ID: hostref.RegisterNative(func(uintptr) error { called.Add(1); return nil }), Flags: aql.NativeQueuesOnly}.Call()
		}
		o.want.Store(uint32(call.Func))
		sig.Store(1, hsa.Release)
		p := call.Packet(sig.Handle())
		_, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem))
		require.NoError(t, err)
		_, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked)
		require.True(t, ok, "packet %d", i)
		require.NoError(t, sig.Err())
	}
	require.Positive(t, o.n.Load(), "no packet was offered")
	assert.Zero(t, o.wrong.Load(), "offers with the wrong function code (the last read %#x)", o.got.Load())
	assert.Zero(t, o.enter.Load(), "nothing ran inline")
	assert.Equal(t, int32(rounds/2), called.Load(), "each native call ran once")
	assert.Equal(t, byte(rounds-1), hostmem.Bytes(buf.Base, n)[n-1], "the last fill ran")
}
