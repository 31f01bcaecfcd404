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

// checkWrites records what a check wrote through its transaction, so a
// test sees which outcomes commit the check's own writes.
func checkWrites(t *testing.T, db *store.DB) (write func(q store.Querier, v string) error, rows func() int) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE guard_probe (v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	write = func(q store.Querier, v string) error {
		_, err := q.ExecContext(ctx, `INSERT INTO guard_probe (v) VALUES ($1)`, v)
		return err
	}
	rows = func() int {
		var n int
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM guard_probe`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return write, rows
}

// GuardIn counts before it checks, in the check's own transaction: fifty
// concurrent wrong guesses reach the check at most Limit times, then the
// key is locked and not even a correct credential is checked.
func TestGuardInCountsFirstUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "burst", Limit: 5, Window: time.Hour, Lock: time.Hour,
			Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
		var checks atomic.Int32
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := l.GuardIn(ctx, func(store.Querier) error { checks.Add(1); time.Sleep(2 * time.Millisecond); return wrong() },
					isWrong, ratelimit.For(rule, "victim@example.com"))
				if !apierr.Is(err, apierr.UnauthorizedCredentials) && !apierr.Is(err, apierr.UserLockLimitReached) {
					t.Errorf("guess: %v", err)
				}
			}()
		}
		wg.Wait()
		if n := checks.Load(); n != 5 {
			t.Fatalf("the secret was checked %d times, want exactly the limit 5", n)
		}
		err := l.GuardIn(ctx, func(store.Querier) error { checks.Add(1); return nil }, isWrong, ratelimit.For(rule, "victim@example.com"))
		if !apierr.Is(err, apierr.UserLockLimitReached) || checks.Load() != 5 {
			t.Fatalf("locked key: %v (checks %d)", err, checks.Load())
		}
	})
}

// What each outcome commits: a wrong credential keeps the hit and the
// check's writes, success applies the rule's outcome and keeps the
// writes, anything else gives the hit back and keeps nothing, and a
// refusal writes nothing at all.
func TestGuardInOutcomes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		write, rows := checkWrites(t, db)
		rule := ratelimit.Rule{Name: "outcomes", Limit: 2, Window: time.Hour, OnSuccess: ratelimit.Release}
		key := ratelimit.For(rule, "k")
		broken := errors.New("database on fire")

		// A server error: abandoned, so it never counts.
		for range 5 {
			err := l.GuardIn(ctx, func(q store.Querier) error {
				if err := write(q, "abandoned"); err != nil {
					return err
				}
				return broken
			}, isWrong, key)
			if !errors.Is(err, broken) {
				t.Fatalf("abandoned check: %v", err)
			}
		}
		if n := rows(); n != 0 {
			t.Fatalf("an abandoned check kept %d writes", n)
		}
		// Success with Release: gives its hit back, keeps its writes.
		for range 5 {
			if err := l.GuardIn(ctx, func(q store.Querier) error { return write(q, "ok") }, isWrong, key); err != nil {
				t.Fatalf("success: %v", err)
			}
		}
		if n := rows(); n != 5 {
			t.Fatalf("successes kept %d writes, want 5", n)
		}
		// Two wrong guesses: both counted, with their writes.
		for range 2 {
			err := l.GuardIn(ctx, func(q store.Querier) error {
				if err := write(q, "wrong"); err != nil {
					return err
				}
				return wrong()
			}, isWrong, key)
			if !errors.Is(err, errWrong) {
				t.Fatalf("wrong guess: %v", err)
			}
		}
		if n := rows(); n != 7 {
			t.Fatalf("wrong guesses kept %d writes in all, want 7", n)
		}
		// Over the limit: refused before the check, nothing written.
		var checked bool
		err := l.GuardIn(ctx, func(q store.Querier) error { checked = true; return write(q, "refused") }, isWrong, key)
		if !apierr.Is(err, apierr.TooManyRequests) || checked || rows() != 7 {
			t.Fatalf("over the limit: %v (checked %v, rows %d)", err, checked, rows())
		}
	})
}

// A rule that only slows makes GuardIn wait outside any transaction, then
// check in a transaction of its own that keeps a wrong guess's writes.
func TestGuardInSlowsOutsideTheTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		write, rows := checkWrites(t, db)
		var slept []time.Duration
		l.SetSleep(func(ctx context.Context, d time.Duration) error {
			defer clk.Advance(d) // a wait takes its time
			// The writer must be free while waiting: a write here would
			// never run on SQLite if the transaction were still open.
			if _, err := db.ExecContext(ctx, `INSERT INTO guard_probe (v) VALUES ('during sleep')`); err != nil {
				t.Errorf("write during the slow-down: %v", err)
			}
			slept = append(slept, d)
			return nil
		})
		slow := ratelimit.Rule{Name: "slow", Limit: 1, Window: time.Hour, SlowOnly: true, SlowStep: time.Second, SlowMax: 5 * time.Second}
		for range 3 {
			err := l.GuardIn(ctx, func(q store.Querier) error {
				if err := write(q, "wrong"); err != nil {
					return err
				}
				return wrong()
			}, isWrong, ratelimit.For(slow, "k"))
			if !errors.Is(err, errWrong) {
				t.Fatalf("slowed guess: %v", err)
			}
		}
		if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
			t.Fatalf("slow-downs %v, want [1s 2s]", slept)
		}
		if n := rows(); n != 5 { // three guesses and two writes made while waiting
			t.Fatalf("%d rows, want 5", n)
		}
	})
}
