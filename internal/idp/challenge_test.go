package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A failed client authentication carries the Basic challenge only when the
// client authenticated through the Authorization header (RFC 6749 5.2).
// Without the header it is 400 invalid_client and no challenge: a
// cross-site form auto-submitted to the token endpoint must not make the
// browser show its own password dialog naming this server's domain.
func TestClientChallengeOnlyForBasic(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		base := "/v1/public/" + e.Project.Project.ID
		form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
		code := url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {rpURL}}
		token := url.Values{"token": {"x"}}
		with := func(v url.Values, kv ...string) string {
			out := url.Values{}
			for k, vs := range v {
				out[k] = vs
			}
			for i := 0; i < len(kv); i += 2 {
				out.Set(kv[i], kv[i+1])
			}
			return out.Encode()
		}
		for _, c := range []struct {
			name, path, body string
		}{
			// What a cross-site auto-submitted form sends: no client at all.
			{"token, no client", "/oauth2/token", with(code)},
			{"token, client_secret_post", "/oauth2/token", with(code, "client_id", id, "client_secret", "wrong")},
			{"token, unknown public client", "/oauth2/token", with(code, "client_id", "no-such-client")},
			{"token, client_credentials in the body", "/oauth2/token",
				with(url.Values{"grant_type": {"client_credentials"}}, "client_id", "no-such-job", "client_secret", "wrong")},
			{"introspect, client_secret_post", "/oauth2/introspect", with(token, "client_id", id, "client_secret", "wrong")},
			{"revoke, no client", "/oauth2/revoke", with(token)},
		} {
			r := e.Do("POST", base+c.path, c.body, form, "", "")
			oauthErr(t, r, 400, "invalid_client")
			if h := r.Header.Get("WWW-Authenticate"); h != "" {
				t.Errorf("%s: WWW-Authenticate %q without an Authorization header", c.name, h)
			}
		}
		for _, path := range []string{"/oauth2/token", "/oauth2/introspect", "/oauth2/revoke"} {
			body := with(token)
			if path == "/oauth2/token" {
				body = with(code)
			}
			r := e.Do("POST", base+path, body, form, id, "wrong")
			oauthErr(t, r, 401, "invalid_client")
			if h := r.Header.Get("WWW-Authenticate"); h != `Basic realm="latchkey"` {
				t.Errorf("%s with Basic: WWW-Authenticate %q", path, h)
			}
		}
		// The bearer endpoint keeps RFC 6750's challenge, which no browser
		// prompts for.
		r := e.Do("GET", base+"/oauth2/userinfo", nil, nil, "", "")
		oauthErr(t, r, 401, "invalid_token")
		if h := r.Header.Get("WWW-Authenticate"); h != `Bearer realm="latchkey"` {
			t.Errorf("userinfo: WWW-Authenticate %q", h)
		}
	})
}
