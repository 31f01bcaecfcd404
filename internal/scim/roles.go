package scim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// RegistrationsTable is the table Decorate and ImplicitRoles read, keyed
// by member_id: a member with no row there gets neither a
// scim_registration nor a SCIM role, so member loads skip both when the
// table has no row for the members loaded (organization.AddMemberDecorator,
// organization.MemberTableSource).
const RegistrationsTable = "scim_registrations"

// PurgeGuard keeps a deleted member the connection provisioned when an
// admin invites or creates their address (organization.AddPurgeGuard):
// the identity provider still manages the user, and a PATCH with active
// true reactivates the member it knows by id.
func PurgeGuard() organization.PurgeGuard {
	return organization.PurgeGuard{Table: RegistrationsTable,
		Reason: "still provisioned by the organization's SCIM connection, whose identity provider may reactivate them"}
}

// MemberTable declares RegistrationsTable for ImplicitRoles
// (organization.MemberTableSource).
func (s *Service) MemberTable() string { return RegistrationsTable }

// Decorate fills scim_registration on members the organization's SCIM
// connection provisioned (organization.MemberDecorator), in one query for
// the lot, and, when some are provisioned, one more per SCIM connection
// among them (one per organization) for their groups.
func (s *Service) Decorate(ctx context.Context, q store.Querier, byID map[string]*organization.Member) error {
	if len(byID) == 0 {
		return nil
	}
	args := make([]any, 0, len(byID))
	marks := make([]string, 0, len(byID))
	for id := range byID {
		args = append(args, id)
		marks = append(marks, fmt.Sprintf("$%d", len(args)))
	}
	rows, err := q.QueryContext(ctx, `SELECT member_id, registration_id, connection_id, external_id, attributes
		FROM scim_registrations WHERE member_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return fmt.Errorf("scim: registrations: %w", err)
	}
	type found struct {
		m    *organization.Member
		u    user
		conn string
	}
	var regs []found
	for rows.Next() {
		var mid, attrs string
		var reg organization.SCIMRegistration
		if err := rows.Scan(&mid, &reg.RegistrationID, &reg.ConnectionID, &reg.ExternalID, &attrs); err != nil {
			rows.Close()
			return err
		}
		var u user
		if err := json.Unmarshal([]byte(attrs), &u); err != nil {
			rows.Close()
			return fmt.Errorf("scim: decode attributes: %w", err)
		}
		m := byID[mid]
		m.SCIMRegistration = &reg
		regs = append(regs, found{m, u, reg.ConnectionID})
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(regs) == 0 {
		return err
	}
	// The groups: one query per connection among the registrations, not
	// one per member.
	byConn := map[string][]string{}
	var conns []string
	for _, f := range regs {
		if _, ok := byConn[f.conn]; !ok {
			conns = append(conns, f.conn)
		}
		byConn[f.conn] = append(byConn[f.conn], f.m.MemberID)
	}
	groups := make(map[string]map[string][]groupRef, len(conns))
	for _, c := range conns {
		g, err := s.groupsOf(ctx, q, &conn{ID: c}, byConn[c])
		if err != nil {
			return err
		}
		groups[c] = g
	}
	for _, f := range regs {
		active := f.m.Status != organization.StatusDeleted
		f.m.SCIMRegistration.SCIMAttributes = f.u.attributes(f.m.MemberID, active, groups[f.conn][f.m.MemberID])
	}
	return nil
}

// ImplicitRoles grants the roles of the SCIM groups each of ms belongs to
// (organization.ImplicitRoleSource), in one query for the lot. Members the
// connection did not provision (no scim_registration, filled by Decorate,
// which runs first) are not asked about, and a batch without any costs no
// query. Only memberships in groups of the connection that registered the
// member count (as in RoleHolders): a membership left behind without its
// registration grants nothing. The rows come in membership order
// (created_at, then group_id, unique for a member), so each member's
// grants keep the order a query for that member alone gives.
func (s *Service) ImplicitRoles(ctx context.Context, q store.Querier, ms []*organization.Member) (map[string][]organization.RoleGrant, error) {
	var ids []any
	for _, m := range ms {
		if m.SCIMRegistration != nil {
			ids = append(ids, m.MemberID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT gm.member_id, c.connection_id, c.group_roles, gm.group_id FROM scim_group_members gm
		JOIN scim_groups g ON g.group_id = gm.group_id JOIN scim_connections c ON c.connection_id = g.connection_id
		JOIN scim_registrations r ON r.member_id = gm.member_id AND r.connection_id = c.connection_id
		WHERE gm.member_id IN (`+store.Placeholders(1, len(ids))+`) ORDER BY gm.created_at, gm.group_id, gm.member_id`, ids...)
	if err != nil {
		return nil, fmt.Errorf("scim: implicit roles: %w", err)
	}
	defer rows.Close()
	out := map[string][]organization.RoleGrant{}
	for rows.Next() {
		var memberID, connID, text, groupID string
		if err := rows.Scan(&memberID, &connID, &text, &groupID); err != nil {
			return nil, fmt.Errorf("scim: implicit roles: %w", err)
		}
		var roles []GroupRole
		if err := json.Unmarshal([]byte(text), &roles); err != nil {
			return nil, fmt.Errorf("scim: decode group_roles: %w", err)
		}
		for _, a := range roles {
			if a.GroupID == groupID {
				out[memberID] = append(out[memberID], organization.RoleGrant{RoleID: a.RoleID, Source: organization.RoleSource{
					Type: organization.SourceSCIMGroup, Details: map[string]any{"connection_id": connID, "group_id": groupID}}})
			}
		}
	}
	return out, rows.Err()
}

