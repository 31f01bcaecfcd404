package rbac

import (
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/organization"
)

// Every action the organization handlers check is one the built-in
// resources offer, so a custom role can be granted it (the connected-app
// settings action once was missing).
func TestBuiltinResourcesOfferEveryCheckedAction(t *testing.T) {
	p := Effective(Policy{})
	for res, actions := range map[string][]string{
		ResourceOrganization: organization.OrgActions, ResourceMember: organization.MemberActions,
		ResourceSSO: organization.SSOActions, ResourceSelf: organization.SelfActions,
	} {
		r := p.Resource(res)
		if r == nil {
			t.Fatalf("missing built-in resource %s", res)
		}
		for _, a := range actions {
			if !slices.Contains(r.Actions, a) {
				t.Errorf("%s lacks action %q", res, a)
			}
		}
	}
}
