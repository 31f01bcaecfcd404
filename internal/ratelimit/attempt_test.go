package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

var errWrong = apierr.New(apierr.UnauthorizedCredentials)

func wrong() error { return errWrong }

var isWrong = ratelimit.FailureOf(apierr.UnauthorizedCredentials)

// Fifty wrong guesses at once check the secret at most Limit times: the
// attempt is reserved before the check, never read-then-recorded.
func TestGuardCountsFirstUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "burst", Limit: 5, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		var checks atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := l.Guard(ctx, func() error { checks.Add(1); time.Sleep(5 * time.Millisecond); return wrong() },
					isWrong, ratelimit.For(rule, "victim@example.com"))
				if err == nil || !(apierr.Is(err, apierr.UnauthorizedCredentials) || apierr.Is(err, apierr.UserLockLimitReached)) {
					t.Errorf("guess: %v", err)
				}
			}()
		}
		wg.Wait()
		if n := checks.Load(); n != 5 {
			t.Fatalf("the secret was checked %d times, want exactly the limit 5", n)
		}
		// Locked now: even a correct credential is not checked.
		err := l.Guard(ctx, func() error { checks.Add(1); return nil }, isWrong, ratelimit.For(rule, "victim@example.com"))
		if !apierr.Is(err, apierr.UserLockLimitReached) || checks.Load() != 5 {
			t.Fatalf("locked key: %v (checks %d)", err, checks.Load())
		}
	})
}

