package session

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A key change reaches the caches as a project-scope event of the
// signing_keys table; these tests send it the way the feed does.

func keyEvent(projectID string) changefeed.Event {
	return changefeed.Event{Table: signingKeysTable, Scope: changefeed.Project, Key: projectID}
}

// racingKeys is a Keys whose next load sees the database as it was before
// a key change, whose event is dispatched while the load is still under
// way; every later load sees the change.
type racingKeys struct {
	feed            *changefeed.Feed
	projectID       string
	before, after   []project.SigningKey
	mu              sync.Mutex
	raced, loadsRun int
}

func (k *racingKeys) SigningKeys(_ context.Context, projectID string) ([]project.SigningKey, error) {
	k.mu.Lock()
	k.loadsRun++
	race := k.raced == 0
	k.raced++
	k.mu.Unlock()
	if !race {
		return k.after, nil
	}
	k.feed.Invalidate(keyEvent(projectID))
	return k.before, nil
}

func testKey(t *testing.T, kid string) project.SigningKey {
	t.Helper()
	return project.SigningKey{KID: kid, Private: testkeys.Next()}
}

// racingService is a Service on db whose keys race a retirement of
// old (replaced by current) in their first load.
func racingService(t *testing.T, db *store.DB, old, current project.SigningKey) (*Service, *racingKeys) {
	t.Helper()
	feed := changefeed.New(db, nil)
	if err := feed.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys := &racingKeys{feed: feed, projectID: "project-test-1",
		before: []project.SigningKey{old}, after: []project.SigningKey{current}}
	return New(db, clock.Real{}, nil, keys, feed), keys
}

// Keys read before a retirement's event went by serve the request that
// read them (it raced the retirement) but are not kept: the next request
// reads the keys again.
func TestKeysLoadedAcrossARetirementAreNotKept(t *testing.T) {
	old, current := testKey(t, "old"), testKey(t, "current")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, keys := racingService(t, db, old, current)
		for i, want := range []string{"old", "current", "current"} {
			got, err := s.keys.get(ctx, keys.projectID)
			if err != nil {
				t.Fatal(err)
			}
			if got[0].KID != want {
				t.Fatalf("load %d: current key %q, want %q", i, got[0].KID, want)
			}
		}
		if keys.loadsRun != 2 {
			t.Errorf("%d loads, want 2: the keys read after the retirement are kept", keys.loadsRun)
		}
	})
}

// A JWT verified with keys read before a retirement's event went by is
// not remembered as verified: the next presentation is verified with the
// keys as they are, which refuse it.
func TestVerificationAcrossARetirementIsNotRemembered(t *testing.T) {
	old, current := testKey(t, "old"), testKey(t, "current")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, keys := racingService(t, db, old, current)
		now := time.Now()
		ms := &MemberSession{MemberSessionID: "member-session-test-1", MemberID: "member-test-1",
			OrganizationID: "organization-test-1", StartedAt: now, LastAccessedAt: now, ExpiresAt: now.Add(time.Hour)}
		token, err := signWith(old, keys.projectID, ms, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.verify(ctx, keys.projectID, token, now); err != nil {
			t.Fatalf("verification racing the retirement: %v", err)
		}
		if id, err := s.verify(ctx, keys.projectID, token, now); err == nil {
			t.Fatalf("a JWT of the retired key verified again (session %s)", id)
		}
	})
}

// A JWT signed with a key a retirement's event has since dropped is not
// cached, whether signed for a check or a login (generation).
func TestJWTSignedAcrossAKeyChangeIsNotCached(t *testing.T) {
	t.Parallel()
	c := &jwtCache{items: map[string]cachedJWT{}}
	now := time.Now()
	ms := &MemberSession{MemberSessionID: "member-session-test-1", ExpiresAt: now.Add(time.Hour)}
	_, gen, ok := c.get(ms, now)
	if ok {
		t.Fatal("hit in an empty cache")
	}
	login := c.generation()
	c.invalidate(keyEvent("project-test-1"))
	c.put(gen, "project-test-1", ms, "signed.with.old", now)
	c.put(login, "project-test-1", ms, "signed.with.old", now)
	if tok, _, ok := c.get(ms, now); ok {
		t.Fatalf("cached %q, signed before the key change", tok)
	}
}

