package idp_test

import (
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// redirectQuery returns the query of a submit or authorize answer's
// redirect_uri, which must be the client's registered one.
func redirectQuery(t *testing.T, r apptest.Resp, data map[string]any) url.Values {
	t.Helper()
	apptest.Want(t, r, 200, "")
	u, err := url.Parse(data["redirect_uri"].(string))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != rpURL {
		t.Fatalf("redirect: %s", r.Raw)
	}
	return u.Query()
}

// Under prompt=none an expired or revoked session is no session (OIDC Core
// 3.1.2.6): submit sends login_required to the client with its state,
// start answers login_required as it does without a session, on both
// faces, and the client and redirect URI are still checked first. Without
// prompt=none a stale session stays a session error.
func TestPromptNoneWithAStaleSessionIsLoginRequired(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("first_party", nil)
		stale := f.session
		apptest.Want(t, e.SDK("POST", "/b2b/sessions/revoke", map[string]any{}, stale), 200, "")

		req := authReq(id, "openid")
		req["prompt"] = "none"
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, stale)
		if q := redirectQuery(t, r, r.Data()); q.Get("error") != "login_required" || q.Get("state") != "st-1" || q.Get("code") != "" {
			t.Fatalf("prompt=none, stale session: %s", r.Raw)
		}
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, stale), 401, "login_required")

		// The redirect URI is validated before anything goes back to it.
		req["redirect_uri"] = "https://evil.test/cb"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, stale), 400, "invalid_redirect_uri")

		// Backend face: the customer's server passes the stale session.
		req = authReq(id, "openid")
		req["prompt"], req["session_token"] = "none", stale
		r = e.Backend("POST", "/v1/b2b/idp/oauth/authorize", req)
		if q := redirectQuery(t, r, r.Body); q.Get("error") != "login_required" {
			t.Fatalf("backend, prompt=none, stale session: %s", r.Raw)
		}

		// Without prompt=none the widget is told its session is gone.
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/submit", authReq(id, "openid"), stale), 404, "session_not_found")
	})
}
