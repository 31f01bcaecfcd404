package password_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A stranger who keeps the email's slow-down line full must not keep the
// real user out. The attacker sends one guess a simulated second for ten
// minutes, from a fresh IPv6 /64 every ten guesses (each /64 may fail ten
// times an hour at the email), which keeps the line near SlowQueue. The
// real user logs in with the right password from their own address every
// seven seconds. While every check queued, 66 of the user's 86 logins
// were refused too_many_requests here, and the rest waited up to 15 s;
// now a check from an address with no failure at the email stays out of
// the line (CleanRule), and each login gets in, waiting at most one step.
// The attacker's addresses that already failed still queue and are
// refused past SlowQueue.
//
// The limiter runs the real rules and keys (lockKeys) with an injected
// clock; a discrete-event loop stands in for the requests' waits, and
// the password check for the hash: a guess fails and the user's
// succeeds when its wait ends.
func TestStrangersFillingTheLineCannotKeepTheUserOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		const projectID, email, userIP = "project-test-sim", "ada@acme.test", "198.51.100.7"
		const span, userEvery = 10 * time.Minute, 7 * time.Second

		type waiting struct {
			until time.Duration
			user  bool
			a     *ratelimit.Attempt
		}
		var pending []waiting
		var elapsed, nextGuess time.Duration
		nextLogin := userEvery / 2
		guesses := 0
		var logins, refusedLogins, checked, refused int
		var longest time.Duration
		for nextGuess < span || nextLogin < span || len(pending) > 0 {
			// The earliest event: a wait that ends (first, on a tie), a
			// guess, or a login.
			at, kind, idx := time.Duration(1<<62), "", -1
			for i, w := range pending {
				if w.until < at {
					at, kind, idx = w.until, "done", i
				}
			}
			if nextGuess < span && nextGuess < at {
				at, kind = nextGuess, "guess"
			}
			if nextLogin < span && nextLogin < at {
				at, kind = nextLogin, "login"
			}
			clk.Advance(at - elapsed)
			elapsed = at
			switch kind {
			case "done":
				w := pending[idx]
				pending = append(pending[:idx], pending[idx+1:]...)
				settle := w.a.Failed
				if w.user {
					settle = w.a.Succeeded
				}
				if err := settle(ctx); err != nil {
					t.Fatalf("settling at %v: %v", at, err)
				}
			case "guess":
				ip := fmt.Sprintf("2001:db8:0:%x::/64", guesses/password.EmailIPLockout.Limit)
				guesses++
				nextGuess += time.Second
				a, err := l.Reserve(ctx, password.LockKeys(projectID, email, ip)...)
				if err != nil {
					if !apierr.Is(err, apierr.TooManyRequests) {
						t.Fatalf("guess at %v from %s: %v", at, ip, err)
					}
					refused++
					continue
				}
				checked++
				pending = append(pending, waiting{until: at + a.Delay(), a: a})
			case "login":
				nextLogin += userEvery
				logins++
				a, err := l.Reserve(ctx, password.LockKeys(projectID, email, userIP)...)
				if err != nil {
					refusedLogins++
					t.Logf("login at %v: %v", at, err)
					continue
				}
				longest = max(longest, a.Delay())
				pending = append(pending, waiting{until: at + a.Delay(), user: true, a: a})
			}
		}
		t.Logf("attacker: %d guesses checked, %d refused; user: %d logins, longest wait %v", checked, refused, logins, longest)
		if logins != 86 || refusedLogins != 0 {
			t.Fatalf("%d of the user's %d logins were refused, want none", refusedLogins, logins)
		}
		if longest > password.EmailSlowdown.SlowMax {
			t.Fatalf("a login waited %v, want at most one step (%v)", longest, password.EmailSlowdown.SlowMax)
		}
		if refused == 0 {
			t.Fatal("no guess was refused: addresses that already failed no longer queue")
		}
	})
}
