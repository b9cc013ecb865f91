package main

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// writePlots draws, per driver, a rate-against-size plot for each family
// with a Plot name and one launch latency bar chart, into dir. It returns
// the file names written.
func writePlots(dir string, stats []*stat) ([]string, error) {
	var drivers []string
	for _, s := range stats {
		if !slices.Contains(drivers, s.Driver) {
			drivers = append(drivers, s.Driver)
		}
	}
	var files []string
	for _, d := range drivers {
		prefix := d
		if prefix == "" {
			prefix = "unknown"
		}
		name := prefix + "-latency.png"
		if ok, err := latencyChart(filepath.Join(dir, name), d, stats); err != nil {
			return nil, err
		} else if ok {
			files = append(files, name)
		}
		for _, f := range families {
			if f.Plot == "" {
				continue
			}
			name := prefix + "-" + f.Plot + ".png"
			if ok, err := rateChart(filepath.Join(dir, name), d, f, stats); err != nil {
				return nil, err
			} else if ok {
				files = append(files, name)
			}
		}
	}
	return files, nil
}

// series is one curve: an impl at one GOMAXPROCS.
type series struct {
	impl  string
	procs int
	hipgo bool
	xys   plotter.XYs
	errs  plotter.YErrors // each point's confidence interval, below and above it; 0 when not finite
	open  []bool          // points whose interval is not finite (too few samples)
}

func (s *series) label() string {
	if s.procs == 0 {
		return s.impl
	}
	return fmt.Sprintf("%s, GOMAXPROCS=%d", s.impl, s.procs)
}

// style gives hipgo's impls warm solid curves and peers cool dashed ones;
// GOMAXPROCS changes the glyph.
func style(s *series, hipgoIdx, peerIdx int) (color.Color, []vg.Length) {
	if s.hipgo {
		warm := []color.Color{
			color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
			color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
		}
		return warm[hipgoIdx%len(warm)], nil
	}
	cool := []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	}
	return cool[peerIdx%len(cool)], []vg.Length{vg.Points(6), vg.Points(3)}
}

// rateChart plots the family's rate (GB/s or GFLOP/s) against size, one
// curve per impl and GOMAXPROCS. ok is false when there is nothing to plot.
func rateChart(path, driver string, f familyInfo, stats []*stat) (ok bool, err error) {
	var curves []*series
	var procsSeen []int
	for _, s := range stats {
		if s.Driver != driver || s.Family != f.Name {
			continue
		}
		x := s.size()
		sum, has := s.interval(f.Metric)
		y := sum.Center
		if x <= 0 || !has || y <= 0 {
			continue
		}
		procs := s.Procs
		if s.Foreign {
			procs = 0
		}
		i := slices.IndexFunc(curves, func(c *series) bool { return c.impl == s.Impl && c.procs == procs })
		if i < 0 {
			curves = append(curves, &series{impl: s.Impl, procs: procs, hipgo: s.isHipgo()})
			i = len(curves) - 1
		}
		curves[i].add(plotter.XY{X: x, Y: y}, sum)
		if !slices.Contains(procsSeen, procs) {
			procsSeen = append(procsSeen, procs)
		}
	}
	if len(curves) == 0 {
		return false, nil
	}
	slices.Sort(procsSeen)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%s driver)", f.Title, orDash(driver))
	p.X.Label.Text = f.Axis
	p.Y.Label.Text = unitOf(f.Metric)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = pow2Ticks{bytes: f.Axis == "bytes"}
	p.Y.Min = 0
	var ymax float64
	for _, c := range curves {
		for i, xy := range c.xys {
			ymax = max(ymax, xy.Y+c.errs[i].High)
		}
	}
	p.Y.Max = ymax * (1.15 + 0.07*float64(len(curves))) // room for the legend above the curves
	p.X.Label.Text += ciCaption(curves)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	impls := map[string]int{}
	nh, np := 0, 0
	for _, c := range curves {
		if _, seen := impls[c.impl]; !seen {
			if c.hipgo {
				impls[c.impl] = nh
				nh++
			} else {
				impls[c.impl] = np
				np++
			}
		}
	}
	for _, c := range curves {
		c.sort()
		line, points, err := plotter.NewLinePoints(c.xys)
		if err != nil {
			return false, err
		}
		col, dashes := style(c, impls[c.impl], impls[c.impl])
		line.Color, line.Dashes, line.Width = col, dashes, vg.Points(1.5)
		points.Color = col
		points.Shape = plotutil.Shape(slices.Index(procsSeen, c.procs))
		points.Radius = vg.Points(2.5)
		p.Add(line, points)
		if bars := c.errorBars(col, 0); bars != nil {
			p.Add(bars)
		}
		p.Legend.Add(c.label(), line, points)
	}
	return true, p.Save(8*vg.Inch, 5*vg.Inch, path)
}

