package magiclink_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The widget sends its configured locale when it redeems a link (spec
// section 7). A language the server does not write (a login may text an
// MFA code on the way) is refused (unsupported_parameter), as on every
// login call, before the link is read, so the link still works for a
// redemption in a supported one, in any spelling of its tag.
func TestLinkRedemptionTakesSupportedLocalesOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		token, _ := inviteLink(t, e, org, "nia@acme.test", nil)
		for _, locale := range []string{"de", "it-IT", "zh_CN"} {
			apptest.Want(t, e.RedeemLink(token, map[string]any{"locale": locale}), 400, "unsupported_parameter")
		}
		apptest.Want(t, e.RedeemLink(token, map[string]any{"locale": "pt-BR"}), 200, "")
	})
}
