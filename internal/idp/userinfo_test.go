package idp_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The userinfo endpoint reads the Bearer scheme case-insensitively (RFC
// 7235 2.1), and every token error carries its RFC 6750 3 challenge: the
// 403 for a token without openid says insufficient_scope and names the
// scope, and a request without a bearer token gets the bare challenge. Client authentication at the provider's other endpoints reads
// Basic case-insensitively too.
func TestBearerAndBasicSchemes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		at := f.grant(id, secret, "openid", "email").Body["access_token"].(string)
		userinfo := func(auth string) apptest.Resp {
			return e.Do("GET", "/v1/public/"+e.Project.Project.ID+"/oauth2/userinfo", "", http.Header{"Authorization": {auth}}, "", "")
		}
		for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
			if r := userinfo(scheme + " " + at); r.Status != 200 || r.Body["email"] != "ada@acme.test" {
				t.Fatalf("%s: %d %s", scheme, r.Status, r.Raw)
			}
		}
		r := userinfo("Bearer nope")
		oauthErr(t, r, 401, "invalid_token")
		if h := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `error="invalid_token"`) {
			t.Fatalf("a wrong token: WWW-Authenticate %q", h)
		}
		// No bearer token at all: the bare challenge, without an error
		// code (RFC 6750 3.1).
		for _, auth := range []string{"", "Basic " + at, "Bearer", "Bearer "} {
			r := userinfo(auth)
			oauthErr(t, r, 401, "invalid_token")
			if h := r.Header.Get("WWW-Authenticate"); h != `Bearer realm="latchkey"` {
				t.Fatalf("%q: WWW-Authenticate %q", auth, h)
			}
		}

		email := f.grant(id, secret, "email").Body["access_token"].(string)
		r = userinfo("Bearer " + email)
		oauthErr(t, r, 403, "insufficient_scope")
		if h := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `error="insufficient_scope"`) ||
			!strings.Contains(h, `scope="openid"`) {
			t.Fatalf("insufficient_scope: WWW-Authenticate %q", h)
		}

		basic := "basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
		in := e.Do("POST", "/v1/public/"+e.Project.Project.ID+"/oauth2/introspect", url.Values{"token": {at}}.Encode(),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Authorization": {basic}}, "", "")
		if in.Status != 200 || in.Body["active"] != true {
			t.Fatalf("lower-case basic: %d %s", in.Status, in.Raw)
		}
	})
}
