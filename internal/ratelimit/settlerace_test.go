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

// These cases settle attempts that were reserved before the count moved
// under them (concurrent checks of one key, a window rolling over while a
// check runs). Each one would hand a guesser more attempts than the rule
// allows if settling touched the wrong count or lock.

// A lock holds even when its count later drops below the limit: attempts
// reserved before the lock and given back after it (successes under
// Release, abandoned checks) lower the count, but not the lock.
func TestLockHoldsWhenLaterSettlingsLowerTheCount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "race", Limit: 3, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Release}
		key := ratelimit.For(rule, "victim@example.com")
		var held []*ratelimit.Attempt
		for i := 0; i < 3; i++ {
			a, err := l.Reserve(ctx, key)
			if err != nil {
				t.Fatalf("reserve %d: %v", i, err)
			}
			held = append(held, a)
		}
		if err := held[2].Failed(ctx); err != nil { // count 3: locked
			t.Fatal(err)
		}
		if err := held[0].Succeeded(ctx); err != nil { // count 2
			t.Fatal(err)
		}
		if err := held[1].Abandon(ctx); err != nil { // count 1
			t.Fatal(err)
		}
		if _, err := l.Reserve(ctx, key); !apierr.Is(err, apierr.UserLockLimitReached) {
			t.Fatalf("locked key with a count under its limit: %v, want user_lock_limit_reached", err)
		}
	})
}

// Reset clears a key's failures but not a lock that a concurrent failure
// started while the successful check ran.
func TestResetLeavesARunningLock(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "reset", Limit: 2, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		key := ratelimit.For(rule, "victim@example.com")
		right, err := l.Reserve(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		guess, err := l.Reserve(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := guess.Failed(ctx); err != nil { // count 2: locked
			t.Fatal(err)
		}
		if err := right.Succeeded(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Reserve(ctx, key); !apierr.Is(err, apierr.UserLockLimitReached) {
			t.Fatalf("after a success settled during a lock: %v, want the lock to hold", err)
		}
	})
}

// An attempt reserved in one window and given back in the next gives its
// hit back to the window it was counted in, not to the new window's
// failures: otherwise checks left open across a window's end would each
// erase one failure of the next window.
func TestReleaseAfterTheWindowRolledOverLeavesTheNewWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		rule := ratelimit.Rule{Name: "roll", Limit: 2, Window: time.Minute, OnSuccess: ratelimit.Release}
		key := ratelimit.For(rule, "k")
		var open []*ratelimit.Attempt
		for i := 0; i < 2; i++ {
			a, err := l.Reserve(ctx, key)
			if err != nil {
				t.Fatalf("reserve %d: %v", i, err)
			}
			open = append(open, a)
		}
		clk.Advance(2 * time.Minute) // the window is over
		for i := 0; i < 2; i++ {
			if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
				t.Fatalf("failure %d in the new window: %v", i, err)
			}
		}
		for _, a := range open {
			if err := a.Abandon(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.Reserve(ctx, key); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("third attempt in the new window: %v, want too_many_requests", err)
		}
	})
}
