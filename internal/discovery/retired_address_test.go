package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An address a member of an organization had before an address change
// (retired, reserved for that member until unlinked) cannot join it by
// email JIT: the exchange refuses it (duplicate_member_email), as it
// refuses a deleted member's address. So discovery does not offer that
// organization to the address, as it does not offer one where the
// address is a deleted member; it offered it as
// eligible_to_join_by_email_domain, and picking it failed. Another
// address of the domain is still offered it, and the retired address
// joins once the member unlinks it.
func TestDiscoveryOmitsAnOrganizationWhereTheAddressIsRetired(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("domain-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
		e.CreateVerifiedMember(org, "zoe@corp.test") // vouches for corp.test
		ada := e.CreateVerifiedMember(org, "ada@corp.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ada,
			map[string]any{"email_address": "ada.lovelace@corp.test"}), 200, "")

		d := e.Discover("ada@corp.test")
		if got := apptest.Memberships(d); len(got) != 0 {
			t.Fatalf("retired address's memberships = %v, want none", got)
		}
		ist := d["intermediate_session_token"].(string)
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{"intermediate_session_token": ist}, "")
		if got := apptest.Memberships(r.Data()); len(got) != 0 {
			t.Fatalf("listed with the IST: memberships = %v", got)
		}
		// Picking it anyway is refused as before.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": org}, ""), 400, "duplicate_member_email")

		if got := apptest.Memberships(e.Discover("bob@corp.test")); got["domain-co"] != "eligible_to_join_by_email_domain" {
			t.Fatalf("bob's memberships = %v, want domain-co: eligible_to_join_by_email_domain", got)
		}

		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members/"+ada+"/unlink_retired_email",
			map[string]any{"email_address": "ada@corp.test"}), 200, "")
		d = e.Discover("ada@corp.test")
		if got := apptest.Memberships(d); got["domain-co"] != "eligible_to_join_by_email_domain" {
			t.Fatalf("after the unlink: memberships = %v, want domain-co: eligible_to_join_by_email_domain", got)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "organization_id": org}, ""), 200, "")
	})
}
