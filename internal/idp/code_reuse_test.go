package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// codeGrant runs the code flow with offline_access for a client and
// returns the code and its token response, which must succeed.
func (f *fixture) codeGrant(id, secret string) (code string, tok apptest.Resp) {
	f.t.Helper()
	_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
	code = back.Get("code")
	tok = f.exchange(id, secret, code, verifier)
	apptest.Want(f.t, tok, 200, "")
	return code, tok
}

// A code is a reuse signal (RFC 6749 4.1.2) only while it lives. Every
// refresh carries the code's hash forward, so a stale code presented weeks
// later, its ticket long swept, used to revoke the member's current
// tokens: anyone who ever saw the code (a log, a browser history) could
// end the member's access to the app at will.
func TestLateCodeReplayRevokesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		for _, typ := range []string{"third_party", "third_party_public"} {
			f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test") // the last one expired weeks ago
			id, secret := f.client(typ, nil)
			code, tok := f.codeGrant(id, secret)
			rt := tok.Body["refresh_token"].(string)
			var at string
			for range 3 {
				e.Clock.Advance(7 * 24 * time.Hour)
				r := f.refresh(id, secret, rt, "")
				apptest.Want(t, r, 200, "")
				rt, at = r.Body["refresh_token"].(string), r.Body["access_token"].(string)
			}
			// Expired but not yet swept, then swept: both just invalid.
			oauthErr(t, f.exchange(id, secret, code, verifier), 400, "invalid_grant")
			if _, err := e.App.Sweeper().Once(context.Background()); err != nil {
				t.Fatal(err)
			}
			oauthErr(t, f.exchange(id, secret, code, verifier), 400, "invalid_grant")
			if !f.active(id, secret, rt) || !f.active(id, secret, at) {
				t.Fatalf("%s: a stale code presented again ended the current tokens", typ)
			}
			apptest.Want(t, f.refresh(id, secret, rt, ""), 200, "")
		}
	})
}

// A spent code presented by another client of the project (a public one
// needs no credential to be named), or at another project's token
// endpoint, is refused and revokes nothing of the code's own client.
func TestCodeReplayedElsewhereRevokesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		other, _ := f.client("third_party_public", nil)
		p2 := e.NewProject("Elsewhere")
		r := e.Do(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "third_party_public",
			"client_name": "RP elsewhere", "redirect_urls": []string{rpURL}}, nil, p2.Project.ID, p2.Secret)
		apptest.Want(t, r, 200, "")
		elsewhere := r.Body["connected_app"].(map[string]any)["client_id"].(string)
		for _, typ := range []string{"third_party", "third_party_public"} {
			id, secret := f.client(typ, nil)
			code, tok := f.codeGrant(id, secret)
			oauthErr(t, f.exchange(other, "", code, verifier), 400, "invalid_grant")
			v := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {rpURL},
				"code_verifier": {verifier}, "client_id": {elsewhere}}
			oauthErr(t, e.Do(http.MethodPost, "/v1/public/"+p2.Project.ID+"/oauth2/token", v.Encode(),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "", ""), 400, "invalid_grant")
			if n := f.liveTokens(t, id); n != 2 {
				t.Fatalf("%s: %d of the code's 2 tokens left live by replays under another client or project", typ, n)
			}
			apptest.Want(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 200, "")
		}
	})
}

// The code's own client presenting it again while it lives is the reuse
// RFC 6749 4.1.2 means: everything the code produced ends, the tokens of
// refreshes since included.
func TestCodeReuseRevokesTheFamily(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		for _, typ := range []string{"third_party", "third_party_public"} {
			id, secret := f.client(typ, nil)
			code, tok := f.codeGrant(id, secret)
			r := f.refresh(id, secret, tok.Body["refresh_token"].(string), "")
			apptest.Want(t, r, 200, "")
			oauthErr(t, f.exchange(id, secret, code, verifier), 400, "invalid_grant")
			if n := f.liveTokens(t, id); n != 0 {
				t.Fatalf("%s: %d tokens of a code used twice outlived the reuse", typ, n)
			}
			oauthErr(t, f.refresh(id, secret, r.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		}
	})
}

// Reuse is checked after what binds the code to its client: a spent code
// presented without the PKCE verifier, with a wrong one, or by its
// confidential client with a wrong secret, is refused (invalid_grant,
// invalid_client) and revokes nothing, so someone holding only a leaked
// code cannot end the legitimate client's tokens (RFC 9700 2.1.1; the
// code proves nothing without its verifier). The client presenting it
// again with the right verifier is the reuse RFC 6749 4.1.2 means, and
// ends them.
func TestCodeReuseWithoutTheVerifierRevokesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		wrong := "wrong-" + verifier
		for _, typ := range []string{"third_party", "third_party_public"} {
			id, secret := f.client(typ, nil)
			code, tok := f.codeGrant(id, secret)
			oauthErr(t, f.exchange(id, secret, code, ""), 400, "invalid_grant")
			oauthErr(t, f.exchange(id, secret, code, wrong), 400, "invalid_grant")
			if secret != "" {
				oauthErr(t, f.exchange(id, "not-the-secret", code, verifier), 401, "invalid_client")
			}
			if n := f.liveTokens(t, id); n != 2 {
				t.Fatalf("%s: %d of the code's 2 tokens left live by a reuse without the verifier", typ, n)
			}
			apptest.Want(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 200, "")
			oauthErr(t, f.exchange(id, secret, code, verifier), 400, "invalid_grant")
			if n := f.liveTokens(t, id); n != 0 {
				t.Fatalf("%s: %d tokens outlived the code's reuse with its verifier", typ, n)
			}
		}
	})
}