func TestOutcomesLocksAndSlowdown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		var slept []time.Duration
		l.SetSleep(func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			clk.Advance(d) // a wait takes its time
			return nil
		})
		ok := func() error { return nil }

		// Release: successes cost nothing, failures count to the limit.
		rel := ratelimit.Rule{Name: "rel", Limit: 2, Window: time.Minute, OnSuccess: ratelimit.Release}
		for i := 0; i < 5; i++ {
			if err := l.Guard(ctx, ok, isWrong, ratelimit.For(rel, "k")); err != nil {
				t.Fatalf("success %d: %v", i, err)
			}
		}
		_ = l.Guard(ctx, wrong, isWrong, ratelimit.For(rel, "k"))
		_ = l.Guard(ctx, wrong, isWrong, ratelimit.For(rel, "k"))
		if err := l.Guard(ctx, ok, isWrong, ratelimit.For(rel, "k")); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("over the limit: %v", err)
		}
		clk.Advance(time.Minute)
		if err := l.Guard(ctx, ok, isWrong, ratelimit.For(rel, "k")); err != nil {
			t.Fatalf("next window: %v", err)
		}

		// Keep: every attempt counts. Abandon: other errors count nothing.
		keep := ratelimit.Rule{Name: "keep", Limit: 2, Window: time.Minute}
		other := errors.New("database down")
		for i := 0; i < 3; i++ {
			if err := l.Guard(ctx, func() error { return other }, isWrong, ratelimit.For(keep, "k")); !errors.Is(err, other) {
				t.Fatalf("abandoned %d: %v", i, err)
			}
		}
		_ = l.Guard(ctx, ok, isWrong, ratelimit.For(keep, "k"))
		_ = l.Guard(ctx, ok, isWrong, ratelimit.For(keep, "k"))
		if err := l.Guard(ctx, ok, isWrong, ratelimit.For(keep, "k")); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("keep over the limit: %v", err)
		}

		// A refusal by one key counts nothing against the others.
		a := ratelimit.Rule{Name: "a", Limit: 1, Window: time.Minute}
		b := ratelimit.Rule{Name: "b", Limit: 1, Window: time.Minute}
		_ = l.Guard(ctx, ok, isWrong, ratelimit.For(a, "x"))
		if err := l.Guard(ctx, ok, isWrong, ratelimit.For(a, "x"), ratelimit.For(b, "y")); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("a over: %v", err)
		}
		if err := l.Guard(ctx, ok, isWrong, ratelimit.For(b, "y")); err != nil {
			t.Fatalf("b counted a refused attempt: %v", err)
		}

		// Lock with Reset: a success clears failures; the limit-th failure
		// locks for Lock (past the window), then a fresh start.
		lock := ratelimit.Rule{Name: "lock", Limit: 3, Window: time.Minute, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		key := ratelimit.For(lock, "pw|ip").About("member@example.com")
		_ = l.Guard(ctx, wrong, isWrong, key)
		_ = l.Guard(ctx, wrong, isWrong, key)
		_ = l.Guard(ctx, ok, isWrong, key)
		for i := 0; i < 3; i++ {
			if err := l.Guard(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
				t.Fatalf("failure %d after reset: %v", i, err)
			}
		}
		if locked, err := l.IsLocked(ctx, db.Read(), "member@example.com"); err != nil || !locked {
			t.Fatalf("IsLocked = %v, %v", locked, err)
		}
		clk.Advance(30 * time.Minute)
		err := l.Guard(ctx, ok, isWrong, key)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Type != apierr.UserLockLimitReached || ae.Details["retry_after_seconds"] != 1800 {
			t.Fatalf("locked: %#v", err)
		}
		clk.Advance(30 * time.Minute)
		if err := l.Guard(ctx, ok, isWrong, key); err != nil {
			t.Fatalf("after the lock: %v", err)
		}
		if locked, _ := l.IsLocked(ctx, db.Read(), "member@example.com"); locked {
			t.Fatal("still locked after the lock ran out")
		}
		for i := 0; i < 3; i++ {
			_ = l.Guard(ctx, wrong, isWrong, key)
		}
		if err := l.Unlock(ctx, db, lock, "member@example.com"); err != nil {
			t.Fatal(err)
		}
		if err := l.Guard(ctx, ok, isWrong, key); err != nil {
			t.Fatalf("after Unlock: %v", err)
		}

		// SlowOnly never locks: past the limit each attempt, one after
		// another, waits longer.
		slow := ratelimit.Rule{Name: "slow", Limit: 2, Window: time.Hour, SlowOnly: true,
			SlowStep: time.Second, SlowMax: 3 * time.Second}
		for i := 0; i < 6; i++ {
			if err := l.Guard(ctx, wrong, isWrong, ratelimit.For(slow, "e")); !apierr.Is(err, apierr.UnauthorizedCredentials) {
				t.Fatalf("slow %d: %v", i, err)
			}
		}
		want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}
		if len(slept) != len(want) {
			t.Fatalf("slept %v, want %v", slept, want)
		}
		for i := range want {
			if slept[i] != want[i] {
				t.Fatalf("slept %v, want %v", slept, want)
			}
		}
		if err := l.Sweep(ctx, 0); err != nil {
			t.Fatal(err)
		}
	})
}

// Valid unguessable secrets always pass; failures past the limit are
// refused with the rule's error instead of their own.
// Unlock ends one rule's locks about a subject; another rule's lock about
// the same subject (a password change must not end the MFA lockout) keeps
// running, and the subject stays locked. A rule whose name extends the
// unlocked one's is another rule.
func TestUnlockEndsOneRulesLocks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := func(name string) ratelimit.Rule {
			return ratelimit.Rule{Name: name, Limit: 1, Window: time.Hour, Lock: time.Hour, Refuse: apierr.UserLockLimitReached}
		}
		pw, pwIP, mfa := rule("pw"), rule("pw_ip"), rule("mfa")
		keys := []ratelimit.Key{ratelimit.For(pw, "a|1").About("s"), ratelimit.For(pw, "a|2").About("s"),
			ratelimit.For(pwIP, "a").About("s"), ratelimit.For(mfa, "m").About("s")}
		for _, k := range keys {
			_ = l.Guard(ctx, wrong, isWrong, k)
		}
		if err := l.Unlock(ctx, db, pw, "s"); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			err := l.Guard(ctx, func() error { return nil }, isWrong, k)
			if unlocked := k.Rule.Name == "pw"; unlocked != (err == nil) {
				t.Fatalf("key %d (%s) after unlocking pw: %v", i, k.Rule.Name, err)
			}
		}
		if locked, err := l.IsLocked(ctx, db.Read(), "s"); err != nil || !locked {
			t.Fatalf("IsLocked = %v, %v with other rules' locks running", locked, err)
		}
	})
}

