package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/oauth2-proxy/mockoidc"
)

// bindingCookie is the Set-Cookie of the state binding in a response, or
// nil.
func bindingCookie(r apptest.Resp) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "latchkey_oauth_state" || c.Name == "__Host-latchkey_oauth_state" {
			return c
		}
	}
	return nil
}

// A state is taken only from the browser that started its flow: the
// start sets a cookie there, and a callback without it is refused
// (oauth_state_mismatch) and leaves no token, whichever browser got the
// state. The two attacks it stops:
//   - the attacker starts a login with his own PKCE challenge and sends the
//     provider URL to the victim, whose browser comes back with the
//     victim's login bound to the attacker's verifier;
//   - the attacker logs in at the provider himself and sends the callback
//     URL to the victim, who would land logged in as him.
//
// The refused state is spent: the attacker cannot then finish it from his
// own browser either.
func TestOAuthStateBoundToTheStartingBrowser(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "victim@acme.test")
		e.CreateMember(org, "mallory@acme.test")
		attacker, victim := e.Browser(), e.Browser()
		verifier := ids.Token()
		start := func() string {
			t.Helper()
			r := attacker.Get(startPath(e, "google", url.Values{"organization_id": {org},
				"pkce_code_challenge": {flowtoken.S256(verifier)}}))
			if r.Status != http.StatusFound {
				t.Fatalf("start: %d %s", r.Status, r.Raw)
			}
			return r.Header.Get("Location")
		}

		// The provider URL sent to the victim.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-victim", Email: "victim@acme.test", EmailVerified: true})
		_, cb := follow(t, start())
		r := victim.Get(cb)
		apptest.Want(t, r, 400, "oauth_state_mismatch")
		if loc := r.Header.Get("Location"); loc != "" {
			t.Fatalf("refused callback redirected to %s", loc)
		}
		apptest.Want(t, attacker.Get(cb), 400, "oauth_flow_callback_error")

		// The attacker's own callback URL sent to the victim.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-mallory", Email: "mallory@acme.test", EmailVerified: true})
		_, cb = follow(t, start())
		apptest.Want(t, victim.Get(cb), 400, "oauth_state_mismatch")

		// A forged or foreign cookie value is no better than none.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-mallory", Email: "mallory@acme.test", EmailVerified: true})
		_, cb = follow(t, start())
		at, err := url.Parse(e.Srv.URL + "/v1/b2b/public/oauth/callback")
		if err != nil {
			t.Fatal(err)
		}
		victim.Jar.SetCookies(at, []*http.Cookie{{Name: "latchkey_oauth_state", Value: ids.Token(), Path: at.Path}})
		apptest.Want(t, victim.Get(cb), 400, "oauth_state_mismatch")

		// The browser that started it finishes it, with the verifier.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-mallory", Email: "mallory@acme.test", EmailVerified: true})
		_, cb = follow(t, start())
		r = attacker.Get(cb)
		if r.Status != http.StatusFound {
			t.Fatalf("callback in the starting browser: %d %s", r.Status, r.Raw)
		}
		// The finished flow's cookie is removed.
		if c := bindingCookie(r); c == nil || c.MaxAge >= 0 {
			t.Fatalf("binding cookie after the callback: %v", c)
		}
		u, _ := url.Parse(r.Header.Get("Location"))
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token"),
			"pkce_code_verifier": verifier}, ""), 200, "")
	})
}

