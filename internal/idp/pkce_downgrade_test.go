package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A code_verifier at the token endpoint for a code whose authorization
// request carried no code_challenge is a PKCE downgrade attempt (RFC 9700
// 2.1.1) and is invalid_grant; without a verifier the same kind of code is
// exchanged normally (a confidential client may skip PKCE).
func TestCodeVerifierWithoutChallengeIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		noPKCE := func() string {
			t.Helper()
			req := authReq(id, "openid")
			delete(req, "code_challenge")
			_, back := f.authorize(req, true)
			if back.Get("code") == "" {
				t.Fatalf("no code: %v", back)
			}
			return back.Get("code")
		}

		oauthErr(t, f.exchange(id, secret, noPKCE(), verifier), 400, "invalid_grant")
		apptest.Want(t, f.exchange(id, secret, noPKCE(), ""), 200, "")
	})
}
