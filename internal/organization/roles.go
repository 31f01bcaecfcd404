package organization

import (
	"context"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Role source types of member.roles[].sources (the Node client's
// MemberRoleSource): why a member holds a role.
const (
	SourceDirect        = "direct_assignment"    // explicitly assigned (roles on create/update), or built in
	SourceEmail         = "email_assignment"     // the organization's rbac_email_implicit_role_assignments; details.email_domain
	SourceSSOConnection = "sso_connection"       // a SAML connection's assignment; details.connection_id
	SourceSSOGroup      = "sso_connection_group" // a SAML group's assignment; details.connection_id and details.group
	// SourceSCIMGroup is a SCIM group's assignment (the SCIM connection's
	// scim_group_implicit_role_assignments); details.connection_id and
	// details.group_id. Unlike the SSO sources it counts in every session.
	SourceSCIMGroup = "scim_connection_group"
)

// RoleGrant is one reason a member holds a role.
type RoleGrant struct {
	RoleID string
	Source RoleSource
}

// ImplicitRoleSource grants roles a member holds because of something
// other than a direct assignment or their email domain: SAML connection
// and group assignments (the SSO module registers one), SCIM group
// assignments (the SCIM module). It runs whenever a
// member is read, inside the reading transaction q; the tables it reads
// must be watched (app.Watches) with the member's or the organization's
// scope, or cached sessions keep stale roles.
//
// It answers for every member of a load at once: a members search page
// holds up to keyset.MaxLimit of them, so one statement per member would
// be up to a thousand per source. ImplicitRoles returns each member's
// grants by member_id (a member granted nothing may be absent), in the
// order member.roles[].sources lists them, and runs a fixed number of
// statements whatever len(ms).
type ImplicitRoleSource interface {
	ImplicitRoles(ctx context.Context, q store.Querier, ms []*Member) (map[string][]RoleGrant, error)
}

// MemberTableSource is an ImplicitRoleSource that grants a member nothing
// unless MemberTable, a table with a member_id column, has a row for the
// member: member loads ask it only when the probe (see Store.probe) finds
// such a row for one of the members loaded. A source that does not
// implement it is asked on every load.
type MemberTableSource interface {
	MemberTable() string
}

// ImplicitRoleHolders is an ImplicitRoleSource that can also list who
// holds a role through it, so the members search's member_roles filter
// finds the same members member.roles reports. RoleHolders lists, once
// each, the members of the organizations holding any of roleIDs, in a
// fixed number of statements however many roles a search names.
type ImplicitRoleHolders interface {
	RoleHolders(ctx context.Context, q store.Querier, projectID string, orgIDs, roleIDs []string) ([]string, error)
}

// RBAC is what organizations and members need from role-based access
// control (the rbac service): the authorization of SDK-face calls, and the
// check that role ids named in assignments exist.
type RBAC interface {
	// Authorize returns nil when one of held permits action on resource in
	// org, else unauthorized_action.
	Authorize(ctx context.Context, p *project.Project, org *Organization, held []string, resource, action string) error
	// LockPolicy takes, inside q, the lock that a change of the project
	// policy or of an organization's custom roles holds while it looks for
	// assignments of the roles it removes. A write that assigns a role
	// takes it before checking the role, and before locking any
	// organization, connection or member row (the order the policy change
	// takes), so each of the two sees the other's result.
	LockPolicy(ctx context.Context, q store.Querier, projectID string) error
	// CheckRoles refuses (invalid_request naming field) role ids that
	// neither the project policy, read in q, nor custom (the
	// organization's custom roles as the write leaves them) define. The
	// caller holds LockPolicy.
	CheckRoles(ctx context.Context, q store.Querier, projectID string, custom []CustomRole, field string, roleIDs []string) error
}

// UseRBAC connects the store to role-based access control and registers
// the implicit role sources. The composition root calls it once, before
// serving.
func (s *Store) UseRBAC(r RBAC, sources ...ImplicitRoleSource) {
	s.rbac = r
	for _, src := range sources {
		s.AddImplicitRoleSource(src)
	}
}

// AddImplicitRoleSource registers one more implicit role source (a module
// wired after RBAC, such as SSO).
func (s *Store) AddImplicitRoleSource(src ImplicitRoleSource) {
	s.addMemberTable(sourceTable(src))
	s.implicit = append(s.implicit, src)
}

// sourceTable is the member table src declares, or "" (always asked).
func sourceTable(src ImplicitRoleSource) string {
	if t, ok := src.(MemberTableSource); ok {
		return t.MemberTable()
	}
	return ""
}

// withImplicitRoles asks the registered sources for the members' implicit
// roles, each source once for the whole batch, and recomputes their roles.
// A source whose member table has no row for any of ms (has, from the
// probe) would grant none, so it is not asked; every member's roles are
// recomputed all the same. A member's grants are its first source's, then
// the next source's, and so on, as when each member was asked alone.
func (s *Store) withImplicitRoles(ctx context.Context, q store.Querier, has func(table string) bool, ms ...*Member) error {
	for _, m := range ms {
		m.implicit = nil
	}
	for _, src := range s.implicit {
		if !has(sourceTable(src)) {
			continue
		}
		grants, err := src.ImplicitRoles(ctx, q, ms)
		if err != nil {
			return err
		}
		for _, m := range ms {
			m.implicit = append(m.implicit, grants[m.MemberID]...)
		}
	}
	for _, m := range ms {
		m.computeRoles(m.emailAssignments)
	}
	return nil
}

// LockRoles takes the policy lock (RBAC.LockPolicy) in q when ids name a
// role other than the built-in ones, which no policy change can remove.
// A write that assigns roles calls it before it locks any organization,
// SSO connection or member row; CheckRoles takes it too, for the callers
// that hold no such lock yet.
func (s *Store) LockRoles(ctx context.Context, q store.Querier, projectID string, ids []string) error {
	if s.rbac == nil || !namesCustomRole(ids) {
		return nil
	}
	return s.rbac.LockPolicy(ctx, q, projectID)
}

// CheckRoles refuses (invalid_request naming field) role ids that neither
// the project policy nor org's custom roles define, both read inside q
// under the policy lock: a policy change or a custom-roles change cannot
// remove a role between this check and the caller's write. Modules that
// assign roles (SAML implicit role assignments) validate them here.
func (s *Store) CheckRoles(ctx context.Context, q store.Querier, org *Organization, field string, ids []string) error {
	if !namesCustomRole(ids) {
		return nil
	}
	if err := s.LockRoles(ctx, q, org.projectID, ids); err != nil {
		return err
	}
	// org may have been read before the lock; its custom roles are read again.
	fresh, err := s.GetIn(ctx, q, org.projectID, org.OrganizationID)
	if err != nil {
		return err
	}
	return s.checkRolesIn(ctx, q, org.projectID, fresh.CustomRoles, field, ids)
}

// checkRolesIn is CheckRoles with the organization's custom roles given
// (read under the lock, or an organization being created); without RBAC
// only the built-in roles exist.
func (s *Store) checkRolesIn(ctx context.Context, q store.Querier, projectID string, custom []CustomRole, field string, ids []string) error {
	if !namesCustomRole(ids) {
		return nil
	}
	if s.rbac != nil {
		if err := s.rbac.LockPolicy(ctx, q, projectID); err != nil {
			return err
		}
		return s.rbac.CheckRoles(ctx, q, projectID, custom, field, ids)
	}
	for _, id := range ids {
		if id != DefaultRole && id != AdminRole {
			return invalidRole(field, id)
		}
	}
	return nil
}

// namesCustomRole reports whether ids name a role other than the built-in
// ones.
func namesCustomRole(ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool { return id != DefaultRole && id != AdminRole })
}

// RolesIn recomputes the member's roles with org's current email
// assignments (a cached member may have been read before the organization
// changed) and returns a copy; m itself is left as it was.
func (m *Member) RolesIn(org *Organization) *Member {
	c := *m
	c.computeRoles(org.RBACEmailImplicitRoleAssignments)
	return &c
}

// computeRoles fills Roles and IsAdmin from the member's explicit roles,
// the organization's email assignments and the implicit grants:
// stytch_member first (every member holds it), then each role in the order
// its first source appears, every source listed.
//
// An email assignment counts only while the member's address is verified
// (email_address_verified: a login by email link or code, an OAuth login
// whose provider verified it, or the organization's own SSO). Until then
// the address is only what someone typed or an OAuth provider passed on
// unchecked: a tenant JIT member admitted with an unverified
// boss@acme.test, or a member whose address an update has just changed,
// would otherwise hold acme.test's roles (stytch_admin, say) on the
// strength of an address nobody proved. The members search's member_roles
// filter applies the same rule (emailAssigned).
func (m *Member) computeRoles(assignments []RoleAssignment) {
	grants := []RoleGrant{{RoleID: DefaultRole, Source: direct()}}
	for _, id := range m.explicit {
		grants = append(grants, RoleGrant{RoleID: id, Source: direct()})
	}
	domain := emailaddr.Domain(m.EmailAddress)
	for _, a := range assignments {
		if m.EmailAddressVerified && a.Domain == domain {
			grants = append(grants, RoleGrant{RoleID: a.RoleID, Source: RoleSource{Type: SourceEmail,
				Details: map[string]any{"email_domain": a.Domain}}})
		}
	}
	grants = append(grants, m.implicit...)
	m.Roles = []MemberRole{}
	for _, g := range grants {
		i := slices.IndexFunc(m.Roles, func(r MemberRole) bool { return r.RoleID == g.RoleID })
		if i < 0 {
			m.Roles = append(m.Roles, MemberRole{RoleID: g.RoleID, Sources: []RoleSource{g.Source}})
			continue
		}
		if !slices.ContainsFunc(m.Roles[i].Sources, func(s RoleSource) bool { return sameSource(s, g.Source) }) {
			m.Roles[i].Sources = append(m.Roles[i].Sources, g.Source)
		}
	}
	m.IsAdmin = slices.ContainsFunc(m.Roles, func(r MemberRole) bool { return r.RoleID == AdminRole })
}

func direct() RoleSource { return RoleSource{Type: SourceDirect, Details: map[string]any{}} }

func sameSource(a, b RoleSource) bool {
	if a.Type != b.Type || len(a.Details) != len(b.Details) {
		return false
	}
	for k, v := range a.Details {
		if b.Details[k] != v {
			return false
		}
	}
	return true
}

// SessionRoles are the role ids a session of the member carries. A role
// held only through an SSO connection (or one of its groups) counts only
// when the session has a factor from that connection, as the API family
// rules; connections lists the SSO connections of the session's factors.
func (m *Member) SessionRoles(connections []string) []string {
	out := make([]string, 0, len(m.Roles))
	for _, r := range m.Roles {
		if slices.ContainsFunc(r.Sources, func(s RoleSource) bool {
			if s.Type != SourceSSOConnection && s.Type != SourceSSOGroup {
				return true
			}
			id, _ := s.Details["connection_id"].(string)
			return slices.Contains(connections, id)
		}) {
			out = append(out, r.RoleID)
		}
	}
	return out
}

// ExplicitRoles are the member's directly assigned roles (stytch_member,
// which everyone holds, not included).
func (m *Member) ExplicitRoles() []string { return slices.Clone(m.explicit) }

// MaxMemberRoles bounds a member's explicitly assigned roles (the vendor
// states no limit): far more than a role model hands one person, and
// every session of the member carries them.
const MaxMemberRoles = 100

// checkRoleCount refuses a roles list over MaxMemberRoles, before any
// lock or lookup is spent on it.
func checkRoleCount(roles []string) error {
	if len(roles) > MaxMemberRoles {
		return apierr.Invalid("roles", fmt.Sprintf("roles may list at most %d roles.", MaxMemberRoles))
	}
	return nil
}

// cleanExplicit normalises a roles list of a create, update or invite:
// duplicates collapse. stytch_member is every member's already, so naming
// it is refused (cannot_assign_default_rbac_role_id, as the API family
// answers) rather than dropped: a caller listing it expects an assignment
// that could later be taken away, and none exists.
func cleanExplicit(in []string) ([]string, error) {
	if err := checkRoleCount(in); err != nil {
		return nil, err
	}
	out := []string{}
	seen := make(map[string]bool, len(in))
	for _, id := range in {
		if id == DefaultRole {
			return nil, apierr.New(apierr.CannotAssignDefaultRole).WithDetails(map[string]any{"field": "roles"})
		}
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}
