package trustedauth_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// A project may have at most 20 profiles. Creates counted the project's
// profiles and inserted when under the cap; on PostgreSQL concurrent
// creates all counted the same number and all inserted, past the cap.
// The project's row is now locked before counting: the creates count one
// after another and the cap holds.
func TestConcurrentProfileCreatesKeepTheCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		create := func() error {
			_, err := e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: e.Project.Project.ID,
				Env: e.Project.Project.Env, Issuer: issuerName, Audience: audience, JWKSURL: "https://issuer.test/.well-known/jwks.json"})
			return err
		}
		for range 16 {
			if err := create(); err != nil {
				t.Fatal(err)
			}
		}
		created := 0
		for _, err := range apptest.Together(10, func(int) error { return create() }) {
			if err == nil {
				created++
			}
		}
		n := e.Count(`SELECT COUNT(*) FROM trusted_auth_token_profiles WHERE project_id = $1`, e.Project.Project.ID)
		if created != 4 || n != 20 {
			t.Fatalf("10 concurrent creates at 16 profiles: %d created, %d profiles; want 4 and 20", created, n)
		}
	})
}
