package session

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// The key cache holds a rotated key from its publication, and the signer
// is picked from it at each use: the cached keys switch to the new key at
// its activation, with no change event (none is sent then) and while the
// cached entry is still fresh, and the old key's JWTs still verify.
func TestCachedKeysSwitchAtTheActivation(t *testing.T) {
	old, rotated := testKey(t, "old"), testKey(t, "rotated")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		feed := changefeed.New(db, nil)
		if err := feed.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(time.Now())
		rotated := rotated
		rotated.ActivatesAt = clk.Now().Add(project.SigningKeyLead)
		keys := &quietKeys{keys: []project.SigningKey{rotated, old}}
		s := New(db, clk, nil, keys, feed)
		const projectID = "project-test-1"
		signed := func() (token, kid string) {
			t.Helper()
			now := clk.Now()
			ms := &MemberSession{MemberSessionID: "member-session-test-1", MemberID: "member-test-1",
				OrganizationID: "organization-test-1", StartedAt: now, LastAccessedAt: now, ExpiresAt: now.Add(time.Hour)}
			token, err := s.sign(ctx, projectID, ms, now)
			if err != nil {
				t.Fatal(err)
			}
			k, err := s.signingKey(ctx, projectID, now)
			if err != nil {
				t.Fatal(err)
			}
			return token, k.KID
		}
		before, kid := signed()
		if kid != "old" {
			t.Fatalf("before the activation %s signs", kid)
		}
		// From here the source has only the old key: the switch below
		// can come only from the list the cache already holds.
		keys.set(old)
		clk.Advance(project.SigningKeyLead - time.Millisecond)
		if _, kid := signed(); kid != "old" {
			t.Fatalf("a millisecond before the activation %s signs", kid)
		}
		clk.Advance(time.Millisecond)
		after, kid := signed()
		if kid != "rotated" {
			t.Fatalf("at the activation %s signs (the cached keys did not switch)", kid)
		}
		for _, token := range []string{before, after} {
			if _, err := s.verify(ctx, projectID, token, clk.Now()); err != nil {
				t.Fatalf("a JWT of the cached keys: %v", err)
			}
		}
	})
}
