package emailupdate_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// start_email_update writes its email in the request's language, and
// refuses one the server does not write before anything is sent.
func TestEmailUpdateInTheRequestedLanguage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		const to = "robert@acme.test"
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": to, "login_redirect_url": apptest.Page,
			"locale": "de"}), 400, "unsupported_parameter")
		if n := e.Count(`SELECT COUNT(*) FROM dev_outbox WHERE recipient = $1`, to); n != 0 {
			t.Fatalf("%d emails sent for a refused locale", n)
		}
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": to, "login_redirect_url": apptest.Page,
			"locale": "pt-BR"}), 200, "")
		msgs, err := e.App.Outbox.List(t.Context(), to, 1)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("outbox: %v %v", msgs, err)
		}
		if m := msgs[0]; !strings.HasPrefix(m.Subject, "Confirme seu novo endereço de e-mail em ") ||
			!strings.Contains(m.Text, "Use este link para confirmar seu novo endereço de e-mail.") || !strings.Contains(m.HTML, `<html lang="pt-BR">`) {
			t.Fatalf("email update not in Portuguese:\n%s\n%s", m.Subject, m.Text)
		}
	})
}
