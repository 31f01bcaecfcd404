package magiclink_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The widget sends its configured locale when it redeems a link (spec
// section 7). A language other than English is refused
// (unsupported_parameter), as on every login call: a login may text an
// MFA code on the way, and codes and emails go out in English only. The
// refusal comes before the link is read, so the link still works for a
// redemption in English (any English spelling).
func TestLinkRedemptionTakesEnglishLocalesOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		token, _ := inviteLink(t, e, org, "nia@acme.test", nil)
		for _, locale := range []string{"es", "pt-BR", "fr_FR"} {
			apptest.Want(t, e.RedeemLink(token, map[string]any{"locale": locale}), 400, "unsupported_parameter")
		}
		apptest.Want(t, e.RedeemLink(token, map[string]any{"locale": "en-US"}), 200, "")
	})
}
