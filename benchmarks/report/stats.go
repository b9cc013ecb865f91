package main

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// key identifies one benchmark across runs: its samples are pooled.
type key struct {
	Driver, Family, Impl, Param string
	Procs                       int
}

// confidence is the level of every interval the report gives, benchstat's.
const confidence = 0.95

// thresholds are benchstat's: a difference is significant at p < 0.05.
var thresholds = benchmath.DefaultThresholds

// stat is the summary of one benchmark's samples: per unit, the median
// with its confidence interval and benchmath's warnings (too few samples).
type stat struct {
	key
	Foreign bool                         // from a program of the foreign table: pairs at any GOMAXPROCS
	N       int                          // samples
	Median  map[string]float64           // unit -> median: "ns/op", "MB/s", "GFLOP/s", "B/op", "allocs/op"
	Summary map[string]benchmath.Summary // unit -> median, its interval at confidence and warnings
	Sample  map[string]*benchmath.Sample // unit -> the samples, sorted
}

func (s *stat) isHipgo() bool { return strings.HasPrefix(s.Impl, "hipgo") }

// size is the parameter's numeric value (0 when it has none).
func (s *stat) size() float64 {
	v, _ := paramValue(s.Param)
	return v
}

// unitOfMetric is the unit as written that a metric reads, and the factor
// to the unit the report shows (MB/s to GB/s, ns to µs).
func unitOfMetric(m metric) (unit string, scale float64) {
	switch m {
	case bandwidth:
		return "MB/s", 1e-3
	case throughput:
		return "GFLOP/s", 1
	}
	return "ns/op", 1e-3
}

// value is the stat in its family's metric: µs for latency, GB/s for
// bandwidth, GFLOP/s for throughput. ok is false if the unit is missing.
func (s *stat) value(m metric) (float64, bool) {
	u, scale := unitOfMetric(m)
	v, ok := s.Median[u]
	return v * scale, ok
}

// interval is the stat's summary in its family's metric: the median and
// the bounds of its confidence interval (infinite with too few samples).
func (s *stat) interval(m metric) (benchmath.Summary, bool) {
	u, scale := unitOfMetric(m)
	sum, ok := s.Summary[u]
	sum.Center, sum.Lo, sum.Hi = sum.Center*scale, sum.Lo*scale, sum.Hi*scale
	return sum, ok
}

// collect pools the results of every run by their benchproc key and
// summarizes each unit's samples with benchmath: the median and its
// confidence interval, under the assumption the files' Unit lines give
// (none: no distributional assumption, as benchstat).
func collect(runs []*run) []*stat {
	byKey := map[benchproc.Key]*stat{}
	var order []*stat
	isForeign := map[string]bool{}
	for _, f := range foreign {
		isForeign[f.Impl] = true
	}
	units := benchfmt.UnitMetadataMap{}
	samples := map[*stat]map[string][]float64{}
	for _, rn := range runs {
		for k, v := range rn.Units {
			if _, ok := units[k]; !ok {
				units[k] = v
			}
		}
		for _, r := range rn.Results {
			s := byKey[r.Key]
			if s == nil {
				s = &stat{key: key{r.Driver, r.Family, r.Impl, r.Param, r.Procs}, Foreign: isForeign[r.Impl]}
				byKey[r.Key] = s
				order = append(order, s)
				samples[s] = map[string][]float64{}
			}
			s.N++
			for u, v := range r.Values {
				samples[s][u] = append(samples[s][u], v)
			}
		}
	}
	for _, s := range order {
		s.Median = map[string]float64{}
		s.Summary = map[string]benchmath.Summary{}
		s.Sample = map[string]*benchmath.Sample{}
		for u, vs := range samples[s] {
			sample := benchmath.NewSample(vs, &thresholds)
			sum := units.GetAssumption(u).Summary(sample, confidence)
			s.Sample[u], s.Summary[u], s.Median[u] = sample, sum, sum.Center
		}
	}
	slices.SortStableFunc(order, compareStats)
	return order
}

// compareStats orders by driver, family (report order), size, GOMAXPROCS,
// then hipgo's impls before peers.
func compareStats(a, b *stat) int {
	return cmp.Or(
		cmp.Compare(a.Driver, b.Driver),
		cmp.Compare(familyRank(a.Family), familyRank(b.Family)),
		cmp.Compare(a.Family, b.Family),
		cmp.Compare(a.size(), b.size()),
		cmp.Compare(a.Param, b.Param),
		cmp.Compare(a.Procs, b.Procs),
		cmpBool(!a.isHipgo(), !b.isHipgo()),
		cmp.Compare(a.Impl, b.Impl),
	)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func familyRank(name string) int {
	for i, f := range families {
		if f.Name == name {
			return i
		}
	}
	return len(families)
}

// pair is a hipgo result and one of its peers.
type pair struct {
	Hipgo, Peer *stat
}

// compare tests whether the pair's times per operation differ, as
// benchstat compares an old and a new run: the p-value of the null
// hypothesis that both come from one distribution, and warnings when the
// samples are too few to show a difference.
func (p pair) compare() benchmath.Comparison {
	return compareSamples(p.Peer, p.Hipgo, "ns/op")
}

// compareSamples compares old's and new's samples of unit under the
// assumption for nothing (Mann-Whitney U), benchstat's default.
func compareSamples(old, new *stat, unit string) benchmath.Comparison {
	a, b := old.Sample[unit], new.Sample[unit]
	if a == nil || b == nil {
		return benchmath.Comparison{P: 1, Alpha: thresholds.CompareAlpha}
	}
	return benchmath.AssumeNothing.Compare(a, b)
}

// ratio compares the pair in the family's terms: for latency hipgo's time
// over the peer's (lower is better for hipgo), for bandwidth and throughput
// the peer's time over hipgo's, which is hipgo's rate over the peer's for
// the same work (higher is better). Time is used, not the reported rate, so
// peers that count bytes differently (gonum's float64 sum) compare by work.
func (p pair) ratio() float64 {
	h, q := p.Hipgo.Median["ns/op"], p.Peer.Median["ns/op"]
	if h == 0 || q == 0 {
		return 0
	}
	if familyOf(p.Hipgo.Family).Metric == latency {
		return h / q
	}
	return q / h
}

// pairs pairs every hipgo stat with its peers: same driver, family and
// parameter, same GOMAXPROCS unless the peer is foreign. A hipgo stat with
// no peer gets a pair with a nil Peer.
func pairs(stats []*stat) []pair {
	var out []pair
	for _, h := range stats {
		if !h.isHipgo() {
			continue
		}
		found := false
		for _, p := range stats {
			if p.isHipgo() || p.Driver != h.Driver || p.Family != h.Family || p.Param != h.Param {
				continue
			}
			if p.Procs != h.Procs && !p.Foreign {
				continue
			}
			out = append(out, pair{h, p})
			found = true
		}
		if !found {
			out = append(out, pair{Hipgo: h})
		}
	}
	return out
}

// find returns the stat with the given key, or nil.
func find(stats []*stat, k key) *stat {
	for _, s := range stats {
		if s.key == k {
			return s
		}
	}
	return nil
}
