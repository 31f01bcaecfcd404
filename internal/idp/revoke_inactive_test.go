package idp_test

import (
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Revocation does not ask whether the token's member is active now: a
// token of a member who is not (deleted, pending) is still a token this
// server issued, and the client's revocation must end it (RFC 7009 2.1),
// or it works again once the member is active again. An access token ends
// alone, a refresh token with its family, as for an active member.
func TestRevokeEndsAnInactiveMembersTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		for _, status := range []string{"deleted", "pending"} {
			one := f.grant(id, secret, "openid", "offline_access") // its access token is revoked
			two := f.grant(id, secret, "openid", "offline_access") // its refresh token is revoked
			f.setStatus(status)
			apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {one.Body["access_token"].(string)}}), 200, "")
			apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {two.Body["refresh_token"].(string)}}), 200, "")
			f.setStatus("active")
			if f.active(id, secret, one.Body["access_token"].(string)) {
				t.Fatalf("%s member: the revoked access token works again once the member is active", status)
			}
			oauthErr(t, f.userInfo(one.Body["access_token"].(string)), 401, "invalid_token")
			if !f.active(id, secret, one.Body["refresh_token"].(string)) {
				t.Fatalf("%s member: revoking an access token ended its refresh token", status)
			}
			if f.active(id, secret, two.Body["refresh_token"].(string)) || f.active(id, secret, two.Body["access_token"].(string)) {
				t.Fatalf("%s member: the revoked refresh token's family works again once the member is active", status)
			}
			oauthErr(t, f.refresh(id, secret, two.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		}
		// Unknown tokens, a JWT included, are still answered 200.
		for _, tok := range []string{"no-such-token", "a.b.c"} {
			apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {tok}}), 200, "")
		}
	})
}