// latencyChart draws the latency families as grouped bars in µs: one bar
// per impl and GOMAXPROCS, a group per family.
func latencyChart(path, driver string, stats []*stat) (ok bool, err error) {
	type cell struct {
		group int
		sum   benchmath.Summary
	}
	var bars []*series
	values := map[*series][]cell{}
	var groups, goPeers []string
	for _, lp := range latencyPlot {
		gi := -1
		for _, s := range stats {
			if s.Driver != driver || s.Family != lp.Family || s.Param != lp.Param {
				continue
			}
			sum, has := s.interval(latency)
			if !has {
				continue
			}
			if gi < 0 {
				groups = append(groups, groupName(lp.Family, lp.Param))
				gi = len(groups) - 1
			}
			procs := s.Procs
			if s.Foreign {
				procs = 0
			}
			// The Go peers differ per family (goroutine, channel, goheap):
			// one series for all, so that each group has its peer bar.
			impl := s.Impl
			if !s.isHipgo() && !s.Foreign {
				impl = "Go peer"
				if !slices.Contains(goPeers, s.Impl) {
					goPeers = append(goPeers, s.Impl)
				}
			}
			i := slices.IndexFunc(bars, func(c *series) bool { return c.impl == impl && c.procs == procs })
			if i < 0 {
				bars = append(bars, &series{impl: impl, procs: procs, hipgo: s.isHipgo()})
				i = len(bars) - 1
			}
			values[bars[i]] = append(values[bars[i]], cell{gi, sum})
		}
	}
	if len(bars) == 0 {
		return false, nil
	}
	slices.SortStableFunc(bars, func(a, b *series) int {
		return cmp.Or(cmpBool(!a.hipgo, !b.hipgo), strings.Compare(a.impl, b.impl), a.procs-b.procs)
	})
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Latency (%s driver): lower is better", orDash(driver))
	p.Y.Label.Text = "µs per operation"
	var ymax float64
	for _, cs := range values {
		for _, c := range cs {
			ymax = max(ymax, c.sum.Center)
			if !math.IsInf(c.sum.Hi, 0) {
				ymax = max(ymax, c.sum.Hi)
			}
		}
	}
	p.Y.Min = 0
	p.Y.Max = ymax * (1.15 + 0.07*float64(len(bars)))
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	width := vg.Points(math.Max(4, math.Min(18, 300/float64(len(bars)*max(len(groups), 1)))))
	nh, np := map[string]int{}, map[string]int{}
	for _, b := range bars {
		m := np
		if b.hipgo {
			m = nh
		}
		if _, ok := m[b.impl]; !ok {
			m[b.impl] = len(m)
		}
	}
	for i, b := range bars {
		vs := make(plotter.Values, len(groups))
		for _, c := range values[b] {
			vs[c.group] = c.sum.Center
			b.add(plotter.XY{X: float64(c.group), Y: c.sum.Center}, c.sum)
		}
		bc, err := plotter.NewBarChart(vs, width)
		if err != nil {
			return false, err
		}
		idx := np[b.impl]
		if b.hipgo {
			idx = nh[b.impl]
		}
		col, _ := style(b, idx, idx)
		bc.Color = lighten(col, b.procs)
		bc.LineStyle.Width = vg.Points(0.5)
		bc.Offset = width * vg.Length(float64(i)-float64(len(bars)-1)/2)
		p.Add(bc)
		if eb := b.errorBars(color.Black, bc.Offset); eb != nil {
			p.Add(eb)
		}
		label := b.label()
		if b.impl == "Go peer" {
			label = strings.Replace(label, "Go peer", "Go peer ("+strings.Join(goPeers, ", ")+")", 1)
		}
		p.Legend.Add(label, bc)
	}
	p.NominalX(groups...)
	p.X.Label.Text = strings.TrimPrefix(ciCaption(bars), "; ")
	return true, p.Save(8*vg.Inch, 5*vg.Inch, path)
}

