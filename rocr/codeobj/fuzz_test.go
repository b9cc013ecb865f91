package codeobj

import (
	"os"
	"path/filepath"
	"testing"
)

// addFixtures seeds a fuzz target with the committed fixtures; the
// hand-made seeds live in testdata/fuzz/<Name>/.
func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// exercise runs everything a caller does with a spec, checking the
// invariants Parse promises.
func exercise(t *testing.T, s *Spec) {
	_ = Describe(s)
	_, _ = s.Select("gfx90a:sramecc+:xnack-")
	_, _ = s.Select("sm_90")
	for _, o := range s.Objects {
		for i := range o.Kernels {
			k := &o.Kernels[i]
			if k.KernargSize > 1<<16 {
				continue
			}
			img := make([]byte, k.KernargSize)
			_ = k.FillHidden(img, &Launch{Grid: [3]uint32{100, 3, 2}, Block: [3]uint32{7, 2, 1}})
			_ = k.ExplicitArgs()
			if o.Format == FormatPTX {
				var end uint32
				for _, a := range k.Args {
					if a.Offset < end || a.Align == 0 || a.Offset%a.Align != 0 {
						t.Fatalf("PTX kernel %s: arg %s at %d (align %d) after %d", k.Name, a.Name, a.Offset, a.Align, end)
					}
					end = a.Offset + a.Size
				}
				if end != k.KernargSize {
					t.Fatalf("PTX kernel %s: size %d, args end at %d", k.Name, k.KernargSize, end)
				}
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	addFixtures(f, "gfx90a_v4.co", "compressed.hipfb", "k.ptx")
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		exercise(t, s)
	})
}

func FuzzParseELF(f *testing.F) {
	addFixtures(f, "gfx90a_v4.co", "gfx1100_v5.co")
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseELF(b)
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

func FuzzBundle(f *testing.F) {
	addFixtures(f, "compressed.hipfb")
	f.Fuzz(func(t *testing.T, b []byte) {
		objs, err := parseBundles(b, 0)
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: objs})
	})
}

func FuzzPTX(f *testing.F) {
	addFixtures(f, "k.ptx")
	f.Add([]byte(trickyPTX))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parsePTX(b)
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

func FuzzMetadata(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		md, err := decodeMetadata(b)
		if err != nil {
			return
		}
		o := &CodeObject{Format: FormatELF, Kernels: md.kernels}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}
