package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// api-reference §5.4: GET /v1/b2b/organizations/{organization_id}/metrics
// (the Node client's organizations.metrics) answers member_count: the
// organization's members, deleted ones not counted.
func TestOrganizationMetricsCountsMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		other := e.CreateOrg("initech", "ALL_ALLOWED", nil)
		count := func(orgID string) any {
			r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID+"/metrics", nil)
			apptest.Want(t, r, 200, "")
			return r.Body["member_count"]
		}
		if n := count(org); n != 0.0 {
			t.Fatalf("empty organization: member_count = %v", n)
		}
		e.CreateMember(org, "ada@acme.test")
		grace := e.CreateMember(org, "grace@acme.test")
		e.CreateMember(org, "bob@acme.test")
		e.CreateMember(other, "peter@initech.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "pending@acme.test", "create_member_as_pending": true}), 200, "")
		e.DeleteMember(org, grace)
		if n := count(org); n != 3.0 {
			t.Fatalf("member_count = %v, want 3 (one deleted, another organization's not counted)", n)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/organization-test-nope/metrics", nil), 404, "organization_not_found")
	})
}
