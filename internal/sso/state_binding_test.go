package sso_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
)

// notThisBrowser is the refusal's text for a state the browser that
// brought it does not hold; a state that no longer redeems (spent) says
// it answers no login started here.
const (
	notThisBrowser = "does not belong to this browser"
	notStartedHere = "does not answer a login started here"
)

// ssoBinding is the Set-Cookie of the SSO state binding in r, or nil.
func ssoBinding(r apptest.Resp) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "latchkey_sso_state" || c.Name == "__Host-latchkey_sso_state" {
			return c
		}
	}
	return nil
}

// wantRefused is wantPage for a refused state, whose page says why (why:
// notThisBrowser or notStartedHere), and which sends the browser nowhere.
func wantRefused(t *testing.T, r apptest.Resp, errType, why string) {
	t.Helper()
	wantPage(t, r, 400, errType)
	if !strings.Contains(string(r.Raw), why) || r.Header.Get("Location") != "" {
		t.Fatalf("refusal %q, Location %q: %s", errType, r.Header.Get("Location"), r.Raw)
	}
}

// The login CSRF, OIDC: an attacker starts a login for his own account,
// gets the provider's redirect back to our callback, and has a victim's
// browser open it. A state is taken only from the browser that started
// its login: the callback without the start's cookie is refused (and
// sends the browser nowhere, so no SSO token for the attacker's account
// reaches the victim's application), and the refused state is spent: the
// attacker cannot finish it from his own browser either. Another start's
// cookie (the victim's own login under way) or a forged value is no
// better than none, and the victim's own login still finishes. The
// browser that started a login finishes it, and its cookie is removed.
func TestSSOOIDCStateBoundToTheStartingBrowser(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		attacker, victim := e.Browser(), e.Browser()
		mallory := &mockoidc.MockUser{Subject: "oidc-mallory", Email: "mallory@acme.test", EmailVerified: true}
		// callback starts a login in b as user and returns the URL the
		// provider sends b back to.
		callback := func(b *apptest.Env, user *mockoidc.MockUser) string {
			t.Helper()
			q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
			r := b.Get("/v1/public/sso/start?" + q.Encode())
			if r.Status != http.StatusFound || ssoBinding(r) == nil {
				t.Fatalf("start: %d %v %s", r.Status, r.Header, r.Raw)
			}
			s.op.QueueUser(user)
			if r = b.Get(r.Header.Get("Location")); r.Status != http.StatusFound {
				t.Fatalf("provider: %d %s", r.Status, r.Raw)
			}
			return r.Header.Get("Location")
		}

		// The attacker's callback URL opened by the victim: refused, and
		// spent.
		cb := callback(attacker, mallory)
		wantRefused(t, victim.Get(cb), "unsolicited_oidc_response", notThisBrowser)
		wantRefused(t, attacker.Get(cb), "unsolicited_oidc_response", notStartedHere)

		// The victim's own login under way: its cookie is another state's.
		// The refusal leaves it, and the victim's login finishes.
		lin := &mockoidc.MockUser{Subject: "oidc-lin", Email: "lin@acme.test", EmailVerified: true}
		own := callback(victim, lin)
		wantRefused(t, victim.Get(callback(attacker, mallory)), "unsolicited_oidc_response", notThisBrowser)
		r := victim.Get(own)
		token := tokenFrom(t, r)
		if c := ssoBinding(r); c == nil || c.MaxAge >= 0 || c.Path != "/v1/b2b/sso/callback/" {
			t.Fatalf("binding cookie after the login: %+v", c)
		}
		r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if got := r.Data()["member"].(map[string]any)["email_address"]; got != "lin@acme.test" {
			t.Fatalf("the victim's login logged in %v", got)
		}

		// A forged cookie value is no better than none.
		cb = callback(attacker, mallory)
		at, err := url.Parse(e.Srv.URL + "/v1/b2b/sso/callback/")
		if err != nil {
			t.Fatal(err)
		}
		forger := e.Browser()
		forger.Jar.SetCookies(at, []*http.Cookie{{Name: "latchkey_sso_state", Value: ids.Token(), Path: at.Path}})
		wantRefused(t, forger.Get(cb), "unsolicited_oidc_response", notThisBrowser)

		// The browser that started it finishes it.
		tokenFrom(t, attacker.Get(callback(attacker, mallory)))
	})
}

// The OIDC binding cookie: a random value per start (only its hash is in
// the state), HttpOnly, SameSite=Lax (the provider's redirect back is a
// top-level GET, which carries it), scoped to the callbacks' path under
// the base URL, living as long as the state (fifteen minutes), and Secure
// when the base URL is https. The client never asks the provider for
// another response_mode (form_post would come back by a POST, which does
// not carry a Lax cookie).
func TestSSOOIDCBindingCookie(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID},
			"provider_response_mode": {"form_post"}}
		r := e.Get("/v1/public/sso/start?" + q.Encode())
		c := ssoBinding(r)
		if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/v1/b2b/sso/callback/" ||
			c.MaxAge != 900 || len(c.Value) < 32 {
			t.Fatalf("binding cookie %+v", c)
		}
		if n := e.Count(`SELECT COUNT(*) FROM flow_tickets WHERE data LIKE $1`, "%"+c.Value+"%"); n != 0 {
			t.Fatalf("the cookie's value is in %d tickets", n)
		}
		authz, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		if authz.Query().Has("response_mode") {
			t.Fatalf("the start asks the provider for response_mode: %s", authz)
		}

		// Under a base URL with a path, behind https.
		e.App.Config.BaseURL = "https://" + strings.TrimPrefix(e.Srv.URL, "http://") + "/auth"
		c = ssoBinding(e.Get("/v1/public/sso/start?" + q.Encode()))
		if c == nil || !c.Secure || c.SameSite != http.SameSiteLaxMode || c.Name != "__Host-latchkey_sso_state" || c.Path != "/" {
			t.Fatalf("binding cookie under https and a path: %+v", c)
		}
	})
}

