package codeobj

import (
	"math/rand"
	"testing"
	"time"
)

func TestZZSlow(t *testing.T) {
	var worst time.Duration
	for _, name := range []string{"gfx90a_v4.co", "gfx1100_v5.co", "compressed.hipfb", "host.o", "k.ptx"} {
		base := fixture(t, name)
		r := rand.New(rand.NewSource(2))
		for i := 0; i < 30000; i++ {
			b := append([]byte(nil), base...)
			for j := 0; j < 1+r.Intn(8); j++ {
				switch r.Intn(3) {
				case 0:
					b[r.Intn(len(b))] = byte(r.Intn(256))
				case 1:
					p := r.Intn(len(b))
					b[p] = []byte{0, 0xff, 0x7f, 0x80, 0xdd, 0xdb, 0xc6, 0xdf}[r.Intn(8)]
				case 2:
					p := r.Intn(len(b) - 8)
					le.PutUint64(b[p:], r.Uint64()>>r.Intn(64))
				}
			}
			st := time.Now()
			s, err := Parse(b)
			if err == nil {
				exercise(t, s)
			}
			if d := time.Since(st); d > worst {
				worst = d
				t.Logf("%s #%d: %v (%v)", name, i, d, err)
			}
		}
	}
}
