package kernel

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
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

// cached finds a view this dispatch made before on this worker.
func cached[T any](b *Block, p uintptr, n int64) ([]T, bool) {
	var zero T
	for i := 0; i < b.nview; i++ {
		if v := &b.views[i]; v.p == p && v.n == n && v.size == unsafe.Sizeof(zero) {
			return unsafe.Slice((*T)(v.base), v.len), true
		}
	}
	return nil, false
}

func keep[T any](b *Block, p uintptr, n int64, s []T) []T {
	if b.nview < len(b.views) && len(s) > 0 {
		var zero T
		b.views[b.nview] = argView{p, n, unsafe.Sizeof(zero), unsafe.Pointer(&s[0]), len(s)}
		b.nview++
	}
	return s
}

// View is a kernel's slice argument: n elements from p, checked against
// the allocation p points into once per dispatch and worker.
func View[T any](b *Block, p rocr.Ptr[T], n int64) []T {
	if n == 0 {
		return nil
	}
	if s, ok := cached[T](b, uintptr(p), n); ok {
		return s
	}
	return keep(b, uintptr(p), n, p.Slice(b.grp, 0, int(n)))
}

// ViewRest is a kernel's slice argument whose length the kernel never
// reads, passed as a bare pointer: the elements from p to the end of the
// allocation p points into, so Go's bounds checks stop at its end.
func ViewRest[T any](b *Block, p rocr.Ptr[T]) []T {
	if p == 0 {
		return nil
	}
	if s, ok := cached[T](b, uintptr(p), -1); ok {
		return s
	}
	a := rocr.FindAllocation(uintptr(p))
	if a == nil {
		// Not device memory: View's check names what it is.
		return p.Slice(b.grp, 0, 1)
	}
	var zero T
	return keep(b, uintptr(p), -1, p.Slice(b.grp, 0, int((a.Base+a.Size-uintptr(p))/unsafe.Sizeof(zero))))
}

// ConstViewRest is ViewRest for a read-only argument.
func ConstViewRest[T any](b *Block, p rocr.ConstPtr[T]) []T { return ViewRest(b, rocr.Ptr[T](p)) }

// ConstView is View for a read-only argument.
func ConstView[T any](b *Block, p rocr.ConstPtr[T], n int64) []T {
	return View(b, rocr.Ptr[T](p), n)
}

// Frame is a lockstep or fissioned kernel's frame of type F (its
// arguments, its per-work-item variables), kept by the block for every
// later work-group and dispatch of the kernel on this worker, whichever
// kernels run in between, so a launch allocates nothing.
func Frame[F any](b *Block) *F {
	key := typeKey[F]()
	for _, f := range b.frames {
		if f.key == key {
			b.frame = f.frame
			return (*F)(f.frame)
		}
	}
	b.frame = unsafe.Pointer(new(F))
	b.frames = append(b.frames, frameSlot{key, b.frame})
	return (*F)(b.frame)
}

// FrameOf is the frame of the block t belongs to.
func FrameOf[F any](t Thread) *F { return (*F)(t.l.b.frame) }

// typeKey is a unique pointer per type F.
func typeKey[F any]() unsafe.Pointer {
	var v any = (*F)(nil)
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0]
}

// Locals is a fissioned kernel's variable that lives across a barrier, one
// element per work-item: *s, kept in the kernel's Frame, grown to n
// elements, so a launch allocates nothing once the frame has grown.
func Locals[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	return (*s)[:n]
}
