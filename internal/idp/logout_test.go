package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// An id_token_hint must be an ID token this provider signed for the client
// (OIDC RP-Initiated Logout 2): one re-signed with another key, one issued
// to another client, and an access token whose custom audience is the
// client (right audience, wrong issuer), and the token respelled, are all
// invalid_request.
func TestLogoutHintMustBeOurIDTokenForTheClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, otherSecret := f.client("third_party", nil)
		ownAud, ownAudSecret := f.client("third_party", nil)
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+ownAud, map[string]any{"access_token_custom_audience": ownAud}), 200, "")
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		logout := func(client, hint string) apptest.Resp {
			return e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": client,
				"post_logout_redirect_uri": "https://rp.test/bye", "id_token_hint": hint}, f.session)
		}
		apptest.Want(t, logout(id, idt), 200, "")
		apptest.Want(t, logout(id, forge(t, idt)), 400, "invalid_request")
		for name, s := range apptest.Respellings(t, idt) { // only the canonical spelling (compactjws)
			t.Run(name, func(t *testing.T) { apptest.Want(t, logout(id, s), 400, "invalid_request") })
		}
		apptest.Want(t, logout(id, f.grant(other, otherSecret, "openid").Body["id_token"].(string)), 400, "invalid_request")
		apptest.Want(t, logout(ownAud, f.grant(ownAud, ownAudSecret, "openid").Body["access_token"].(string)), 400, "invalid_request")
	})
}

// end_session answers POST with a form body like GET (RP-Initiated Logout
// 1.0 2: OPs MUST support both) and passes the relying party's parameters
// on to the operator's page, with no marker of its own: the widget tells a
// logout by its post_logout_redirect_uri.
func TestEndSessionByGETAndPOST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		params := url.Values{"client_id": {id}, "post_logout_redirect_uri": {"https://rp.test/bye"}, "state": {"s"}}
		wantRedirect(t, "GET", endSession(f, "GET", params), http.StatusFound, params)
		wantRedirect(t, "POST", endSession(f, "POST", params), http.StatusSeeOther, params)
		oauthErr(t, e.Do("POST", endSessionPath(f), "client_id=a&client_id=b", formHeader, "", ""), 400, "invalid_request")
	})
}

// Without client_id the client is the id_token_hint's audience (RP-Initiated
// Logout 1.0 2), found and checked by end_session, since the widget and
// logout/start require client_id. The hint must be ours (an expired one
// still is) and name one client; beside a client_id it must agree with it.
// With neither there is no client to log out of.
func TestEndSessionTakesTheClientFromTheHint(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, _ := f.client("third_party", nil)
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		bye := "https://rp.test/bye"
		for _, method := range []string{"GET", "POST"} {
			r := endSession(f, method, url.Values{"id_token_hint": {idt}, "post_logout_redirect_uri": {bye}, "state": {"s"}})
			wantRedirect(t, method+" hint alone", r, map[string]int{"GET": 302, "POST": 303}[method],
				url.Values{"client_id": {id}, "id_token_hint": {idt}, "post_logout_redirect_uri": {bye}, "state": {"s"}})
		}
		wantRedirect(t, "hint and its client", endSession(f, "GET", url.Values{"client_id": {id}, "id_token_hint": {idt}, "post_logout_redirect_uri": {bye}}),
			302, url.Values{"client_id": {id}, "id_token_hint": {idt}, "post_logout_redirect_uri": {bye}})

		for name, params := range map[string]url.Values{
			"neither client_id nor hint": {"post_logout_redirect_uri": {bye}, "state": {"s"}},
			"hint of another client":     {"client_id": {other}, "id_token_hint": {idt}, "post_logout_redirect_uri": {bye}},
			"hint not signed by us":      {"id_token_hint": {forge(t, idt)}, "post_logout_redirect_uri": {bye}},
			"hint naming two clients":    {"id_token_hint": {resign(t, e, idt, map[string]any{"aud": []string{id, other}})}},
			"hint of another issuer":     {"id_token_hint": {resign(t, e, idt, map[string]any{"iss": "https://elsewhere.test"})}},
			"not a JWT":                  {"id_token_hint": {"x"}},
		} {
			for _, method := range []string{"GET", "POST"} {
				r := endSession(f, method, params)
				if r.Status != 400 || r.Body["error"] != "invalid_request" {
					t.Fatalf("%s %s: %d %s", method, name, r.Status, r.Raw)
				}
			}
		}
		if r := endSession(f, "GET", url.Values{}); !strings.Contains(r.Body["error_description"].(string), "client_id or id_token_hint is required") {
			t.Fatalf("neither: %s", r.Raw)
		}

		// An expired hint still names the client (logout/start accepts it too).
		e.Clock.Advance(2 * time.Hour)
		wantRedirect(t, "expired hint", endSession(f, "GET", url.Values{"id_token_hint": {idt}, "post_logout_redirect_uri": {bye}}),
			302, url.Values{"client_id": {id}, "id_token_hint": {idt}, "post_logout_redirect_uri": {bye}})
	})
}

