package blas

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// fakeVendor is a column-major BLAS library in Go, called the way cuBLAS
// and rocBLAS are, on the cpu agent's memory (whose device addresses are
// host addresses). Running the row-major routines through it checks the
// operand swap, the transposes and the argument order of both bindings.
type fakeVendor struct {
	keys      map[uintptr]string
	calls     []string
	opN, opT  uintptr
	mode      uintptr
	workspace [2]uintptr // address and size of the last cublasSetWorkspace
}

func newFakeAPI(lib string, opN, opT uintptr) (*vendorAPI, *fakeVendor) {
	f := &fakeVendor{keys: map[uintptr]string{}, opN: opN, opT: opT}
	a := &vendorAPI{lib: lib, fns: map[string]uintptr{}, names: map[string]string{}, opN: opN, opT: opT, err: cublasErr}
	i := uintptr(1)
	for k := range cublasSymbols {
		a.fns[k], a.names[k] = i, lib+"_"+k
		f.keys[i] = k
		i++
	}
	a.call = f.call
	return a, f
}

// pointer turns an address the caller passed as a C argument back into a
// pointer by reinterpreting the word, as C would see it: some of them are
// Go heap objects (the scalars, the handle field), which a uintptr
// conversion would hide from the race detector's pointer checks.
func pointer(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

func at(addr uintptr, i int, f64 bool) float64 {
	if f64 {
		return *(*float64)(unsafe.Add(pointer(addr), i*8))
	}
	return float64(*(*float32)(unsafe.Add(pointer(addr), i*4)))
}

func put(addr uintptr, i int, f64 bool, v float64) {
	if f64 {
		*(*float64)(unsafe.Add(pointer(addr), i*8)) = v
		return
	}
	*(*float32)(unsafe.Add(pointer(addr), i*4)) = float32(v)
}

func (f *fakeVendor) call(fn uintptr, args ...uintptr) uintptr {
	key := f.keys[fn]
	f.calls = append(f.calls, key)
	in := func(i int) int { return int(int32(args[i])) }
	f64 := key[0] == 'd'
	switch key {
	case "create":
		*(*uintptr)(pointer(args[0])) = 0x1234
	case "setPointerMode":
		f.mode = args[1]
	case "setWorkspace":
		f.workspace = [2]uintptr{args[1], args[2]}
	case "sdot", "ddot":
		if f.mode != pointerModeDevice {
			return 7
		}
		n, x, incx, y, incy := in(1), args[2], in(3), args[4], in(5)
		s := 0.0
		for i := 0; i < n; i++ {
			s += at(x, i*incx, f64) * at(y, i*incy, f64)
		}
		put(args[6], 0, f64, s)
	case "sgemv", "dgemv":
		tr, m, n, alpha, a, lda, x, incx, beta, y, incy := args[1], in(2), in(3), scalar(args[4], f64), args[5], in(6), args[7], in(8), scalar(args[9], f64), args[10], in(11)
		rows, cols := m, n
		if tr == f.opT {
			rows, cols = n, m
		} else if tr != f.opN {
			return 7
		}
		for i := 0; i < rows; i++ {
			s := 0.0
			for j := 0; j < cols; j++ {
				aij := at(a, i+j*lda, f64) // column-major
				if tr == f.opT {
					aij = at(a, j+i*lda, f64)
				}
				s += aij * at(x, j*incx, f64)
			}
			put(y, i*incy, f64, alpha*s+beta*at(y, i*incy, f64))
		}
	case "sgemm", "dgemm":
		return f.gemm(f64, args[1], args[2], in(3), in(4), in(5), scalar(args[6], f64), args[7], in(8), args[9], in(10), scalar(args[11], f64), args[12], in(13))
	case "sgemmStridedBatched", "dgemmStridedBatched":
		es := uintptr(4)
		if f64 {
			es = 8
		}
		for b := 0; b < in(17); b++ {
			ub := uintptr(b)
			if st := f.gemm(f64, args[1], args[2], in(3), in(4), in(5), scalar(args[6], f64), args[7]+ub*args[9]*es, in(8), args[10]+ub*args[12]*es, in(11), scalar(args[13], f64), args[14]+ub*args[16]*es, in(15)); st != 0 {
				return st
			}
		}
	}
	return 0
}

func scalar(p uintptr, f64 bool) float64 { return at(p, 0, f64) }

// gemm is column-major C = alpha·op(A)·op(B) + beta·C.
func (f *fakeVendor) gemm(f64 bool, ta, tb uintptr, m, n, k int, alpha float64, a uintptr, lda int, b uintptr, ldb int, beta float64, c uintptr, ldc int) uintptr {
	if ta != f.opN && ta != f.opT || tb != f.opN && tb != f.opT || lda < 1 || ldb < 1 || ldc < max(1, m) {
		return 7
	}
	opA := func(i, l int) float64 {
		if ta == f.opT {
			return at(a, l+i*lda, f64)
		}
		return at(a, i+l*lda, f64)
	}
	opB := func(l, j int) float64 {
		if tb == f.opT {
			return at(b, j+l*ldb, f64)
		}
		return at(b, l+j*ldb, f64)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < k; l++ {
				s += opA(i, l) * opB(l, j)
			}
			put(c, i+j*ldc, f64, alpha*s+beta*at(c, i+j*ldc, f64))
		}
	}
	return 0
}

