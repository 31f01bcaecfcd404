package idp_test

import (
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Only the client a token was issued to may revoke it (RFC 7009 2.1):
// another client of the project is refused with unauthorized_client (a
// public one too), and the token stays active; an unknown token is still
// answered 200 (RFC 7009 2.2), and the owner's revocation works.
func TestRevokeOnlyByTheOwningClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, otherSecret := f.client("third_party", nil)
		public, _ := f.client("third_party_public", nil)
		tok := f.grant(id, secret, "openid", "offline_access")
		for _, k := range []string{"access_token", "refresh_token"} {
			token := url.Values{"token": {tok.Body[k].(string)}}
			oauthErr(t, f.form("/oauth2/revoke", other, otherSecret, token), 400, "unauthorized_client")
			oauthErr(t, f.form("/oauth2/revoke", public, "", token), 400, "unauthorized_client")
		}
		if !f.active(id, secret, tok.Body["access_token"].(string)) || !f.active(id, secret, tok.Body["refresh_token"].(string)) {
			t.Fatal("another client revoked the tokens")
		}
		apptest.Want(t, f.form("/oauth2/revoke", other, otherSecret, url.Values{"token": {"no-such-token"}}), 200, "")
		apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {tok.Body["refresh_token"].(string)}}), 200, "")
		if f.active(id, secret, tok.Body["access_token"].(string)) || f.active(id, secret, tok.Body["refresh_token"].(string)) {
			t.Fatal("the owner's revocation left the family active")
		}
	})
}

// Revoking an access token checks its signature: a JWT that merely carries
// a real token's jti, signed with another key, revokes nothing.
func TestRevokeIgnoresAForgedAccessToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		at := f.grant(id, secret, "openid").Body["access_token"].(string)
		apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {forge(t, at)}}), 200, "")
		if !f.active(id, secret, at) {
			t.Fatal("a forged JWT revoked the real access token")
		}
	})
}

// A member revoking one connected app ends that app's tokens only.
func TestRevokingAnAppLeavesOtherAppsTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		a, aSecret := f.client("third_party", nil)
		b, bSecret := f.client("third_party", nil)
		atA := f.grant(a, aSecret, "openid").Body["access_token"].(string)
		atB := f.grant(b, bSecret, "openid").Body["access_token"].(string)
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+a+"/revoke", nil, f.session), 200, "")
		if f.active(a, aSecret, atA) || !f.active(b, bSecret, atB) {
			t.Fatal("revoking app a must end a's token and keep b's")
		}
	})
}
