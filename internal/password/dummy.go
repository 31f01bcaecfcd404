package password

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// verifyDummy verifies the dummy hash (the answer to an address without a
// usable password, and the padding of a cheap one, see wrongPassword) and
// records what that cost. The dummy is well formed, so the only error is
// the wait for a hashing slot, answered as it is for a real credential.
func (s *Service) verifyDummy(ctx context.Context, password string) error {
	start := s.d.Clock.Now()
	if _, err := s.verifyHash(ctx, s.dummy, password); err != nil {
		return err
	}
	s.dummyCost.observe(s.d.Clock.Now().Sub(start))
	return nil
}

// wrongPassword answers a wrong password for cred, whose verification
// took spent. An unknown address costs one verification of the dummy
// (cost d); the answer for a member must cost the same, or its timing
// tells a guesser which addresses hold a password.
//
//   - A hash at the current cost is the dummy's twin: it cost d already.
//   - A stored hash far cheaper (an imported MD5, SHA or weak PBKDF2
//     digest, a weaker argon2, until its first login upgrades it) is
//     checked in microseconds: the dummy is verified as well, so the
//     answer costs about d.
//   - A stored hash dearer than the dummy (an imported bcrypt at cost
//     10-12, PBKDF2, scrypt) must not get the dummy on top: that doubled
//     the gap it already has to an unknown address (41 ms against 190 ms
//     for a bcrypt member at the OWASP cost, measured). The gap it has
//     itself cannot be closed here, only by the upgrade at its next
//     successful login: what a hash costs is known only once it is
//     verified, and an unknown address has no hash to measure.
//
// Which of these a hash is, is decided by what its verification took
// (spent, against the dummy's running estimate), not by its format, so
// a weaker or a dearer import of any format is judged alike. The dummy
// is added exactly when it brings the answer closer to d: spent + d is
// nearer to d than spent is when spent < d/2. So no answer is off by more
// than d/2, where a cut at d would answer up to 2d for a hash just
// cheaper than the dummy, and flip between d and 2d on the noise of a
// hash that costs what the dummy does. Until the dummy's cost has been
// measured once, it is verified (and so measured).
func (s *Service) wrongPassword(ctx context.Context, cred *credential, password string, spent time.Duration) error {
	if pwhash.NeedsUpgrade(cred.Hash, s.d.Hashing) && s.dummyCost.pads(spent) {
		if err := s.verifyDummy(ctx, password); err != nil {
			return err
		}
	}
	return apierr.New(apierr.UnauthorizedCredentials)
}

// costEstimate is a running estimate of what verifying the dummy costs,
// in nanoseconds: a moving average of its recent verifications (including
// any wait for a hashing slot, as an answer's timing does), negative
// until the first one.
type costEstimate struct{ ns atomic.Int64 }

// observe adds one measured verification to the estimate.
func (c *costEstimate) observe(d time.Duration) {
	for {
		old := c.ns.Load()
		next := int64(d)
		if old >= 0 {
			next = old + (int64(d)-old)/4
		}
		if c.ns.CompareAndSwap(old, next) {
			return
		}
	}
}

// pads reports whether a wrong password whose verification took spent
// should verify the dummy as well (see wrongPassword).
func (c *costEstimate) pads(spent time.Duration) bool {
	d := c.ns.Load()
	return d < 0 || spent < time.Duration(d)/2
}
