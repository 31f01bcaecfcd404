package sso_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// connectOIDC gives a new organization (slug) an OIDC connection to op and
// configures it with body (issuer and client credentials by default, so
// the endpoints and algorithms come from op's discovery document). It
// returns the organization and connection ids and the update's warning.
func connectOIDC(t *testing.T, e *apptest.Env, slug string, op *signingOP, body map[string]any) (string, string, string) {
	t.Helper()
	orgID := e.CreateOrg(slug, "NOT_ALLOWED", nil)
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+orgID, map[string]any{"display_name": "OIDC " + op.alg})
	apptest.Want(t, r, 200, "")
	connID := r.Body["connection"].(map[string]any)["connection_id"].(string)
	if body == nil {
		body = map[string]any{"issuer": op.issuer(), "client_id": op.clientID, "client_secret": op.secret}
	}
	r = e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+orgID+"/connections/"+connID, body)
	apptest.Want(t, r, 200, "")
	if st := r.Body["connection"].(map[string]any)["status"]; st != "active" {
		t.Fatalf("configured: %s", r.Raw)
	}
	return orgID, connID, r.Body["warning"].(string)
}

// loginOIDC walks a login through the connection's provider and returns
// our callback's answer.
func loginOIDC(t *testing.T, e *apptest.Env, connID string) apptest.Resp {
	t.Helper()
	q := url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {connID}}
	r := e.Get("/v1/public/sso/start?" + q.Encode())
	if r.Status != http.StatusFound {
		t.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	r = e.Get(r.Header.Get("Location"))
	if r.Status != http.StatusFound {
		t.Fatalf("provider: %d %s", r.Status, r.Raw)
	}
	return e.Get(r.Header.Get("Location"))
}

// TestOIDCSigningAlgorithms: ID tokens signed with any asymmetric
// algorithm the issuer's discovery document lists are accepted; one the
// document does not list, HMAC (even listed, and even with its key in the
// JWKS) and unsigned tokens are refused.
func TestOIDCSigningAlgorithms(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// The provider stamps its tokens with the real clock.
		setClock(e, time.Now())
		for i, tc := range []struct {
			name       string
			alg        string
			advertised []string
			ok         bool
			warning    bool // the update warns that no listed algorithm is accepted
		}{
			{"ES256", "ES256", []string{"ES256"}, true, false},
			{"PS384 among others", "PS384", []string{"RS256", "PS384", "ES512"}, true, false},
			{"EdDSA", "EdDSA", []string{"EdDSA"}, true, false},
			{"RS256 listed", "RS256", []string{"ES256", "RS256"}, true, false},
			{"RS256 not listed", "RS256", []string{"ES256"}, false, false},
			{"HS256 alone", "HS256", []string{"HS256"}, false, true},
			{"HS256 beside ES256", "HS256", []string{"HS256", "ES256"}, false, false},
			{"unsigned", "none", []string{"none", "ES256"}, false, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				op := newSigningOP(t, tc.alg, tc.advertised...)
				_, connID, warning := connectOIDC(t, e, "alg-"+string(rune('a'+i)), op, nil)
				// The warning is a fixed text: it names what this server
				// accepts, never what the fetched document listed.
				if tc.warning != (warning != "") || tc.warning && (!strings.Contains(warning, "no ID token signing algorithm") ||
					strings.Contains(warning, "HS256")) {
					t.Fatalf("warning %q", warning)
				}
				res := loginOIDC(t, e, connID)
				if !tc.ok {
					wantPage(t, res, 400, "oidc_invalid_id_token")
					return
				}
				r := e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, res)}, "")
				apptest.Want(t, r, 200, "")
				if m := r.Data()["member"].(map[string]any); m["email_address"] != op.email {
					t.Fatalf("member: %v", m)
				}
			})
		}
	})
}

// TestOIDCSigningAlgorithmsNeedDiscovery: the algorithms come from the
// discovery document read with the endpoints. A connection whose
// endpoints are set by hand accepts RS256 alone, and so does one moved to
// another issuer without reading its document: the previous issuer's
// algorithms are not carried over.
func TestOIDCSigningAlgorithmsNeedDiscovery(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setClock(e, time.Now())
		byHand := func(op *signingOP) map[string]any {
			return map[string]any{"issuer": op.issuer(), "client_id": op.clientID, "client_secret": op.secret,
				"authorization_url": op.issuer() + "/authorize", "token_url": op.issuer() + "/token", "jwks_url": op.issuer() + "/jwks"}
		}
		first, second := newSigningOP(t, "ES256", "ES256"), newSigningOP(t, "ES256", "ES256")

		_, connID, _ := connectOIDC(t, e, "by-hand", first, byHand(first))
		wantPage(t, loginOIDC(t, e, connID), 400, "oidc_invalid_id_token")

		orgID, connID, _ := connectOIDC(t, e, "moved", first, nil)
		tokenFrom(t, loginOIDC(t, e, connID))
		r := e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+orgID+"/connections/"+connID, byHand(second))
		apptest.Want(t, r, 200, "")
		wantPage(t, loginOIDC(t, e, connID), 400, "oidc_invalid_id_token")
	})
}

// An ID token is read in its one canonical spelling only (as every JWT
// here): a token endpoint answering with one that go-jose would decode to
// the same parts and verify is refused.
func TestOIDCRespelledIDTokenRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setClock(e, time.Now())
		op := newSigningOP(t, "ES256", "ES256")
		_, connID, _ := connectOIDC(t, e, "respelled", op, nil)
		tokenFrom(t, loginOIDC(t, e, connID))
		for _, name := range []string{"newline in payload", "CRLF in header", "non-canonical trailing bits in signature"} {
			t.Run(name, func(t *testing.T) {
				op.setRespell(name)
				defer op.setRespell("")
				wantPage(t, loginOIDC(t, e, connID), 400, "oidc_invalid_id_token")
			})
		}
	})
}