// add appends a point and its confidence interval.
func (s *series) add(xy plotter.XY, sum benchmath.Summary) {
	var low, high float64
	open := math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0)
	if !open {
		low, high = max(0, xy.Y-sum.Lo), max(0, sum.Hi-xy.Y)
	}
	s.xys = append(s.xys, xy)
	s.errs = append(s.errs, struct{ Low, High float64 }{low, high})
	s.open = append(s.open, open)
}

// sort orders the points by x, keeping each one's interval.
func (s *series) sort() {
	idx := make([]int, len(s.xys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.xys[a].X, s.xys[b].X) })
	xys, errs, open := slices.Clone(s.xys), slices.Clone(s.errs), slices.Clone(s.open)
	for i, j := range idx {
		s.xys[i], s.errs[i], s.open[i] = xys[j], errs[j], open[j]
	}
}

// errorBars draws the series' finite confidence intervals, shifted dx to
// the right (a bar's offset in its group); nil when none is finite.
func (s *series) errorBars(c color.Color, dx vg.Length) plot.Plotter {
	var pts struct {
		plotter.XYs
		plotter.YErrors
	}
	for i, open := range s.open {
		if !open {
			pts.XYs = append(pts.XYs, s.xys[i])
			pts.YErrors = append(pts.YErrors, s.errs[i])
		}
	}
	if len(pts.XYs) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil
	}
	eb.Color = c
	return shifted{eb, dx}
}

// shifted draws a plotter dx to the right, where its bar chart's bars are.
type shifted struct {
	*plotter.YErrorBars
	dx vg.Length
}

func (s shifted) Plot(c draw.Canvas, p *plot.Plot) {
	c.Rectangle = c.Rectangle.Add(vg.Point{X: s.dx})
	s.YErrorBars.Plot(c, p)
}

// ciCaption says what the error bars are, and which points have none.
func ciCaption(ss []*series) string {
	open, all := 0, 0
	for _, s := range ss {
		for _, o := range s.open {
			all++
			if o {
				open++
			}
		}
	}
	caption := fmt.Sprintf("; bars: %d%% CI of the median", pct(confidence))
	if open > 0 {
		caption += fmt.Sprintf(" (%d of %d points have none: %s)", open, all, openReason())
	}
	return caption
}

// openReason is benchmath's warning for a median with too few samples
// for a finite interval ("need >= 6 samples for confidence interval at
// level 0.95").
func openReason() string {
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{1}, &thresholds), confidence)
	if len(sum.Warnings) == 0 {
		return "too few samples"
	}
	return sum.Warnings[0].Error()
}

// lighten makes the bars of GOMAXPROCS=1 paler than those of more procs.
func lighten(c color.Color, procs int) color.Color {
	if procs != 1 {
		return c
	}
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 2*0xff) / 3) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 0xff}
}

func groupName(family, param string) string {
	n := familyOf(family).Name
	if param != "" {
		n += " " + strings.TrimPrefix(strings.TrimPrefix(param, "size="), "n=")
	}
	return n
}

// pow2Ticks marks powers of two on a log axis, labelled 4K, 1M, 1G for
// bytes and 2^k for counts.
type pow2Ticks struct{ bytes bool }

func (t pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	k0, k1 := int(math.Floor(math.Log2(lo))), int(math.Ceil(math.Log2(hi)))
	step := max(1, (k1-k0+9)/10) // at most about ten labels
	for k := k0; k <= k1; k++ {
		v := math.Exp2(float64(k))
		if v < lo || v > hi {
			continue
		}
		label := ""
		if (k-k0)%step == 0 {
			label = t.label(k)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

func (t pow2Ticks) label(k int) string {
	if !t.bytes {
		if k <= 11 {
			return fmt.Sprint(1 << k) // sgemm's sides
		}
		return fmt.Sprintf("2^%d", k)
	}
	switch {
	case k >= 30:
		return fmt.Sprintf("%dG", 1<<(k-30))
	case k >= 20:
		return fmt.Sprintf("%dM", 1<<(k-20))
	case k >= 10:
		return fmt.Sprintf("%dK", 1<<(k-10))
	}
	return fmt.Sprint(1 << k)
}
