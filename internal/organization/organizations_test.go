package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestOrganizationsAndMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		id := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"Acme.test"}})
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil)
		o := r.Body["organization"].(map[string]any)
		if o["organization_slug"] != "acme" || o["email_allowed_domains"].([]any)[0] != "acme.test" || o["auth_methods"] != "ALL_ALLOWED" {
			t.Fatalf("organization = %v", o)
		}
		if r.Body["request_id"] == nil || r.Body["status_code"] != float64(200) {
			t.Fatalf("backend envelope lacks request_id/status_code: %v", r.Body)
		}

		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Dup", "organization_slug": "acme"}),
			400, "organization_slug_already_used")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bad", "organization_slug": "Not OK"}),
			400, "invalid_organization_slug")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Xeno", "email_jit_provisioning": "SOMETIMES"}),
			400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Yolo", "email_jit_provisioning": "RESTRICTED"}),
			400, "invalid_request")

		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_name": "Acme Inc", "auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"magic_link"}})
		if r.Status != 200 || r.Body["organization"].(map[string]any)["organization_name"] != "Acme Inc" {
			t.Fatalf("update: %d %s", r.Status, r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"allowed_auth_methods": []string{"telepathy"}}), 400, "invalid_request")

		mid := e.CreateMember(id, "Ada@Acme.test")
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id+"/member?email_address=ada@acme.test", nil)
		m := r.Body["member"].(map[string]any)
		if r.Body["member_id"] != mid || m["status"] != "active" || m["email_address"] != "ada@acme.test" {
			t.Fatalf("member = %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+id+"/members", map[string]any{"email_address": "ada@acme.test"}),
			400, "duplicate_member_email")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+id+"/members", map[string]any{"email_address": "nope"}), 400, "invalid_email")
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id+"/member?member_id=member-test-x", nil), 404, "member_not_found")

		// SDK slug search: the subset for the widget, null when unknown.
		r = e.SDK(http.MethodPost, "/b2b/organizations/search", map[string]any{"organization_slug": "acme"}, "")
		so := r.Data()["organization"].(map[string]any)
		if so["organization_id"] != id || so["organization_name"] != "Acme Inc" {
			t.Fatalf("search = %s", r.Raw)
		}
		if _, leaked := so["trusted_metadata"]; leaked {
			t.Fatal("slug search leaks trusted_metadata to public-token callers")
		}
		if r := e.SDK(http.MethodPost, "/b2b/organizations/search", map[string]any{"organization_slug": "unknown"}, ""); r.Status != 200 || r.Data()["organization"] != nil {
			t.Fatalf("unknown slug: %s", r.Raw)
		}

		// Isolation: another project sees neither the slug nor the id.
		other := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/sdk/v1/b2b/organizations/search", map[string]any{"organization_slug": "acme"},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		if r.Data()["organization"] != nil {
			t.Fatalf("other project found the slug: %s", r.Raw)
		}
		apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/"+id, nil, nil, other.Project.ID, other.Secret), 404, "organization_not_found")

		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+id, nil)
		if r.Status != 200 || r.Body["organization_id"] != id {
			t.Fatalf("delete: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil), 404, "organization_not_found")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+id, nil), 404, "organization_not_found")
	})
}
