package app_test

import (
	"net/http"
	"testing"
)

func TestOrganizationsAndMembers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		id := e.createOrg("acme", "RESTRICTED", "Acme.test")
		r := e.backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil)
		o := r.Body["organization"].(map[string]any)
		if o["organization_slug"] != "acme" || o["email_allowed_domains"].([]any)[0] != "acme.test" || o["auth_methods"] != "ALL_ALLOWED" {
			t.Fatalf("organization = %v", o)
		}
		if r.Body["request_id"] == nil || r.Body["status_code"] != float64(200) {
			t.Fatalf("backend envelope lacks request_id/status_code: %v", r.Body)
		}

		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Dup", "organization_slug": "acme"}),
			400, "organization_slug_already_used")
		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bad", "organization_slug": "Not OK"}),
			400, "invalid_organization_slug")
		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Xeno", "email_jit_provisioning": "SOMETIMES"}),
			400, "invalid_request")
		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Yolo", "email_jit_provisioning": "RESTRICTED"}),
			400, "invalid_request")

		r = e.backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_name": "Acme Inc", "auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"magic_link"}})
		if r.Status != 200 || r.Body["organization"].(map[string]any)["organization_name"] != "Acme Inc" {
			t.Fatalf("update: %d %s", r.Status, r.Raw)
		}
		want(t, e.backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"allowed_auth_methods": []string{"telepathy"}}), 400, "invalid_request")

		mid := e.createMember(id, "Ada@Acme.test")
		r = e.backend(http.MethodGet, "/v1/b2b/organizations/"+id+"/member?email_address=ada@acme.test", nil)
		m := r.Body["member"].(map[string]any)
		if r.Body["member_id"] != mid || m["status"] != "active" || m["email_address"] != "ada@acme.test" {
			t.Fatalf("member = %s", r.Raw)
		}
		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations/"+id+"/members", map[string]any{"email_address": "ada@acme.test"}),
			400, "duplicate_member_email")
		want(t, e.backend(http.MethodPost, "/v1/b2b/organizations/"+id+"/members", map[string]any{"email_address": "nope"}), 400, "invalid_email")
		want(t, e.backend(http.MethodGet, "/v1/b2b/organizations/"+id+"/member?member_id=member-test-x", nil), 404, "member_not_found")

		// SDK slug search: the subset for the widget, null when unknown.
		r = e.sdk("/b2b/organizations/search", map[string]any{"organization_slug": "acme"}, "")
		so := r.data()["organization"].(map[string]any)
		if so["organization_id"] != id || so["organization_name"] != "Acme Inc" {
			t.Fatalf("search = %s", r.Raw)
		}
		if _, leaked := so["trusted_metadata"]; leaked {
			t.Fatal("slug search leaks trusted_metadata to public-token callers")
		}
		if r := e.sdk("/b2b/organizations/search", map[string]any{"organization_slug": "unknown"}, ""); r.Status != 200 || r.data()["organization"] != nil {
			t.Fatalf("unknown slug: %s", r.Raw)
		}

		// Isolation: another project sees neither the slug nor the id.
		other := e.newProject("Other")
		r = e.do(http.MethodPost, "/sdk/v1/b2b/organizations/search", map[string]any{"organization_slug": "acme"},
			http.Header{"Origin": {e.origin}}, other.PublicToken, other.PublicToken)
		if r.data()["organization"] != nil {
			t.Fatalf("other project found the slug: %s", r.Raw)
		}
		want(t, e.do(http.MethodGet, "/v1/b2b/organizations/"+id, nil, nil, other.Project.ID, other.Secret), 404, "organization_not_found")

		r = e.backend(http.MethodDelete, "/v1/b2b/organizations/"+id, nil)
		if r.Status != 200 || r.Body["organization_id"] != id {
			t.Fatalf("delete: %s", r.Raw)
		}
		want(t, e.backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil), 404, "organization_not_found")
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/"+id, nil), 404, "organization_not_found")
	})
}
