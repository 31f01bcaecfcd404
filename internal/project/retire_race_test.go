package project_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Retiring both of a project's signing keys at once (the leak response,
// rotate then retire the old key, racing a retire of the new one), or
// both of its secrets, leaves one: each retire counted two and deleted
// one on PostgreSQL, and the project could sign nothing (every login and
// check failed until a rotate) or no backend could call it.
func TestConcurrentRetiresLeaveOne(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, s, id := t.Context(), e.App.Projects, e.Project.Project.ID
		for round := range 8 {
			if _, err := s.RotateSigningKey(ctx, id); err != nil {
				t.Fatal(err)
			}
			keys, err := s.ListSigningKeys(ctx, id)
			if err != nil || len(keys) != 2 {
				t.Fatalf("keys before the retires: %+v, %v", keys, err)
			}
			errs := apptest.Together(2, func(i int) error { return s.RetireSigningKey(ctx, id, keys[i].KID) })
			if left, err := s.ListSigningKeys(ctx, id); err != nil || len(left) != 1 || (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: retires %v, %v; keys left %+v (%v): want one retire and one key", round, errs[0], errs[1], left, err)
			}

			if _, _, err := s.RotateSecret(ctx, id, true); err != nil {
				t.Fatal(err)
			}
			secrets, err := s.ListSecrets(ctx, id)
			if err != nil || len(secrets) != 2 {
				t.Fatalf("secrets before the retires: %+v, %v", secrets, err)
			}
			errs = apptest.Together(2, func(i int) error { return s.RetireSecret(ctx, id, secrets[i].SecretID) })
			if left, err := s.ListSecrets(ctx, id); err != nil || len(left) != 1 || (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: secret retires %v, %v; secrets left %+v (%v): want one retire and one secret", round, errs[0], errs[1], left, err)
			}
		}
	})
}
