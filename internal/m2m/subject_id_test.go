package m2m_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An M2M client's id is the sub of every access token it is issued, as a
// member's id is the sub of a connected app's tokens for that member. A
// chosen client_id spelled as a member's id (or a consumer user's, or an
// organization's) would have a resource server keyed on sub take a
// machine for a person: the operator could even name an existing member.
// Such ids are refused as invalid_request on client_id, in any case (a
// resource server's store may compare without case), and nothing is
// stored; ids that merely contain those words are still taken.
func TestChosenClientIDNotASubjectOfAnotherKind(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		member := e.CreateMember(org, "ada@acme.test")
		create := func(id string) apptest.Resp {
			t.Helper()
			return a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "scopes": []string{"read"}})
		}
		for name, id := range map[string]string{
			"an existing member's id":      member,
			"a member id of the other env": "member-live-2f1c5b4e-8d3a-4c9e-9b7a-1d2e3f4a5b6c",
			"a member id, upper case":      "MEMBER-test-2f1c5b4e-8d3a-4c9e-9b7a-1d2e3f4a5b6c",
			"the member prefix alone":      "member-nightly",
			"a user id":                    "user-test-2f1c5b4e-8d3a-4c9e-9b7a-1d2e3f4a5b6c",
			"an organization id":           org,
			"the organization prefix":      "Organization-reports",
		} {
			r := create(id)
			d, _ := r.Body["error_details"].(map[string]any)
			if r.Status != 400 || r.ErrType() != "invalid_request" || d["field"] != "client_id" {
				t.Errorf("%s (%s): %d %s", name, id, r.Status, r.Raw)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients`); n != 0 {
			t.Fatalf("refused ids stored %d clients", n)
		}

		// Ids that only contain those words are no member's, user's or
		// organization's, and are taken; the token names the client.
		for _, id := range []string{"member", "members-sync", "nightly-member-export", "users.report", "m2m-client-reports"} {
			r := create(id)
			apptest.Want(t, r, 200, "")
			secret := r.Body["m2m_client"].(map[string]any)["client_secret"].(string)
			tok := a.token(id, secret, "")
			apptest.Want(t, tok, 200, "")
			claims, err := a.verify(t, tok.Body["access_token"].(string))
			if err != nil || claims.Subject != id {
				t.Fatalf("%s: token sub %v, %v", id, claims, err)
			}
		}
	})
}