// Without a post_logout_redirect_uri, end_session names the provider's own
// logged-out page, which logout/start accepts for every client of the
// project, so the widget's Logout flow runs as for any redirect URI. Any
// other URL still needs an exact registered match, and logout/start still
// requires both parameters.
func TestLogoutWithoutPostLogoutRedirectEndsOnTheLoggedOutPage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		public, _ := f.client("first_party_public", map[string]any{"post_logout_redirect_urls": []string{}})
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		loggedOut := f.issuer() + "/oauth2/logged_out"

		r := endSession(f, "POST", url.Values{"client_id": {id}, "state": {"s"}})
		wantRedirect(t, "client only", r, http.StatusSeeOther, url.Values{"client_id": {id}, "post_logout_redirect_uri": {loggedOut}, "state": {"s"}})
		r = endSession(f, "GET", url.Values{"id_token_hint": {idt}})
		wantRedirect(t, "hint only", r, http.StatusFound, url.Values{"client_id": {id}, "id_token_hint": {idt}, "post_logout_redirect_uri": {loggedOut}})

		// What the widget then sends, from the page address.
		logout := func(body map[string]any, sess string) apptest.Resp {
			return e.SDK("POST", "/b2b/oauth/logout/start", body, sess)
		}
		for _, c := range []struct {
			name    string
			body    map[string]any
			session string
			want    string
			confirm bool
		}{
			{"client with state", map[string]any{"client_id": id, "post_logout_redirect_uri": loggedOut, "state": "s"}, f.session, loggedOut + "?state=s", true},
			{"the member's hint", map[string]any{"client_id": id, "post_logout_redirect_uri": loggedOut, "id_token_hint": idt}, f.session, loggedOut, false},
			{"a client with no post-logout URL", map[string]any{"client_id": public, "post_logout_redirect_uri": loggedOut}, f.session, loggedOut, true},
			{"no session", map[string]any{"client_id": id, "post_logout_redirect_uri": loggedOut}, "", loggedOut, false},
		} {
			r := logout(c.body, c.session)
			apptest.Want(t, r, 200, "")
			if r.Data()["redirect_uri"] != c.want || r.Data()["consent_required"] != c.confirm {
				t.Fatalf("%s: %s", c.name, r.Raw)
			}
		}

		// Only exactly that page, and only this project's.
		for _, uri := range []string{loggedOut + "/", loggedOut + "?x=1", f.e.Srv.URL + "/v1/public/project-test-other/oauth2/logged_out"} {
			apptest.Want(t, logout(map[string]any{"client_id": id, "post_logout_redirect_uri": uri}, f.session), 400, "invalid_redirect_uri")
		}
		apptest.Want(t, logout(map[string]any{"client_id": "connected-app-test-unknown", "post_logout_redirect_uri": loggedOut}, f.session), 404, "connected_app_not_found")
		apptest.Want(t, logout(map[string]any{"post_logout_redirect_uri": loggedOut, "id_token_hint": idt}, f.session), 400, "invalid_request")
		apptest.Want(t, logout(map[string]any{"client_id": id, "id_token_hint": idt}, f.session), 400, "invalid_request")
	})
}

// The logged-out page is the server's own HTML, without scripts, under the
// house page policy: no framing, no outside resources, never cached.
func TestLoggedOutPage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Get("/v1/public/" + e.Project.Project.ID + "/oauth2/logged_out?state=s")
		if r.Status != 200 || !strings.Contains(string(r.Raw), "You have been logged out. You may close this page.") {
			t.Fatalf("logged-out page: %d %s", r.Status, r.Raw)
		}
		if strings.Contains(strings.ToLower(string(r.Raw)), "<script") {
			t.Fatalf("the page has a script: %s", r.Raw)
		}
		for k, want := range map[string]string{
			"Content-Type":            "text/html; charset=utf-8",
			"Cache-Control":           "no-store",
			"X-Frame-Options":         "DENY",
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": httpapi.CSP{InlineStyles: true}.String(),
		} {
			if got := r.Header.Get(k); got != want {
				t.Fatalf("%s: %q, want %q", k, got, want)
			}
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-eval") {
			t.Fatalf("CSP %q", csp)
		}
		oauthErr(t, e.Get("/v1/public/project-test-unknown/oauth2/logged_out"), 404, "invalid_request")
	})
}

var formHeader = http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

func endSessionPath(f *fixture) string {
	return "/v1/public/" + f.e.Project.Project.ID + "/oauth2/end_session"
}

// endSession calls end_session with params in the query (GET) or a form
// body (POST).
func endSession(f *fixture, method string, params url.Values) apptest.Resp {
	f.t.Helper()
	if method == "GET" {
		return f.e.Get(endSessionPath(f) + "?" + params.Encode())
	}
	return f.e.Do("POST", endSessionPath(f), params.Encode(), formHeader, "", "")
}

// wantRedirect checks end_session's answer: the operator's page with
// exactly the want parameters.
func wantRedirect(t *testing.T, name string, r apptest.Resp, status int, want url.Values) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
	}
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil || loc.Scheme+"://"+loc.Host+loc.Path != page || !reflect.DeepEqual(loc.Query(), want) {
		t.Fatalf("%s: location %s, want the page with %v", name, r.Header.Get("Location"), want)
	}
}

// resign re-signs a JWT with the project's own signing key after setting
// the given claims: a token only a claim check refuses.
func resign(t *testing.T, e *apptest.Env, token string, set map[string]any) string {
	t.Helper()
	claims, _ := claimsOf(t, token)
	for k, v := range set {
		claims[k] = v
	}
	keys, err := e.App.Projects.SigningKeys(context.Background(), e.Project.Project.ID)
	if err != nil || len(keys) == 0 {
		t.Fatalf("signing keys: %v", err)
	}
	return signRS256(t, keys[0].Private, keys[0].KID, claims)
}