// The cuBLAS and rocBLAS bindings compute row-major results with a
// column-major library: checked against gonum through a fake of each.
func TestVendorBindingsAgainstFake(t *testing.T) {
	for _, lib := range []struct {
		name     string
		opN, opT uintptr
	}{{"cublas", 0, 1}, {"rocblas", rocblasOpNone, rocblasOpTranspose}} {
		t.Run(lib.name, func(t *testing.T) {
			dev := gputest.DeviceOf(t, "cpu")
			s, err := stream.New(dev)
			require.NoError(t, err)
			api, fake := newFakeAPI(lib.name, lib.opN, lib.opT)
			h := &Handle{s: s, be: &vendor{api: api}}
			r := rand.New(rand.NewPCG(9, 9))
			var ref gonum.Implementation
			rnd := func(n int) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = 2*r.Float64() - 1
				}
				return v
			}
			var bufs []*buffer.Buffer[float64]
			up := func(v []float64) *buffer.Buffer[float64] {
				b, err := buffer.FromSlice(dev, v)
				require.NoError(t, err)
				bufs = append(bufs, b)
				return b
			}
			down := func(b *buffer.Buffer[float64]) []float64 {
				require.NoError(t, s.Synchronize())
				v, err := b.ToSlice()
				require.NoError(t, err)
				return v
			}
			gt := func(tr Transpose) gblas.Transpose {
				return gblas.Transpose(map[Transpose]byte{NoTrans: 'N', Trans: 'T'}[tr])
			}
			for _, tA := range []Transpose{NoTrans, Trans} {
				for _, tB := range []Transpose{NoTrans, Trans} {
					const m, n, k, pad, batch = 7, 5, 6, 2, 3
					ra, ca, rb, cb := m, k, k, n
					if tA == Trans {
						ra, ca = k, m
					}
					if tB == Trans {
						rb, cb = n, k
					}
					lda, ldb, ldc := ca+pad, cb+pad, n+pad
					sa, sb, sc := ra*lda, rb*ldb, m*ldc
					a, b, c := rnd(batch*sa), rnd(batch*sb), rnd(batch*sc)
					da, db, dc := up(a), up(b), up(c)
					require.NoError(t, GemmStridedBatched(h, tA, tB, m, n, k, 0.5, da, lda, sa, db, ldb, sb, -2.0, dc, ldc, sc, batch))
					one := append([]float64(nil), c[:sc]...)
					done := up(one)
					require.NoError(t, Gemm(h, tA, tB, m, n, k, 1.5, da, lda, db, ldb, 0.25, done, ldc))
					ref.Dgemm(gt(tA), gt(tB), m, n, k, 1.5, a, lda, b, ldb, 0.25, one, ldc)
					assert.InDeltaSlice(t, one, down(done), 1e-12, fmt.Sprintf("gemm %v %v", tA, tB))
					for i := 0; i < batch; i++ {
						ref.Dgemm(gt(tA), gt(tB), m, n, k, 0.5, a[i*sa:], lda, b[i*sb:], ldb, -2, c[i*sc:], ldc)
					}
					assert.InDeltaSlice(t, c, down(dc), 1e-12, fmt.Sprintf("%v %v", tA, tB))
				}
				// gemv
				const m, n, lda = 6, 4, 5
				a, x, y := rnd(m*lda), rnd(m), rnd(m)
				da, dx, dy := up(a), up(x), up(y)
				lx, ly := n, m
				if tA == Trans {
					lx, ly = m, n
				}
				require.NoError(t, Gemv(h, tA, m, n, 2.0, da, lda, dx, 1, 0.5, dy, 1))
				ref.Dgemv(gt(tA), m, n, 2, a, lda, x[:lx], 1, 0.5, y[:ly], 1)
				assert.InDeltaSlice(t, y, down(dy), 1e-12, "gemv %v", tA)
			}
			x, y := up([]float64{1, 2, 3}), up([]float64{4, 5, 6})
			d, err := Dot(h, 3, x, 1, y, 1)
			require.NoError(t, err)
			assert.Equal(t, 32.0, d)
			require.NoError(t, h.Destroy())
			assert.Equal(t, "create", fake.calls[0])
			assert.Equal(t, "destroy", fake.calls[len(fake.calls)-1])
			for _, b := range bufs {
				assert.NoError(t, b.Free())
			}
			assert.NoError(t, s.Destroy())
		})
	}
}

