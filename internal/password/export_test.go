package password

import (
	"context"

	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// MigrateIn is Migrate inside the caller's transaction q, for the
// external tests that hold it open (storetest.Overlap).
func (s *Service) MigrateIn(ctx context.Context, q store.Querier, a MigrateParams) (*MigrateResult, error) {
	m, err := s.prepareMigrate(ctx, a)
	if err != nil {
		return nil, err
	}
	return s.migrateIn(ctx, q, m)
}

// WatchVerifies has every hash s verifies from now on passed to seen
// first, and returns s's dummy hash.
func (s *Service) WatchVerifies(seen func(encoded string)) string {
	next := s.verifyHash
	s.verifyHash = func(ctx context.Context, encoded, password string) (bool, error) {
		seen(encoded)
		return next(ctx, encoded, password)
	}
	return s.dummy
}

// LockKeys are the counters of one password check (lockKeys), for tests
// that drive the limiter without hashing.
var LockKeys = lockKeys

// ConsumeReset is the spend of a reset token alone, for the tests of what
// it re-checks (a token that expired since it was looked up).
func (s *Service) ConsumeReset(ctx context.Context, q store.Querier, id string) error {
	return s.consumeReset(ctx, q, id)
}

// ChangePasswordIn is a reset's writes (changePassword: the new hash, then
// the end of what the old password could still do) inside the caller's
// transaction q, for the tests that hold it open (storetest.Overlap).
func (s *Service) ChangePasswordIn(ctx context.Context, q store.Querier, p *project.Project, email, hash string) error {
	return s.changePassword(ctx, q, p, email, hash, "")
}

// Spender runs a reset's spend transaction (spender): a test's wraps the
// database to let another redemption in before it.
type Spender = spender

// ResetByEmailVia is ResetByEmail with the spend's transaction run by db.
func (s *Service) ResetByEmailVia(ctx context.Context, db Spender, a ResetParams) (*session.AuthResponse, error) {
	return s.resetByEmail(ctx, db, a)
}

// ResetDiscoveryVia is ResetDiscovery with the spend's transaction run by
// db.
func (s *Service) ResetDiscoveryVia(ctx context.Context, db Spender, a ResetParams) (*discovery.Response, error) {
	return s.resetDiscovery(ctx, db, a)
}
