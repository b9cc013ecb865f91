// Package shm is memory and signals shared between processes of one user
// through sealed memfds, for the drivers whose IPC handles carry no
// device memory of their own: the cpu agent's memory, and the signals of
// interprocess events on the cpu agent and cuda.
package shm

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Memory shared between processes lives in a memfd per allocation, named
// with a random nonce and sealed against growing and shrinking (a peer
// that truncated it would make the exporter's accesses fault). A handle
// carries the exporter's descriptor number and the nonce. The opening
// process opens /proc/<pid>/fd/<n> of the exporter, which the kernel
// allows a process of the same user, and accepts the file only if its
// name carries the nonce, its seals hold and it is large enough: a
// guessed or stale handle (an exited exporter, a descriptor number
// reused) opens nothing. Passing descriptors over a unix socket
// (SCM_RIGHTS) would need the exporter to serve each opener; reading them
// through /proc keeps a handle plain bytes, as CUDA's are.
//
// The mapping is the memfd's pages, not the exporter's address space:
// when the exporter frees the memory, or exits, a peer that has it open
// keeps the pages until it closes them, and nothing else is ever mapped
// in their place. Later opens of the handle fail.

const (
	ipcNameTag  = "hipgo-ipc:"
	ipcNonceLen = 16
	ipcPayload  = 4 + ipcNonceLen // descriptor, nonce
	ipcSeals    = unix.F_SEAL_GROW | unix.F_SEAL_SHRINK | unix.F_SEAL_SEAL
)

// File is one shared mapping: an exported allocation (fd open) or one
// opened from a handle (fd -1: the mapping holds the file).
type File struct {
	fd    int
	nonce [ipcNonceLen]byte
	size  uintptr // mapped bytes, whole pages
}

// Exported reports whether f is this process's own export (its
// descriptor open), not a mapping opened from another's handle.
func (f *File) Exported() bool { return f.fd >= 0 }

func pageRound(n uint64) uintptr {
	pg := uint64(unix.Getpagesize())
	return uintptr((n + pg - 1) / pg * pg)
}

// New makes a sealed File of size bytes and maps it.
func New(size uint64) (uintptr, *File, error) {
	f := &File{fd: -1, size: pageRound(size)}
	if _, err := rand.Read(f.nonce[:]); err != nil {
		return 0, nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "ipc malloc", "nonce: %w", err)
	}
	fd, err := unix.MemfdCreate(ipcNameTag+hex.EncodeToString(f.nonce[:]), unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return 0, nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "ipc malloc", "memfd_create: %w", err)
	}
	fail := func(what string, err error) (uintptr, *File, error) {
		_ = unix.Close(fd)
		return 0, nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "ipc malloc", "%s %d bytes: %w", what, f.size, err)
	}
	if err := unix.Ftruncate(fd, int64(f.size)); err != nil {
		return fail("ftruncate", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, ipcSeals); err != nil {
		return fail("seal", err)
	}
	addr, err := mapShared(fd, f.size)
	if err != nil {
		return fail("mmap", err)
	}
	f.fd = fd
	return addr, f, nil
}

func mapShared(fd int, size uintptr) (uintptr, error) {
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return 0, err
	}
	hostmem.AddMapped(int64(size))
	return uintptr(unsafe.Pointer(unsafe.SliceData(b))), nil
}

func Unmap(addr uintptr, f *File) error {
	err := unix.Munmap(unsafe.Slice((*byte)(hostmem.At(addr)), f.size))
	if err == nil {
		hostmem.AddMapped(-int64(f.size))
	}
	if f.fd >= 0 {
		if cerr := unix.Close(f.fd); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return hsa.Errorf(hsa.StatusErrorResourceFree, "ipc free", "%#x: %w", addr, err)
	}
	return nil
}

// Open opens what a handle names: process pid's descriptor fd, which
// must be a memfd of this package with the nonce, sealed, of at least size
// bytes. It maps it and closes the descriptor.
func Open(op string, payload []byte, pid int, size uint64) (uintptr, *File, error) {
	if len(payload) != ipcPayload {
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "payload of %d bytes: want %d", len(payload), ipcPayload)
	}
	n := binary.LittleEndian.Uint32(payload)
	if n > 1<<24 {
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "descriptor %d is not one", n)
	}
	f := &File{fd: -1, size: pageRound(size)}
	copy(f.nonce[:], payload[4:])
	path := "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatUint(uint64(n), 10)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "the memory is gone: process %d exited or freed it", pid)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "process %d's memory may not be opened here (another user's process?): %w", pid, err)
	case err != nil:
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "open %s: %w", path, err)
	}
	defer unix.Close(fd)
	// What was opened, not what the path named a moment before: the
	// exporter may have closed and reused the number meanwhile.
	want := memfdName(f.nonce)
	buf := make([]byte, len(want)+1)
	k, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || k != len(want) || string(buf[:k]) != want {
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "handle does not name shared memory of process %d (wrong nonce, or freed)", pid)
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil || seals&ipcSeals != ipcSeals {
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "process %d's memory is not sealed", pid)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size < 0 || uint64(st.Size) < uint64(f.size) {
		return 0, nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "handle claims %d bytes: process %d shared fewer", size, pid)
	}
	addr, err := mapShared(fd, f.size)
	if err != nil {
		return 0, nil, hsa.Errorf(hsa.StatusErrorOutOfResources, op, "mmap %d bytes: %w", f.size, err)
	}
	return addr, f, nil
}

// Payload is the handle bytes that name f: its descriptor and nonce.
func (f *File) Payload() []byte {
	p := make([]byte, ipcPayload)
	binary.LittleEndian.PutUint32(p, uint32(f.fd))
	copy(p[4:], f.nonce[:])
	return p
}

