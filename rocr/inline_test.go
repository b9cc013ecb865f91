package rocr_test

import (
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
)

// offers records what an InlineExecutor is offered and declines it, so
// the processor runs the packet.
type offers struct {
	types []aql.PacketType
	fns   []uint16
	enter int
}

func (o *offers) Inline(h aql.Header, slot unsafe.Pointer) bool {
	o.types = append(o.types, h.Type())
	if h.Type() == aql.TypeAgentDispatch {
		o.fns = append(o.fns, (*rocr.AgentDispatchPacket)(slot).Type)
	}
	return false
}
func (o *offers) Enter() { o.enter++ }
func (o *offers) Leave() {}

// An executor offered an AGENT_DISPATCH packet to run inline reads its
// function code (the setup half of the first word, published last), and
// a declined packet runs once, on the processor.
func TestInlineOfferReadsFunctionCode(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 8, nil)
	o := &offers{}
	defer rocr.SetInline(q, o)()
	const n = 256
	buf := allocate(t, a, rocr.FlagCoarseGrained, n)
	sig := newSignal(t, 1)
	called := 0
	for i, fn := range []uint16{rocr.AgentFill, rocr.AgentNative, rocr.AgentFill} {
		sig.Store(1, rocr.Release)
		args := [4]uint64{uint64(buf.Base), uint64(i + 1), n, 1}
		if fn == rocr.AgentNative {
			args = [4]uint64{hostref.RegisterNative(func(uintptr) error { called++; return nil }), rocr.NativeQueuesOnly}
		}
		p := aql.AgentDispatch{Type: fn, Arg: args, CompletionSignal: sig.Handle()}
		_, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem))
		require.NoError(t, err)
		_, ok := sig.WaitTimed(rocr.CondEQ, 0, 10*time.Second, rocr.WaitBlocked)
		require.True(t, ok, "packet %d", i)
		require.NoError(t, sig.Err())
	}
	assert.Equal(t, []uint16{rocr.AgentFill, rocr.AgentNative, rocr.AgentFill}, o.fns)
	assert.Zero(t, o.enter, "nothing ran inline")
	assert.Equal(t, 1, called, "the native call ran once")
	assert.Equal(t, byte(3), hostmem.Bytes(buf.Base, n)[n-1], "the last fill ran")
}
