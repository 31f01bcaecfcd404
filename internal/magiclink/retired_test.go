package magiclink_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// On the SDK face a send to an address a member of the organization had
// before an address change (retired, reserved for them) is answered as a
// send to a stranger: success, with the project's notice mailed instead
// of a link. It was duplicate_member_email, naming the address as another
// member's former one to any holder of the public token. The backend face
// keeps that refusal.
func TestMagicLinkSendAnswersRetiredAddressAsStranger(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		id := e.CreateVerifiedMember(org, "old@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id,
			map[string]any{"email_address": "new@acme.test"}), 200, "")
		for _, email := range []string{"stranger@acme.test", "old@acme.test"} {
			apptest.Want(t, e.SendLink(org, email, nil), 200, "")
		}
		msgs, err := e.App.Outbox.List(t.Context(), "old@acme.test", 0)
		if err != nil || len(msgs) != 1 || len(msgs[0].Links) != 0 || len(msgs[0].Codes) != 0 {
			t.Fatalf("mail to the retired address: %+v, %v; want the notice alone", msgs, err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE email_address = $1 AND used_at IS NULL`, "old@acme.test"); n != 0 {
			t.Fatalf("%d links stored for the retired address", n)
		}
		apptest.Want(t, backendLink(e, org, "old@acme.test", nil), 400, "duplicate_member_email")
	})
}
