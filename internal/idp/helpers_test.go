package idp_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/idp"
)

const (
	page     = "https://app.customer.test/authorize"
	rpURL    = "https://rp.test/cb"
	verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier"
)

// fixture is a project with the authorization page set, an organization
// with a logged-in member, and helpers for the protocol.
type fixture struct {
	t       *testing.T
	e       *apptest.Env
	org     string
	member  string
	session string
}

func setup(t *testing.T, e *apptest.Env) *fixture {
	t.Helper()
	if err := idp.SetAuthorizationURL(context.Background(), e.App.DB, e.Clock, e.Project.Project.ID, page); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, e: e}
	f.org = e.CreateOrg("acme", "NOT_ALLOWED", nil)
	f.member = e.CreateMember(f.org, "ada@acme.test")
	f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
	return f
}

// setStatus sets the member's status in the database directly, as a
// deletion or a deactivation elsewhere would leave it.
func (f *fixture) setStatus(status string) {
	f.t.Helper()
	if _, err := f.e.App.DB.ExecContext(context.Background(), `UPDATE members SET status = $1 WHERE member_id = $2`,
		status, f.member); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) client(typ string, extra map[string]any) (id, secret string) {
	f.t.Helper()
	body := map[string]any{"client_type": typ, "client_name": "RP " + typ, "redirect_urls": []string{rpURL},
		"post_logout_redirect_urls": []string{"https://rp.test/bye"}}
	for k, v := range extra {
		body[k] = v
	}
	r := f.e.Backend("POST", "/v1/connected_apps/clients", body)
	apptest.Want(f.t, r, 200, "")
	a := r.Body["connected_app"].(map[string]any)
	secret, _ = a["client_secret"].(string)
	return a["client_id"].(string), secret
}

func (f *fixture) issuer() string { return f.e.Srv.URL + "/v1/public/" + f.e.Project.Project.ID }

// authorize runs start and submit on the SDK face and returns the
// redirect's query.
func (f *fixture) authorize(req map[string]any, granted bool) (start apptest.Resp, back url.Values) {
	f.t.Helper()
	start = f.e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session)
	if start.Status != 200 {
		return start, nil
	}
	req["consent_granted"] = granted
	r := f.e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
	apptest.Want(f.t, r, 200, "")
	u, err := url.Parse(r.Data()["redirect_uri"].(string))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != rpURL {
		f.t.Fatalf("redirect %v", r.Data()["redirect_uri"])
	}
	return start, u.Query()
}

func authReq(clientID string, scopes ...string) map[string]any {
	return map[string]any{"client_id": clientID, "redirect_uri": rpURL, "response_type": "code", "scopes": scopes,
		"state": "st-1", "nonce": "n-1", "code_challenge": flowtoken.S256(verifier)}
}

// form posts to a provider endpoint, authenticating with Basic when a
// secret is given.
func (f *fixture) form(path, clientID, secret string, v url.Values) apptest.Resp {
	f.t.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	user, pass := "", ""
	if secret != "" {
		user, pass = url.QueryEscape(clientID), url.QueryEscape(secret)
	} else {
		v.Set("client_id", clientID)
	}
	return f.e.Do("POST", "/v1/public/"+f.e.Project.Project.ID+path, v.Encode(), h, user, pass)
}

func (f *fixture) exchange(clientID, secret, code, verifier string) apptest.Resp {
	v := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {rpURL}}
	if verifier != "" {
		v.Set("code_verifier", verifier)
	}
	return f.form("/oauth2/token", clientID, secret, v)
}

// claims verifies a JWT against the provider's JWKS and returns its claims.
func (f *fixture) claims(token string) map[string]any {
	f.t.Helper()
	r := f.e.Get("/v1/public/" + f.e.Project.Project.ID + "/.well-known/jwks.json")
	apptest.Want(f.t, r, 200, "")
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(r.Raw, &set); err != nil {
		f.t.Fatal(err)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		f.t.Fatal(err)
	}
	keys := set.Key(parsed.Headers[0].KeyID)
	if len(keys) != 1 {
		f.t.Fatalf("kid %s not in the JWKS", parsed.Headers[0].KeyID)
	}
	out := map[string]any{}
	if err := parsed.Claims(keys[0].Key, &out); err != nil {
		f.t.Fatal(err)
	}
	if typ, _ := parsed.Headers[0].ExtraHeaders["typ"].(string); !strings.EqualFold(typ, "JWT") {
		f.t.Fatalf("typ %q", typ)
	}
	return out
}

// oauthErr checks a protocol error: the RFC's code, and the members the
// vendor's backend SDK copies onto the error it throws (status_code as the
// HTTP status, the request's id, an error_uri).
func oauthErr(t *testing.T, r apptest.Resp, status int, code string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != code {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Raw, status, code)
	}
	rid := r.Header.Get("X-Request-Id")
	if r.Body["status_code"] != float64(status) || rid == "" || r.Body["request_id"] != rid ||
		r.Body["error_uri"] != httpapi.ErrorURLBase+code {
		t.Fatalf("error body %s (X-Request-Id %q): want status_code %d, request_id, error_uri", r.Raw, rid, status)
	}
}

// grant runs the code flow for scopes (consent given) and returns the
// token response, which must succeed.
func (f *fixture) grant(id, secret string, scopes ...string) apptest.Resp {
	f.t.Helper()
	_, back := f.authorize(authReq(id, scopes...), true)
	r := f.exchange(id, secret, back.Get("code"), verifier)
	apptest.Want(f.t, r, 200, "")
	return r
}

// refresh presents a refresh token (and a scope parameter when given).
func (f *fixture) refresh(id, secret, token, scope string) apptest.Resp {
	v := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}}
	if scope != "" {
		v.Set("scope", scope)
	}
	return f.form("/oauth2/token", id, secret, v)
}

// active introspects token as the client and reports "active".
func (f *fixture) active(id, secret, token string) bool {
	f.t.Helper()
	r := f.form("/oauth2/introspect", id, secret, url.Values{"token": {token}})
	apptest.Want(f.t, r, 200, "")
	return r.Body["active"] == true
}

// forge re-signs a JWT's claims, unchanged and under the same kid, with a
// key the project does not have: a token only a signature check refuses.
func forge(t *testing.T, token string) string {
	t.Helper()
	claims, kid := claimsOf(t, token)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signRS256(t, key, kid, claims)
}

// claimsOf reads a JWT's claims and key id without verifying it.
func claimsOf(t *testing.T, token string) (claims map[string]any, kid string) {
	t.Helper()
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	claims = map[string]any{}
	if err := parsed.UnsafeClaimsWithoutVerification(&claims); err != nil {
		t.Fatal(err)
	}
	return claims, parsed.Headers[0].KeyID
}

// signRS256 signs claims as a JWT with key under kid.
func signRS256(t *testing.T, key any, kid string, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
