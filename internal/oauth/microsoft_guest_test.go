package oauth_test

import (
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A Microsoft ID token's tid is the tenant the person signed in to, which
// for a guest (an outside account an Entra tenant invited: any member may
// invite one by default) is the inviting tenant, not the account's own;
// Microsoft marks such a token with an idp claim naming the account's home
// (another tenant's issuer, or live.com for a personal account), where a
// member's token has none or the issuer itself. A guest is no one the
// tenant vouches for, so its tid must not admit it by OAuth tenant JIT
// (here with an address Microsoft did not verify); the tenant's own members
// still are admitted.
func TestMicrosoftGuestIsNotInTheInvitingTenant(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startMicrosoftMultiTenant(t, e)
		const tenant = "bigcorp-tid"
		iss := strings.ReplaceAll(msTemplate, "{tenantid}", tenant)
		org := e.CreateOrg("bigcorp", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"microsoft": []string{tenant}}})
		user := func(sub string, idp, acct any) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: sub, Email: sub + "@example.test"},
				Edit: map[string]any{"tid": tenant, "iss": iss, "idp": idp, "acct": acct, "email_verified": nil}}
		}
		const federated = "http://adfs.bigcorp.test/adfs/services/trust"
		guests := []*editedUser{user("guest-a", "https://sts.windows.net/vendor-tid/", nil), user("guest-b", "live.com", nil),
			// The optional acct claim says so outright.
			user("guest-c", nil, 1), user("guest-d", federated, 1)}
		for _, u := range guests {
			r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, u))
			apptest.Want(t, r, 403, "oauth_unverified_email")
		}
		// Members of the tenant: no idp, or the issuer itself (in its v2 or
		// v1 spelling), or a federated sign-in that acct calls a member's.
		members := []*editedUser{user("member-a", nil, nil), user("member-b", iss, nil),
			user("member-c", "https://sts.windows.net/"+tenant+"/", nil), user("member-d", federated, 0)}
		for _, u := range members {
			r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, u))
			apptest.Want(t, r, 200, "")
		}
	})
}

// A personal Microsoft account (outlook.com, live.com) signs in through the
// multi-tenant endpoint with the consumers tenant's tid, the same for
// everyone who ever made one. It is no organization's tenant: an
// organization that names it (stored before the setting was refused, see
// TestOrganizationSettingRules) must not admit such an account by tenant
// JIT, nor offer itself in discovery.
func TestMicrosoftPersonalAccountIsInNoTenant(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startMicrosoftMultiTenant(t, e)
		const consumers = "9188040d-6c67-4c5b-b112-36a304b66dad"
		org := e.CreateOrg("bigcorp", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"microsoft": []string{"bigcorp-tid"}}})
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET allowed_oauth_tenants = $1 WHERE organization_id = $2`,
			`{"microsoft":["`+consumers+`"]}`, org); err != nil {
			t.Fatal(err)
		}
		u := &editedUser{MockUser: &mockoidc.MockUser{Subject: "someone", Email: "someone@outlook.test"},
			Edit: map[string]any{"tid": consumers, "iss": strings.ReplaceAll(msTemplate, "{tenantid}", consumers), "email_verified": nil}}
		r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, u))
		apptest.Want(t, r, 403, "oauth_unverified_email")
	})
}
