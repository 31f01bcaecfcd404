package sso_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	lkconfig "github.com/latchkey/latchkey/internal/config"
)

// internalService stands for what an organization's administrator must
// not reach through SSO's fetches (an admin API, cloud metadata): a
// server on host counting the connections it accepts, which must stay 0.
func internalService(t *testing.T, host string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"secret": "internal-answer"})
	}))
	srv.Listener = ln
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// allowOnly runs fn with LATCHKEY_SSO_ALLOWED_NETWORKS set to list.
func allowOnly(list string) func(*lkconfig.Config) {
	return func(c *lkconfig.Config) { c.SSOAllowedNetworks = list }
}

// orgAdmin makes a new member of orgID an administrator and returns their
// session token: the party who configures connections from the browser.
func orgAdmin(t *testing.T, e *apptest.Env, orgID string) string {
	t.Helper()
	memberID := e.CreateMember(orgID, "admin@acme.test")
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+orgID+"/members/"+memberID,
		map[string]any{"is_admin": true}), 200, "")
	return e.SessionFor(orgID, "admin@acme.test")
}

// wantRefusal checks a fetch's refusal says nothing of the address.
func wantRefusal(t *testing.T, r apptest.Resp, status int, errType string) {
	t.Helper()
	apptest.Want(t, r, status, errType)
	if s := string(r.Raw); strings.Contains(s, "127.0.0") || strings.Contains(s, "internal-answer") {
		t.Fatalf("the answer tells of the address: %s", s)
	}
}

// With only 127.0.0.1 allowlisted (where the tests' identity providers
// are), an administrator naming 127.0.0.2 for any fetched URL (SAML
// metadata, directly or through a redirect, OIDC issuer, token, userinfo
// and JWKS endpoints) never gets a connection to it.
func TestSSOFetchesRefuseUnlistedAddresses(t *testing.T) {
	apptest.EachWith(t, allowOnly("127.0.0.1/32"), func(t *testing.T, e *apptest.Env) {
		inner, conns := internalService(t, "127.0.0.2")
		redirect := httptest.NewServer(http.RedirectHandler(inner.URL+"/metadata", http.StatusFound))
		t.Cleanup(redirect.Close)
		s := newSAMLEnv(t, e, nil)
		admin := orgAdmin(t, e, s.orgID)
		for _, u := range []string{inner.URL + "/metadata", redirect.URL + "/metadata"} {
			r := e.SDK(http.MethodPut, "/b2b/sso/saml/"+s.connID+"/url", map[string]any{"metadata_url": u}, admin)
			wantRefusal(t, r, 400, "invalid_saml_metadata_url")
		}

		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Internal"}, admin)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": inner.URL}, admin)
		apptest.Want(t, r, 200, "")
		if w := r.Data()["warning"].(string); !strings.Contains(w, "could not be read") || strings.Contains(w, "127.0.0") {
			t.Fatalf("issuer on 127.0.0.2: warning %q", w)
		}

		// The login's own fetches: each endpoint in turn on 127.0.0.2, the
		// others at a working provider on 127.0.0.1.
		op := newSigningOP(t, "RS256", "RS256") // endpoints set explicitly: RS256 is all that is accepted
		for i, c := range []struct {
			field, errType string
		}{{"token_url", "oidc_auth_code_error"}, {"userinfo_url", "sso_identity_provider_error"},
			{"jwks_url", "oidc_invalid_id_token"}} {
			body := map[string]any{"issuer": op.issuer(), "client_id": op.clientID, "client_secret": op.secret,
				"authorization_url": op.issuer() + "/authorize", "token_url": op.issuer() + "/token",
				"jwks_url": op.issuer() + "/jwks"}
			body[c.field] = inner.URL + "/" + c.field
			_, connID, _ := connectOIDC(t, e, "login-"+strconv.Itoa(i), op, body)
			wantPage(t, loginOIDC(t, e, connID), 400, c.errType)
		}
		if n := conns.Load(); n != 0 {
			t.Fatalf("127.0.0.2 accepted %d connections", n)
		}
	})
}

