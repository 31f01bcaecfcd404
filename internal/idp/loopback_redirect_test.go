package idp_test

import (
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A native app registers its loopback redirect URI without the port it
// will listen on, which the operating system assigns when the flow starts:
// the provider must accept the URI with any port (RFC 8252 7.3, RFC 9700
// 2.1), send the code there, and take it back with that same URI. Only
// the port may vary: another path is still refused, on the page and
// never by a redirect.
func TestNativeAppLoopbackRedirectTakesAnyPort(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("first_party_public", map[string]any{"redirect_urls": []string{"http://127.0.0.1/oauth/callback"}})
		const cb = "http://127.0.0.1:51234/oauth/callback"
		req := authReq(id, "openid")
		req["redirect_uri"] = cb
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 200, "")
		req["consent_granted"] = false
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
		apptest.Want(t, r, 200, "")
		u, err := url.Parse(r.Data()["redirect_uri"].(string))
		if err != nil || u.Host != "127.0.0.1:51234" || u.Path != "/oauth/callback" || u.Query().Get("code") == "" {
			t.Fatalf("redirect %s", r.Raw)
		}
		v := url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "redirect_uri": {cb},
			"code_verifier": {verifier}}
		apptest.Want(t, f.form("/oauth2/token", id, "", v), 200, "")

		req["redirect_uri"] = "http://127.0.0.1:51234/oauth/other"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session), 400, "invalid_redirect_uri")
	})
}
