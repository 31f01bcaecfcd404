package idp_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An access token whose consent is gone, or no longer covers full_access,
// is not exchanged for a session: introspection already calls it inactive
// (usableNow), and a family can outlive its consent (a code redeemed after
// a revoke by an earlier version; the tests write that state behind the
// API, as consent_revoked_test.go does).
func TestExchangeNeedsTheConsentStillOnRecord(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		exchange := func(at string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": at})
		}
		for name, change := range map[string]string{
			"consent narrowed": `UPDATE idp_grants SET scopes = '["openid"]' WHERE member_id = $1`,
			"consent gone":     `DELETE FROM idp_grants WHERE member_id = $1`,
		} {
			at := f.grant(id, secret, "openid", "full_access").Body["access_token"].(string)
			if _, err := e.App.DB.ExecContext(context.Background(), change, f.member); err != nil {
				t.Fatal(err)
			}
			if in := f.introspected(id, secret, at); in.Body["active"] != false {
				t.Fatalf("%s: the access token introspects as %s", name, in.Raw)
			}
			r := exchange(at)
			if r.Status == http.StatusOK {
				t.Errorf("%s: the access token was exchanged for a session: %s", name, r.Raw)
				continue
			}
			apptest.Want(t, r, 401, "oauth_access_token_exchange_token_invalid_grant")
		}
	})
}
