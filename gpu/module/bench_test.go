package module_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel"
)

func BenchmarkLaunchSync(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	if err != nil {
		b.Fatal(err)
	}
	m, _ := module.Load(dev, set)
	f, _ := m.Function("test_scale")
	x, _ := buffer.New[float32](dev, 256)
	s, _ := stream.New(dev)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Launch(s, gpu.D1(1), gpu.D1(256), 0, x, float32(1), int32(256)); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchStruct queues launches that pass a 16-byte struct by
// value, through Launch's ...any and through ArgStruct, without waiting:
// the cost of the argument path beside BenchmarkLaunchSync's.
func BenchmarkLaunchStruct(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	if err != nil {
		b.Fatal(err)
	}
	m, _ := module.Load(dev, kernel.NewSet("pair", pairAxpy))
	f, _ := m.Function("pair_axpy")
	out, _ := buffer.New[float64](dev, 64)
	s, _ := stream.New(dev)
	p := Pair{X: 1, Y: 2}
	run := func(b *testing.B, launch func() error) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
			if i%64 == 63 {
				_ = s.Synchronize()
			}
		}
		_ = s.Synchronize()
	}
	b.Run("Launch", func(b *testing.B) {
		run(b, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(64), 0, out, p, int32(64)) })
	})
	b.Run("ArgStruct", func(b *testing.B) {
		var a module.Args
		run(b, func() error {
			a.Reset()
			return f.LaunchArgs(s, gpu.D1(1), gpu.D1(64), 0, module.ArgStruct(a.Ptr(out), p).Int32(64))
		})
	})
	b.Run("Value", func(b *testing.B) {
		var a module.Args
		run(b, func() error {
			a.Reset()
			return f.LaunchArgs(s, gpu.D1(1), gpu.D1(64), 0, a.Ptr(out).Value(p).Int32(64))
		})
	})
}

// BenchmarkArgs is what a typed launcher pays for its arguments before
// the launch: declaring an Args on its stack (which Go zeroes) and
// filling it, for vector_add's four arguments and for sixteen.
func BenchmarkArgs(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	if err != nil {
		b.Fatal(err)
	}
	x, _ := buffer.New[float32](dev, 256)
	b.Run("vector_add", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			argsSink += fillArgs4(x)
		}
	})
	b.Run("16", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			argsSink += fillArgs16(x)
		}
	})
}

var argsSink int

//go:noinline
func fillArgs4(x *buffer.Buffer[float32]) int {
	var a module.Args
	a.ConstPtr(x).ConstPtr(x).Ptr(x).Int32(256)
	return useArgs(&a)
}

//go:noinline
func fillArgs16(x *buffer.Buffer[float32]) int {
	var a module.Args
	a.ConstPtr(x).ConstPtr(x).Ptr(x).Int32(256).Int64(1).Int64(2).Int64(3).Int64(4).
		Float32(1).Float32(2).Float32(3).Float32(4).Int32(5).Int32(6).Int32(7).Int32(8)
	return useArgs(&a)
}

// useArgs keeps a on the caller's stack, as a launch does.
//
//go:noinline
func useArgs(a *module.Args) int { return a.Len() }
