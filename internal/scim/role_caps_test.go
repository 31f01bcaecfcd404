package scim_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// SCIM group role assignments are capped like a SAML connection's: a list
// over the cap is refused whole, naming its field, before any assignment
// is looked at.
func TestGroupRoleAssignmentsCapped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, _, _ := connection(t, e, org, nil)
		list := make([]any, organization.MaxRoleAssignments+1)
		for i := range list {
			list[i] = map[string]any{"role_id": "stytch_member", "group_id": fmt.Sprint("group-", i)}
		}
		r := e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{"scim_group_implicit_role_assignments": list})
		apptest.Want(t, r, 400, "invalid_request")
		if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "scim_group_implicit_role_assignments" {
			t.Fatalf("over the cap: %s", r.Raw)
		}
	})
}