// RoleHolders lists the members of the organizations who hold one of
// roleIDs through a SCIM group (organization.ImplicitRoleHolders), so the
// members search's member_roles filter agrees with member.roles.
func (s *Service) RoleHolders(ctx context.Context, q store.Querier, projectID string, orgIDs, roleIDs []string) ([]string, error) {
	if len(orgIDs) == 0 || len(roleIDs) == 0 {
		return nil, nil
	}
	args := []any{projectID}
	for _, id := range orgIDs {
		args = append(args, id)
	}
	rows, err := q.QueryContext(ctx, `SELECT c.group_roles, gm.group_id, gm.member_id FROM scim_connections c
		JOIN scim_groups g ON g.connection_id = c.connection_id JOIN scim_group_members gm ON gm.group_id = g.group_id
		JOIN scim_registrations r ON r.member_id = gm.member_id AND r.connection_id = c.connection_id
		WHERE c.project_id = $1 AND c.organization_id IN (`+store.Placeholders(2, len(orgIDs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("scim: role holders: %w", err)
	}
	defer rows.Close()
	wanted := make(map[string]bool, len(roleIDs))
	for _, id := range roleIDs {
		wanted[id] = true
	}
	seen := map[string]bool{}
	var out []string
	for rows.Next() {
		var text, groupID, memberID string
		if err := rows.Scan(&text, &groupID, &memberID); err != nil {
			return nil, err
		}
		if seen[memberID] {
			continue
		}
		var roles []GroupRole
		if err := json.Unmarshal([]byte(text), &roles); err != nil {
			return nil, fmt.Errorf("scim: decode group_roles: %w", err)
		}
		if slices.ContainsFunc(roles, func(r GroupRole) bool { return r.GroupID == groupID && wanted[r.RoleID] }) {
			seen[memberID] = true
			out = append(out, memberID)
		}
	}
	return out, rows.Err()
}

// RoleRefs lists the SCIM group role assignments naming a role that gone
// reports and, with drop, removes them (organization.RoleReferrer); each
// connection is rewritten under its row lock, read again after it.
func (s *Service) RoleRefs(ctx context.Context, q store.Querier, projectID, orgID string,
	gone func(orgID, roleID string) bool, drop bool) ([]organization.RoleRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT connection_id, organization_id, group_roles FROM scim_connections
		WHERE project_id = $1 AND ($2 = '' OR organization_id = $2) ORDER BY organization_id, connection_id`, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("scim: role references: %w", err)
	}
	type hit struct{ connID, orgID string }
	var hits []hit
	var out []organization.RoleRef
	for rows.Next() {
		var connID, org, text string
		var roles []GroupRole
		if err := rows.Scan(&connID, &org, &text); err != nil {
			rows.Close()
			return nil, err
		}
		if err := json.Unmarshal([]byte(text), &roles); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scim: decode group_roles: %w", err)
		}
		found := false
		for _, a := range roles {
			if gone(org, a.RoleID) {
				found = true
				out = append(out, organization.RoleRef{OrganizationID: org, RoleID: a.RoleID,
					Where: "SCIM connection " + connID + " (scim_group_implicit_role_assignments, group " + a.GroupID + ")"})
			}
		}
		if found {
			hits = append(hits, hit{connID, org})
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	if !drop {
		return out, nil
	}
	for _, h := range hits {
		c, err := s.load(ctx, q, projectID, h.orgID, h.connID, true)
		if err != nil {
			return nil, err
		}
		c.GroupRoles = slices.DeleteFunc(c.GroupRoles, func(a GroupRole) bool { return gone(h.orgID, a.RoleID) })
		if err := s.save(ctx, q, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}
