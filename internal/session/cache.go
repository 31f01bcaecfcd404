package session

import (
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/organization"
)

// hotCache holds what a session check answers with (the session, its
// member and its organization), so a check of a known session runs no
// SQL. Correctness rests on the change feed: every row these entries were
// built from is a watched table, the feed drops the entries when any
// process changes them, and Authenticate calls Feed.Fresh first, so this
// process's own writes are seen by its next check and other processes'
// within a second.
//
// Entries are immutable once stored; answers get copies of the structs
// (nested maps and slices are shared and never modified).
type hotCache struct {
	mu sync.RWMutex
	// gen moves on every invalidation. A loader records it before reading
	// the database and stores its result only if it has not moved, so a
	// row read just before a change cannot be cached after the change's
	// invalidation went by.
	gen     uint64
	byToken map[string]*cachedSession // token hash
	byID    map[string]*cachedSession // member_session_id
	members map[string]*cachedMember  // member_id
	orgs    map[string]*cachedOrg     // organization_id
	// orgMembers indexes members by organization_id, so that an
	// organization's change drops its members without walking every
	// cached member under the write lock (a catch-up of thousands of
	// organization events over a cache of 100,000 members held every
	// reader for seconds). It may name members already gone from members.
	orgMembers map[string]map[string]struct{}
	maxItems   int
}

type cachedSession struct {
	row       row
	tokenHash string
	loaded    time.Time
}

type cachedMember struct {
	// m.IsLocked and the lock times are as of loaded, for up to
	// cacheTTL: no watched table records a lock (see
	// organization.memberSelect).
	m      *organization.Member
	loaded time.Time
}

type cachedOrg struct {
	o      *organization.Organization
	loaded time.Time
}

// cacheTTL bounds any entry's age whatever the feed says: a backstop for
// a change the feed could not see (on PostgreSQL, a transaction that
// committed more than changefeed.GapWait after it wrote). Reloading a hot
// entry once a minute costs nothing measurable.
const cacheTTL = time.Minute

func newHotCache(maxItems int) *hotCache {
	c := &hotCache{maxItems: maxItems}
	c.reset()
	return c
}

func (c *hotCache) reset() {
	c.byToken = map[string]*cachedSession{}
	c.byID = map[string]*cachedSession{}
	c.members = map[string]*cachedMember{}
	c.orgs = map[string]*cachedOrg{}
	c.orgMembers = map[string]map[string]struct{}{}
}

// invalidate applies one change-feed event.
func (c *hotCache) invalidate(ev changefeed.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	switch {
	case ev.All():
		c.reset()
	case ev.Scope == changefeed.Session:
		if e, ok := c.byID[ev.Key]; ok {
			delete(c.byToken, e.tokenHash)
			delete(c.byID, ev.Key)
		}
	case ev.Scope == changefeed.Member:
		if e, ok := c.members[ev.Key]; ok {
			delete(c.members, ev.Key)
			delete(c.orgMembers[e.m.OrganizationID], ev.Key)
		}
	case ev.Scope == changefeed.Organization:
		delete(c.orgs, ev.Key)
		// A member's roles also come from organization-wide sources (SSO
		// connection assignments are watched with this scope).
		for id := range c.orgMembers[ev.Key] {
			delete(c.members, id)
		}
		delete(c.orgMembers, ev.Key)
	case ev.Scope == changefeed.Project:
		// Project-wide inputs (a role policy, password records keyed by
		// address) can change any member's answer; they change rarely.
		c.members = map[string]*cachedMember{}
		c.orgs = map[string]*cachedOrg{}
		c.orgMembers = map[string]map[string]struct{}{}
	}
}

func (c *hotCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

func fresh(loaded time.Time) bool { return time.Since(loaded) < cacheTTL }

// The getters return the entry too: entries are immutable, so an entry
// seen again is proof that nothing it holds has changed (see answers).

func (c *hotCache) session(tokenHash, id string) (row, *cachedSession) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var e *cachedSession
	if tokenHash != "" {
		e = c.byToken[tokenHash]
	} else {
		e = c.byID[id]
	}
	if e == nil || !fresh(e.loaded) {
		return row{}, nil
	}
	return e.row, e
}

func (c *hotCache) member(id string) (*organization.Member, *cachedMember) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.members[id]
	if e == nil || !fresh(e.loaded) {
		return nil, nil
	}
	m := *e.m
	return &m, e
}

func (c *hotCache) org(id string) (*organization.Organization, *cachedOrg) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.orgs[id]
	if e == nil || !fresh(e.loaded) {
		return nil, nil
	}
	o := *e.o
	return &o, e
}

// full makes room: when a map reaches maxItems it is emptied (the cache is
// only an accelerator; a full reload of hot entries is cheap).
func full[K comparable, V any](m map[K]V, limit int) bool { return len(m) >= limit }

func (c *hotCache) putSession(gen uint64, r row, tokenHash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if full(c.byID, c.maxItems) {
		c.byID, c.byToken = map[string]*cachedSession{}, map[string]*cachedSession{}
	}
	if old := c.byID[r.ms.MemberSessionID]; old != nil && old.tokenHash != tokenHash && tokenHash != "" {
		delete(c.byToken, old.tokenHash)
	}
	if tokenHash == "" {
		if old := c.byID[r.ms.MemberSessionID]; old != nil {
			tokenHash = old.tokenHash
		}
	}
	e := &cachedSession{row: r, tokenHash: tokenHash, loaded: time.Now()}
	c.byID[r.ms.MemberSessionID] = e
	if tokenHash != "" {
		c.byToken[tokenHash] = e
	}
}

// touched records a newer last_accessed_at in the cached session, so the
// answers of this process show it before the background write lands.
func (c *hotCache) touched(id string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byID[id]; e != nil && at.After(e.row.ms.LastAccessedAt) {
		cp := *e
		cp.row.ms.LastAccessedAt = at
		c.byID[id] = &cp
		if cp.tokenHash != "" {
			c.byToken[cp.tokenHash] = &cp
		}
	}
}

func (c *hotCache) putMember(gen uint64, m *organization.Member) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if full(c.members, c.maxItems) {
		c.members = map[string]*cachedMember{}
		c.orgMembers = map[string]map[string]struct{}{}
	}
	cp := *m
	c.members[m.MemberID] = &cachedMember{m: &cp, loaded: time.Now()}
	ids := c.orgMembers[m.OrganizationID]
	if ids == nil {
		ids = map[string]struct{}{}
		c.orgMembers[m.OrganizationID] = ids
	}
	ids[m.MemberID] = struct{}{}
}

func (c *hotCache) putOrg(gen uint64, o *organization.Organization) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if full(c.orgs, c.maxItems) {
		c.orgs = map[string]*cachedOrg{}
	}
	cp := *o
	c.orgs[o.OrganizationID] = &cachedOrg{o: &cp, loaded: time.Now()}
}
