package main

import (
	"cmp"
	"slices"
	"strings"
)

// key identifies one benchmark across runs: its samples are pooled.
type key struct {
	Driver, Family, Impl, Param string
	Procs                       int
}

// stat is the medians of one benchmark's samples.
type stat struct {
	key
	Foreign bool               // from a program of the foreign table: pairs at any GOMAXPROCS
	N       int                // samples
	Median  map[string]float64 // unit -> median: "ns/op", "MB/s", "GFLOP/s", "B/op", "allocs/op"
	samples map[string][]float64
}

func (s *stat) isHipgo() bool { return strings.HasPrefix(s.Impl, "hipgo") }

// size is the parameter's numeric value (0 when it has none).
func (s *stat) size() float64 {
	v, _ := paramValue(s.Param)
	return v
}

// value is the stat in its family's metric: µs for latency, GB/s for
// bandwidth, GFLOP/s for throughput. ok is false if the unit is missing.
func (s *stat) value(m metric) (float64, bool) {
	switch m {
	case bandwidth:
		v, ok := s.Median["MB/s"]
		return v / 1e3, ok
	case throughput:
		v, ok := s.Median["GFLOP/s"]
		return v, ok
	}
	v, ok := s.Median["ns/op"]
	return v / 1e3, ok
}

// collect pools the results of every run by key and takes medians.
func collect(runs []*run) []*stat {
	byKey := map[key]*stat{}
	var order []*stat
	isForeign := map[string]bool{}
	for _, f := range foreign {
		isForeign[f.Impl] = true
	}
	for _, rn := range runs {
		for _, r := range rn.Results {
			k := key{r.Driver, r.Family, r.Impl, r.Param, r.Procs}
			s := byKey[k]
			if s == nil {
				s = &stat{key: k, Foreign: isForeign[r.Impl], samples: map[string][]float64{}}
				byKey[k] = s
				order = append(order, s)
			}
			s.N++
			for u, v := range r.Values {
				s.samples[u] = append(s.samples[u], v)
			}
		}
	}
	for _, s := range order {
		s.Median = map[string]float64{}
		for u, vs := range s.samples {
			s.Median[u] = median(vs)
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

// median of vs (not empty); vs is sorted in place.
func median(vs []float64) float64 {
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// pair is a hipgo result and one of its peers.
type pair struct {
	Hipgo, Peer *stat
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
