package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Anyone with a proven email can create and name an organization here,
// and the name heads every login email of it: a name with bidirectional
// formatting characters is refused as on any other create, and one with
// nothing visible is as blank as spaces, so the organization is named
// after the email's domain.
func TestDiscoveryCreateOrganizationName(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		create := func(email, name string) apptest.Resp {
			d := e.Discover(email)
			return e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
				"organization_name": name}, "")
		}
		apptest.Want(t, create("eve@evil.test", "Acme Payroll\u202e"), 400, "invalid_organization_name")
		r := create("zed@zero.test", "\u200b\u200b")
		apptest.Want(t, r, 200, "")
		if name := r.Data()["organization"].(map[string]any)["organization_name"]; name != "Zero" {
			t.Fatalf("organization_name = %q", name)
		}
	})
}
