package idp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

func TestExchangeAccessToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		// accessToken runs the code flow for scopes and returns the access token.
		accessToken := func(id, secret string, scopes ...string) string {
			t.Helper()
			_, back := f.authorize(authReq(id, scopes...), true)
			r := f.exchange(id, secret, back.Get("code"), verifier)
			apptest.Want(t, r, 200, "")
			return r.Body["access_token"].(string)
		}
		full, fullSecret := f.client("first_party", map[string]any{"full_access_allowed": true})

		at := accessToken(full, fullSecret, "openid", "full_access")
		r := e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": at,
			"session_duration_minutes": 30})
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != f.member || r.Body["session_token"] == "" {
			t.Fatalf("exchange: %s", r.Raw)
		}
		fs := r.Body["member_session"].(map[string]any)["authentication_factors"].([]any)
		factor := fs[0].(map[string]any)
		if len(fs) != 1 || factor["type"] != "oauth" || factor["delivery_method"] != "oauth_access_token_exchange" ||
			factor["oauth_access_token_exchange_factor"].(map[string]any)["client_id"] != full {
			t.Fatalf("factors: %v", fs)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate",
			map[string]any{"session_token": r.Body["session_token"]}), 200, "")
		// Once only, on either face.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": at}),
			401, "oauth_access_token_exchange_token_invalid_grant")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/exchange_access_token", map[string]any{"access_token": at}, ""),
			401, "oauth_access_token_exchange_token_invalid_grant")

		// The SDK face, with a fresh token: a session, the factor object withheld.
		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange_access_token",
			map[string]any{"access_token": accessToken(full, fullSecret, "openid", "full_access")}, "")
		apptest.Want(t, r, 200, "")
		if factor := r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any); factor["oauth_access_token_exchange_factor"] != nil {
			t.Fatalf("SDK factor: %v", factor)
		}

		// Without full_access, older than five minutes, revoked, or not a token at all.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token",
			map[string]any{"access_token": accessToken(full, fullSecret, "openid", "email")}), 403, "oauth_access_token_exchange_missing_full_access")
		old := accessToken(full, fullSecret, "openid", "full_access")
		e.Clock.Advance(6 * time.Minute)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": old}),
			400, "oauth_access_token_exchange_token_too_old")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		revoked := accessToken(full, fullSecret, "openid", "full_access")
		apptest.Want(t, f.form("/oauth2/revoke", full, fullSecret, map[string][]string{"token": {revoked}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": revoked}),
			401, "oauth_access_token_exchange_token_invalid_grant")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": "x.y.z"}),
			401, "oauth_access_token_exchange_token_invalid_grant")

		// The member's organization requiring MFA does not turn the exchange into an IST: the
		// token was issued from a complete session.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"}), 200, "")
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token",
			map[string]any{"access_token": accessToken(full, fullSecret, "openid", "full_access")})
		apptest.Want(t, r, 200, "")
		if tok, _ := r.Body["session_token"].(string); tok == "" || r.Body["member_session"] == nil {
			t.Fatalf("exchange under MFA policy: %s", r.Raw)
		}
	})
}

// Failed exchanges count against session.FailuresPerIP for the end user's
// address (the SDK face): past the limit another guess is refused with
// 429, not answered. The backend face's address is the customer's server,
// which is not limited so (ratelimit.OnBehalf).
func TestExchangeFailuresLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		exchange := func() apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/exchange_access_token", map[string]any{"access_token": "x.y.z"}, "")
		}
		for range session.FailuresPerIP.Limit {
			apptest.Want(t, exchange(), 401, "oauth_access_token_exchange_token_invalid_grant")
		}
		if r := exchange(); r.Status != http.StatusTooManyRequests {
			t.Fatalf("past the limit: %d %s", r.Status, r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": "x.y.z"}),
			401, "oauth_access_token_exchange_token_invalid_grant")
	})
}

// A session from an exchanged access token is no recent authentication
// for step-up: the token may come from a refresh token weeks old, and
// whoever holds it must not be able to move the member's address.
func TestExchangedSessionDoesNotPassStepUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		full, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		rt := f.grant(full, secret, "openid", "full_access", "offline_access").Body["refresh_token"].(string)
		e.Clock.Advance(20 * 24 * time.Hour)
		r := f.refresh(full, secret, rt, "")
		apptest.Want(t, r, 200, "")
		for _, face := range []string{"backend", "sdk"} {
			body := map[string]any{"access_token": r.Body["access_token"]}
			var token string
			if face == "backend" {
				x := e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", body)
				apptest.Want(t, x, 200, "")
				token = x.Body["session_token"].(string)
				r = f.refresh(full, secret, r.Body["refresh_token"].(string), "")
				apptest.Want(t, r, 200, "")
			} else {
				x := e.SDK(http.MethodPost, "/b2b/sessions/exchange_access_token", body, "")
				apptest.Want(t, x, 200, "")
				token = x.Data()["session_token"].(string)
			}
			apptest.Want(t, e.StartEmailUpdate(token, "", map[string]any{"email_address": "eve@evil.test"}), 403, "session_too_old")
			// The session serves everything step-up does not guard.
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 200, "")
		}
	})
}
