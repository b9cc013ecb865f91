package rocr_test

import (
	"errors"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Runs of packets reserved at once from several goroutines, beside single
// submissions, through a ring smaller than their sum: every packet runs,
// and a run's packets run in order.
func TestReserveNConcurrent(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q, err := a.CreateQueue(4, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	h := aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)
	const workers, runs = 4, 50
	var wg sync.WaitGroup
	sigs := make([][]*rocr.Signal, workers)
	for w := range sigs {
		for i := 0; i < runs*3; i++ {
			sigs[w] = append(sigs[w], newSignal(t, 1))
		}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			words := make([]uint32, 3)
			for r := 0; r < runs; r++ {
				if w == 0 { // one producer submits packet by packet
					for i := 0; i < 3; i++ {
						p := aql.BarrierAnd{CompletionSignal: sigs[w][r*3+i].Handle()}
						if _, err := q.Submit(unsafe.Pointer(&p), h); err != nil {
							t.Error(err)
							return
						}
					}
					continue
				}
				id, err := q.ReserveN(3)
				if err != nil {
					t.Error(err)
					return
				}
				for i := 0; i < 3; i++ {
					// The body only: the header word stays invalid until PublishN.
					p := aql.BarrierAnd{CompletionSignal: sigs[w][r*3+i].Handle()}
					dst := q.Slot(id + uint64(i))
					*(*[aql.PacketSize - 4]byte)(unsafe.Add(dst, 4)) = *(*[aql.PacketSize - 4]byte)(unsafe.Add(unsafe.Pointer(&p), 4))
					words[i] = uint32(h)
				}
				q.PublishN(id, words)
			}
		}()
	}
	wg.Wait()
	for w := range sigs {
		for _, s := range sigs[w] {
			wait(t, s, 10*time.Second)
		}
	}
}

func TestReserveNErrors(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q, err := a.CreateQueue(4, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []uint32{0, 5} {
		if _, err := q.ReserveN(n); !errors.Is(err, hsa.ErrInvalidArgument) {
			t.Errorf("ReserveN(%d): %v", n, err)
		}
	}
	if err := q.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.ReserveN(2); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("ReserveN after Destroy: %v", err)
	}
}
