package password

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Lockout rules, counted first through ratelimit (see README, "Failure
// counting and lockouts"). The choice follows OWASP's advice against
// letting a stranger lock a real user out:
//
//   - EmailIPLockout locks one email address from one client address
//     after ten failures: the guesser is stopped, the member elsewhere is
//     not. A correct password clears it.
//   - IPLockout locks a client address after a hundred failures at any
//     addresses (a guesser spraying many accounts). It is generous because
//     an office shares one address; behind a load balancer the client
//     address comes from LATCHKEY_TRUSTED_PROXIES, never the balancer's.
//   - EmailSlowdown counts failures at an address from everywhere and,
//     past its limit, only slows further checks down. A check from a
//     client address that already failed at this email (its
//     EmailIPLockout count is not zero) waits for its turn in the
//     address's one line (half a second more per failure, at most five
//     seconds a turn), so checks sent at once from many such addresses
//     wait one after another, and distributed guessing is no faster than
//     guessing from one address; one that would wait more than fifteen
//     seconds in line (well within the server's 30 s write timeout) is
//     refused with too_many_requests and when to retry, counting nothing.
//     A check from a clean client address (no failure at this email in
//     its window) stays out of the line (CleanRule): it waits one step,
//     at most five seconds, and is never refused by the line, so
//     strangers who keep the line full cannot keep the real user out.
//     Nothing locks: the real user still gets in.
var (
	EmailIPLockout = ratelimit.Rule{Name: "pw_email_ip", Limit: 10, Window: time.Hour, Lock: time.Hour,
		Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Reset}
	IPLockout = ratelimit.Rule{Name: "pw_ip", Limit: 100, Window: time.Hour, Lock: time.Hour,
		Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Release, PerClientAddress: true}
	EmailSlowdown = ratelimit.Rule{Name: "pw_email", Limit: 20, Window: time.Hour, SlowOnly: true,
		SlowStep: 500 * time.Millisecond, SlowMax: 5 * time.Second, SlowQueue: 15 * time.Second,
		CleanRule: EmailIPLockout.Name, OnSuccess: ratelimit.Release}
)

// lockKeys are the counters of one password check. The (email, address)
// lock is about the email, so a member's is_locked can report it.
func lockKeys(projectID, email, ip string) []ratelimit.Key {
	return []ratelimit.Key{
		ratelimit.For(EmailIPLockout, projectID+"|"+email+"|"+ip).About(ratelimit.EmailSubject(projectID, email)),
		ratelimit.For(IPLockout, projectID+"|"+ip),
		ratelimit.For(EmailSlowdown, projectID+"|"+email),
	}
}

// Sweeps offers the sweeper (app.Sweeper) the reset tokens that expired
// more than olderThan ago (the failure counters are swept with the rate
// limits).
func (s *Service) Sweeps(olderThan time.Duration) []sweeper.Sweepable {
	return []sweeper.Sweepable{sweeper.Expired{DB: s.d.DB, Table: "password_resets", Key: "reset_id", Column: "expires_at", Keep: olderThan}}
}

// Sweep runs Sweeps once.
func (s *Service) Sweep(ctx context.Context, olderThan time.Duration) error {
	if _, err := sweeper.Sweep(ctx, s.d.Clock.Now(), s.Sweeps(olderThan)...); err != nil {
		return fmt.Errorf("password: %w", err)
	}
	return nil
}
