package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A rotated key is published before it signs. Replicas learn of a new key
// through the change feed, up to a second later: had the replica that
// rotated signed with the new key at once, a JWT it issued and another
// replica checked in that second was refused (unable_to_parse_session_jwt,
// the user logged out). So until the new key's activation every replica
// signs with the old key while every JWKS lists both; from it, every
// replica signs with the new key (no change event marks that instant)
// and the other verifies it; a JWT of either key verifies on both
// throughout.
func TestRotatedKeyIsPublishedBeforeItSigns(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		ctx := context.Background()
		pid := e1.Project.Project.ID
		org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
		before, err := e1.App.Projects.ListSigningKeys(ctx, pid)
		if err != nil || len(before) != 1 {
			t.Fatalf("keys before the rotation: %+v, %v", before, err)
		}
		old := before[0].KID
		oldToken, oldJWT, _ := e1.Login(org, "ada@acme.test")
		for _, e := range []*apptest.Env{e1, e2} {
			e.Clock.Advance(time.Second) // the rotation comes after the project's creation
		}

		rotated, err := e1.App.Projects.RotateSigningKey(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		// At once, before e2 can have heard of the rotation: e1 still
		// signs with the old key, which e2 knows.
		token, jwt, _ := e1.Login(org, "bea@acme.test")
		if kid := jwtKID(t, jwt); kid != old {
			t.Fatalf("a login right after the rotation was signed with %s, want the old key %s", kid, old)
		}
		apptest.Want(t, check(e2, "", jwt), 200, "")

		published := func(e *apptest.Env) bool {
			r := e.Get("/v1/b2b/sessions/jwks/" + pid)
			ks, _ := r.Body["keys"].([]any)
			return len(ks) == 2
		}
		within(t, time.Second, "rotated key in both replicas' JWKS", func() bool { return published(e1) && published(e2) })
		// Published but pending: both replicas still sign with the old key.
		for _, e := range []*apptest.Env{e1, e2} {
			r := check(e, token, "")
			apptest.Want(t, r, 200, "")
			if kid := jwtKID(t, r.Body["session_jwt"].(string)); kid != old {
				t.Fatalf("a check before the activation answered a JWT of %s, want the old key %s", kid, old)
			}
		}

		// The activation: no event marks it, and both replicas switch.
		for _, e := range []*apptest.Env{e1, e2} {
			e.Clock.Advance(time.UnixMilli(rotated.ActivatesAt).Sub(e.Clock.Now()))
		}
		_, newJWT, _ := e1.Login(org, "cal@acme.test")
		if kid := jwtKID(t, newJWT); kid != rotated.KID {
			t.Fatalf("a login after the activation was signed with %s, want the new key %s", kid, rotated.KID)
		}
		_, newJWT2, _ := e2.Login(org, "dee@acme.test")
		if kid := jwtKID(t, newJWT2); kid != rotated.KID {
			t.Fatalf("a login on the other replica after the activation was signed with %s, want %s", kid, rotated.KID)
		}
		for _, c := range []struct {
			e   *apptest.Env
			jwt string
		}{{e2, newJWT}, {e1, newJWT2}, {e2, oldJWT}, {e1, jwt}, {e2, jwt}} {
			apptest.Want(t, check(c.e, "", c.jwt), 200, "")
		}
		apptest.Want(t, check(e2, oldToken, ""), 200, "")
	})
}