// The binding cookie: a random value per start (only its hash is in the
// state), HttpOnly, SameSite=Lax (the provider's redirect back is a
// top-level GET, which carries it), scoped to the callback's path under
// the base URL, living as long as the state, and Secure when the base URL
// is https. The discovery start binds the same way.
func TestOAuthStateBindingCookie(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		first := bindingCookie(e.Get(startPath(e, "google", url.Values{"organization_id": {org}})))
		if first == nil || !first.HttpOnly || first.SameSite != http.SameSiteLaxMode || first.Secure ||
			first.Path != "/v1/b2b/public/oauth/callback" || first.MaxAge != 600 || len(first.Value) < 32 {
			t.Fatalf("binding cookie %+v", first)
		}
		q := url.Values{"public_token": {e.Project.PublicToken}, "discovery_redirect_url": {apptest.Page}}
		second := bindingCookie(e.Get("/v1/b2b/public/oauth/google/discovery/start?" + q.Encode()))
		if second == nil || second.Value == first.Value {
			t.Fatalf("discovery start's binding %+v after %+v", second, first)
		}
		if n := e.Count(`SELECT COUNT(*) FROM flow_tickets WHERE data LIKE $1`, "%"+second.Value+"%"); n != 0 {
			t.Fatalf("the cookie's value is in %d tickets", n)
		}

		// Under a base URL with a path, behind https: the cookie is
		// Secure, and __Host- (so on "/"): a sibling subdomain cannot
		// plant one (flowtoken.Binding).
		e.App.Config.BaseURL = "https://" + strings.TrimPrefix(e.Srv.URL, "http://") + "/auth"
		c := bindingCookie(e.Get(startPath(e, "google", url.Values{"organization_id": {org}})))
		if c == nil || !c.Secure || c.Name != "__Host-latchkey_oauth_state" || c.Path != "/" {
			t.Fatalf("binding cookie under https and a path: %+v", c)
		}
		// The scheme is case-insensitive (Validate accepts HTTPS://): the
		// cookie is Secure under it too.
		e.App.Config.BaseURL = "HTTPS://" + strings.TrimPrefix(e.Srv.URL, "http://")
		if c := bindingCookie(e.Get(startPath(e, "google", url.Values{"organization_id": {org}}))); c == nil || !c.Secure {
			t.Fatalf("binding cookie under HTTPS://: %+v", c)
		}
	})
}

// The provider sends the browser back to the callback on the base URL,
// and a cookie reaches only the host that set it; a start served under
// another name of the server (the widget's API base may be 127.0.0.1 where
// the base URL says localhost) is sent to the same start on the base URL
// first, which binds the browser there. Once: a start already sent
// proceeds wherever it is, so a proxy that rewrites the Host header does
// not send it round for ever.
func TestOAuthStartMovesToTheCallbackHost(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		port := e.Srv.URL[strings.LastIndex(e.Srv.URL, ":")+1:]
		e.App.Config.BaseURL = "http://localhost:" + port
		path := startPath(e, "google", url.Values{"organization_id": {org}})

		r := e.Get(path)
		want := "http://localhost:" + port + path + "&latchkey_callback_host=1"
		if loc := r.Header.Get("Location"); r.Status != http.StatusFound || loc != want || bindingCookie(r) != nil {
			t.Fatalf("start on another host: %d %q %v, want %q and no cookie", r.Status, loc, r.Header, want)
		}
		// Followed as a browser would (localhost may not resolve to the
		// test server's 127.0.0.1 here: the request goes there with the
		// base URL's Host), the start binds and goes to the provider.
		req, err := http.NewRequest(http.MethodGet, e.Srv.URL+strings.TrimPrefix(r.Header.Get("Location"), "http://localhost:"+port), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "localhost:" + port
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		binding := bindingCookie(apptest.Resp{Header: res.Header})
		if res.StatusCode != http.StatusFound || binding == nil || !strings.HasPrefix(res.Header.Get("Location"), m.Issuer()) {
			t.Fatalf("start on the base URL's host: %d %v", res.StatusCode, res.Header)
		}
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		_, cb := follow(t, res.Header.Get("Location"))
		if !strings.HasPrefix(cb, "http://localhost:"+port+"/v1/b2b/public/oauth/callback?") {
			t.Fatalf("provider sent the browser to %q", cb)
		}
		req, err = http.NewRequest(http.MethodGet, e.Srv.URL+strings.TrimPrefix(cb, "http://localhost:"+port), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "localhost:" + port
		req.AddCookie(binding)
		if res, err = client.Do(req); err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), apptest.Page) {
			t.Fatalf("callback: %d %v", res.StatusCode, res.Header)
		}

		// Already sent once: it binds where it is.
		r = e.Get(path + "&latchkey_callback_host=1")
		if r.Status != http.StatusFound || bindingCookie(r) == nil || !strings.HasPrefix(r.Header.Get("Location"), m.Issuer()) {
			t.Fatalf("start marked as sent: %d %v", r.Status, r.Header)
		}
	})
}
