package module_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
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
