package project

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// age makes every entry of m look loaded d earlier.
func age[V any](m *memo[V], d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, e := range m.items {
		e.loaded = e.loaded.Add(-d)
		m.items[k] = e
	}
}

// A change the change feed never reports (here no triggers are installed,
// as for a transaction that commits after the feed gave up on its ids)
// reaches the resolver's answers within a minute all the same.
func TestResolverAnswersExpireAfterAMinute(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		s := NewStore(db, clk, secretbox.NewRandom())
		s.UseKeySource(testkeys.Source)
		p, err := s.Create(ctx, CreateParams{Name: "Backstop"})
		if err != nil {
			t.Fatal(err)
		}
		r := NewResolver(s, ratelimit.New(db, clk), changefeed.New(db, slog.New(slog.NewTextHandler(io.Discard, nil))))
		id := p.Project.ID
		const origin = "https://app.example"
		check := func(when string, wantOrigin, wantOld, wantName bool) {
			t.Helper()
			if ok, err := r.OriginAllowed(ctx, id, origin); err != nil || ok != wantOrigin {
				t.Fatalf("%s: origin allowed = %v (%v), want %v", when, ok, err, wantOrigin)
			}
			if _, err := r.CheckSecret(ctx, id, p.Secret); (err == nil) != wantOld {
				t.Fatalf("%s: old secret accepted = %v (%v), want %v", when, err == nil, err, wantOld)
			}
			got, err := r.ByPublicToken(ctx, p.PublicToken)
			if err != nil || (got.Name == "Renamed") != wantName {
				t.Fatalf("%s: public token gives %+v (%v), want renamed = %v", when, got, err, wantName)
			}
		}
		check("before", false, true, false)

		if err := s.AddOrigin(ctx, id, origin); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.RotateSecret(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		name := "Renamed"
		if _, err := s.Update(ctx, id, Update{Name: &name}); err != nil {
			t.Fatal(err)
		}
		check("within the minute", false, true, false) // the unseen change stands cached

		age(&r.cache.tokens, memoTTL)
		age(&r.cache.secrets, memoTTL)
		age(&r.cache.origins, memoTTL)
		check("a minute later", true, false, true)
	})
}