// A project's key change drops that project's cached JWTs, and only
// those; other project-scope changes (settings, origins, passwords) keep
// them, since a new JWT would be signed with the same key.
func TestKeyChangeDropsThatProjectsCachedJWTs(t *testing.T) {
	t.Parallel()
	c := &jwtCache{items: map[string]cachedJWT{}}
	now := time.Now()
	mine := &MemberSession{MemberSessionID: "member-session-test-mine", ExpiresAt: now.Add(time.Hour)}
	theirs := &MemberSession{MemberSessionID: "member-session-test-theirs", ExpiresAt: now.Add(time.Hour)}
	c.put(c.generation(), "project-test-mine", mine, "mine.jwt.x", now)
	c.put(c.generation(), "project-test-theirs", theirs, "theirs.jwt.x", now)
	for _, table := range []string{"projects", "project_origins", "project_secrets", "member_passwords"} {
		c.invalidate(changefeed.Event{Table: table, Scope: changefeed.Project, Key: "project-test-mine"})
	}
	if _, _, ok := c.get(mine, now); !ok {
		t.Fatal("a project change that is not a key change dropped the project's JWTs")
	}
	c.invalidate(keyEvent("project-test-mine"))
	if tok, _, ok := c.get(mine, now); ok {
		t.Fatalf("after the key change, the JWT signed before it is still cached: %q", tok)
	}
	if _, _, ok := c.get(theirs, now); !ok {
		t.Fatal("another project's key change dropped this project's JWTs")
	}
}

// quietKeys is a Keys whose key set changes with no event: a retirement
// the change feed never reported to this process.
type quietKeys struct {
	mu   sync.Mutex
	keys []project.SigningKey
}

func (k *quietKeys) SigningKeys(context.Context, string) ([]project.SigningKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys, nil
}

func (k *quietKeys) set(keys ...project.SigningKey) {
	k.mu.Lock()
	k.keys = keys
	k.mu.Unlock()
}

// A remembered verification stands for at most cacheTTL, as every cached
// entry does: a key retired without an event reaching this process stops
// verifying its JWTs once that minute has passed, though the session the
// JWT names lives on.
func TestVerifiedJWTIsCheckedAgainAfterAMinute(t *testing.T) {
	old, current := testKey(t, "old"), testKey(t, "current")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		feed := changefeed.New(db, nil)
		if err := feed.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(time.Now())
		keys := &quietKeys{keys: []project.SigningKey{old}}
		s := New(db, clk, nil, keys, feed)
		const projectID = "project-test-1"
		now := clk.Now()
		ms := &MemberSession{MemberSessionID: "member-session-test-1", MemberID: "member-test-1",
			OrganizationID: "organization-test-1", StartedAt: now, LastAccessedAt: now, ExpiresAt: now.Add(time.Hour)}
		token, err := signWith(old, projectID, ms, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.verify(ctx, projectID, token, clk.Now()); err != nil {
			t.Fatalf("first verification: %v", err)
		}
		keys.set(current)
		// The key cache's own minute (wall time) is over too: its next
		// read finds the retirement.
		s.keys.mu.Lock()
		s.keys.items = map[string]keyEntry{}
		s.keys.mu.Unlock()

		clk.Advance(cacheTTL - time.Second)
		if _, err := s.verify(ctx, projectID, token, clk.Now()); err != nil {
			t.Fatalf("within the minute the remembered verification stands: %v", err)
		}
		clk.Advance(time.Second)
		if id, err := s.verify(ctx, projectID, token, clk.Now()); !errors.Is(err, errBadJWT) {
			t.Fatalf("a minute later the retired key's JWT still verified (session %q, %v)", id, err)
		}
	})
}
