package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/devprintf"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// PrintfBufferSize is the bytes of each stream's printf buffer, header
// included: 1 MiB, CUDA's default printf FIFO.
const PrintfBufferSize = 1 << 20

// A stream's printf buffer receives the records of the buffered printf
// calls (clang's -mprintf-kind=buffered) of every AMDGPU kernel it runs
// that takes hidden_printf_buffer. It is the stream's, not a module's:
// when a synchronize finds the stream's work done, no kernel can still be
// writing the buffer, so it is decoded and emptied without tracking each
// launch's completion, and kernels on other streams keep theirs. It is
// fine-grained host memory the device may write, allocated at the
// stream's first such launch (never per launch) and freed with the
// stream.
type printfBuf struct {
	al *rocr.Allocation
	// warned: the overflow (or a malformed record) was reported; once a
	// stream is enough.
	warnedFull, warnedBad, warnedCut bool
}

// printfFormats maps format hashes to the format strings of every
// loaded code object. A hash names a string's content, so modules share
// entries and an unloaded module's stay valid for records still unread.
var printfFormats struct {
	sync.RWMutex
	m map[uint64]string
}

// AddPrintfFormat records the format string of a buffered printf call
// under its hash, as module loading finds them in a code object.
func AddPrintfFormat(hash uint64, format string) {
	printfFormats.Lock()
	defer printfFormats.Unlock()
	if printfFormats.m == nil {
		printfFormats.m = map[uint64]string{}
	}
	printfFormats.m[hash] = format
}

func printfFormat(hash uint64) (string, bool) {
	printfFormats.RLock()
	defer printfFormats.RUnlock()
	f, ok := printfFormats.m[hash]
	return f, ok
}

// printfAddr is the address of the stream's printf buffer, which it
// allocates at the first call; s is locked.
func (s *Stream) printfAddr(op string) (uint64, error) {
	if b := s.printf.Load(); b != nil {
		return uint64(b.al.Base), nil
	}
	pool, err := hostOrDevicePool(s.dev, hsa.FlagFineGrained, true)
	if err != nil {
		return 0, errs.Wrap(op, fmt.Errorf("printf buffer: %w", err))
	}
	al, err := pool.Allocate(PrintfBufferSize)
	if err != nil {
		return 0, errs.Wrap(op, fmt.Errorf("printf buffer: %w", err))
	}
	if al.CheckAccess(s.dev.Agent()) != nil {
		if err := al.AllowAccess(s.dev.Agent()); err != nil {
			_ = al.Free()
			return 0, errs.Wrap(op, fmt.Errorf("printf buffer: %w", err))
		}
	}
	al.SetLabel(fmt.Sprintf("printf buffer of queue %d", s.q.ID()))
	hdr := hostmem.Bytes(al.Base, devprintf.HeaderSize)
	binary.LittleEndian.PutUint32(hdr[4:], PrintfBufferSize)
	atomic.StoreUint32((*uint32)(hostmem.At(al.Base)), 0)
	s.printf.Store(&printfBuf{al: al})
	return uint64(al.Base), nil
}

// putPrintf writes the printf buffer's address into a kernarg image at
// d's hidden_printf_buffer, if the kernel has one; s is locked.
func (s *Stream) putPrintf(op string, kernarg []byte, d *Dispatch) error {
	if d.Printf == 0 {
		return nil
	}
	at := int(d.Printf - 1)
	if at+8 > len(kernarg) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "hidden_printf_buffer at byte %d is past the %d-byte kernarg image", at, len(kernarg))
	}
	addr, err := s.printfAddr(op)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(kernarg[at:], addr)
	return nil
}

