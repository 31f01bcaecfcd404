package project

import (
	"context"
	"sync"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/ids"
)

// memo is one of the resolver's caches: answers by key, dropped whole on
// any change to a project's credentials, origins or settings (they change
// rarely, so precision would buy nothing). Like the session cache, a load
// that raced an invalidation is not stored.
type memo[V any] struct {
	mu    sync.Mutex
	gen   uint64
	items map[string]V
}

// memoLimit bounds each memo; reaching it empties the memo.
const memoLimit = 10000

func (m *memo[V]) get(key string) (V, bool, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.items[key]
	return v, ok, m.gen
}

func (m *memo[V]) put(gen uint64, key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen != m.gen {
		return
	}
	if m.items == nil || len(m.items) >= memoLimit {
		m.items = map[string]V{}
	}
	m.items[key] = v
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

// usable reports whether cached answers may be used now.
func (c *resolverCache) usable(ctx context.Context) bool { return c.feed.Fresh(ctx) == nil }

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
