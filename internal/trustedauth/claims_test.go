package trustedauth_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestLoginsTakeCustomClaims: sessions/attest and sessions/migrate store
// the backend's session_custom_claims on the session they start, and
// refuse bad ones before spending the token; the SDK face's attest takes
// none.
func TestLoginsTakeCustomClaims(t *testing.T) {
	bad := map[string]any{"https://stytch.com/organization": "x"}
	t.Run("attest", func(t *testing.T) {
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			sc := newScene(t, e)
			body := sc.body(sc.is.token(e.Clock.Now(), "ana@acme.test", "jti-claims", nil))
			body["session_custom_claims"] = bad
			apptest.Want(t, attest(e, body), 400, "stytch_claims_in_custom_claims")
			// The same token still works: nothing was spent.
			body["session_custom_claims"] = map[string]any{"plan": "pro", "exp": 1, "gone": nil}
			r := attest(e, body)
			apptest.Want(t, r, 200, "")
			e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})

			body = sc.body(sc.is.token(e.Clock.Now(), "ana@acme.test", "jti-sdk", nil))
			body["session_custom_claims"] = map[string]any{"admin": true}
			r = e.SDK(http.MethodPost, "/b2b/sessions/attest", body, "")
			apptest.Want(t, r, 200, "")
			e.WantLoginClaims(t, r.Data(), map[string]any{})
		})
	})
	t.Run("migrate", func(t *testing.T) {
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
			e.CreateMember(org, "ana@acme.test")
			prev := previousProvider(t, map[string]map[string]any{"tok-ana": {"sub": "1", "email": "ana@acme.test", "email_verified": true}})
			if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, prev.URL+"/userinfo"); err != nil {
				t.Fatal(err)
			}
			migrate := func(claims any) apptest.Resp {
				return e.Backend(http.MethodPost, "/v1/b2b/sessions/migrate", map[string]any{"session_token": "tok-ana",
					"organization_id": org, "session_custom_claims": claims})
			}
			apptest.Want(t, migrate(bad), 400, "stytch_claims_in_custom_claims")
			r := migrate(map[string]any{"plan": "pro", "sub": "someone-else"})
			apptest.Want(t, r, 200, "")
			e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})
		})
	})
}
