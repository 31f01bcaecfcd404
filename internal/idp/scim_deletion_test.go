package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// SCIM deletes members through the organization's deletion path, so its
// deactivation (active: false) and DELETE /Users end the member's
// connected-app tokens and consent at once, as the member delete route
// does: a member reactivated before the sweeper runs gets neither back.
func TestSCIMDeprovisioningEndsConnectedApps(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+f.org+"/connection", nil)
		apptest.Want(t, r, 200, "")
		c := r.Body["connection"].(map[string]any)
		scim := func(method, path string, body any) apptest.Resp {
			t.Helper()
			return e.Do(method, "/v1/b2b/scim/"+c["connection_id"].(string)+path, body,
				http.Header{"Content-Type": {"application/scim+json"}, "Authorization": {"Bearer " + c["bearer_token"].(string)}}, "", "")
		}
		apptest.Want(t, scim(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"}), 201, "")
		id, secret := f.client("third_party", nil)
		deprovisions := []func(){
			func() {
				apptest.Want(t, scim(http.MethodPatch, "/Users/"+f.member, map[string]any{
					"schemas":    []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
					"Operations": []any{map[string]any{"op": "Replace", "path": "active", "value": "False"}}}), 200, "")
			},
			func() { apptest.Want(t, scim(http.MethodDelete, "/Users/"+f.member, nil), 204, "") },
		}
		for i, deprovision := range deprovisions {
			if i > 0 {
				// Reactivated by the identity provider, the member logs in
				// and consents again.
				apptest.Want(t, scim(http.MethodPatch, "/Users/"+f.member, map[string]any{
					"schemas":    []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
					"Operations": []any{map[string]any{"op": "Replace", "path": "active", "value": "True"}}}), 200, "")
				f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
			}
			tok := f.grant(id, secret, "openid", "email", "offline_access")
			rt := tok.Body["refresh_token"].(string)
			deprovision()
			if n := rows(t, e, `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1 AND revoked_at IS NULL`, f.member); n != 0 {
				t.Fatalf("deprovisioning %d: %d of the member's tokens are not revoked", i, n)
			}
			if n := rows(t, e, `SELECT COUNT(*) FROM idp_grants WHERE member_id = $1`, f.member); n != 0 {
				t.Fatalf("deprovisioning %d: the member's consent is still on record", i)
			}
			if f.active(id, secret, rt) {
				t.Fatalf("deprovisioning %d: the refresh token introspects as active", i)
			}
		}
	})
}
