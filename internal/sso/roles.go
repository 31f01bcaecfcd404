package sso

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// Watches are the module's tables whose changes must reach cached members
// and sessions (see app.moduleWatches): a SAML or external connection's
// role assignments (organization scope; a source's change rewrites its
// external connections' rows too, saveDependents) and a member's
// registrations, which carry the groups of their last login (member
// scope).
func Watches() []changefeed.Watch {
	return []changefeed.Watch{
		{Table: "sso_connections", KeyColumn: "organization_id", Scope: changefeed.Organization},
		{Table: "sso_registrations", KeyColumn: "member_id", Scope: changefeed.Member},
	}
}

// ImplicitRoles grants the roles of the SAML connections, and of the
// external connections over SAML, each of ms is registered with
// (organization.ImplicitRoleSource), in one query for the lot. OIDC
// connections grant none, as in the API family. Member.SessionRoles then
// keeps these roles out of sessions not authenticated through the
// connection. The rows come in registration order (created_at, then
// registration_id, unique), so each member's grants keep the order a query
// for that member alone gives.
func (s *Service) ImplicitRoles(ctx context.Context, q store.Querier, ms []*organization.Member) (map[string][]organization.RoleGrant, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	args := make([]any, len(ms))
	for i, m := range ms {
		args[i] = m.MemberID
	}
	out := map[string][]organization.RoleGrant{}
	err := s.samlRegistrations(ctx, q, `r.member_id IN (`+store.Placeholders(3, len(ms))+`)`, args,
		func(memberID, connID string, g roleConfig, attrs map[string]any) {
			out[memberID] = append(out[memberID], samlGrants(connID, g, attrs)...)
		})
	return out, err
}

// MemberTable declares sso_registrations (organization.MemberTableSource):
// ImplicitRoles grants through a member's registrations only, so a member
// with none there holds no SSO role, whatever the connections assign.
func (s *Service) MemberTable() string { return "sso_registrations" }

// RoleHolders lists the members of the organizations who hold one of
// roleIDs through a SAML connection or one of its groups
// (organization.ImplicitRoleHolders), so the members search's member_roles
// filter agrees with member.roles.
func (s *Service) RoleHolders(ctx context.Context, q store.Querier, projectID string, orgIDs, roleIDs []string) ([]string, error) {
	if len(orgIDs) == 0 || len(roleIDs) == 0 {
		return nil, nil
	}
	args := []any{projectID}
	for _, id := range orgIDs {
		args = append(args, id)
	}
	wanted := make(map[string]bool, len(roleIDs))
	for _, id := range roleIDs {
		wanted[id] = true
	}
	seen := map[string]bool{}
	var out []string
	err := s.samlRegistrations(ctx, q, `c.project_id = $3 AND c.organization_id IN (`+store.Placeholders(4, len(orgIDs))+`)`, args,
		func(memberID, connID string, rc roleConfig, attrs map[string]any) {
			if seen[memberID] {
				return
			}
			if slices.ContainsFunc(samlGrants(connID, rc, attrs), func(g organization.RoleGrant) bool { return wanted[g.RoleID] }) {
				seen[memberID] = true
				out = append(out, memberID)
			}
		})
	return out, err
}

// roleConfig is what a registration's roles follow: the connection's
// assignments and the attribute mapping its groups are read with (an
// external connection's own assignments, its SAML source's mapping).
type roleConfig struct {
	connection []RoleAssignment
	group      []GroupRoleAssignment
	mapping    map[string]any
}