// flushPrintf prints what the stream's kernels wrote to its printf
// buffer, when all its work is done, and empties the buffer. It waits
// for the stream's lock as long as ctx allows, or, with try, only tries.
// Without a buffer it costs one atomic load.
func (s *Stream) flushPrintf(ctx context.Context, try bool) {
	if s.printf.Load() == nil {
		return
	}
	if try {
		if !s.tryLock() {
			return // a submission holds the stream: its work is pending
		}
	} else if !s.lockWait(ctx) {
		return
	}
	b := s.printf.Load() // Destroy may have freed it meanwhile
	if b == nil || s.closed || Valid(s.dev, s.gen) != nil || (s.tail != nil && !s.tail.Done()) {
		s.mu.Unlock() // work submitted since: its synchronize prints
		return
	}
	// A Shutdown or Reset racing this one frees the buffer only once it
	// is read; one under way already has made the stream invalid.
	if !b.al.Hold() {
		s.mu.Unlock()
		return
	}
	out, msgs := s.drainPrintf(b)
	b.al.Unhold()
	// Taken before the stream is let go, so that two flushes of one
	// stream write in the order they drained.
	printing.Lock()
	s.mu.Unlock()
	writePrintf(out, msgs)
	printing.Unlock()
}

// printing orders the writes of flushes; it is taken under a stream's
// lock, never the other way round.
var printing sync.Mutex

// drainPrintf decodes the buffer and empties it; s is locked and idle.
func (s *queueState) drainPrintf(b *printfBuf) (devprintf.Output, string) {
	var out devprintf.Output
	// The size word as well: a kernel that wrote over it would have the
	// next ones write past the buffer.
	atomic.StoreUint32((*uint32)(hostmem.At(b.al.Base+4)), PrintfBufferSize)
	count := (*uint32)(hostmem.At(b.al.Base))
	used, full := devprintf.Header(atomic.LoadUint32(count))
	if used == 0 && !full {
		return out, ""
	}
	used = min(used, PrintfBufferSize-devprintf.HeaderSize)
	devprintf.Decode(hostmem.Bytes(b.al.Base+devprintf.HeaderSize, uintptr(used)), printfFormat, &out)
	atomic.StoreUint32(count, 0)
	var msgs string
	if full && !b.warnedFull {
		b.warnedFull = true
		msgs += fmt.Sprintf("hipgo: the printf buffer of stream (queue %d) filled up (%d bytes): records were dropped until the stream synchronized\n", s.q.ID(), PrintfBufferSize)
	}
	if out.Cut && !b.warnedCut {
		b.warnedCut = true
		msgs += fmt.Sprintf("hipgo: the printf output of stream (queue %d) passed %d bytes at one synchronize: the records after were skipped\n", s.q.ID(), devprintf.MaxOutput)
	}
	if out.Malformed > 0 && !b.warnedBad {
		b.warnedBad = true
		msgs += fmt.Sprintf("hipgo: %d printf records of stream (queue %d) could not be decoded", out.Malformed, s.q.ID())
		if out.Unknown != 0 {
			msgs += fmt.Sprintf(" (format hash %#016x is in no loaded code object)", out.Unknown)
		}
		msgs += "\n"
	}
	return out, msgs
}

// writePrintf writes decoded output to the process's stdout and stderr,
// each in one write.
func writePrintf(out devprintf.Output, msgs string) {
	if len(out.Stdout) > 0 {
		_, _ = os.Stdout.Write(out.Stdout)
	}
	if len(out.Stderr) > 0 || msgs != "" {
		_, _ = os.Stderr.Write(append(out.Stderr, msgs...))
	}
}

// freePrintf prints what is left and frees the buffer with the stream
// (Destroy, or the backstop of a stream dropped undestroyed); s is locked
// and its work done. valid: the stream's device was not shut down or
// reset since, so the buffer is still there to read.
func (s *queueState) freePrintf(valid bool) {
	b := s.printf.Swap(nil)
	if b == nil {
		return
	}
	if valid && b.al.Hold() {
		out, msgs := s.drainPrintf(b)
		b.al.Unhold()
		printing.Lock()
		writePrintf(out, msgs)
		printing.Unlock()
	}
	_ = b.al.Free() // after Shutdown the runtime freed it already
}
