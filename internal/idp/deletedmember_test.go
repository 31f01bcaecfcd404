package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A member's tokens are refused the moment the member is not active: a
// status change alone (no revocation, no sweep) makes userinfo answer
// invalid_token, introspection inactive for access and refresh tokens, and
// exchange_access_token invalid grant.
func TestInactiveMembersTokensAreRefusedAtOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok := f.grant(id, secret, "openid", "email", "offline_access", "full_access")
		at, rt := tok.Body["access_token"].(string), tok.Body["refresh_token"].(string)
		for _, status := range []string{"deleted", "pending"} {
			f.setStatus(status)
			oauthErr(t, f.userInfo(at), 401, "invalid_token")
			if f.active(id, secret, at) || f.active(id, secret, rt) {
				t.Fatalf("%s member: a token introspects as active", status)
			}
			apptest.Want(t, exchangeAccessToken(e, at), 401, "oauth_access_token_exchange_token_invalid_grant")
		}
		// Only the status refused them: nothing was revoked.
		f.setStatus("active")
		apptest.Want(t, f.userInfo(at), 200, "")
	})
}

// Deleting a member revokes their connected-app tokens and deletes their
// consent at once, so a member reactivated before the sweeper runs gets
// neither back: the old tokens stay dead and the app must ask again.
func TestDeletedMembersTokensStayRevokedAfterReactivation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		tok := f.grant(id, secret, "openid", "email", "offline_access")
		at, rt := tok.Body["access_token"].(string), tok.Body["refresh_token"].(string)
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.org+"/members/"+f.member, nil), 200, "")
		if n := rows(t, e, `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1 AND revoked_at IS NULL`, f.member); n != 0 {
			t.Fatalf("%d of the deleted member's tokens are not revoked", n)
		}
		if n := rows(t, e, `SELECT COUNT(*) FROM idp_grants WHERE member_id = $1`, f.member); n != 0 {
			t.Fatalf("the deleted member's consent is still on record")
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member+"/reactivate", nil), 200, "")
		oauthErr(t, f.userInfo(at), 401, "invalid_token")
		if f.active(id, secret, at) || f.active(id, secret, rt) {
			t.Fatal("a token introspects as active after reactivation")
		}
		oauthErr(t, f.refresh(id, secret, rt, ""), 400, "invalid_grant")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "email", "offline_access"), f.session)
		apptest.Want(t, r, 200, "")
		if r.Data()["consent_required"] != true {
			t.Fatalf("consent came back with the member: %s", r.Raw)
		}
	})
}

// Connected-app tokens were granted by whoever held the member's address.
// When an admin points the member at another address, they end in the same
// transaction: a full_access refresh token must not keep minting tokens
// that become sessions of the member.
func TestAnAddressChangeEndsConnectedAppTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok := f.grant(id, secret, "openid", "offline_access", "full_access")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
			map[string]any{"email_address": "someone-else@acme.test"}), 200, "")
		oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		apptest.Want(t, exchangeAccessToken(e, tok.Body["access_token"]), 401, "oauth_access_token_exchange_token_invalid_grant")
	})
}
