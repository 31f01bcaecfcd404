package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

func TestLimitPerKeyAndWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		rule := ratelimit.Rule{Name: "t", Limit: 3, Window: time.Minute}
		for i := 0; i < 3; i++ {
			if err := l.Allow(ctx, rule, "a@example.com"); err != nil {
				t.Fatalf("hit %d refused: %v", i, err)
			}
		}
		err := l.Allow(ctx, rule, "a@example.com")
		if !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("4th hit: got %v, want too_many_requests", err)
		}
		if err := l.Allow(ctx, rule, "b@example.com"); err != nil {
			t.Fatalf("other key refused: %v", err)
		}
		clk.Advance(time.Minute)
		if err := l.Allow(ctx, rule, "a@example.com"); err != nil {
			t.Fatalf("next window refused: %v", err)
		}
		if err := l.Sweep(ctx, 0); err != nil {
			t.Fatal(err)
		}
	})
}

func TestAllowInTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "tx", Limit: 2, Window: time.Minute}
		// Counted inside a transaction (on SQLite a write outside it would
		// block on the one writer connection), and the count is shared
		// with Allow outside.
		err := db.Tx(ctx, func(q store.Querier) error {
			if err := l.AllowIn(ctx, q, rule, "k"); err != nil {
				return err
			}
			return l.AllowIn(ctx, q, rule, "k")
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Allow(ctx, rule, "k"); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("3rd hit: %v", err)
		}
		// A rolled-back transaction takes its hits with it.
		_ = db.Tx(ctx, func(q store.Querier) error {
			_ = l.AllowIn(ctx, q, rule, "other")
			_ = l.AllowIn(ctx, q, rule, "other")
			return apierr.New(apierr.InternalServerError)
		})
		if err := l.Allow(ctx, rule, "other"); err != nil {
			t.Fatalf("hits of a rolled-back transaction counted: %v", err)
		}
	})
}
