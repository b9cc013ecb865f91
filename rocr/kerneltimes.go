package rocr

import (
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/kerneltime"
)

// timeKernel gives a finished kernel dispatch to the started collectors
// of package kerneltime.
func (q *Queue) timeKernel(slot unsafe.Pointer, h aql.Header, start uint64) {
	if h.Type() != aql.TypeKernelDispatch || !kerneltime.Active() {
		return
	}
	kerneltime.Record(q.packetName(slot, h), time.Duration(clock.Now()-start))
}
