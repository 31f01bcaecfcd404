package organization

import "context"

// ImplicitRolesGrant is a caller's right to change implicit role
// assignments held outside the organization's settings: an SSO
// connection's, an external connection's, a SCIM connection's. Who holds
// which role follows from those lists (an assignment of stytch_admin to a
// connection makes every member logging in through it an administrator),
// so a member changing one needs stytch.organization's
// update.settings.implicit-roles beside the connection's own action, as
// the organization's email-domain assignments do. An unchanged list sent
// back needs nothing more: the Admin Portal saves whole connection
// objects, so an admin allowed only stytch.sso (or stytch.scim) update
// sends the stored lists with every edit of a name or a certificate.
//
// The grant is decided before the transaction (the policy read is not
// the write's) and applied inside it, once the stored lists have been read
// under the row's lock: a list that was unchanged when the caller loaded
// it may have been changed since by another admin, and sending it back
// then would undo that change.
type ImplicitRolesGrant struct {
	refused error // the refusal to apply to a change; nil: every change is allowed
}

// AuthorizeImplicitRoles decides the caller's grant; the project secret
// may change every list. sent is whether the request carries any
// assignment list: without one nothing can change (AssignmentsChanged of
// an absent list is false), and the policy is not read. A refusal is kept
// for Check, not returned: it matters only if the lists change.
func (c *SessionCaller) AuthorizeImplicitRoles(ctx context.Context, sent bool) ImplicitRolesGrant {
	if !sent {
		return ImplicitRolesGrant{}
	}
	return ImplicitRolesGrant{refused: c.Authorize(ctx, ResourceOrganization, ActionOrgImplicitRoles)}
}

// Check refuses a change of the assignments (changed: the sent lists
// differ from the stored ones, AssignmentsChanged) that the caller may not
// make, with the policy's refusal (unauthorized_action).
func (g ImplicitRolesGrant) Check(changed bool) error {
	if changed {
		return g.refused
	}
	return nil
}

// AssignmentsChanged reports whether sent (nil: not sent) would change
// the stored assignments. They are compared as sets: neither order nor
// repetition changes who holds which role.
func AssignmentsChanged[T comparable](sent *[]T, stored []T) bool {
	if sent == nil {
		return false
	}
	set := func(l []T) map[T]bool {
		m := make(map[T]bool, len(l))
		for _, v := range l {
			m[v] = true
		}
		return m
	}
	a, b := set(*sent), set(stored)
	if len(a) != len(b) {
		return true
	}
	for v := range a {
		if !b[v] {
			return true
		}
	}
	return false
}
