package sso_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// A connection's implicit role assignments are capped: each is checked
// against the policy inside the write transaction, and 15,000 held it for
// seconds. A list over the cap is refused whole, naming its field, and
// nothing changes; a list at the cap is taken.
func TestSAMLRoleAssignmentsCapped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		list := func(n int, group bool) []any {
			out := make([]any, n)
			for i := range out {
				a := map[string]any{"role_id": "stytch_member"}
				if group {
					a["group"] = fmt.Sprint("group-", i)
				}
				out[i] = a
			}
			return out
		}
		for _, field := range []string{"saml_connection_implicit_role_assignments", "saml_group_implicit_role_assignments"} {
			group := field == "saml_group_implicit_role_assignments"
			r := e.Backend(http.MethodPut, path, map[string]any{field: list(organization.MaxRoleAssignments+1, group)})
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Fatalf("%s over the cap: %s", field, r.Raw)
			}
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{field: list(organization.MaxRoleAssignments, group)}), 200, "")
		}
	})
}
