package kernels

import (
	"fmt"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// TransposeArgs is the kernarg layout of
// transpose(const float *in, float *out, int rows, int cols).
type TransposeArgs struct {
	In         rocr.ConstPtr[float32] // offset 0
	Out        rocr.Ptr[float32]      // offset 8
	Rows, Cols int32                  // offsets 16, 20
}

// The tile geometry of src/transpose.hip.
const (
	transposeTile = 32 // TILE
	transposeRows = 8  // BLOCK_ROWS
	transposePad  = transposeTile + 1
)

// TransposeKernel writes out (cols x rows) = in (rows x cols)^T, both
// row-major. Work-group (bx, by) moves the 32x32 tile whose top-left
// element is in[by*32][bx*32]; launch it with block (32, 8) and
// ceil(cols/32) x ceil(rows/32) groups. It declares the HIP kernel's
// static group memory, float tile[32][33].
//
// A full (32, 8) group, every one that HIP launches, copies its tile
// directly from in to out: the staging in group memory exists for
// coalescing on a GPU and changes no value, so the result is the HIP
// kernel's. Any other group runs the HIP code literally (transposeLiteral),
// through group memory and with its barrier, so it computes what a GPU
// would, uninitialised group memory included.
var TransposeKernel = cpu.Define("transpose", func(g *cpu.Group, a *TransposeArgs) {
	if g.Size != [3]int{transposeTile, transposeRows, 1} || g.Items(0) != transposeTile || g.Items(1) != transposeRows {
		transposeLiteral(g, a)
		return
	}
	rows, cols := int(a.Rows), int(a.Cols)
	x0, y0 := g.ID[0]*transposeTile, g.ID[1]*transposeTile // the tile's first column and row of in
	x1, y1 := min(x0+transposeTile, cols), min(y0+transposeTile, rows)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	// One checked view for each side: the tile spans rows y0..y1-1 of in
	// and rows x0..x1-1 of out.
	in := a.In.Slice(g, y0*cols+x0, (y1-1)*cols+x1)
	out := a.Out.Slice(g, x0*rows+y0, (x1-1)*rows+y1)
	w, h := x1-x0, y1-y0
	for r := 0; r < h; r++ {
		src := in[r*cols : r*cols+w]
		for c, v := range src {
			out[c*rows+r] = v
		}
	}
}, cpu.StaticShared(transposeTile*transposePad*4), cpu.MaxThreads(transposeTile*transposeRows))

// transposeLiteral is src/transpose.hip line by line, the __syncthreads()
// splitting it into two loops over the group's work-items.
func transposeLiteral(g *cpu.Group, a *TransposeArgs) {
	if g.Size[0] > transposeTile || g.Size[1] > transposeRows {
		// Work-items would index tile[][] out of bounds.
		panic(fmt.Errorf("transpose: work-group %dx%d exceeds the %dx%d the kernel is written for", g.Size[0], g.Size[1], transposeTile, transposeRows))
	}
	tile := cpu.SharedFloat32(g, 0, transposeTile*transposePad)
	rows, cols := int(a.Rows), int(a.Cols)
	nx, ny := g.Items(0), g.Items(1)
	bx, by := g.ID[0], g.ID[1]
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			x, y := bx*transposeTile+tx, by*transposeTile+ty
			for j := 0; j < transposeTile; j += transposeRows {
				if x < cols && y+j < rows {
					tile[(ty+j)*transposePad+tx] = *a.In.At(g, (y+j)*cols+x)
				}
			}
		}
	}
	// __syncthreads()
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			x, y := by*transposeTile+tx, bx*transposeTile+ty
			for j := 0; j < transposeTile; j += transposeRows {
				if x < rows && y+j < cols {
					*a.Out.At(g, (y+j)*rows+x) = tile[tx*transposePad+ty+j]
				}
			}
		}
	}
}
