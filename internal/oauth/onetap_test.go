package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/oauth2-proxy/mockoidc"
)

// oneTapToken is an ID token as Google's One Tap script hands it to the
// page: signed by the provider's own key for our client id; edit sets
// claims (a nil value removes the claim).
func oneTapToken(t *testing.T, m *mockoidc.MockOIDC, edit map[string]any) string {
	t.Helper()
	return signedBy(t, m.Keypair, m, edit)
}

// signedBy is oneTapToken signed with key (the provider's, or a stranger's).
func signedBy(t *testing.T, key *mockoidc.Keypair, m *mockoidc.MockOIDC, edit map[string]any) string {
	t.Helper()
	now := time.Now() // mockoidc and go-oidc read the real clock
	c := jwt.MapClaims{"iss": m.Issuer(), "aud": m.ClientID, "sub": "g-ada", "email": "ada@acme.test",
		"email_verified": true, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	for k, v := range edit {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	tok, err := key.SignJWT(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// One Tap submits a bare ID token; it is checked as strictly as the one
// from a code exchange: our client id as audience, the configured issuer,
// the provider's signature, an expiry, a subject. The organization must
// exist. A valid one leads to the login page with a token that logs the
// member in.
func TestOneTapIDTokenChecks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		submit := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", map[string]any{"id_token": tok, "organization_id": org}, "")
		}
		stranger, err := mockoidc.RandomKeypair(2048) // not the provider's key
		if err != nil {
			t.Fatal(err)
		}
		for name, tc := range map[string]struct{ tok, want string }{
			"another client's token": {oneTapToken(t, m, map[string]any{"aud": "another-client-id"}), "id_token_incorrect_audience"},
			"another issuer's token": {oneTapToken(t, m, map[string]any{"iss": "https://issuer.evil.test"}), "id_token_invalid"},
			"expired":                {oneTapToken(t, m, map[string]any{"exp": time.Now().Add(-time.Minute).Unix()}), "id_token_expired"},
			"without sub":            {oneTapToken(t, m, map[string]any{"sub": nil}), "id_token_invalid"},
			"signed by another key":  {signedBy(t, stranger, m, nil), "id_token_invalid"},
			"not a JWT":              {"x.y.z", "id_token_invalid"},
		} {
			t.Run(name, func(t *testing.T) {
				apptest.Want(t, submit(tc.tok), 401, tc.want)
			})
		}
		// A valid token for an organization that does not exist.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", map[string]any{"id_token": oneTapToken(t, m, nil),
			"organization_id": "organization-test-00000000-0000-4000-8000-000000000000"}, ""), 404, "organization_not_found")
		r := submit(oneTapToken(t, m, nil))
		apptest.Want(t, r, 200, "")
		u, err := url.Parse(str(r.Data(), "redirect_url"))
		if err != nil || u.Query().Get("stytch_token_type") != "oauth" {
			t.Fatalf("redirect: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != memberID {
			t.Fatalf("logged in as: %s", r.Raw)
		}
	})
}

// One Tap submits are limited per client address: each one verifies a
// token (and may fetch the provider's keys), so past OneTapPerIP submits
// in a window the next is refused before any of that.
func TestOneTapSubmitsLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		body := map[string]any{"id_token": "x.y.z", "organization_id": org}
		for range oauth.OneTapPerIP.Limit {
			r := e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", body, "")
			apptest.Want(t, r, 401, "id_token_invalid")
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", body, ""), 429, "too_many_requests")
	})
}

// A One Tap ID token is spent on its first submit: submitted again, to
// either submit route, it is refused, where another token of the same
// person still logs in.
func TestOneTapIDTokenIsSingleUse(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, _, submit := oneTapAcme(t, e)
		tok := oneTapToken(t, m, map[string]any{"jti": "one"})
		apptest.Want(t, submit(tok), 200, "")
		apptest.Want(t, submit(tok), 401, "id_token_invalid")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/discovery/submit", map[string]any{"id_token": tok}, ""),
			401, "id_token_invalid")
		apptest.Want(t, submit(oneTapToken(t, m, map[string]any{"jti": "two"})), 200, "")
	})
}

// go-jose decodes a part with '\r' and '\n' in it, or with other unused
// low bits in its last character, to the same bytes, and verifies it: one
// token, many spellings. Every spelling but the canonical one is refused,
// before and after the token is spent (the auditor spent one token five
// times this way).
func TestOneTapIDTokenRespellingsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, _, submit := oneTapAcme(t, e)
		tok := oneTapToken(t, m, map[string]any{"jti": "three"})
		spellings := apptest.Respellings(t, tok)
		refused := func() {
			for name, s := range spellings {
				t.Run(name, func(t *testing.T) { apptest.Want(t, submit(s), 401, "id_token_invalid") })
			}
		}
		refused()
		apptest.Want(t, submit(tok), 200, "")
		refused()
	})
}

// A token is spent by what was signed, not by its text: the same claims
// signed again under another header are the same token.
func TestOneTapIDTokenSpentBySignedClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, _, submit := oneTapAcme(t, e)
		now := time.Now()
		c := jwt.MapClaims{"iss": m.Issuer(), "aud": m.ClientID, "sub": "g-ada", "email": "ada@acme.test",
			"email_verified": true, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": "four"}
		kid, err := m.Keypair.KeyID()
		if err != nil {
			t.Fatal(err)
		}
		sign := func(extra string) string {
			tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
			tok.Header["kid"] = kid
			if extra != "" {
				tok.Header["x"] = extra
			}
			s, err := tok.SignedString(m.Keypair.PrivateKey)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		first, second := sign(""), sign("another header")
		if first[strings.IndexByte(first, '.'):] == second[strings.IndexByte(second, '.'):] {
			t.Fatal("test setup: the header change changed nothing else")
		}
		apptest.Want(t, submit(first), 200, "")
		apptest.Want(t, submit(second), 401, "id_token_invalid")
	})
}

// One Tap issues no nonce, so an ID token carrying one was made for a
// redirect flow's request. The one Latchkey hands back in provider_values
// after a Google login is such a token, and so is refused by One Tap,
// although Google signed it for our client id and it has not expired.
func TestOneTapRefusesTokensWithANonce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, org, submit := oneTapAcme(t, e)
		apptest.Want(t, submit(oneTapToken(t, m, map[string]any{"nonce": "n-1"})), 401, "id_token_nonce_invalid")

		r := authenticateAfter(t, e, callbackOf(t, e, m, "google", org,
			&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true}))
		apptest.Want(t, r, 200, "")
		leaked := str(r.Data(), "provider_values", "id_token")
		if leaked == "" {
			t.Fatalf("no id_token in provider_values: %s", r.Raw)
		}
		apptest.Want(t, submit(leaked), 401, "id_token_nonce_invalid")
	})
}

// oneTapAcme is Google configured, an organization with ada@acme.test as
// a member, and a One Tap submit of an ID token for that organization.
func oneTapAcme(t *testing.T, e *apptest.Env) (*mockoidc.MockOIDC, string, func(string) apptest.Resp) {
	t.Helper()
	m := startGoogle(t, e)
	org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	e.CreateMember(org, "ada@acme.test")
	return m, org, func(tok string) apptest.Resp {
		return e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", map[string]any{"id_token": tok, "organization_id": org}, "")
	}
}
