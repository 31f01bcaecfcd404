package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An authorization code is redeemable only by the client it was issued to
// (RFC 6749 4.1.3): another confidential client of the project, with its
// own valid secret and the same redirect_uri, gets invalid_grant and no
// token, even for a code issued without PKCE and a member who consented
// to both clients.
func TestCodeIsRedeemedOnlyByItsClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		a, _ := f.client("third_party", nil)
		b, bSecret := f.client("third_party", nil)
		// The member consented to b as well: the code's client, not a
		// missing grant, is what refuses b.
		f.authorize(authReq(b, "openid"), true)
		req := authReq(a, "openid")
		delete(req, "code_challenge")
		_, back := f.authorize(req, true)
		r := f.exchange(b, bSecret, back.Get("code"), "")
		if r.Status != 400 || r.Body["error"] != "invalid_grant" || r.Body["access_token"] != nil {
			t.Fatalf("another client redeemed the code: %s", r.Raw)
		}
	})
}
