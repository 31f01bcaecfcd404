package sso

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// Watches are the module's tables whose changes must reach cached members
// and sessions (see app.moduleWatches): a SAML connection's role
// assignments (organization scope) and a member's registrations, which
// carry the groups of their last login (member scope).
func Watches() []changefeed.Watch {
	return []changefeed.Watch{
		{Table: "sso_connections", KeyColumn: "organization_id", Scope: changefeed.Organization},
		{Table: "sso_registrations", KeyColumn: "member_id", Scope: changefeed.Member},
	}
}

// ImplicitRoles grants the roles of the SAML connections a member is
// registered with (organization.ImplicitRoleSource). OIDC connections
// grant none, as in the API family. Member.SessionRoles then keeps these
// roles out of sessions not authenticated through the connection.
func (s *Service) ImplicitRoles(ctx context.Context, q store.Querier, m *organization.Member) ([]organization.RoleGrant, error) {
	var out []organization.RoleGrant
	err := s.samlRegistrations(ctx, q, `r.member_id = $2`, []any{m.MemberID},
		func(_, connID string, cfg *samlConfig, attrs map[string]any) {
			out = append(out, samlGrants(connID, cfg, attrs)...)
		})
	return out, err
}

// RoleHolders lists the members of the organizations who hold roleID
// through a SAML connection or one of its groups
// (organization.ImplicitRoleHolders), so the members search's member_roles
// filter agrees with member.roles.
func (s *Service) RoleHolders(ctx context.Context, q store.Querier, projectID string, orgIDs []string, roleID string) ([]string, error) {
	if len(orgIDs) == 0 {
		return nil, nil
	}
	args := []any{projectID}
	marks := make([]string, len(orgIDs))
	for i, id := range orgIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", len(args)+1)
	}
	var out []string
	err := s.samlRegistrations(ctx, q, `c.project_id = $2 AND c.organization_id IN (`+strings.Join(marks, ", ")+`)`, args,
		func(memberID, connID string, cfg *samlConfig, attrs map[string]any) {
			for _, g := range samlGrants(connID, cfg, attrs) {
				if g.RoleID == roleID && !slices.Contains(out, memberID) {
					out = append(out, memberID)
				}
			}
		})
	return out, err
}

