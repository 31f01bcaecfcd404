package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A correct check is settled exactly once whatever then does: inside then's
// transaction when it commits, on its own when then fails before or rolls
// it back. A wrong check never runs then and keeps its hit.
func TestGuardThenSettlesASuccessExactlyOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		write, rows := checkWrites(t, db)
		broken := errors.New("database on fire")
		rule := ratelimit.Rule{Name: "then", Limit: 3, Window: time.Hour, OnSuccess: ratelimit.Release}
		variants := []struct {
			name    string
			then    func(settle ratelimit.SettleIn) error
			wantErr error
		}{
			{"committed with then's writes", func(settle ratelimit.SettleIn) error {
				return db.Tx(ctx, func(q store.Querier) error {
					if err := settle(q); err != nil {
						return err
					}
					return write(q, "login")
				})
			}, nil},
			{"then fails before its transaction", func(ratelimit.SettleIn) error { return broken }, broken},
			{"then's transaction rolls back", func(settle ratelimit.SettleIn) error {
				return db.Tx(ctx, func(q store.Querier) error {
					if err := settle(q); err != nil {
						return err
					}
					if err := write(q, "rolled back"); err != nil {
						return err
					}
					return broken
				})
			}, broken},
		}
		for _, v := range variants {
			key := ratelimit.For(rule, v.name)
			ran := 0
			guess := func(check func() error) error {
				return l.GuardThen(ctx, check, isWrong, func(settle ratelimit.SettleIn) error { ran++; return v.then(settle) }, key)
			}
			for range 2 {
				if err := guess(wrong); !errors.Is(err, errWrong) {
					t.Fatalf("%s: wrong guess: %v", v.name, err)
				}
			}
			if ran != 0 {
				t.Fatalf("%s: then ran after a wrong check", v.name)
			}
			if err := guess(func() error { return nil }); !errors.Is(err, v.wantErr) {
				t.Fatalf("%s: success: %v, want %v", v.name, err, v.wantErr)
			}
			// Two hits stand (the success gave its own back, once): one
			// more wrong guess reaches the limit, the next is refused. A
			// success settled twice would have given back a wrong guess's
			// hit too, and one never settled would refuse at once.
			if err := guess(wrong); !errors.Is(err, errWrong) {
				t.Fatalf("%s: the guess after a success: %v", v.name, err)
			}
			if err := guess(wrong); !apierr.Is(err, apierr.TooManyRequests) {
				t.Fatalf("%s: past the limit: %v, want a refusal", v.name, err)
			}
		}
		if n := rows(); n != 1 {
			t.Fatalf("%d rows written, want only the committed login's", n)
		}
	})
}
