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
		// Exceeded only reads: it never counts a hit itself.
		fail := ratelimit.Rule{Name: "f", Limit: 2, Window: time.Minute}
		for i := 0; i < 5; i++ {
			if err := l.Exceeded(ctx, fail, "ip"); err != nil {
				t.Fatalf("read-only check %d refused: %v", i, err)
			}
		}
		_ = l.Allow(ctx, fail, "ip")
		_ = l.Allow(ctx, fail, "ip")
		if err := l.Exceeded(ctx, fail, "ip"); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("after the limit: %v", err)
		}
		if err := l.Sweep(ctx, 0); err != nil {
			t.Fatal(err)
		}
	})
}
