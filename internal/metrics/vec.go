package metrics

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// cowMap maps a bounded key set (route patterns, catalogued method names)
// to values made once. The map is replaced, never changed, so looking up a
// known key is one map read: no lock, no allocation, nothing to contend on
// when every request counts itself.
type cowMap[K comparable, V any] struct {
	cur atomic.Pointer[map[K]*V]
	mu  sync.Mutex // serialises replacements
}

func (c *cowMap[K, V]) get(k K) *V {
	if cur := c.cur.Load(); cur != nil {
		if v, ok := (*cur)[k]; ok {
			return v
		}
	}
	return c.add(k, func() *V { return new(V) })
}

// add stores mk()'s value under k unless a value is there already (stored
// while this call waited for the lock), and returns the one stored.
func (c *cowMap[K, V]) add(k K, mk func() *V) *V {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.cur.Load()
	next := map[K]*V{}
	if cur != nil {
		if v, ok := (*cur)[k]; ok {
			return v
		}
		maps.Copy(next, *cur)
	}
	v := mk()
	next[k] = v
	c.cur.Store(&next)
	return v
}

// all is the current map; the caller must not change it.
func (c *cowMap[K, V]) all() map[K]*V {
	if cur := c.cur.Load(); cur != nil {
		return *cur
	}
	return nil
}

// counter only goes up by whole events, so an integer holds it exactly.
type counter struct{ n atomic.Uint64 }

func (c *counter) inc() { c.n.Add(1) }

// labelValues are a series' label values in the order of its vector's
// names; an array, not a slice, so it is a map key that costs no allocation.
// Two is the most any family here has.
type labelValues [2]string

// counterVec is a counter family with labels.
type counterVec struct {
	name, help string
	labels     []string // at most len(labelValues)
	series     cowMap[labelValues, counter]
}

func (v *counterVec) inc(values labelValues) { v.series.get(values).inc() }

func (v *counterVec) family() family {
	f := family{name: v.name, help: v.help, kind: counterKind}
	for values, c := range v.series.all() {
		s := series{points: []point{{value: float64(c.n.Load())}}}
		for i, name := range v.labels {
			s.labels = append(s.labels, label{name, values[i]})
		}
		f.series = append(f.series, s)
	}
	return f
}

// latencyBounds are the request latency histogram's bucket upper bounds,
// compared with the observed duration as integers.
var latencyBounds = [...]time.Duration{time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second}

// histogram counts each observation in its bucket only (the exposition
// adds them up) so an observation is two atomic adds. The sum is kept in
// nanoseconds: a time.Duration already is one, an integer add needs no
// compare-and-swap loop for a float and loses nothing to rounding, and
// int64 overflows only after 292 years of summed latency.
type histogram struct {
	buckets [len(latencyBounds) + 1]atomic.Uint64 // the last is above every bound (+Inf)
	sumNs   atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sumNs.Add(int64(d))
}

// points are the cumulative buckets, _sum and _count. The count is the
// buckets' total, so it equals the +Inf bucket even while observations
// land during the read; the sum may be an observation ahead or behind.
func (h *histogram) points() []point {
	ps := make([]point, 0, len(h.buckets)+2)
	var total uint64
	for i := range h.buckets {
		total += h.buckets[i].Load()
		le := "+Inf"
		if i < len(latencyBounds) {
			le = string(appendValue(nil, latencyBounds[i].Seconds()))
		}
		ps = append(ps, point{suffix: "_bucket", extra: label{"le", le}, value: float64(total)})
	}
	return append(ps, point{suffix: "_sum", value: float64(h.sumNs.Load()) / 1e9},
		point{suffix: "_count", value: float64(total)})
}
