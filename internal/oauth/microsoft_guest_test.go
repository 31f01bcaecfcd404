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
		user := func(sub string, idp any) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: sub, Email: sub + "@example.test"},
				Edit: map[string]any{"tid": tenant, "iss": iss, "idp": idp, "email_verified": nil}}
		}
		for _, idp := range []string{"https://sts.windows.net/vendor-tid/", "live.com"} {
			r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user("guest", idp)))
			apptest.Want(t, r, 403, "oauth_unverified_email")
		}
		// Members of the tenant: no idp, or the issuer itself (in its v2 or
		// v1 spelling).
		for sub, idp := range map[string]any{"member-a": nil, "member-b": iss, "member-c": "https://sts.windows.net/" + tenant + "/"} {
			r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user(sub, idp)))
			apptest.Want(t, r, 200, "")
		}
	})
}