// Signal is a signal whose value lives in a shared page, which the
// exporter and the processes that opened it all map. Other processes
// cannot wake this one, so a waiter polls: it spins briefly, then sleeps
// in growing steps up to ipcMaxSleep. mu orders every access before
// Destroy unmaps the page; a destroyed signal reads 0 and ignores writes.
type Signal struct {
	mu   sync.RWMutex
	val  *int64 // nil once destroyed
	addr uintptr
	f    *File
	// For a signal opened from another process's handle: its exporter's
	// descriptor (/proc/<pid>/fd/<n>) and what that must name while the
	// exporter lives and keeps the signal. A pending signal checks it
	// now and then (peerGone): once the exporter exited or destroyed the
	// signal, nobody can complete it, and it reads 0 with gone as its
	// failure, so its waiters end with an error instead of waiting for
	// ever.
	peerPath, peerWant string
	peerPID            int
	checked            atomic.Int64 // clock of the last check, in ns since start
	gone               atomic.Pointer[error]
}

// peerCheck is how often a pending opened signal looks at its exporter.
const peerCheck = 20 * time.Millisecond

// start is the origin of Signal.checked.
var start = time.Now()

// peerGone reports whether the exporter of an opened signal exited or
// destroyed the signal, looking at most once per peerCheck.
func (s *Signal) peerGone() bool {
	if s.peerPID == 0 {
		return false
	}
	if s.gone.Load() != nil {
		return true
	}
	now := int64(time.Since(start))
	last := s.checked.Load()
	if now-last < int64(peerCheck) || !s.checked.CompareAndSwap(last, now) {
		return false
	}
	buf := make([]byte, len(s.peerWant)+1)
	k, err := unix.Readlink(s.peerPath, buf)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return false // cannot tell: keep waiting
	}
	if err == nil && k == len(s.peerWant) && string(buf[:k]) == s.peerWant {
		return false
	}
	gone := hsa.Errorf(hsa.StatusErrorInvalidSignal, "ipc event", "process %d, which exported the event, exited (or destroyed the event) before the work it recorded completed: nothing will complete it", s.peerPID)
	s.gone.CompareAndSwap(nil, &gone)
	return true
}

// Failure is why an opened signal will never be completed (its
// exporter exited), or nil.
func (s *Signal) Failure() error {
	if p := s.gone.Load(); p != nil {
		return *p
	}
	return nil
}

const ipcMaxSleep = 200 * time.Microsecond

func (s *Signal) Handle() uint64 { return uint64(s.addr) }

// do runs f on the value unless the signal was destroyed.
func (s *Signal) do(f func(p *int64) int64) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.val == nil {
		return 0
	}
	return f(s.val)
}

func (s *Signal) Load() int64 {
	v := s.do(func(p *int64) int64 { return atomic.LoadInt64(p) })
	if v != 0 && s.peerGone() {
		return 0
	}
	return v
}
func (s *Signal) Store(v int64) {
	s.do(func(p *int64) int64 { atomic.StoreInt64(p, v); return 0 })
}
func (s *Signal) Add(d int64) int64 {
	return s.do(func(p *int64) int64 { return atomic.AddInt64(p, d) })
}
func (s *Signal) Exchange(v int64) int64 {
	return s.do(func(p *int64) int64 { return atomic.SwapInt64(p, v) })
}
func (s *Signal) CAS(old, new int64) int64 {
	return s.do(func(p *int64) int64 {
		for {
			v := atomic.LoadInt64(p)
			if v != old || atomic.CompareAndSwapInt64(p, old, new) {
				return v
			}
		}
	})
}

// holds is c.Holds, except that an unknown condition holds: it would
// never end a wait.
func holds(c hsa.Condition, v, cmp int64) bool { return c > hsa.CondGTE || c.Holds(v, cmp) }

func (s *Signal) Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	start := time.Now()
	sleep := time.Microsecond
	for i := 0; ; i++ {
		s.mu.RLock()
		gone := s.val == nil
		var v int64
		if !gone {
			v = atomic.LoadInt64(s.val)
		}
		s.mu.RUnlock()
		if gone || holds(cond, v, cmp) || timeout > 0 && time.Since(start) >= timeout {
			return v
		}
		if v != 0 && s.peerGone() {
			return 0
		}
		if hint == hsa.WaitActive && i < 1000 {
			runtime.Gosched()
			continue
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, ipcMaxSleep)
	}
}

func (s *Signal) Destroy() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.val == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal destroy", "signal already destroyed")
	}
	s.val = nil
	return Unmap(s.addr, s.f)
}

// NewSignal makes a shareable signal of value 0 and its handle payload.
func NewSignal() (*Signal, []byte, error) {
	addr, f, err := New(8)
	if err != nil {
		return nil, nil, err
	}
	return &Signal{val: (*int64)(hostmem.At(addr)), addr: addr, f: f}, f.Payload(), nil
}

// OpenSignal opens the signal process pid exported as payload (untrusted
// bytes, checked as Open checks memory).
func OpenSignal(payload []byte, pid int) (*Signal, error) {
	addr, f, err := Open("ipc open event handle", payload, pid, 8)
	if err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(payload)
	return &Signal{val: (*int64)(hostmem.At(addr)), addr: addr, f: f, peerPID: pid,
		peerPath: "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatUint(uint64(n), 10),
		peerWant: memfdName(f.nonce)}, nil
}

// memfdName is what /proc/<pid>/fd/<n> reads for the memfd of nonce.
func memfdName(nonce [ipcNonceLen]byte) string {
	return "/memfd:" + ipcNameTag + hex.EncodeToString(nonce[:]) + " (deleted)"
}
