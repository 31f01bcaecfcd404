package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The audit's scenario: a stranger creating an organization by discovery
// chooses as its slug the customer's external id of another organization,
// to have the backend's calls "by external id" (get, members create with
// is_admin, update, delete) land in the stranger's organization. Slugs and
// external ids are one namespace per project, so the create is refused on
// both faces, and the external id still names the customer's organization.
// A derived slug (none chosen) that is an external id gets a fresh one, as
// a derived slug that is a slug does; and the backend's discovery create
// may not take another organization's slug as its external id.
func TestCreateCannotTakeAnExternalIDAsSlug(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victim := e.CreateOrg("victim", "NOT_ALLOWED", map[string]any{"organization_external_id": "acme-corp"})
		// Each check takes a name of its own (held by an organization of its
		// own) and reports on its own: one let through does not hide another.
		e.CreateOrg("customer", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-customer"})
		e.CreateOrg("startup-co", "NOT_ALLOWED", map[string]any{"organization_external_id": "startup"}) // the derived slug of startup.test
		e.CreateOrg("held-slug", "NOT_ALLOWED", nil)
		body := func(email string, fields map[string]any) map[string]any {
			b := map[string]any{"intermediate_session_token": e.Discover(email)["intermediate_session_token"], "session_duration_minutes": 60}
			for k, v := range fields {
				b[k] = v
			}
			return b
		}
		want := func(what string, r apptest.Resp, status int, errType string) {
			t.Helper()
			if r.Status != status || r.ErrType() != errType {
				t.Errorf("%s: %d %q, want %d %q: %s", what, r.Status, r.ErrType(), status, errType, r.Raw)
			}
		}
		want("SDK create, slug = an external id", e.SDK(http.MethodPost, "/b2b/discovery/organizations/create",
			body("mallory@startup.test", map[string]any{"organization_slug": "acme-corp"}), ""), 400, "organization_slug_already_used")
		want("backend create, slug = an external id", e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create",
			body("eve@startup.test", map[string]any{"organization_slug": "crm-customer"})), 400, "organization_slug_already_used")
		want("backend create, external id = a slug", e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create",
			body("bob@other.test", map[string]any{"organization_external_id": "held-slug"})), 400, "organization_external_id_already_used")
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", body("ann@startup.test", nil), "")
		want("SDK create, derived slug", r, 200, "")
		if o, _ := r.Data()["organization"].(map[string]any); o["organization_slug"] == "startup" {
			t.Errorf("derived slug %v is another organization's external id", o["organization_slug"])
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug IN ('acme-corp', 'crm-customer', 'startup')
			OR organization_external_id = 'held-slug'`); n != 0 {
			t.Errorf("%d organizations took another's name", n)
		}

		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/acme-corp", nil)
		if r.Status != 200 || r.Body["organization"].(map[string]any)["organization_id"] != victim {
			t.Fatalf("GET organizations/acme-corp: %s", r.Raw)
		}
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/acme-corp/members", map[string]any{"email_address": "boss@acme.test", "is_admin": true})
		if m, _ := r.Body["member"].(map[string]any); r.Status != 200 || m["organization_id"] != victim {
			t.Fatalf("POST organizations/acme-corp/members: %s", r.Raw)
		}
	})
}
