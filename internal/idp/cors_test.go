package idp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// spa is a browser client's origin, one no project lists.
const spa = "https://spa.example.test"

// wantOpenCORS checks the CORS answer of the provider's protocol
// endpoints: any origin, never with credentials.
func wantOpenCORS(t *testing.T, what string, r apptest.Resp) {
	t.Helper()
	if got := r.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("%s: Access-Control-Allow-Origin %q, want *", what, got)
	}
	if got := r.Header.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("%s: Access-Control-Allow-Credentials %q", what, got)
	}
}

// The provider's protocol endpoints answer CORS preflights (204, the
// route's methods and the request headers it reads), so that a browser
// client (a single-page app with PKCE, a browser MCP client) may call
// them; the browser pages (end_session, the logged-out page) do not.
func TestProviderEndpointsAnswerPreflights(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setup(t, e)
		iss := "/v1/public/" + e.Project.Project.ID
		for _, c := range []struct {
			path, method, headers string
		}{
			{iss + "/.well-known/openid-configuration", "GET", "MCP-Protocol-Version"},
			{iss + "/.well-known/oauth-authorization-server", "GET", "MCP-Protocol-Version"},
			{"/.well-known/oauth-authorization-server" + iss, "GET", "MCP-Protocol-Version"},
			{"/.well-known/openid-configuration" + iss, "GET", "MCP-Protocol-Version"},
			{iss + "/.well-known/jwks.json", "GET", "MCP-Protocol-Version"},
			{iss + "/oauth2/token", "POST", "Authorization, Content-Type"},
			{iss + "/oauth2/userinfo", "GET, POST", "Authorization, Content-Type"},
			{iss + "/oauth2/introspect", "POST", "Authorization, Content-Type"},
			{iss + "/oauth2/revoke", "POST", "Authorization, Content-Type"},
		} {
			requested := strings.SplitN(c.method, ", ", 2)[0]
			h := http.Header{"Origin": {spa}, "Access-Control-Request-Method": {requested}}
			if c.headers != "" {
				h.Set("Access-Control-Request-Headers", strings.ToLower(strings.ReplaceAll(c.headers, ", ", ",")))
			}
			r := e.Do(http.MethodOptions, c.path, nil, h, "", "")
			if r.Status != http.StatusNoContent {
				t.Errorf("preflight %s: %d %s", c.path, r.Status, r.Raw)
				continue
			}
			wantOpenCORS(t, "preflight "+c.path, r)
			if got := r.Header.Get("Access-Control-Allow-Methods"); got != c.method {
				t.Errorf("preflight %s: Access-Control-Allow-Methods %q, want %q", c.path, got, c.method)
			}
			if got := r.Header.Get("Access-Control-Allow-Headers"); got != c.headers {
				t.Errorf("preflight %s: Access-Control-Allow-Headers %q, want %q", c.path, got, c.headers)
			}
			if got := r.Header.Get("Access-Control-Max-Age"); got != "600" {
				t.Errorf("preflight %s: Access-Control-Max-Age %q", c.path, got)
			}
		}
		// The browser pages are navigated to, never fetched: no CORS.
		for _, path := range []string{iss + "/oauth2/end_session", iss + "/oauth2/logged_out"} {
			r := e.Do(http.MethodOptions, path, nil, http.Header{"Origin": {spa}, "Access-Control-Request-Method": {"GET"}}, "", "")
			if r.Status == http.StatusNoContent || r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("preflight of the page %s: %d, Access-Control-Allow-Origin %q", path, r.Status,
					r.Header.Get("Access-Control-Allow-Origin"))
			}
			if r := e.Do(http.MethodGet, path, nil, http.Header{"Origin": {spa}}, "", ""); r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("the page %s: Access-Control-Allow-Origin %q", path, r.Header.Get("Access-Control-Allow-Origin"))
			}
		}
	})
}

// A browser public client runs the whole protocol from its own origin:
// discovery, keys, code exchange with PKCE, userinfo, introspection and
// revocation each answer with the CORS headers, and the errors too (the
// challenge readable), the edge's own refusals included.
func TestProviderEndpointsAnswerCORS(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		iss := "/v1/public/" + e.Project.Project.ID
		id, _ := f.client("third_party_public", nil)
		from := func(method, path string, v url.Values, header http.Header) apptest.Resp {
			h := http.Header{"Origin": {spa}, "Content-Type": {"application/x-www-form-urlencoded"}}
			for k, vs := range header {
				h[k] = vs
			}
			var body any
			if v != nil {
				body = v.Encode()
			}
			return e.Do(method, path, body, h, "", "")
		}
		for _, path := range []string{iss + "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server" + iss,
			iss + "/.well-known/jwks.json"} {
			r := from("GET", path, nil, nil)
			apptest.Want(t, r, 200, "")
			wantOpenCORS(t, path, r)
		}

		_, back := f.authorize(authReq(id, "openid", "email"), true)
		r := from("POST", iss+"/oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")},
			"redirect_uri": {rpURL}, "code_verifier": {verifier}, "client_id": {id}}, nil)
		apptest.Want(t, r, 200, "")
		wantOpenCORS(t, "token", r)
		at := r.Body["access_token"].(string)

		bearer := http.Header{"Authorization": {"Bearer " + at}}
		r = from("GET", iss+"/oauth2/userinfo", nil, bearer)
		apptest.Want(t, r, 200, "")
		wantOpenCORS(t, "userinfo", r)
		r = from("POST", iss+"/oauth2/introspect", url.Values{"token": {at}, "client_id": {id}}, nil)
		apptest.Want(t, r, 200, "")
		wantOpenCORS(t, "introspect", r)
		r = from("POST", iss+"/oauth2/revoke", url.Values{"token": {at}, "client_id": {id}}, nil)
		apptest.Want(t, r, 200, "")
		wantOpenCORS(t, "revoke", r)

		// Errors: a page reads the code and the challenge.
		r = from("GET", iss+"/oauth2/userinfo", nil, bearer) // revoked
		if r.Status != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer ") {
			t.Fatalf("userinfo with a revoked token: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
		}
		wantOpenCORS(t, "userinfo refused", r)
		if got := r.Header.Get("Access-Control-Expose-Headers"); got != "WWW-Authenticate" {
			t.Errorf("userinfo refused: Access-Control-Expose-Headers %q", got)
		}
		r = from("POST", iss+"/oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {rpURL}},
			http.Header{"Authorization": {"Basic " + "bm8tc3VjaDp3cm9uZw=="}}) // no-such:wrong
		if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("token with a wrong Basic: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
		}
		wantOpenCORS(t, "token refused", r)
		if got := r.Header.Get("Access-Control-Expose-Headers"); got != "WWW-Authenticate" {
			t.Errorf("token refused: Access-Control-Expose-Headers %q", got)
		}
		// The edge's refusals: a method the path does not serve, a body
		// over the limit.
		r = from("PUT", iss+"/oauth2/token", url.Values{}, nil)
		if r.Status != http.StatusMethodNotAllowed {
			t.Fatalf("PUT token: %d %s", r.Status, r.Raw)
		}
		wantOpenCORS(t, "PUT token", r)
		r = from("POST", iss+"/oauth2/revoke", url.Values{"token": {strings.Repeat("x", int(e.App.Config.BodyLimit))}}, nil)
		if r.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body over the limit: %d %s", r.Status, r.Raw)
		}
		wantOpenCORS(t, "a body over the limit", r)
	})
}
