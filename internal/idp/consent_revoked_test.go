package idp_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// liveTokens counts the member's tokens for a client that are not revoked.
func (f *fixture) liveTokens(t *testing.T, clientID string) int {
	t.Helper()
	return rows(t, f.e, `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1 AND client_id = $2 AND revoked_at IS NULL`,
		f.member, clientID)
}

// A code issued before the member revoked the app mints nothing: the
// revoke deleted the consent, and no later revoke could end what the code
// would have produced (the member's app list no longer shows the app).
// First-party apps, which never ask for consent, still record it at
// submit, and lose it to the revoke the same way.
func TestCodeIssuedBeforeRevokeIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		for _, typ := range []string{"third_party", "first_party", "third_party_public"} {
			id, secret := f.client(typ, nil)
			_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
			apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+id+"/revoke", nil, f.session), 200, "")
			oauthErr(t, f.exchange(id, secret, back.Get("code"), verifier), 400, "invalid_grant")
			if n := f.liveTokens(t, id); n != 0 {
				t.Fatalf("%s: %d live tokens minted from a code issued before the revoke", typ, n)
			}
			// A new authorization is a new consent, and works.
			f.grant(id, secret, "openid", "offline_access")
		}
	})
}

// A refresh token whose consent is gone is refused, and its family is
// ended as a revoke would have ended it. Before this check, a code
// redeemed after a revoke left exactly such a family; the test makes one
// by deleting the consent row. A consent given again with fewer scopes
// does not cover the old family either, while the new family refreshes.
func TestRefreshWithoutConsentIsRefusedAndEndsTheFamily(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		dropConsent := func(id string) {
			t.Helper()
			if _, err := e.App.DB.ExecContext(context.Background(), `DELETE FROM idp_grants WHERE member_id = $1 AND client_id = $2`,
				f.member, id); err != nil {
				t.Fatal(err)
			}
		}
		for _, typ := range []string{"third_party", "first_party"} {
			id, secret := f.client(typ, nil)
			tok := f.grant(id, secret, "openid", "email", "offline_access")
			dropConsent(id)
			oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
			if f.active(id, secret, tok.Body["access_token"].(string)) || f.liveTokens(t, id) != 0 {
				t.Fatalf("%s: the family outlived the refused refresh", typ)
			}

			old := f.grant(id, secret, "openid", "email", "offline_access")
			dropConsent(id)
			fresh := f.grant(id, secret, "openid", "offline_access")
			oauthErr(t, f.refresh(id, secret, old.Body["refresh_token"].(string), ""), 400, "invalid_grant")
			if f.active(id, secret, old.Body["access_token"].(string)) {
				t.Fatalf("%s: the family the narrower consent does not cover stayed live", typ)
			}
			apptest.Want(t, f.refresh(id, secret, fresh.Body["refresh_token"].(string), ""), 200, "")
		}
	})
}

// Revoking an app ends the member's tokens for it even when no consent is
// on record (a family the check above now prevents, left by an earlier
// version), and answers 200 again for an app already revoked; an app the
// project does not have is still not found.
func TestRevokeWithoutConsentStillEndsTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		tok := f.grant(id, secret, "openid", "offline_access")
		if _, err := e.App.DB.ExecContext(context.Background(), `DELETE FROM idp_grants WHERE member_id = $1`, f.member); err != nil {
			t.Fatal(err)
		}
		revoke := "/v1/b2b/organizations/" + f.org + "/members/" + f.member + "/connected_apps/"
		apptest.Want(t, e.Backend("POST", revoke+id+"/revoke", nil), 200, "")
		if f.active(id, secret, tok.Body["refresh_token"].(string)) || f.liveTokens(t, id) != 0 {
			t.Fatal("tokens outlived the revoke of an app without consent on record")
		}
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+id+"/revoke", nil, f.session), 200, "")
		apptest.Want(t, e.Backend("POST", revoke+"connected-app-test-nope/revoke", nil), 404, "connected_app_not_found")
	})
}
