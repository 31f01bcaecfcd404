package organization

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The values cap bounds what a request names; email role assignments
// multiply member_roles by what the searched organizations store. A query
// that expands past maxQueryArgs parameters is refused (400), before any
// engine's parameter limit answers 500; one below it compiles.
func TestQueryArgsBackstop(t *testing.T) {
	orgs := func(n, domains int) map[string]*Organization {
		out := map[string]*Organization{}
		for i := range n {
			o := &Organization{OrganizationID: fmt.Sprintf("organization-test-%d", i)}
			for d := range domains {
				o.RBACEmailImplicitRoleAssignments = append(o.RBACEmailImplicitRoleAssignments,
					RoleAssignment{RoleID: "editor", Domain: fmt.Sprintf("d%d-%d.test", i, d)})
			}
			out[o.OrganizationID] = o
		}
		return out
	}
	q := &Query{Operator: "AND", Operands: []Operand{{FilterName: "member_roles", FilterValue: json.RawMessage(`["editor"]`)}}}

	w := &sqlWhere{orgs: orgs(40, 100)}
	if _, err := compileQuery(w, q, memberFilters); err != nil || len(w.args) < 8000 {
		t.Fatalf("4,000 assignments: %d args, %v", len(w.args), err)
	}
	w = &sqlWhere{orgs: orgs(120, 100)}
	_, err := compileQuery(w, q, memberFilters)
	if e, ok := err.(*apierr.Error); !ok || e.Status != 400 || e.Details["field"] != "query" {
		t.Fatalf("12,000 assignments: %d args, %v", len(w.args), err)
	}
}