// samlRegistrations calls each for every registration at a SAML
// connection matching where (whose parameters start at $2).
func (s *Service) samlRegistrations(ctx context.Context, q store.Querier, where string, args []any,
	each func(memberID, connID string, cfg *samlConfig, attrs map[string]any)) error {
	rows, err := q.QueryContext(ctx, `SELECT r.member_id, c.connection_id, c.config, r.sso_attributes
		FROM sso_registrations r JOIN sso_connections c ON c.connection_id = r.connection_id
		WHERE c.kind = $1 AND `+where+` ORDER BY r.created_at, r.registration_id`, append([]any{KindSAML}, args...)...)
	if err != nil {
		return fmt.Errorf("sso: saml registrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var memberID, connID, cfgText, attrText string
		if err := rows.Scan(&memberID, &connID, &cfgText, &attrText); err != nil {
			return fmt.Errorf("sso: saml registrations: %w", err)
		}
		var cfg samlConfig
		if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil {
			return fmt.Errorf("sso: decode saml config: %w", err)
		}
		attrs := map[string]any{}
		if err := json.Unmarshal([]byte(attrText), &attrs); err != nil {
			return fmt.Errorf("sso: decode registration attributes: %w", err)
		}
		each(memberID, connID, &cfg, attrs)
	}
	return rows.Err()
}

// samlGrants are the roles a registration at a SAML connection gives:
// every role of saml_connection_implicit_role_assignments, and each role of
// saml_group_implicit_role_assignments whose group the identity provider
// named at the member's last login through the connection (in the
// attribute attribute_mapping.groups names).
func samlGrants(connID string, cfg *samlConfig, attrs map[string]any) []organization.RoleGrant {
	var out []organization.RoleGrant
	for _, a := range cfg.ConnectionRoles {
		out = append(out, organization.RoleGrant{RoleID: a.RoleID, Source: organization.RoleSource{
			Type: organization.SourceSSOConnection, Details: map[string]any{"connection_id": connID}}})
	}
	groups := memberGroups(cfg.AttributeMapping, attrs)
	for _, a := range cfg.GroupRoles {
		if slices.Contains(groups, a.Group) {
			out = append(out, organization.RoleGrant{RoleID: a.RoleID, Source: organization.RoleSource{
				Type: organization.SourceSSOGroup, Details: map[string]any{"connection_id": connID, "group": a.Group}}})
		}
	}
	return out
}

// memberGroups reads the groups attribute (attribute_mapping.groups) of a
// registration's attributes: one value or a list.
func memberGroups(mapping map[string]any, attrs map[string]any) []string {
	name, _ := mapping["groups"].(string)
	if name == "" {
		return nil
	}
	switch v := attrs[name].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, g := range v {
			if s, ok := g.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// RoleRefs lists the SAML connections' implicit role assignments naming a
// role that gone reports, and with drop removes them
// (organization.RoleReferrer). A connection is rewritten under its
// organization's and its own row locks (loadLocked), read again after
// them; the config's secrets are written back unchanged.
func (s *Service) RoleRefs(ctx context.Context, q store.Querier, projectID, orgID string,
	gone func(orgID, roleID string) bool, drop bool) ([]organization.RoleRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT connection_id, organization_id, config FROM sso_connections
		WHERE kind = $1 AND project_id = $2 AND ($3 = '' OR organization_id = $3)
		ORDER BY organization_id, connection_id`, KindSAML, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("sso: role references: %w", err)
	}
	type hit struct{ connID, orgID string }
	var hits []hit
	var out []organization.RoleRef
	for rows.Next() {
		var connID, org, text string
		var cfg samlConfig
		if err := rows.Scan(&connID, &org, &text); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sso: role references: %w", err)
		}
		if err := json.Unmarshal([]byte(text), &cfg); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sso: decode saml config: %w", err)
		}
		refs := goneAssignments(connID, org, &cfg, gone)
		if len(refs) > 0 {
			out = append(out, refs...)
			hits = append(hits, hit{connID, org})
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, fmt.Errorf("sso: role references: %w", err)
	}
	rows.Close()
	if !drop {
		return out, nil
	}
	for _, h := range hits {
		c, err := s.loadLocked(ctx, q, projectID, h.orgID, h.connID)
		if err != nil {
			return nil, err
		}
		c.SAML.ConnectionRoles = slices.DeleteFunc(c.SAML.ConnectionRoles, func(a RoleAssignment) bool { return gone(h.orgID, a.RoleID) })
		c.SAML.GroupRoles = slices.DeleteFunc(c.SAML.GroupRoles, func(a GroupRoleAssignment) bool { return gone(h.orgID, a.RoleID) })
		if err := s.writeConfig(ctx, q, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// goneAssignments are a SAML connection's assignments of gone roles.
func goneAssignments(connID, orgID string, cfg *samlConfig, gone func(orgID, roleID string) bool) []organization.RoleRef {
	var out []organization.RoleRef
	for _, a := range cfg.ConnectionRoles {
		if gone(orgID, a.RoleID) {
			out = append(out, organization.RoleRef{OrganizationID: orgID, RoleID: a.RoleID,
				Where: "SAML connection " + connID + " (saml_connection_implicit_role_assignments)"})
		}
	}
	for _, a := range cfg.GroupRoles {
		if gone(orgID, a.RoleID) {
			out = append(out, organization.RoleRef{OrganizationID: orgID, RoleID: a.RoleID,
				Where: "SAML connection " + connID + " (saml_group_implicit_role_assignments, group " + a.Group + ")"})
		}
	}
	return out
}
