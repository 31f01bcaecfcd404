package password_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The reset page sends the widget's locale (spec section 7). A language
// other than English is refused before the reset link is read, as on
// every login call (codes and emails are English only); the link then
// still resets in English.
func TestResetByEmailTakesEnglishLocalesOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 200, "")
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		const fresh = "Lantern-Pebble-Orchid-40"
		apptest.Want(t, e.ResetWith(token, fresh, map[string]any{"locale": "fr"}), 400, "unsupported_parameter")
		apptest.Want(t, e.ResetWith(token, fresh, map[string]any{"locale": "en"}), 200, "")
	})
}
