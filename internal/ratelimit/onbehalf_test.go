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

// A request a customer's server makes for its users (OnBehalf) is not
// counted under the rules keyed by the end user's address, nor under the
// rules that bind the SDK face only, whichever entry it comes through, and
// still is under every other rule; without the mark all count.
func TestPerAddressRulesSkipRequestsOnBehalfOfUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		addr := ratelimit.Rule{Name: "t_ip", Limit: 2, Window: time.Hour, Lock: time.Hour, PerClientAddress: true}
		acct := ratelimit.Rule{Name: "t_email", Limit: 2, Window: time.Hour, Lock: time.Hour}
		sdk := ratelimit.Rule{Name: "t_sdk", Limit: 2, Window: time.Hour, Lock: time.Hour, SDKOnly: true}
		behalf := ratelimit.OnBehalf(context.Background())
		direct := context.Background()

		refusedAt := func(ctx context.Context, rule ratelimit.Rule, key string, try func(context.Context, ratelimit.Rule, string) error) int {
			for i := 1; i <= 5; i++ {
				if err := try(ctx, rule, key); err != nil {
					if !apierr.Is(err, apierr.TooManyRequests) {
						t.Fatalf("%s: %v", rule.Name, err)
					}
					return i
				}
			}
			return 0
		}
		allow := func(ctx context.Context, r ratelimit.Rule, k string) error { return l.Allow(ctx, r, k) }
		allowN := func(ctx context.Context, r ratelimit.Rule, k string) error { return l.AllowN(ctx, r, k, 2) }
		// A wrong guess that was counted is what these tries expect.
		counted := func(err error) error {
			if isWrong(err) {
				return nil
			}
			return err
		}
		guessWrong := func(ctx context.Context, r ratelimit.Rule, k string) error {
			return counted(l.Guard(ctx, wrong, isWrong, ratelimit.For(r, k)))
		}
		guessInWrong := func(ctx context.Context, r ratelimit.Rule, k string) error {
			return counted(l.GuardIn(ctx, func(store.Querier) error { return wrong() }, isWrong, ratelimit.For(r, k)))
		}
		for _, c := range []struct {
			name string
			try  func(context.Context, ratelimit.Rule, string) error
			want int // the first refused try when the rule counts
		}{{"Allow", allow, 3}, {"AllowN", allowN, 2}, {"Guard", guessWrong, 3}, {"GuardIn", guessInWrong, 3}} {
			if got := refusedAt(behalf, addr, c.name+"|10.0.0.1", c.try); got != 0 {
				t.Errorf("%s on behalf of users: the per-address rule refused try %d", c.name, got)
			}
			if got := refusedAt(behalf, acct, c.name+"|ada@acme.test", c.try); got != c.want {
				t.Errorf("%s on behalf of users: the account rule refused try %d, want %d", c.name, got, c.want)
			}
			if got := refusedAt(direct, addr, c.name+"|10.0.0.2", c.try); got != c.want {
				t.Errorf("%s from a user: the per-address rule refused try %d, want %d", c.name, got, c.want)
			}
			if got := refusedAt(behalf, sdk, c.name+"|bob@acme.test", c.try); got != 0 {
				t.Errorf("%s on behalf of users: the SDK-only rule refused try %d", c.name, got)
			}
			if got := refusedAt(direct, sdk, c.name+"|bob@acme.test", c.try); got != c.want {
				t.Errorf("%s from a user: the SDK-only rule refused try %d, want %d (the backend's tries counted?)", c.name, got, c.want)
			}
		}
	})
}
