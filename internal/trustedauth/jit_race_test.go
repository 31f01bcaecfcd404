package trustedauth_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// A provisioning attestation of a new address while another login of it
// creates its member: both find no member and both provision one. The
// second creation waits for the first and the attestation goes on as the
// member it created, not duplicate_member_email.
func TestAttestJITWhileTheAddressIsProvisionedJoinsThatMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	is := newIssuer(t)
	prof := jwksProfile(t, e, is, func(n *trustedauth.NewProfile) {
		n.AttributeMapping.OrganizationID, n.CanJITProvision = "https://partner.test/org", true
	})
	org := e.CreateOrg("open", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"open.test"}})
	tok := is.token(e.Clock.Now(), "bo@open.test", "a", map[string]any{"https://partner.test/org": org})
	var r apptest.Resp
	e.DuringProvisioning(t, org, "bo@open.test", func() { r = attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok}) })
	apptest.Want(t, r, 200, "")
}
