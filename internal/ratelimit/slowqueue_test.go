package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
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

// waits records the waits a limiter's sleep hook is asked for, without
// waiting; safe for concurrent attempts.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

// take returns the waits recorded since the last take, shortest first.
func (w *waits) take() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.d
	w.d = nil
	slices.Sort(d)
	return d
}

// oneAfterAnother is what seven attempts at once wait in a line of 1 s
// steps that holds 5 s: the two past it are refused and wait nothing.
var oneAfterAnother = []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}

// guessAtOnce sends n wrong guesses at the same instant, guess i at
// keys(i), and returns their outcomes.
func guessAtOnce(ctx context.Context, l *ratelimit.Limiter, n int, keys func(i int) []ratelimit.Key) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = l.Guard(ctx, wrong, isWrong, keys(i)...) })
	}
	wg.Wait()
	return errs
}

// tally counts the guesses checked (and found wrong) and returns the
// refused ones; any other outcome fails the test.
func tally(t *testing.T, errs []error) (wrongs int, refusals []error) {
	t.Helper()
	for _, err := range errs {
		switch {
		case apierr.Is(err, apierr.UnauthorizedCredentials):
			wrongs++
		case apierr.Is(err, apierr.TooManyRequests):
			refusals = append(refusals, err)
		default:
			t.Fatalf("concurrent guess: %v", err)
		}
	}
	return wrongs, refusals
}

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
		var w waits
		l.SetSleep(w.sleep)
		slow := ratelimit.Rule{Name: "slow", Limit: 1, Window: time.Hour, SlowOnly: true,
			SlowStep: time.Second, SlowMax: time.Second, SlowQueue: 5 * time.Second}
		key := ratelimit.For(slow, "victim@example.com")
		if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
			t.Fatalf("first guess: %v", err)
		}

		const n = 7
		errs := guessAtOnce(ctx, l, n, func(int) []ratelimit.Key { return []ratelimit.Key{key} })
		if slept := w.take(); !slices.Equal(slept, oneAfterAnother) {
			t.Fatalf("%d concurrent guesses waited %v, want %v: one step after another, up to SlowQueue", n, slept, oneAfterAnother)
		}
		wrongs, refusals := tally(t, errs)
		for _, err := range refusals {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Details["retry_after_seconds"] != 1 {
				t.Errorf("refusal %v, want retry_after_seconds 1", err)
			}
		}
		if refused := len(refusals); wrongs != 5 || refused != 2 {
			t.Fatalf("%d checked and %d refused, want 5 and 2", wrongs, refused)
		}

		// The line's last turn ends 5 s from now: an attempt arriving then
		// waits its own step only (the refused ones took no turn).
		clk.Advance(5 * time.Second)
		if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
			t.Fatalf("guess after the line: %v", err)
		}
		if slept := w.take(); !slices.Equal(slept, []time.Duration{time.Second}) {
			t.Fatalf("a lone guess after the line waited %v, want 1s", slept)
		}
	})
}

