package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Two organizations that both restrict to one domain both claim it.
// Discovery lists both as eligible by that domain, and the person may join
// either one: the claim keeps the domain's people out of every other
// organization, not out of its own claimants.
func TestDomainClaimedByTwoOrganizations(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sales := e.CreateOrg("acme-sales", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		support := e.CreateOrg("acme-support", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)

		d := e.Discover("ann@acme.test")
		got := apptest.Memberships(d)
		if got["acme-sales"] != "eligible_to_join_by_email_domain" || got["acme-support"] != "eligible_to_join_by_email_domain" || len(got) != 2 {
			t.Fatalf("discovered %v", got)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "organization_id": open}, ""), 403, "action_not_allowed_email_domain_is_claimed")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"]}, ""), 403, "action_not_allowed_email_domain_is_claimed")
		for _, org := range []string{sales, support} {
			d := e.Discover("ann@acme.test")
			r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
				"intermediate_session_token": d["intermediate_session_token"], "organization_id": org, "session_duration_minutes": 60}, "")
			apptest.Want(t, r, 200, "")
			if r.Data()["member"].(map[string]any)["organization_id"] != org {
				t.Fatalf("joined %s", r.Raw)
			}
		}
	})
}
