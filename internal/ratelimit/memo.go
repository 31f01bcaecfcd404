package ratelimit

import (
	"sync"
	"time"
)

// countMemo remembers, for about a second, the hit counts Exceeded read
// and Allow wrote. GuardFailures runs on every session check and every
// backend request; without it each one would read rate_limits even though
// nearly every answer is "no failures". Counts this process records are
// seen at once (Allow stores the count it wrote); another replica's
// failures are seen within memoFor. The limits guarded this way are
// generous per-address budgets of failures, so a second's lag across
// replicas changes nothing an attacker could use.
type countMemo struct {
	mu    sync.Mutex
	items map[string]memoEntry // bucket
}

type memoEntry struct {
	window int64 // window start, Unix ms
	hits   int
	at     time.Time // wall time of the read or write
}

// memoFor is how long a remembered count is trusted. It is wall time: it
// paces real database reads, not a domain rule.
const memoFor = time.Second

const memoLimit = 50000

func (m *countMemo) get(bucket string, window int64) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[bucket]
	if !ok || e.window != window || time.Since(e.at) >= memoFor {
		return 0, false
	}
	return e.hits, true
}

func (m *countMemo) put(bucket string, window int64, hits int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items == nil || len(m.items) >= memoLimit {
		m.items = map[string]memoEntry{}
	}
	if e, ok := m.items[bucket]; ok && e.window == window && e.hits > hits && time.Since(e.at) < memoFor {
		hits = e.hits // never lower a fresh count: a concurrent Allow wrote more
	}
	m.items[bucket] = memoEntry{window: window, hits: hits, at: time.Now()}
}
