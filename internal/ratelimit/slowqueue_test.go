package ratelimit_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Concurrent attempts past a SlowOnly rule's limit wait in one line per
// key: N of them at the same instant wait one, two, ... N steps, so they
// take N steps in all, where side by side they took one (a guesser with K
// client addresses got K times the guesses). An attempt that would wait
// longer than SlowQueue is refused, counting nothing, with the time until
// the line has room; once the turns have passed, a lone attempt waits
// just its step again. The clock stands still: every attempt arrives at
// the same instant, and the sleep hook only records the waits.
func TestSlowdownQueuesConcurrentAttempts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		var mu sync.Mutex
		var slept []time.Duration
		l.SetSleep(func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			slept = append(slept, d)
			return nil
		})
		slow := ratelimit.Rule{Name: "slow", Limit: 1, Window: time.Hour, SlowOnly: true,
			SlowStep: time.Second, SlowMax: time.Second, SlowQueue: 5 * time.Second}
		key := ratelimit.For(slow, "victim@example.com")
		if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
			t.Fatalf("first guess: %v", err)
		}

		const n = 7
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = l.Guard(ctx, wrong, isWrong, key)
			}()
		}
		wg.Wait()
		slices.Sort(slept)
		if want := []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}; !slices.Equal(slept, want) {
			t.Fatalf("%d concurrent guesses waited %v, want %v: one step after another, up to SlowQueue", n, slept, want)
		}
		var wrongs, refused int
		for _, err := range errs {
			switch {
			case apierr.Is(err, apierr.UnauthorizedCredentials):
				wrongs++
			case apierr.Is(err, apierr.TooManyRequests):
				refused++
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Details["retry_after_seconds"] != 1 {
					t.Errorf("refusal %v, want retry_after_seconds 1", err)
				}
			default:
				t.Fatalf("concurrent guess: %v", err)
			}
		}
		if wrongs != 5 || refused != 2 {
			t.Fatalf("%d checked and %d refused, want 5 and 2", wrongs, refused)
		}

		// The line's last turn ends 5 s from now: an attempt arriving then
		// waits its own step only (the refused ones took no turn).
		slept = nil
		clk.Advance(5 * time.Second)
		if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
			t.Fatalf("guess after the line: %v", err)
		}
		if !slices.Equal(slept, []time.Duration{time.Second}) {
			t.Fatalf("a lone guess after the line waited %v, want 1s", slept)
		}
	})
}

// A guesser who hangs up while waiting in line keeps the turn taken, so
// the attempt is settled as a failure: hanging up must not make holding
// turns (and keeping the real user waiting) free of guesses. Here two
// hang-ups reach a lock rule's limit of two.
func TestLeavingTheLineCountsAsAFailure(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		l.SetSleep(func(context.Context, time.Duration) error { return context.Canceled })
		slow := ratelimit.Rule{Name: "slow", Limit: 0, Window: time.Hour, SlowOnly: true, SlowStep: time.Second, SlowMax: time.Second}
		lock := ratelimit.Rule{Name: "pair", Limit: 2, Window: time.Hour, Lock: time.Hour, Refuse: apierr.UserLockLimitReached}
		keys := []ratelimit.Key{ratelimit.For(slow, "victim@example.com"), ratelimit.For(lock, "victim@example.com|203.0.113.9")}
		checked := 0
		check := func() error { checked++; return nil }
		for i := range 2 {
			if err := l.Guard(ctx, check, isWrong, keys...); err == nil {
				t.Fatalf("hang-up %d: no error", i)
			}
		}
		l.SetSleep(func(context.Context, time.Duration) error { return nil })
		if err := l.Guard(ctx, check, isWrong, keys...); !apierr.Is(err, apierr.UserLockLimitReached) {
			t.Fatalf("after two hang-ups in line: %v, want the pair locked", err)
		}
		if checked != 0 {
			t.Fatalf("the secret was checked %d times", checked)
		}
	})
}
