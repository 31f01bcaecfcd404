package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A browser creating an organization through discovery sets what a
// member may set (organization.Settings.ForMembers), not the backend's
// trusted_metadata or external id: those are dropped, as the SDK's
// organization update drops them. The backend face keeps both.
func TestCreateTrustedFieldsByFace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		create := func(sdk bool, email, externalID string) map[string]any {
			t.Helper()
			d := e.Discover(email)
			body := map[string]any{"intermediate_session_token": d["intermediate_session_token"],
				"trusted_metadata": map[string]any{"plan": "enterprise"}, "organization_external_id": externalID}
			var org map[string]any
			if sdk {
				r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", body, "")
				apptest.Want(t, r, 200, "")
				org = r.Data()["organization"].(map[string]any)
			} else {
				r := e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create", body)
				apptest.Want(t, r, 200, "")
				org = r.Body["organization"].(map[string]any)
			}
			g := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org["organization_id"].(string), nil)
			apptest.Want(t, g, 200, "")
			return g.Body["organization"].(map[string]any)
		}

		browser := create(true, "mallory@startup.test", "crm-acct-0001")
		if md := browser["trusted_metadata"].(map[string]any); len(md) != 0 {
			t.Errorf("SDK create stored trusted_metadata %v", md)
		}
		if id, _ := browser["organization_external_id"].(string); id != "" {
			t.Errorf("SDK create stored organization_external_id %v", id)
		}
		// The id the browser named is still free for the customer's backend.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Real",
			"organization_external_id": "crm-acct-0001"}), 200, "")

		backend := create(false, "ann@backend.test", "crm-acct-0002")
		if md := backend["trusted_metadata"].(map[string]any); md["plan"] != "enterprise" {
			t.Errorf("backend create trusted_metadata = %v", md)
		}
		if id := backend["organization_external_id"]; id != "crm-acct-0002" {
			t.Errorf("backend create organization_external_id = %v", id)
		}
	})
}