// With nothing allowlisted (production's default), this machine is out of
// reach however it is spelled, and plain http is refused before anything
// is fetched: to loopback and to a public host alike.
func TestSSOFetchesWithoutAllowlist(t *testing.T) {
	apptest.EachWith(t, allowOnly(""), func(t *testing.T, e *apptest.Env) {
		local, conns := internalService(t, "127.0.0.1")
		port := strconv.Itoa(local.Listener.Addr().(*net.TCPAddr).Port)
		s := newSAMLEnv(t, e, nil)
		admin := orgAdmin(t, e, s.orgID)
		saml := func(u string) apptest.Resp {
			return e.SDK(http.MethodPut, "/b2b/sso/saml/"+s.connID+"/url", map[string]any{"metadata_url": u}, admin)
		}
		for _, host := range []string{"127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "0.0.0.0"} {
			wantRefusal(t, saml("https://"+host+":"+port+"/metadata"), 400, "invalid_saml_metadata_url")
		}
		for _, u := range []string{local.URL + "/metadata", "http://8.8.8.8/metadata", "http://idp.example.com/metadata"} {
			r := saml(u)
			apptest.Want(t, r, 400, "invalid_request")
			if !strings.Contains(r.Body["error_message"].(string), "https") {
				t.Fatalf("%s: %s", u, r.Raw)
			}
		}

		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Local"}, admin)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": "https://localhost:" + port}, admin)
		apptest.Want(t, r, 200, "")
		if w := r.Data()["warning"].(string); !strings.Contains(w, "could not be read") {
			t.Fatalf("issuer on loopback: warning %q", w)
		}
		for _, f := range []string{"issuer", "token_url", "userinfo_url", "jwks_url"} {
			r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{f: "http://idp.example.com/x"}, admin)
			apptest.Want(t, r, 400, "invalid_request")
		}
		// A trailing "?" would have kept the caller's own path in the
		// discovery URL.
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": "https://idp.example.com/admin?"}, admin)
		apptest.Want(t, r, 400, "invalid_request")
		if n := conns.Load(); n != 0 {
			t.Fatalf("loopback accepted %d connections", n)
		}
	})
}

// The discovery warning is one text whatever the issuer's server
// answered: neither its status, nor that it could not be reached, nor the
// issuer its document named.
func TestOIDCDiscoveryWarningIsGeneric(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		mux.HandleFunc("/status/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "internal-answer", http.StatusTeapot)
		})
		mux.HandleFunc("/other/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{"issuer": "https://internal-answer.example/realm", "authorization_endpoint": "x",
				"token_endpoint": "x", "jwks_uri": "x"})
		})
		mux.HandleFunc("/html/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("<html>internal-answer</html>"))
		})
		orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		admin := orgAdmin(t, e, orgID)
		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Acme"}, admin)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		var first string
		for _, issuer := range []string{srv.URL + "/status", srv.URL + "/other", srv.URL + "/html", closed.URL} {
			r := e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": issuer}, admin)
			apptest.Want(t, r, 200, "")
			w := r.Data()["warning"].(string)
			if first == "" {
				first = w
			}
			if w != first || !strings.Contains(w, "could not be read") {
				t.Fatalf("%s: warning %q (first %q)", issuer, w, first)
			}
			if strings.Contains(string(r.Raw), "internal-answer") {
				t.Fatalf("%s: the answer repeats the server's: %s", issuer, r.Raw)
			}
			for _, leak := range []string{"418", "unreachable", "JSON", "connection refused"} {
				if strings.Contains(w, leak) {
					t.Fatalf("%s: the warning says %q: %s", issuer, leak, w)
				}
			}
		}
	})
}

// A JWKS longer than the fetch cap fails the login rather than being
// read whole (go-oidc reads key sets without a limit); the same keys with
// little padding log in, so it is the size that fails it.
func TestOIDCJWKSOverCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setClock(e, time.Now())
		op := newSigningOP(t, "RS256", "RS256") // endpoints set explicitly: RS256 is all that is accepted
		padded := func(n int) string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				keys, _ := json.Marshal(op.jwks)
				var doc map[string]any
				_ = json.Unmarshal(keys, &doc)
				doc["padding"] = strings.Repeat("a", n)
				writeJSON(w, doc)
			}))
			t.Cleanup(srv.Close)
			return srv.URL
		}
		for i, c := range []struct {
			padding int
			ok      bool
		}{{100, true}, {1 << 20, false}} {
			_, connID, _ := connectOIDC(t, e, "jwks-"+strconv.Itoa(i), op, map[string]any{"issuer": op.issuer(),
				"client_id": op.clientID, "client_secret": op.secret, "authorization_url": op.issuer() + "/authorize",
				"token_url": op.issuer() + "/token", "jwks_url": padded(c.padding)})
			res := loginOIDC(t, e, connID)
			if !c.ok {
				wantPage(t, res, 400, "oidc_invalid_id_token")
				continue
			}
			tokenFrom(t, res)
		}
	})
}

// Updates that fetch a URL are limited per organization; an update that
// fetches nothing is not.
func TestSSOFetchRateLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		missing := httptest.NewServer(http.NotFoundHandler())
		t.Cleanup(missing.Close)
		s := newSAMLEnv(t, e, nil)
		admin := orgAdmin(t, e, s.orgID)
		saml := func() apptest.Resp {
			return e.SDK(http.MethodPut, "/b2b/sso/saml/"+s.connID+"/url", map[string]any{"metadata_url": missing.URL}, admin)
		}
		for i := 0; i < 30; i++ {
			apptest.Want(t, saml(), 400, "invalid_saml_metadata_url")
		}
		apptest.Want(t, saml(), 429, "too_many_requests")
		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Acme"}, admin)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": missing.URL}, admin),
			429, "too_many_requests")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"display_name": "Renamed"}, admin),
			200, "")
		// Another organization has its own budget.
		other := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+other, map[string]any{"display_name": "Globex"})
		apptest.Want(t, r, 200, "")
		otherID := r.Body["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+other+"/connections/"+otherID,
			map[string]any{"issuer": missing.URL}), 200, "")
	})
}