// onHTTPS serves e's handler over TLS too, makes that server's https URL
// the base URL, and returns a browser of it; the SAML IdP then fetches our
// metadata there.
func onHTTPS(t *testing.T, s *samlEnv) *apptest.Env {
	t.Helper()
	srv := httptest.NewTLSServer(s.App.Handler())
	t.Cleanup(srv.Close)
	s.App.Config.BaseURL = srv.URL
	s.idp.client = srv.Client()
	b := s.Browser()
	b.Srv = srv
	return b
}

// The login CSRF, SAML: an attacker starts a login for his own account
// and has a victim's browser post his IdP's response (an auto-submitting
// form to our ACS). On an https base URL the start binds the login with a
// SameSite=None; Secure cookie, which the IdP's cross-site post carries:
// the victim's post is refused (and sends the browser nowhere) and spends
// the state, so a second response to the same request, from the
// attacker's own browser, is refused too. The browser that started a
// login finishes it, and its cookie is removed.
//
// On an http base URL a SAML login is not bound (browsers refuse
// SameSite=None without Secure, and a Lax cookie does not come with a
// cross-site post): the start sets no cookie, and the response posted
// from any browser logs in, as before.
func TestSSOSAMLStateBoundOnHTTPS(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		plain := s.Env
		tls := onHTTPS(t, s)
		start := func(b *apptest.Env) (apptest.Resp, string) {
			t.Helper()
			q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
			r := b.Get("/v1/public/sso/start?" + q.Encode())
			if r.Status != http.StatusFound {
				t.Fatalf("start: %d %s", r.Status, r.Raw)
			}
			return r, r.Header.Get("Location")
		}
		post := func(b *apptest.Env, acs string, form url.Values) apptest.Resp {
			t.Helper()
			return b.Do(http.MethodPost, acs, form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "", "")
		}
		s.idp.login("mallory@acme.test", "okta-mallory", "Mal", "Lory")

		attacker, victim := tls.Browser(), tls.Browser()
		r, idpURL := start(attacker)
		c := ssoBinding(r)
		if c == nil || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteNoneMode || c.Name != "__Host-latchkey_sso_state" || c.Path != "/" ||
			c.MaxAge != 900 {
			t.Fatalf("binding cookie on https: %+v", c)
		}
		acs, form := s.idp.follow(idpURL)
		if !strings.HasPrefix(acs, "https://") {
			t.Fatalf("ACS %q", acs)
		}
		_, again := s.idp.follow(idpURL) // another response to the same request
		wantRefused(t, post(victim, acs, form), "unsolicited_saml_response", notThisBrowser)
		wantRefused(t, post(attacker, acs, again), "unsolicited_saml_response", notStartedHere)

		// The starting browser finishes its login.
		_, idpURL = start(attacker)
		acs, form = s.idp.follow(idpURL)
		r = post(attacker, acs, form)
		tokenFrom(t, r)
		if c := ssoBinding(r); c == nil || c.MaxAge >= 0 || !c.Secure || c.SameSite != http.SameSiteNoneMode {
			t.Fatalf("binding cookie after the login: %+v", c)
		}

		// On http: no binding, and a post from any browser logs in.
		s.App.Config.BaseURL = plain.Srv.URL
		s.idp.client = nil
		r, idpURL = start(plain.Browser())
		if c := ssoBinding(r); c != nil {
			t.Fatalf("a SAML start on http binds: %+v", c)
		}
		acs, form = s.idp.follow(idpURL)
		tokenFrom(t, post(plain.Browser(), acs, form))
	})
}

// The IdP posts to the ACS URL the AuthnRequest names. An
// alternative_acs_url is the customer's proxy, on a host the binding
// cookie does not reach: logins through it are not bound, even on https,
// where logins to our own ACS URL are.
func TestSSOSAMLAlternativeACSNotBound(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		tls := onHTTPS(t, s)
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
		if c := ssoBinding(tls.Get("/v1/public/sso/start?" + q.Encode())); c == nil {
			t.Fatal("no binding for our own ACS URL on https")
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"alternative_acs_url": "https://legacy.example.com/saml/acs"}), 200, "")
		if c := ssoBinding(tls.Get("/v1/public/sso/start?" + q.Encode())); c != nil {
			t.Fatalf("a login through the alternative ACS URL binds: %+v", c)
		}
	})
}

// The identity provider sends the browser back to the callback on the
// base URL, and a cookie reaches only the host that set it: a start
// served under another name of the server is sent to the same start on
// the base URL first, which binds the browser there. Once: a start
// already sent proceeds wherever it is.
func TestSSOStartMovesToTheCallbackHost(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		port := e.Srv.URL[strings.LastIndex(e.Srv.URL, ":")+1:]
		e.App.Config.BaseURL = "http://localhost:" + port
		path := "/v1/public/sso/start?" + url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}.Encode()

		r := e.Get(path)
		want := "http://localhost:" + port + path + "&latchkey_callback_host=1"
		if loc := r.Header.Get("Location"); r.Status != http.StatusFound || loc != want || ssoBinding(r) != nil {
			t.Fatalf("start on another host: %d %q %v, want %q and no cookie", r.Status, loc, r.Header, want)
		}
		r = e.Get(path + "&latchkey_callback_host=1")
		if r.Status != http.StatusFound || ssoBinding(r) == nil || !strings.HasPrefix(r.Header.Get("Location"), s.op.Issuer()) {
			t.Fatalf("start marked as sent: %d %v", r.Status, r.Header)
		}
	})
}