// With a CleanRule, the line is only for clients that already failed at
// the key: seven of them guessing at once still wait one step after
// another and the two past SlowQueue are refused, as without one. A
// client with no failure at the key (its pair key counts nothing else)
// waits just its step beside a full line, is never refused by it, and
// takes no turn, so the next failed client is refused all the same. Once
// it fails, it queues too.
func TestSlowdownLineIsForClientsThatFailed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		var w waits
		l.SetSleep(w.sleep)
		pair := ratelimit.Rule{Name: "pair", Limit: 10, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		slow := ratelimit.Rule{Name: "slow", Limit: 1, Window: time.Hour, SlowOnly: true,
			SlowStep: time.Second, SlowMax: time.Second, SlowQueue: 5 * time.Second, CleanRule: pair.Name}
		keys := func(client string) []ratelimit.Key {
			return []ratelimit.Key{ratelimit.For(slow, "victim@example.com"), ratelimit.For(pair, "victim@example.com|"+client)}
		}
		// Seven clients fail once each, one after another: clean each
		// time, so no turn is taken and each waits its step alone.
		const n = 7
		for i := range n {
			if err := l.Guard(ctx, wrong, isWrong, keys(fmt.Sprint("failed", i))...); !apierr.Is(err, apierr.UnauthorizedCredentials) {
				t.Fatalf("first guess %d: %v", i, err)
			}
		}
		if slept, want := w.take(), slices.Repeat([]time.Duration{time.Second}, n-1); !slices.Equal(slept, want) {
			t.Fatalf("first guesses waited %v, want %v: clean clients out of the line", slept, want)
		}

		errs := guessAtOnce(ctx, l, n, func(i int) []ratelimit.Key { return keys(fmt.Sprint("failed", i)) })
		if slept := w.take(); !slices.Equal(slept, oneAfterAnother) {
			t.Fatalf("%d concurrent guesses from failed clients waited %v, want %v", n, slept, oneAfterAnother)
		}
		wrongs, refusals := tally(t, errs)
		if refused := len(refusals); wrongs != 5 || refused != 2 {
			t.Fatalf("%d checked and %d refused, want 5 and 2", wrongs, refused)
		}

		// The line is full for 5 s: a clean client gets in after one step.
		if err := l.Guard(ctx, func() error { return nil }, isWrong, keys("real user")...); err != nil {
			t.Fatalf("clean client beside a full line: %v", err)
		}
		if slept := w.take(); !slices.Equal(slept, []time.Duration{time.Second}) {
			t.Fatalf("clean client waited %v, want one step (1s)", slept)
		}
		// It took no turn: a failed client is refused with the same
		// retry as before it came.
		err := l.Guard(ctx, wrong, isWrong, keys("failed0")...)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Type != apierr.TooManyRequests || ae.Details["retry_after_seconds"] != 1 {
			t.Fatalf("failed client after the clean one: %v, want too_many_requests retrying in 1 s", err)
		}
		// A client that fails becomes one that queues.
		if err := l.Guard(ctx, wrong, isWrong, keys("typo")...); !apierr.Is(err, apierr.UnauthorizedCredentials) {
			t.Fatalf("clean client's wrong guess: %v", err)
		}
		if err := l.Guard(ctx, func() error { return nil }, isWrong, keys("typo")...); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("the same client after failing, with the line full: %v, want too_many_requests", err)
		}
	})
}

// A guesser who hangs up while waiting in line keeps the turn taken, so
// the hit on the line's key stays: hanging up must not make holding turns
// (and keeping the real user waiting) free of guesses. But nothing was
// guessed, so every other key's hit is given back: a hang-up must not
// count towards a lock, such as the real user's own (email, client
// address) pair on a flaky connection. Here three hang-ups would have
// locked a pair whose limit is two.
func TestLeavingTheLineCountsOnlyOnTheLine(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		var slept []time.Duration
		hangUp := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return context.Canceled }
		l.SetSleep(hangUp)
		slow := ratelimit.Rule{Name: "slow", Limit: 0, Window: time.Hour, SlowOnly: true,
			SlowStep: time.Second, SlowMax: 10 * time.Second, SlowQueue: time.Minute}
		lock := ratelimit.Rule{Name: "pair", Limit: 2, Window: time.Hour, Lock: time.Hour, Refuse: apierr.UserLockLimitReached}
		keys := []ratelimit.Key{ratelimit.For(slow, "victim@example.com"), ratelimit.For(lock, "victim@example.com|203.0.113.9")}
		checked := 0
		check := func() error { checked++; return nil }
		for i := range 3 {
			if err := l.Guard(ctx, check, isWrong, keys...); !errors.Is(err, context.Canceled) {
				t.Fatalf("hang-up %d: %v, want context.Canceled", i, err)
			}
		}
		if checked != 0 {
			t.Fatalf("the secret was checked %d times", checked)
		}
		// The turns taken end 1, 3 and 6 s from now.
		if want := []time.Duration{time.Second, 3 * time.Second, 6 * time.Second}; !slices.Equal(slept, want) {
			t.Fatalf("hang-ups waited %v, want %v", slept, want)
		}
		// Past the line, the fourth hit on the line's key waits 4 s (the
		// hang-ups' hits stayed), and the pair is not locked.
		clk.Advance(6 * time.Second)
		slept = nil
		l.SetSleep(func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil })
		if err := l.Guard(ctx, check, isWrong, keys...); err != nil {
			t.Fatalf("after three hang-ups in line: %v, want the pair unlocked", err)
		}
		if !slices.Equal(slept, []time.Duration{4 * time.Second}) {
			t.Fatalf("after three hang-ups a check waited %v, want 4s", slept)
		}
	})
}
