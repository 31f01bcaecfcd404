package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// A password belongs to the address in every organization, so a session
// may set it only when one of its factors proves the address (an email
// link or code, or the current password). A fresh session whose only
// factor is another issuer's word for the address (here a trusted auth
// token) is refused unauthorized_action, even while the address has a
// usable password it could replace, and that password still logs in.
func TestSessionResetNeedsAFactorThatProvesTheAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateVerifiedMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		ctx := t.Context()
		var token string
		err := e.App.DB.Tx(ctx, func(q store.Querier) error {
			o, err := e.App.Orgs.GetIn(ctx, q, e.Project.Project.ID, org)
			if err != nil {
				return err
			}
			m, err := e.App.Orgs.Member(ctx, q, e.Project.Project.ID, mid)
			if err != nil {
				return err
			}
			r, err := e.App.Sessions.Complete(ctx, q, session.CompleteParams{Project: e.Project.Project,
				Organization: o, Member: m, DurationMinutes: 60, Factor: session.Factor{Type: "trusted_auth_token",
					DeliveryMethod: "trusted_token_exchange", TrustedAuthTokenFactor: &session.TrustedAuthTokenFactor{TokenID: "t1"}}})
			if err == nil {
				token = r.SessionToken
			}
			return err
		})
		if err != nil || token == "" {
			t.Fatalf("session: %q %v", token, err)
		}
		const taken = "Granite-Heron-Lantern-47"
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": taken}, token),
			403, "unauthorized_action")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", taken), 401, "unauthorized_credentials")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 200, "")
	})
}