// newFakeCublas is a handle on s over a fake cuBLAS that takes a
// workspace, as cuBLAS does.
func newFakeCublas(t *testing.T, s *stream.Stream) (*Handle, *fakeVendor, *buffer.Buffer[byte]) {
	api, fake := newFakeAPI("cublas", 0, 1)
	api.fns["setWorkspace"], api.names["setWorkspace"] = 999, "cublas_setWorkspace"
	fake.keys[999] = "setWorkspace"
	ws, err := buffer.New[byte](s.Device(), cublasWorkspace)
	require.NoError(t, err)
	return &Handle{s: s, be: &vendor{api: api, ws: ws}, workspace: ws}, fake, ws
}

// cuBLAS gets the handle's workspace each time its stream is set (setting
// the stream resets it to cuBLAS's default pool), and the workspace is
// freed with the handle.
func TestCublasWorkspace(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	h, fake, ws := newFakeCublas(t, s)
	x, err := buffer.FromSlice(dev, []float32{1, 2, 3})
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, Scal(h, 3, float32(2), x, 1))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, [2]uintptr{uintptr(ws.Ptr()), cublasWorkspace}, fake.workspace)
	i := slices.Index(fake.calls, "setStream")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, "setWorkspace", fake.calls[i+1], "right after the stream is set")
	require.NoError(t, h.Destroy())
	assert.Error(t, ws.Free(), "freed with the handle")
}

// A routine racing Destroy is either queued before the handle's release
// or refused: none runs after it, which would make the library create a
// handle that is never destroyed and point it at the freed workspace.
func TestDestroyRacingCalls(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	x, err := buffer.FromSlice(dev, []float32{1, 2, 3})
	require.NoError(t, err)
	defer x.Free()
	for range 500 {
		api, fake := newFakeAPI("cublas", 0, 1)
		h := &Handle{s: s, be: &vendor{api: api}}
		require.NoError(t, Scal(h, 3, float32(1), x, 1))
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for Scal(h, 3, float32(1), x, 1) == nil {
				}
			})
		}
		require.NoError(t, h.Destroy())
		wg.Wait()
		require.NoError(t, s.Synchronize())
		require.NotEmpty(t, fake.calls)
		assert.Equal(t, "destroy", fake.calls[len(fake.calls)-1], "no call after the release")
		assert.Equal(t, 1, strings.Count(strings.Join(fake.calls, " "), "create"))
	}
}

// A handle whose stream was destroyed first still releases the library's
// handle (pointed at a live stream first) and its buffers, and Destroy
// says what happened.
func TestDestroyAfterStream(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	s, err := stream.New(dev)
	require.NoError(t, err)
	h, fake, ws := newFakeCublas(t, s)
	x, err := buffer.FromSlice(dev, []float32{1, 2, 3})
	require.NoError(t, err)
	defer x.Free()
	_, err = Dot(h, 3, x, 1, x, 1) // allocates the scratch element too
	require.NoError(t, err)
	require.NoError(t, s.Destroy())

	err = h.Destroy()
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "stream was destroyed first")
	assert.ErrorContains(t, err, "released all the same")
	require.GreaterOrEqual(t, len(fake.calls), 2)
	assert.Equal(t, []string{"setStream", "destroy"}, fake.calls[len(fake.calls)-2:])
	assert.Equal(t, 1, strings.Count(strings.Join(fake.calls, " "), "destroy"))
	assert.Error(t, ws.Free(), "the workspace was freed with the handle")
	assert.Error(t, h.scratch32.Free(), "the scratch element was freed with the handle")
	assert.ErrorIs(t, h.Destroy(), gpu.ErrInvalidHandle, "a second Destroy")
}

// Without the libraries, loading says what it tried and how to point at
// them.
func TestVendorLibraryMissing(t *testing.T) {
	for name, load := range map[string]func() (*vendorAPI, error){"cuBLAS": loadCublas, "rocBLAS": loadRocblas} {
		if _, err := load(); err != nil {
			assert.ErrorIs(t, err, gpu.ErrNotSupported, name)
			assert.ErrorContains(t, err, "no "+name+": cannot open", name)
			assert.ErrorContains(t, err, "tried", name)
			assert.Regexp(t, `set HIPGO_(CUBLAS|HIP|ROCBLAS)_LIBRARY`, err.Error(), name)
		} else {
			t.Logf("%s is installed here", name)
		}
	}
}
