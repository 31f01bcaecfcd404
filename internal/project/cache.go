package project

import (
	"context"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/ids"
)

// memo is one of the resolver's caches: answers by key, dropped whole on
// any change to a project's credentials, origins or settings (they change
// rarely, so precision would buy nothing). Like the session cache, a load
// that raced an invalidation is not stored, and an entry is used for at
// most memoTTL.
type memo[V any] struct {
	mu    sync.Mutex
	gen   uint64
	items map[string]memoEntry[V]
}

type memoEntry[V any] struct {
	v      V
	loaded time.Time
}

const (
	// memoLimit bounds each memo; reaching it empties the memo.
	memoLimit = 10000
	// memoTTL bounds an entry's age whatever the change feed says, as
	// the session cache's cacheTTL does: the backstop for a change the
	// feed could not see (on PostgreSQL, a transaction that committed
	// more than changefeed.GapWait after it wrote). Checking it costs a
	// clock read per lookup; reloading once a minute costs nothing
	// measurable. Wall time, like the feed's own timing: the app's clock
	// judges domain expiry and is fake in tests.
	memoTTL = time.Minute
)

// get returns the entry for key unless it is older than memoTTL, and the
// generation a load must present to put.
func (m *memo[V]) get(key string) (V, bool, uint64) {
	m.mu.Lock()
	e, ok := m.items[key]
	gen := m.gen
	m.mu.Unlock()
	if !ok || time.Since(e.loaded) >= memoTTL {
		var zero V
		return zero, false, gen
	}
	return e.v, true, gen
}

func (m *memo[V]) put(gen uint64, key string, v V) {
	e := memoEntry[V]{v: v, loaded: time.Now()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen != m.gen {
		return
	}
	if m.items == nil || len(m.items) >= memoLimit {
		m.items = map[string]memoEntry[V]{}
	}
	m.items[key] = e
}

func (m *memo[V]) clear() {
	m.mu.Lock()
	m.gen++
	m.items = nil
	m.mu.Unlock()
}

// resolverCache holds the lookups every API request makes before its
// handler runs: the project behind a public token, a project's secret
// hashes, and which origins are authorized.
type resolverCache struct {
	feed    *changefeed.Feed
	tokens  memo[*Project]
	secrets memo[secretEntry]
	origins memo[bool] // projectID + " " + origin; "" + " " + origin for any project
}

// secretEntry is a project's secret hashes; p is nil for an unknown project
// id, which is remembered too so that its refusal costs what a wrong
// secret of a real project costs.
type secretEntry struct {
	p      *Project
	hashes []string
}

func (c *resolverCache) invalidate(ev changefeed.Event) {
	if ev.All() || ev.Scope == changefeed.Project {
		c.tokens.clear()
		c.secrets.clear()
		c.origins.clear()
	}
}

// usable reports whether cached answers may be used now; an error when
// the database does not answer (changefeed.Feed.Usable).
func (c *resolverCache) usable(ctx context.Context) (bool, error) { return c.feed.Usable(ctx) }

func (e secretEntry) check(secret string) bool {
	want := ids.Hash(secret)
	ok := false
	for _, h := range e.hashes {
		if ids.Equal(h, want) {
			ok = true
		}
	}
	return ok
}
