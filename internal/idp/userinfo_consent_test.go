package idp_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// userinfo refuses an access token whose consent no longer covers it, as
// introspection calls it inactive (usableNow) and the exchange for a
// session refuses it: a family can outlive its consent (a code redeemed
// after a revoke by an earlier version; the test writes that state behind
// the API, as consent_revoked_test.go does).
func TestUserinfoNeedsTheConsentStillOnRecord(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		for name, change := range map[string]string{
			"consent narrowed": `UPDATE idp_grants SET scopes = '["openid"]' WHERE member_id = $1`,
			"consent gone":     `DELETE FROM idp_grants WHERE member_id = $1`,
		} {
			at := f.grant(id, secret, "openid", "email").Body["access_token"].(string)
			apptest.Want(t, f.userInfo(at), 200, "")
			if _, err := e.App.DB.ExecContext(context.Background(), change, f.member); err != nil {
				t.Fatal(err)
			}
			if f.active(id, secret, at) {
				t.Fatalf("%s: the access token still introspects active", name)
			}
			if r := f.userInfo(at); r.Status != 401 || r.Body["error"] != "invalid_token" {
				t.Errorf("%s: userinfo answered %d %s", name, r.Status, r.Raw)
			}
		}
	})
}
