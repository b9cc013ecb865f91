package rocr

import (
	"sync/atomic"

	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// ReserveN reserves n consecutive packet slots in one step, waiting while
// the ring lacks room for all of them, and returns the first packet id.
// The caller writes the n bodies and then calls PublishN once; from
// ReserveN to PublishN it is one writer of the queue, as between Reserve
// and Publish, so Destroy waits for the whole run to be published.
func (q *Queue) ReserveN(n uint32) (uint64, error) {
	if n == 0 || n > q.size {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "submit", "cannot reserve %d packets in queue %d of %d", n, q.id, q.size)
	}
	q.writers.Add(1)
	if q.closing.Load() {
		q.writers.Add(-1)
		return 0, hsa.Errorf(hsa.StatusErrorInvalidQueue, "submit", "queue %d was destroyed", q.id)
	}
	id := q.AddWriteIndex(uint64(n))
	last := id + uint64(n) - 1
	if last-q.LoadReadIndex() >= uint64(q.size) {
		if err := q.waitSpace(last); err != nil {
			q.writers.Add(-1)
			return 0, err
		}
	}
	return id, nil
}

// PublishN publishes the packets from first on, in order, one header word
// (header | setup<<16) each, and rings the doorbell once for all of them.
// On an idle queue whose executor runs packets inline, the run's packets
// are carried out on the calling goroutine for as long as it can.
func (q *Queue) PublishN(first uint64, words []uint32) {
	inline := q.inline != nil
	stored := false
	for i, w := range words {
		id := first + uint64(i)
		if raceflag.Enabled {
			q.published.Add(1)
		}
		// Once one packet is left to the processor, the rest follow it.
		if inline && q.runInline(id, w) {
			continue
		}
		inline = false
		atomic.StoreUint32((*uint32)(q.Slot(id)), w)
		stored = true
	}
	if stored {
		q.doorbell.Store(int64(first+uint64(len(words))-1), hsa.Release)
	}
	q.writers.Add(-1)
}
