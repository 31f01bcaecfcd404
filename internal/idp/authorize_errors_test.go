package idp_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// Once the client and redirect URI are validated, what is wrong with an
// authorization request goes back to the client (RFC 6749 4.1.2.1) with
// its error code and state: submit redirects; start still answers the
// widget with the catalogue error.
func TestSubmitSendsRequestErrorsToTheClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		conf, _ := f.client("third_party", nil)
		pub, _ := f.client("third_party_public", nil)
		for name, c := range map[string]struct {
			req     map[string]any
			code    string
			errType string
		}{
			"response_type":  {with(authReq(conf, "openid"), "response_type", "token"), "unsupported_response_type", "unsupported_response_type"},
			"plain PKCE":     {with(authReq(conf, "openid"), "code_challenge_method", "plain"), "invalid_request", "invalid_request"},
			"public no PKCE": {with(authReq(pub, "openid"), "code_challenge", ""), "invalid_request", ""},
			"bad prompt":     {with(authReq(conf, "openid"), "prompt", "select_account"), "invalid_request", "invalid_request"},
			"unknown scope":  {authReq(conf, "openid", "launch:missiles"), "invalid_scope", "invalid_scope"},
		} {
			if r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", c.req, f.session); r.Status < 400 || (c.errType != "" && r.ErrType() != c.errType) {
				t.Errorf("%s: start %d %s", name, r.Status, r.Raw)
			}
			c.req["consent_granted"] = true
			r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", c.req, f.session)
			if q := redirectQuery(t, r, r.Data()); q.Get("error") != c.code || q.Get("error_description") == "" ||
				q.Get("state") != "st-1" || q.Get("code") != "" {
				t.Errorf("%s: submit %s", name, r.Raw)
			}
		}

		// The organization's policy refuses the app: access_denied.
		apptest.Want(t, e.Backend("PUT", "/v1/b2b/organizations/"+f.org, map[string]any{"third_party_connected_apps_allowed_type": "NOT_ALLOWED"}), 200, "")
		req := authReq(conf, "openid")
		req["consent_granted"] = true
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
		if q := redirectQuery(t, r, r.Data()); q.Get("error") != "access_denied" || q.Get("code") != "" {
			t.Fatalf("organization policy: %s", r.Raw)
		}

		// An unregistered redirect URI is never redirected to.
		req = with(authReq(conf, "openid"), "response_type", "token")
		req["redirect_uri"] = "https://evil.test/cb"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session), 400, "invalid_redirect_uri")
	})
}

// with returns req with key set to v.
func with(req map[string]any, key string, v any) map[string]any {
	req[key] = v
	return req
}

// A stale session at authorize is checked by session.Service.Check: it
// counts against the client's address like a failed session check, so
// with sessions/authenticate it reaches session.FailuresPerIP, past which
// authorize refuses another with 429 while a valid session still passes.
func TestAuthorizeSessionFailuresCounted(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("first_party", nil)
		start := func(session string) apptest.Resp {
			return e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/start", authReq(id, "openid"), session)
		}
		for i := range session.FailuresPerIP.Limit {
			stale := fmt.Sprintf("stale-%d", i)
			if i%2 == 0 {
				apptest.Want(t, start(stale), 404, "session_not_found")
			} else {
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, stale), 404, "session_not_found")
			}
		}
		apptest.Want(t, start("stale-again"), 429, "too_many_requests")
		apptest.Want(t, start(f.session), 200, "")
	})
}
