package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestExchangeAccessTokenTakesCustomClaims: the session an access token
// is exchanged for gets the backend's session_custom_claims; bad claims
// are refused before the token is spent, and the SDK face takes none.
func TestExchangeAccessTokenTakesCustomClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		full, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		accessToken := func() string {
			t.Helper()
			_, back := f.authorize(authReq(full, "openid", "full_access"), true)
			r := f.exchange(full, secret, back.Get("code"), verifier)
			apptest.Want(t, r, 200, "")
			return r.Body["access_token"].(string)
		}
		at := accessToken()
		exchange := func(claims any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": at,
				"session_custom_claims": claims})
		}
		apptest.Want(t, exchange(map[string]any{"https://stytch.com/session": 1}), 400, "stytch_claims_in_custom_claims")
		r := exchange(map[string]any{"plan": "pro", "aud": "x"})
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})

		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange_access_token", map[string]any{"access_token": accessToken(),
			"session_custom_claims": map[string]any{"admin": true}}, "")
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Data(), map[string]any{})
	})
}
