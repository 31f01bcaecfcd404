package idp_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// An authorization request without code_challenge_method is S256, not RFC
// 7636 4.3's plain: the vendor's widget (mountIdentityProvider) reads
// code_challenge from the page but never code_challenge_method, and the
// vendor's Node client (idp.oauth.authorize) has no such field, so every
// S256 client behind them arrives without it (api-reference 3.14, 5.4).
// Refusing the absence would end PKCE, and so public clients, for those
// apps; reading it as plain would fail every one of them at the token
// step. Both faces: an S256 pair with no method redeems.
func TestAbsentChallengeMethodIsS256(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		pub, _ := f.client("third_party_public", nil)
		req := authReq(pub, "openid")
		if _, ok := req["code_challenge_method"]; ok {
			t.Fatal("the fixture's request names a method")
		}
		_, back := f.authorize(req, true)
		apptest.Want(t, f.exchange(pub, "", back.Get("code"), verifier), 200, "")

		conf, secret := f.client("third_party", nil)
		req = authReq(conf, "openid")
		req["organization_id"], req["member_id"], req["consent_granted"] = f.org, f.member, true
		r := e.Backend("POST", "/v1/b2b/idp/oauth/authorize", req)
		apptest.Want(t, f.exchange(conf, secret, redirectQuery(t, r, r.Body).Get("code"), verifier), 200, "")
	})
}

// A client that follows RFC 7636 4.3 and sends a plain challenge without a
// method learns why it failed, in words naming code_challenge_method: at
// authorize when the challenge cannot be an S256 one (sent back to the
// client by redirect with its state, once the client and redirect URI
// are known), and at the token endpoint when it could (a 43-character
// verifier sent as its own challenge: the code is issued, and the
// verifier equal to the challenge shows plain was meant). Either way
// nothing is redeemed.
func TestPlainChallengeWithoutMethodIsExplained(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		pub, _ := f.client("third_party_public", nil)

		// A 64-character plain verifier as the challenge: no S256 shape.
		long := strings.Repeat("Zz09-._~", 8)
		req := authReq(pub, "openid")
		req["code_challenge"] = long
		start := e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session)
		if msg, _ := start.Body["error_message"].(string); start.Status != 400 || start.ErrType() != "invalid_request" ||
			!strings.Contains(msg, "code_challenge_method") {
			t.Errorf("start: %d %s", start.Status, start.Raw)
		}
		req["consent_granted"] = true
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
		q := redirectQuery(t, r, r.Data())
		if q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "code_challenge_method") ||
			q.Get("state") != "st-1" || q.Get("code") != "" {
			t.Errorf("submit: %s", r.Raw)
		}

		// A 43-character plain verifier as the challenge: a code is issued,
		// and the token endpoint says why the verifier does not match.
		plain := verifier[:43]
		if !flowtoken.ValidChallenge(plain) {
			t.Fatalf("%q is not S256-shaped", plain)
		}
		req = authReq(pub, "openid")
		req["code_challenge"] = plain
		_, back := f.authorize(req, true)
		tok := f.exchange(pub, "", back.Get("code"), plain)
		oauthErr(t, tok, 400, "invalid_grant")
		if d, _ := tok.Body["error_description"].(string); !strings.Contains(d, "code_challenge_method") || !strings.Contains(d, "S256") {
			t.Errorf("token: %s", tok.Raw)
		}
		// Any other wrong verifier keeps the plain mismatch text.
		_, back = f.authorize(authReq(pub, "openid"), true)
		tok = f.exchange(pub, "", back.Get("code"), strings.Repeat("w", 43))
		oauthErr(t, tok, 400, "invalid_grant")
		if d, _ := tok.Body["error_description"].(string); strings.Contains(d, "plain") {
			t.Errorf("a wrong S256 verifier is called plain: %s", tok.Raw)
		}
	})
}
