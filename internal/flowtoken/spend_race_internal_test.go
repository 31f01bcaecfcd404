package flowtoken

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// writeAfter runs before once, just before the first write it is asked
// for: what another request does between a redemption's read and its
// spend.
type writeAfter struct {
	store.Querier
	before func()
	done   bool
}

func (w *writeAfter) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if !w.done {
		w.done = true
		w.before()
	}
	return w.Querier.ExecContext(ctx, query, args...)
}

// Redeem reads a ticket unlocked and spends it after: a redemption that
// lands in between must leave the first one with nothing (ErrSpent), so
// the spend itself has to be conditional on the ticket being unused.
// Concurrent redemptions rarely meet in that gap (the limiter's
// reservation orders them), so the gap is forced here.
func TestSpendLosesToARedemptionBetweenItsReadAndItsWrite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		projects := project.NewStore(db, clk, secretbox.NewRandom())
		projects.UseKeySource(testkeys.Source)
		p, err := projects.Create(ctx, project.CreateParams{Name: "P", Env: ids.Test})
		if err != nil {
			t.Fatal(err)
		}
		s := New(db, clk, ratelimit.New(db, clk))
		tok, err := s.Issue(ctx, Issue{Kind: "k", ProjectID: p.Project.ID, TTL: time.Minute, Data: 1})
		if err != nil {
			t.Fatal(err)
		}
		w := &writeAfter{Querier: db, before: func() {
			if _, err := s.Redeem(ctx, Redeem{Kind: "k", Token: tok, LimitKey: "other"}); err != nil {
				t.Errorf("the redemption in between: %v", err)
			}
		}}
		if _, err := s.redeem(ctx, db.Read(), w, Redeem{Kind: "k", Token: tok}); !errors.Is(err, ErrSpent) {
			t.Fatalf("a ticket redeemed between the read and the spend: %v, want ErrSpent (redeemed twice)", err)
		}
	})
}
