package oauth_test

import (
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A first OAuth login of a new address while another login of it (another
// tab, another method) creates its member: both find no member and both
// provision one. The second creation waits for the first and the login
// goes on as the member it created, not duplicate_member_email.
func TestOAuthJITLoginWhileTheAddressIsProvisionedJoinsThatMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	m := startGoogle(t, e)
	org := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
	ada := &mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true}
	cb := callbackOf(t, e, m, "google", org, ada)
	var r apptest.Resp
	e.DuringProvisioning(t, org, "ada@acme.test", func() { r = authenticateAfter(t, e, cb) })
	apptest.Want(t, r, 200, "")
}
