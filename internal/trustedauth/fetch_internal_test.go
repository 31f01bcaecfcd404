package trustedauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
)

// redirectRig is https://example.com (the name httptest's certificate
// holds), whose /away redirects to http://example.com, the same host over
// plain http, whose /loop redirects to the plain-http server by its
// loopback address (http://127.0.0.1:port), and whose /near redirects to
// its own /here. client trusts
// the certificate and resolves example.com to the rig's two servers, as
// DNS would.
type redirectRig struct {
	url    string
	client *http.Client
	plain  atomic.Int32 // requests the plain-http server received
	leaked atomic.Bool  // one of them carried an Authorization header
}

func newRedirectRig(t *testing.T, answer http.HandlerFunc) *redirectRig {
	t.Helper()
	rig := &redirectRig{}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rig.plain.Add(1)
		rig.leaked.Store(rig.leaked.Load() || r.Header.Get("Authorization") != "")
		answer(w, r)
	}))
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, "http://example.com/here", http.StatusFound)
		case "/near":
			http.Redirect(w, r, "/here", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, plain.URL+"/here", http.StatusFound)
		default:
			answer(w, r)
		}
	}))
	t.Cleanup(secure.Close)
	rig.url = "https://example.com"
	tr := secure.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case "example.com:443":
			addr = secure.Listener.Addr().String()
		case "example.com:80":
			addr = plain.Listener.Addr().String()
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	rig.client = &http.Client{Transport: tr, Timeout: 5 * time.Second}
	return rig
}

func (rig *redirectRig) service() *Service {
	return New(Deps{HTTP: rig.client, Clock: clock.NewFake(time.Now())})
}

// checkFetchURL refuses a plain-http JWKS URL off loopback, because keys
// fetched in clear could be swapped on the way. A redirect must not get
// round that; a redirect to https still works.
func TestJWKSFetchChecksRedirects(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rig := newRedirectRig(t, func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k.Public(), KeyID: "k1", Use: "sig"}}})
	})
	s := rig.service()
	if keys, err := s.keys.fetch(t.Context(), rig.url+"/away"); err == nil {
		t.Fatalf("keys fetched over plain http after a redirect: %d keys", len(keys))
	}
	if n := rig.plain.Load(); n != 0 {
		t.Fatalf("the plain-http server was asked %d times", n)
	}
	if keys, err := s.keys.fetch(t.Context(), rig.url+"/near"); err != nil || len(keys) != 1 {
		t.Fatalf("https redirect: %d keys, %v", len(keys), err)
	}
	if rig.client.CheckRedirect != nil {
		t.Fatal("the shared client was changed")
	}
}

// The userinfo request carries the previous provider's bearer token, which
// Go re-sends on a same-host redirect: a redirect to plain http must not
// be followed, so the token never travels in clear.
func TestUserinfoChecksRedirects(t *testing.T) {
	rig := newRedirectRig(t, func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"email": "ana@acme.test", "email_verified": true})
	})
	s := rig.service()
	email, err := s.userinfoEmail(t.Context(), rig.url+"/away", "tok")
	if rig.leaked.Load() {
		t.Fatal("the bearer token was sent over plain http")
	}
	if !apierr.Is(err, apierr.MigrateUserinfoUnavailable) {
		t.Fatalf("userinfo followed a redirect to plain http: %q, %v", email, err)
	}
	if n := rig.plain.Load(); n != 0 {
		t.Fatalf("the plain-http server was asked %d times", n)
	}
	if email, err := s.userinfoEmail(t.Context(), rig.url+"/near", "tok"); err != nil || email != "ana@acme.test" {
		t.Fatalf("https redirect: %q, %v", email, err)
	}
}

// An https JWKS or userinfo URL (a third party's server) must not hand the
// fetch to plain http on this machine: http is allowed to loopback only
// for a URL the operator names (tests, local mocks), and a redirect from
// https to http there is a request into the server's own loopback
// services (SSRF) that the operator never chose, answered in clear.
func TestFetchRefusesARedirectFromHTTPSToLoopbackHTTP(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	// One answer that is both a key set and a userinfo document, so that
	// each fetch would succeed if it reached the loopback server.
	rig := newRedirectRig(t, func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"email": "ana@acme.test", "email_verified": true,
			"keys": []jose.JSONWebKey{{Key: k.Public(), KeyID: "k1", Use: "sig"}}})
	})
	s := rig.service()
	if keys, err := s.keys.fetch(t.Context(), rig.url+"/loop"); err == nil {
		t.Errorf("keys fetched from loopback over plain http after a redirect from https: %d keys", len(keys))
	}
	if email, err := s.userinfoEmail(t.Context(), rig.url+"/loop", "tok"); err == nil {
		t.Errorf("userinfo answered from loopback over plain http after a redirect from https: %q", email)
	}
	if n := rig.plain.Load(); n != 0 {
		t.Fatalf("the loopback plain-http server was asked %d times", n)
	}
}
