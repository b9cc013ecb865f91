package k

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// Tile is the matrix multiply's block edge.
const Tile = 16

//hipgo:kernel
func MatMul(t kernel.Thread, a, b, c []float32, n int32) {
	as := kernel.Shared[[Tile][Tile]float32](t)
	bs := kernel.Shared[[Tile][Tile]float32](t)
	tx, ty := int32(t.ThreadIdx().X), int32(t.ThreadIdx().Y)
	row := int32(t.BlockIdx().Y)*Tile + ty
	col := int32(t.BlockIdx().X)*Tile + tx
	var acc float32
	for k0 := int32(0); k0 < n; k0 += Tile {
		as[ty][tx] = a[row*n+k0+tx]
		bs[ty][tx] = b[(k0+ty)*n+col]
		t.SyncThreads()
		for k := range Tile {
			acc += as[ty][k] * bs[k][tx]
		}
		t.SyncThreads()
	}
	c[row*n+col] = acc
}

//hipgo:kernel
func Histogram256(t kernel.Thread, data []uint8, hist []uint32) {
	local := kernel.Shared[[256]uint32](t)
	tid := t.ThreadIdx().X
	for i := tid; i < 256; i += t.BlockDim().X {
		local[i] = 0
	}
	t.SyncThreads()
	stride := t.BlockDim().X * t.GridDim().X
	for i := t.GlobalX(); i < len(data); i += stride {
		kernel.AtomicAdd(&local[data[i]], 1)
	}
	t.SyncThreads()
	for i := tid; i < 256; i += t.BlockDim().X {
		kernel.AtomicAdd(&hist[i], local[i])
	}
}

//hipgo:kernel
func Transpose(t kernel.Thread, out, in []float32, width, height int) {
	tile := kernel.Shared[[32][33]float32](t)
	x := t.BlockIdx().X*32 + t.ThreadIdx().X
	y := t.BlockIdx().Y*32 + t.ThreadIdx().Y
	for j := 0; j < 32; j += 8 {
		if x < width && y+j < height {
			tile[t.ThreadIdx().Y+j][t.ThreadIdx().X] = in[(y+j)*width+x]
		}
	}
	t.SyncThreads()
	x = t.BlockIdx().Y*32 + t.ThreadIdx().X
	y = t.BlockIdx().X*32 + t.ThreadIdx().Y
	for j := 0; j < 32; j += 8 {
		if x < height && y+j < width {
			out[(y+j)*height+x] = tile[t.ThreadIdx().X][t.ThreadIdx().Y+j]
		}
	}
}

// InclusiveScan scans each warp's values with shuffles.
//
//hipgo:kernel
func InclusiveScan(t kernel.Thread, data []int32) {
	i := t.GlobalX()
	var v int32
	if i < len(data) {
		v = data[i]
	}
	lane := t.Lane()
	for d := 1; d < t.WarpSize(); d <<= 1 {
		u := kernel.ShflUp(t, v, d)
		if lane >= d {
			v += u
		}
	}
	if i < len(data) {
		data[i] = v
	}
}

//hipgo:kernel
func Wrap(t kernel.Thread, a []int32, b []int8, c []uint16, d []int64) {
	i := t.GlobalX()
	if i >= len(a) {
		return
	}
	a[i] = a[i]*1664525 + 1013904223
	a[i] = -a[i]
	b[i] += 100
	b[i] = ^b[i] &^ 3
	c[i] *= c[i]
	d[i]++
	d[i] = d[i] - math.MinInt64
}

//hipgo:kernel
func Shifts(t kernel.Thread, x []uint32, y []int64, s []int) {
	i := t.GlobalX()
	if i < len(x) && i < len(y) && i < len(s) {
		x[i] = x[i]<<s[i] | x[i]>>(32-s[i])
		y[i] >>= s[i]
		y[i] = y[i] << 3
		x[i] <<= 40 - s[i]
	}
}

//hipgo:kernel
func Divide(t kernel.Thread, q, r []int32, den int32) {
	i := t.GlobalX()
	if i < len(q) && i < len(r) {
		n := q[i]
		q[i] = n / den
		r[i] = n % den
		q[i] += n / 7
	}
}

// Particle is passed by value and held in slices.
type Particle struct {
	Pos, Vel [3]float32
	Mass     float64
	Alive    bool
	ID       int32
}

// Params are a step's constants.
type Params struct {
	Dt      float32
	Gravity [3]float32
	Steps   int32
}

func step(p Particle, q Params) Particle {
	for k := range 3 {
		p.Vel[k] += q.Gravity[k] * q.Dt
		p.Pos[k] = kernel.Fma(p.Vel[k], q.Dt, p.Pos[k])
	}
	return p
}

//hipgo:kernel
func Advance(t kernel.Thread, ps []Particle, q Params, energy []float64) {
	i := t.GlobalX()
	if i >= len(ps) || !ps[i].Alive {
		return
	}
	p := ps[i]
	for range q.Steps {
		p = step(p, q)
	}
	ps[i] = p
	var e float64
	for _, v := range p.Vel {
		e += float64(v * v)
	}
	energy[i] = 0.5 * p.Mass * math.Sqrt(e)
}

//hipgo:kernel
func Classify(t kernel.Thread, in []float32, out []int32, limit float32) {
	i := t.GlobalX()
	if i >= len(in) {
		return
	}
	var bins [4]int32
	bins[1] = 7
	lut := [4]int32{3, 1: 5, 9}
	copyOf := lut
	copyOf[0] = 100
	v := in[i]
	switch {
	case v < 0:
		out[i] = bins[0]
	case v < limit, v == limit:
		out[i] = bins[1] + lut[0]
	default:
		out[i] = copyOf[int(v)%4]
	}
	switch k := int32(v); k {
	case 1, 2:
		out[i]++
	case 3:
		break
	default:
		out[i]--
	}
outer:
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if a*b > 6 {
				break outer
			}
			if b > a {
				continue outer
			}
			out[i] += int32(a + b)
		}
	}
	n := 0
	for n < 10 {
		n++
		if n == 5 {
			continue
		}
	}
	out[i] += int32(n) + int32(math.Float32bits(kernel.Sqrt(v))>>31)
}

// Shadow declares x again in an inner scope, reading the outer one, and
// i in two loops one after the other.
//
//hipgo:kernel
func Shadow(t kernel.Thread, out []int32) {
	x := int32(t.GlobalX())
	if x > 0 {
		x := x + 1
		out[0] = x
	}
	for i := 0; i < 2; i++ {
		out[i] += x
	}
	for i := 0; i < 2; i++ {
		out[i] -= x
	}
}

// Trace prints through kernel.Printf.
//
//hipgo:kernel
func Trace(t kernel.Thread, x []float32, n uint16) {
	i := t.GlobalX()
	kernel.Printf(t, "i=%d n=%d x=%08.3f ok=%5t h=%x %%\n", i, n, x[0], i < 3, uint64(i))
}