// samlRegistrations calls each for every registration at a SAML
// connection, or at an external connection whose source is one, matching
// where (whose parameters start at $3): for each member and connection,
// only the registration of the latest login (updated_at, then
// registration_id). A login replaces the member's other registrations at
// the connection (register), but two logins at once under different
// NameIDs can each miss the other's new row, and rows from before that
// rule may remain until the member's next login: neither may grant the
// groups of an older login.
func (s *Service) samlRegistrations(ctx context.Context, q store.Querier, where string, args []any,
	each func(memberID, connID string, rc roleConfig, attrs map[string]any)) error {
	rows, err := q.QueryContext(ctx, `SELECT r.member_id, c.connection_id, c.kind, c.config, COALESCE(src.config, ''), r.sso_attributes
		FROM sso_registrations r JOIN sso_connections c ON c.connection_id = r.connection_id
		LEFT JOIN sso_connections src ON src.connection_id = c.source_connection_id AND src.kind = $1
		WHERE (c.kind = $1 OR (c.kind = $2 AND src.connection_id IS NOT NULL)) AND NOT EXISTS (
			SELECT 1 FROM sso_registrations n WHERE n.member_id = r.member_id AND n.connection_id = r.connection_id
			AND (n.updated_at > r.updated_at OR (n.updated_at = r.updated_at AND n.registration_id > r.registration_id)))
			AND `+where+`
		ORDER BY r.created_at, r.registration_id`, append([]any{KindSAML, KindExternal}, args...)...)
	if err != nil {
		return fmt.Errorf("sso: saml registrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var memberID, connID, kind, cfgText, srcText, attrText string
		if err := rows.Scan(&memberID, &connID, &kind, &cfgText, &srcText, &attrText); err != nil {
			return fmt.Errorf("sso: saml registrations: %w", err)
		}
		rc, err := registrationRoles(kind, cfgText, srcText)
		if err != nil {
			return err
		}
		attrs := map[string]any{}
		if err := json.Unmarshal([]byte(attrText), &attrs); err != nil {
			return fmt.Errorf("sso: decode registration attributes: %w", err)
		}
		each(memberID, connID, rc, attrs)
	}
	return rows.Err()
}

// registrationRoles decodes the role settings of a SAML connection, or of
// an external connection and its SAML source.
func registrationRoles(kind, cfgText, srcText string) (roleConfig, error) {
	if kind == KindExternal {
		var x externalConfig
		var src samlConfig
		if err := json.Unmarshal([]byte(cfgText), &x); err != nil {
			return roleConfig{}, fmt.Errorf("sso: decode external config: %w", err)
		}
		if err := json.Unmarshal([]byte(srcText), &src); err != nil {
			return roleConfig{}, fmt.Errorf("sso: decode saml config: %w", err)
		}
		return roleConfig{connection: x.ConnectionRoles, group: x.GroupRoles, mapping: src.AttributeMapping}, nil
	}
	var cfg samlConfig
	if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil {
		return roleConfig{}, fmt.Errorf("sso: decode saml config: %w", err)
	}
	return roleConfig{connection: cfg.ConnectionRoles, group: cfg.GroupRoles, mapping: cfg.AttributeMapping}, nil
}

// samlGrants are the roles a registration at a SAML (or external)
// connection gives: every role of its connection assignments, and each
// role of its group assignments whose group the identity provider named at
// the member's last login through the connection (in the attribute
// attribute_mapping.groups names).
func samlGrants(connID string, rc roleConfig, attrs map[string]any) []organization.RoleGrant {
	var out []organization.RoleGrant
	for _, a := range rc.connection {
		out = append(out, organization.RoleGrant{RoleID: a.RoleID, Source: organization.RoleSource{
			Type: organization.SourceSSOConnection, Details: map[string]any{"connection_id": connID}}})
	}
	groups := memberGroups(rc.mapping, attrs)
	for _, a := range rc.group {
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

// RoleRefs lists the implicit role assignments of SAML and external
// connections naming a role that gone reports, and with drop removes them
// (organization.RoleReferrer). A connection is rewritten under its
// organization's and its own row locks (loadLocked), read again after
// them; the config's secrets are written back unchanged.
func (s *Service) RoleRefs(ctx context.Context, q store.Querier, projectID, orgID string,
	gone func(orgID, roleID string) bool, drop bool) ([]organization.RoleRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT connection_id, organization_id, kind, config FROM sso_connections
		WHERE kind IN ($1, $2) AND project_id = $3 AND ($4 = '' OR organization_id = $4)
		ORDER BY organization_id, connection_id`, KindSAML, KindExternal, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("sso: role references: %w", err)
	}
	type hit struct{ connID, orgID string }
	var hits []hit
	var out []organization.RoleRef
	for rows.Next() {
		var connID, org, kind, text string
		// Both kinds keep their assignments under the same keys.
		var cfg roleLists
		if err := rows.Scan(&connID, &org, &kind, &text); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sso: role references: %w", err)
		}
		if err := json.Unmarshal([]byte(text), &cfg); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sso: decode %s config: %w", kind, err)
		}
		refs := goneAssignments(connID, org, kind, &cfg, gone)
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
		lists := c.roleLists()
		if lists == nil {
			continue
		}
		*lists.conn = slices.DeleteFunc(*lists.conn, func(a RoleAssignment) bool { return gone(h.orgID, a.RoleID) })
		*lists.group = slices.DeleteFunc(*lists.group, func(a GroupRoleAssignment) bool { return gone(h.orgID, a.RoleID) })
		if err := s.writeConfig(ctx, q, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// roleLists is the part of a SAML or external connection's config that
// assigns roles.
type roleLists struct {
	ConnectionRoles []RoleAssignment      `json:"connection_roles"`
	GroupRoles      []GroupRoleAssignment `json:"group_roles"`
}

// roleListRefs points at a loaded connection's own role lists.
type roleListRefs struct {
	conn  *[]RoleAssignment
	group *[]GroupRoleAssignment
}

// roleLists returns c's role lists (nil for an OIDC connection, which has
// none).
func (c *conn) roleLists() *roleListRefs {
	switch {
	case c.SAML != nil:
		return &roleListRefs{&c.SAML.ConnectionRoles, &c.SAML.GroupRoles}
	case c.External != nil:
		return &roleListRefs{&c.External.ConnectionRoles, &c.External.GroupRoles}
	}
	return nil
}

// goneAssignments are a connection's assignments of gone roles.
func goneAssignments(connID, orgID, kind string, cfg *roleLists, gone func(orgID, roleID string) bool) []organization.RoleRef {
	label, prefix := "SAML connection ", "saml_"
	if kind == KindExternal {
		label, prefix = "external connection ", "external_"
	}
	var out []organization.RoleRef
	for _, a := range cfg.ConnectionRoles {
		if gone(orgID, a.RoleID) {
			out = append(out, organization.RoleRef{OrganizationID: orgID, RoleID: a.RoleID,
				Where: label + connID + " (" + prefix + "connection_implicit_role_assignments)"})
		}
	}
	for _, a := range cfg.GroupRoles {
		if gone(orgID, a.RoleID) {
			out = append(out, organization.RoleRef{OrganizationID: orgID, RoleID: a.RoleID,
				Where: label + connID + " (" + prefix + "group_implicit_role_assignments, group " + a.Group + ")"})
		}
	}
	return out
}
