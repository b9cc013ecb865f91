package annotate

import (
	"fmt"
	"os"
	"strings"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// roctxClient is libroctx64's calls (roctx.h): roctxRangePushA(const
// char*) int, roctxRangePop() int, roctxRangeStartA(const char*)
// roctx_range_id_t (uint64), roctxRangeStop(roctx_range_id_t),
// roctxMarkA(const char*).
type roctxClient struct {
	ok                           bool
	push, pop, start, stop, mark uintptr
}

var roctx roctxClient

// wanted reports whether a profiler asked for roctx ranges.
func roctxWanted() bool {
	switch strings.TrimSpace(os.Getenv("HIPGO_ROCTX")) {
	case "0", "false":
		return false
	case "":
	default:
		return true
	}
	return os.Getenv("ROCPROF_MARKER_API_TRACE") != "" || os.Getenv("ROCPROFILER_ROCTX_TRACE") != ""
}

func (c *roctxClient) open() error {
	if !roctxWanted() {
		return nil
	}
	h, err := vendorlib.ROCTX.Open()
	if err != nil {
		return fmt.Errorf("roctx: %w", err)
	}
	if missing := h.Bind(
		vendorlib.Symbol{P: &c.push, Names: []string{"roctxRangePushA"}},
		vendorlib.Symbol{P: &c.pop, Names: []string{"roctxRangePop"}},
		vendorlib.Symbol{P: &c.start, Names: []string{"roctxRangeStartA"}, Optional: true},
		vendorlib.Symbol{P: &c.stop, Names: []string{"roctxRangeStop"}, Optional: true},
		vendorlib.Symbol{P: &c.mark, Names: []string{"roctxMarkA"}, Optional: true},
	); len(missing) > 0 {
		return fmt.Errorf("roctx: %s lacks %v", h.Path, missing)
	}
	c.ok = true
	return nil
}

func (c *roctxClient) call(fn uintptr, p *byte) uint64 {
	if !c.ok {
		return 0
	}
	return callC(fn, ptr(p))
}

func (c *roctxClient) callID(fn uintptr, id uint64) {
	if c.ok {
		callC(fn, uintptr(id))
	}
}
