package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// A session whose only factor is an organization's own SSO assertion
// speaks for that organization only: its discovery list shows that
// organization and not the address's other ones. The SSO identity
// provider is the organization admin's, and may assert any address; its
// word must not reveal where else that address is a member.
func TestDiscoveryListForAnSSOSessionShowsItsOwnOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		alpha := e.CreateOrg("alpha", "NOT_ALLOWED", nil)
		beta := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		mid := e.CreateVerifiedMember(alpha, "ada@acme.test")
		e.CreateVerifiedMember(beta, "ada@acme.test")
		token := ssoLogin(t, e, alpha, mid).SessionToken
		if token == "" {
			t.Fatal("the SSO login gave no session")
		}
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, token)
		apptest.Want(t, r, 200, "")
		if got := apptest.Memberships(r.Data()); len(got) != 1 || got["alpha"] == "" {
			t.Fatalf("an SSO session's discovery list: %v, want alpha alone", got)
		}
	})
}

// ssoLogin completes a login of member mid of org by the factor of an SSO
// assertion alone (an SAML connection of org's, never called), the way
// the SSO callback completes one, and returns its answer: a session, or an
// IST when org requires MFA.
func ssoLogin(t *testing.T, e *apptest.Env, org, mid string) *session.AuthResponse {
	t.Helper()
	ctx := t.Context()
	var res *session.AuthResponse
	err := e.App.DB.Tx(ctx, func(q store.Querier) error {
		o, err := e.App.Orgs.GetIn(ctx, q, e.Project.Project.ID, org)
		if err != nil {
			return err
		}
		m, err := e.App.Orgs.Member(ctx, q, e.Project.Project.ID, mid)
		if err != nil {
			return err
		}
		res, err = e.App.Sessions.Complete(ctx, q, session.CompleteParams{Project: e.Project.Project, Organization: o,
			Member: m, DurationMinutes: 60, Factor: session.Factor{Type: "sso", DeliveryMethod: "sso_saml",
				SAMLSSOFactor: &session.SSOFactor{ID: "sso-registration-test-1", ProviderID: "saml-connection-test-1", ExternalID: "ada"}}})
		return err
	})
	if err != nil {
		t.Fatalf("SSO login: %v", err)
	}
	return res
}
