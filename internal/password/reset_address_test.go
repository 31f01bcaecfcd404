package password_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A reset link belongs to the address it was emailed to: once the member
// is at another address (moved here straight in the database, so that the
// address change's own spending of the link is not what refuses it), the
// link is refused unable_to_auth_magic_link and sets no password for the
// new address. Otherwise a link read from a mailbox the member has left
// would set the password of the address they moved to.
func TestResetLinkChecksTheMembersAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		if r := e.ResetStart(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		e.ForceAddress(mid, "ada.new@acme.test")
		const pw = "Lantern-Pebble-Orchid-40"
		apptest.Want(t, e.ResetWith(token, pw, nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.PasswordLogin(org, "ada.new@acme.test", pw), 401, "unauthorized_credentials")
	})
}