func TestGuardUnguessable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "sess", Limit: 2, Window: time.Minute}
		key := ratelimit.For(rule, "office")
		for i := 0; i < 2; i++ {
			if err := l.GuardUnguessable(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.UnauthorizedCredentials) {
				t.Fatalf("failure %d: %v", i, err)
			}
		}
		if err := l.GuardUnguessable(ctx, wrong, isWrong, key); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("failure past the limit: %v", err)
		}
		if err := l.GuardUnguessable(ctx, func() error { return nil }, isWrong, key); err != nil {
			t.Fatalf("a valid secret from the same address: %v", err)
		}
	})
}

// A client that hangs up once its guess was checked still has the attempt
// settled: a wrong guess locks the key, an abandoned one gives its hit back.
func TestSettleOutlivesTheRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		lock := ratelimit.Rule{Name: "lock", Limit: 1, Window: time.Hour, Lock: 2 * time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		gone := func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}
		// Abandoned after a hang-up: the hit is given back, so the next
		// attempt (the limit is one) is not refused.
		a, err := l.Reserve(context.Background(), ratelimit.For(lock, "abandon"))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Abandon(gone()); err != nil {
			t.Fatalf("abandon after hang-up: %v", err)
		}
		a, err = l.Reserve(context.Background(), ratelimit.For(lock, "abandon"))
		if err != nil {
			t.Fatalf("the abandoned hit was kept: %v", err)
		}
		_ = a.Abandon(context.Background())

		// Failed after a hang-up: the lock is written; a correct credential
		// in the next window, while the two-hour lock holds, is refused.
		a, err = l.Reserve(context.Background(), ratelimit.For(lock, "fail"))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Failed(gone()); err != nil {
			t.Fatalf("fail after hang-up: %v", err)
		}
		clk := clock.NewFake(time.Date(2026, 1, 1, 13, 30, 0, 0, time.UTC)) // a new window, still locked
		err = ratelimit.New(db, clk).Guard(context.Background(), func() error { return nil }, isWrong, ratelimit.For(lock, "fail"))
		if !apierr.Is(err, apierr.UserLockLimitReached) {
			t.Fatalf("after a failed guess whose client hung up, the key is not locked: %v", err)
		}
	})
}

// A lock records when it began (a member's lock_created_at). A failure
// counted before the lock and settled after it (a concurrent guess)
// pushes the end back but keeps the start; the next lock, after this one
// ran out, starts anew.
func TestLockKeepsItsStartWhenExtended(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
		clk := clock.NewFake(start)
		l := ratelimit.New(db, clk)
		k := ratelimit.For(ratelimit.Rule{Name: "pw", Limit: 2, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached}, "a").About("s")
		lock := func() (began, ends time.Time) {
			t.Helper()
			var at, until int64
			if err := db.Read().QueryRowContext(ctx, `SELECT locked_at, locked_until FROM attempt_counters WHERE subject = 's'`).
				Scan(&at, &until); err != nil {
				t.Fatal(err)
			}
			return store.Time(at), store.Time(until)
		}
		var held []*ratelimit.Attempt
		for range 2 {
			a, err := l.Reserve(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, a)
		}
		if err := held[0].Failed(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		if err := held[1].Failed(ctx); err != nil {
			t.Fatal(err)
		}
		if began, ends := lock(); !began.Equal(start) || !ends.Equal(start.Add(time.Hour+time.Minute)) {
			t.Fatalf("extended lock: began %s, ends %s", began, ends)
		}

		clk.Advance(2 * time.Hour)
		for range 2 {
			_ = l.Guard(ctx, wrong, isWrong, k)
		}
		if began, ends := lock(); !began.Equal(clk.Now()) || !ends.Equal(clk.Now().Add(time.Hour)) {
			t.Fatalf("second lock: began %s, ends %s; now %s", began, ends, clk.Now())
		}
	})
}
