package kernel

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr/kernel/internal/hook"
)

// Block is a work-group: what Define's function runs. A per-group kernel
// (the Go twin of a C++ kernel) works on the whole group through it: its
// place in the grid (BlockIdx, Span), its group memory (GroupShared),
// device memory (Ptr.At and Ptr.Slice take the Block, which checks every
// access), GridSync and Canceled. Generated code also makes each
// work-item's Thread from it. A Block is reused by its worker from one
// work-group to the next; kernels must not keep it.
type Block struct {
	name   string
	id     Dim
	dim    Dim
	grid   Dim
	n      int    // work-items
	ext    [3]int // work-items in each dimension (fewer in a partial group)
	one    lane
	grp    hook.Group
	shared []byte
	static int
	x0     int  // blockIdx.x*blockDim.x
	flat1  bool // a one-dimensional block without static shared memory
	// perItem: the kernel asked for its work-items (generated code), so
	// a panic's place is the author's per-item function, not Define's.
	perItem bool

	// lockstep state
	lanes  []lane
	entry  func(Thread)
	warps  warpState
	ticket int // OrderedBlockID's ticket

	// views are this dispatch's argument views: every group of a
	// dispatch has the same arguments, so each is checked once per worker.
	disp   uint64
	kern   *Kernel // the kernel of disp: nil until the first group
	total  [3]int  // the grid's size in work-items
	views  [8]argView
	nview  int
	frame  unsafe.Pointer // the frame of the kernel running now
	frames []frameSlot    // every frame this worker made, by type
}

// frameSlot is one kernel's frame, kept for the next time it runs here.
type frameSlot struct{ key, frame unsafe.Pointer }

func dim(v [3]int) Dim { return Dim{v[0], v[1], v[2]} }

// block returns g's Block, readied for kernel k.
func block(g hook.Group, k *Kernel) *Block {
	slot := g.Local()
	b, _ := (*slot).(*Block)
	if b == nil {
		b = &Block{}
		*slot = b
	}
	if d := g.Dispatch(); d != b.disp || b.kern != k {
		id, size, count, grid := g.Dims()
		b.disp, b.nview, b.kern = d, 0, k
		b.grp, b.name = g, k.name
		b.dim, b.grid, b.total = dim(size), dim(count), grid
		b.static = int(k.static)
		b.flat1 = b.dim.Y == 1 && b.dim.Z == 1 && b.static == 0
		b.place0(id)
	} else {
		// Another group of the dispatch this worker ran last: only the
		// group's id and what follows from it change.
		b.place0(g.GroupID())
	}
	b.shared = g.Shared()
	b.one = lane{b: b}
	b.perItem = false
	return b
}

// place0 sets what depends on the group's id.
func (b *Block) place0(id [3]int) {
	b.id = dim(id)
	// The group's work-items: all of its size but in a partial group.
	size := [3]int{b.dim.X, b.dim.Y, b.dim.Z}
	for d := 0; d < 3; d++ {
		b.ext[d] = min(size[d], b.total[d]-id[d]*size[d])
	}
	b.n = b.ext[0] * b.ext[1] * b.ext[2]
	b.x0 = b.id.X * b.dim.X
}

// Threads is the number of work-items in the block.
func (b *Block) Threads() int {
	b.perItem = true
	return b.n
}

// Thread is the i-th work-item of a barrier-free kernel's block, in linear
// order (x fastest). The Thread it returns is valid until the next call.
func (b *Block) Thread(i int) Thread {
	if b.flat1 {
		// One dimension and no shared memory: the Thread carries all that
		// changes, and the call inlines.
		return Thread{&b.one, i, b.x0 + i}
	}
	return b.thread(i)
}

// First is the block's first work-item when the block is one-dimensional
// without static shared memory (ok), where First().Nth(i) is work-item i:
// generated loops then keep the Thread in registers.
func (b *Block) First() (t Thread, ok bool) {
	b.perItem = true
	return Thread{&b.one, 0, b.x0}, b.flat1
}

func (b *Block) thread(i int) Thread {
	b.perItem = true
	b.place(&b.one, i)
	return b.threadOf(&b.one)
}

// threadOf is l's Thread.
func (b *Block) threadOf(l *lane) Thread { return Thread{l, l.idx.X, b.x0 + l.idx.X} }

// place sets l to work-item i of the block.
func (b *Block) place(l *lane, i int) {
	l.b, l.shOff = b, 0
	if b.dim.Y == 1 && b.dim.Z == 1 {
		l.idx, l.flat = Dim{i, 0, 0}, i
		return
	}
	// i counts the group's work-items, which a partial group has fewer of
	// than its size; flat is the index in the full block, as on a GPU.
	ex, ey := b.ext[0], b.ext[1]
	l.idx = Dim{i % ex, i / ex % ey, i / (ex * ey)}
	l.flat = l.idx.X + (l.idx.Y+l.idx.Z*b.dim.Y)*b.dim.X
}

// argView is one checked argument view: pointer, length asked for (-1:
// to the allocation's end) and element size, and the elements it gave.
type argView struct {
	p    uintptr
	n    int64
	size uintptr
	base unsafe.Pointer
	len  int
}

// cached finds a view of elements of size bytes this dispatch made before
// on this worker.
func (b *Block) cached(p uintptr, n int64, size uintptr) (unsafe.Pointer, int, bool) {
	for i := 0; i < b.nview; i++ {
		if v := &b.views[i]; v.p == p && v.n == n && v.size == size {
			return v.base, v.len, true
		}
	}
	return nil, 0, false
}

// keep remembers a view for the dispatch's other groups on this worker.
func (b *Block) keep(p uintptr, n int64, size uintptr, base unsafe.Pointer, length int) {
	if b.nview < len(b.views) && length > 0 {
		b.views[b.nview] = argView{p, n, size, base, length}
		b.nview++
	}
}

// findFrame is the block's frame of the type key names, nil if it has
// none yet; it becomes the frame of the kernel running now.
func (b *Block) findFrame(key unsafe.Pointer) unsafe.Pointer {
	for _, f := range b.frames {
		if f.key == key {
			b.frame = f.frame
			return f.frame
		}
	}
	return nil
}

// addFrame keeps frame as the block's frame of the type key names, for
// every later work-group and dispatch of the kernel on this worker,
// whichever kernels run in between; it becomes the frame of the kernel
// running now.
func (b *Block) addFrame(key, frame unsafe.Pointer) {
	b.frame = frame
	b.frames = append(b.frames, frameSlot{key, frame})
}
