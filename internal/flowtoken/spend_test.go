package flowtoken_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A presented secret is spent once: the first Spend records its hash (not
// the secret), every later one is refused as ErrInvalid, concurrent ones
// included, and Redeem never accepts it. The record stays until its time
// is up, sweeps included; after that the sweep removes it.
func TestSpendOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		secret := "header.payload"
		until := f.clk.Now().Add(time.Hour)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { errs[i] = f.flows.Spend(f.ctx, "presented", f.project, secret, until) })
		}
		wg.Wait()
		spent := 0
		for _, err := range errs {
			switch {
			case err == nil:
				spent++
			case !errors.Is(err, flowtoken.ErrInvalid):
				t.Fatal(err)
			}
		}
		if spent != 1 {
			t.Fatalf("%d of %d concurrent spends succeeded", spent, len(errs))
		}
		if n := count(t, f, `SELECT COUNT(*) FROM flow_tickets WHERE ticket_hash = $1`, ids.Hash(secret)); n != 1 {
			t.Fatalf("%d rows for the secret's hash", n)
		}
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "presented", Token: secret}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("redeem of a spent secret: %v", err)
		}
		f.clk.Advance(50 * time.Minute)
		if err := f.flows.Sweep(f.ctx, 0); err != nil {
			t.Fatal(err)
		}
		if err := f.flows.Spend(f.ctx, "presented", f.project, secret, until); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("spend again before its time is up: %v", err)
		}
		f.clk.Advance(11 * time.Minute)
		if err := f.flows.Sweep(f.ctx, 0); err != nil {
			t.Fatal(err)
		}
		if n := count(t, f, `SELECT COUNT(*) FROM flow_tickets`); n != 0 {
			t.Fatalf("%d rows left after the sweep", n)
		}
	})
}

func count(t *testing.T, f *fixture, query string, args ...any) int {
	t.Helper()
	var n int
	if err := f.db.Read().QueryRowContext(f.ctx, query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
