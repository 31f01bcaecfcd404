package password_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The reset page sends the widget's locale (spec section 7). A language
// the server does not write is refused before the reset link is read, as
// on every login call; the link then still resets in a supported one.
func TestResetByEmailTakesSupportedLocalesOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 200, "")
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		const fresh = "Lantern-Pebble-Orchid-40"
		apptest.Want(t, e.ResetWith(token, fresh, map[string]any{"locale": "de"}), 400, "unsupported_parameter")
		apptest.Want(t, e.ResetWith(token, fresh, map[string]any{"locale": "fr"}), 200, "")
	})
}

// The reset start's email is written in the request's language: a member
// with a password gets the reset email, in French here; a locale the
// server does not write is refused and sends nothing.
func TestResetStartEmailInTheRequestedLanguage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		before := e.Count(`SELECT COUNT(*) FROM dev_outbox WHERE recipient = $1`, "ada@acme.test")
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"locale": "de"}), 400, "unsupported_parameter")
		if n := e.Count(`SELECT COUNT(*) FROM dev_outbox WHERE recipient = $1`, "ada@acme.test"); n != before {
			t.Fatalf("%d emails sent for a refused locale", n-before)
		}
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"locale": "fr_FR"}), 200, "")
		msgs, err := e.App.Outbox.List(t.Context(), "ada@acme.test", 1)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("outbox: %v %v", msgs, err)
		}
		if m := msgs[0]; m.Subject != "Réinitialisez votre mot de passe pour Acme" ||
			!strings.Contains(m.Text, "Votre mot de passe actuel reste valable") || !strings.Contains(m.HTML, `<html lang="fr">`) {
			t.Fatalf("reset email not in French:\n%s\n%s", m.Subject, m.Text)
		}
	})
}
