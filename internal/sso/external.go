package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// External connections: an organization (the target) lets its members log
// in through a SAML or OIDC connection of another organization of the
// project (the source). A login through one runs the source's identity
// provider flow with the source's settings and callback, and lands in the
// target: the member is found or provisioned there under the target's
// sso_jit_provisioning, registered at the external connection, and given
// the external connection's own implicit roles. The target is chosen at
// the start and carried in the single-use state ticket, never read from
// anything the identity provider sends.
//
// An external connection is active while its source is (save refreshes
// it whenever the source changes), and is deleted with its source or its
// source's organization.

// errNoSource is an external connection whose source is gone.
var errNoSource = errors.New("sso: external connection without its source")

// source loads the connection an external connection uses, with its
// secrets (a login signs and decrypts with them).
func (s *Service) source(ctx context.Context, q store.Querier, c *conn) (*conn, error) {
	x := c.External
	src, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM sso_connections
		WHERE connection_id = $1 AND project_id = $2 AND organization_id = $3`,
		x.ExternalConnectionID, c.ProjectID, x.ExternalOrganizationID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSource
	}
	if err != nil {
		return nil, fmt.Errorf("sso: source of %s: %w", c.ID, err)
	}
	if src.Kind == KindExternal {
		return nil, errNoSource // never stored (checkSource), but never followed either
	}
	return src, attachSecrets(ctx, q, src)
}

// dependent names an external connection.
type dependent struct{ projectID, orgID, connID string }

// dependents lists the external connections matching where (one
// parameter, $1).
func dependents(ctx context.Context, q store.Querier, where, arg string) ([]dependent, error) {
	rows, err := q.QueryContext(ctx, `SELECT project_id, organization_id, connection_id FROM sso_connections
		WHERE kind = 'external' AND `+where+` ORDER BY organization_id, connection_id`, arg)
	if err != nil {
		return nil, fmt.Errorf("sso: external connections: %w", err)
	}
	defer rows.Close()
	var out []dependent
	for rows.Next() {
		var d dependent
		if err := rows.Scan(&d.projectID, &d.orgID, &d.connID); err != nil {
			return nil, fmt.Errorf("sso: external connections: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// saveDependents refreshes the external connections that use src (their
// status and identity provider follow it) and their organizations'
// summaries. Their rows are locked after src's organization and src, the
// order every change takes; two organizations sharing connections with
// each other may deadlock on PostgreSQL, and store.DB.Tx runs the loser
// again.
func (s *Service) saveDependents(ctx context.Context, q store.Querier, src *conn) error {
	if src.Kind == KindExternal {
		return nil
	}
	return s.eachDependent(ctx, q, `source_connection_id = $1`, src.ID, s.save)
}

// removeDependents deletes the external connections matching where, each
// as its organization's administrator would (remove).
func (s *Service) removeDependents(ctx context.Context, q store.Querier, where, arg string) error {
	return s.eachDependent(ctx, q, where, arg, s.remove)
}

// eachDependent runs fn on each external connection matching where (one
// parameter, $1), loaded under its organization's and its own row locks.
func (s *Service) eachDependent(ctx context.Context, q store.Querier, where, arg string,
	fn func(context.Context, store.Querier, *conn) error) error {
	deps, err := dependents(ctx, q, where, arg)
	if err != nil {
		return err
	}
	for _, d := range deps {
		c, err := s.loadLocked(ctx, q, d.projectID, d.orgID, d.connID)
		if err != nil {
			return err
		}
		if err := fn(ctx, q, c); err != nil {
			return err
		}
	}
	return nil
}

// BeforeOrganizationDelete deletes the external connections of other
// organizations whose source belongs to the organization being deleted
// (organization.DeletionHook): the database would cascade them, but
// their organizations' sso_active_connections and default would still
// name them.
func (s *Service) BeforeOrganizationDelete(ctx context.Context, q store.Querier, _, orgID string, _ organization.Actor) error {
	return s.removeDependents(ctx, q,
		`source_connection_id IN (SELECT connection_id FROM sso_connections WHERE organization_id = $1)`, orgID)
}

// activeSource is the source a login through the external connection c
// runs, which must be active: a source deleted or made inactive stops its
// external connections as an inactive connection stops.
func (s *Service) activeSource(ctx context.Context, c *conn) (*conn, error) {
	src, err := s.source(ctx, s.d.DB.Read(), c)
	if errors.Is(err, errNoSource) {
		return nil, apierr.Wrap(apierr.ExternalConnectionNotActive, err)
	}
	if err != nil {
		return nil, err
	}
	if src.Status != StatusActive {
		return nil, apierr.New(apierr.ExternalConnectionNotActive)
	}
	return src, nil
}

// loginTarget is the connection a verified login at src's callback lands
// in: src itself, or the external connection the login was started
// through (named by the state ticket, which this server wrote), which must
// still use src and be active.
func (s *Service) loginTarget(ctx context.Context, src *conn, st *flowState) (*conn, error) {
	if st.ExternalConnectionID == "" {
		return src, nil
	}
	c, err := s.loadAny(ctx, src.ProjectID, st.ExternalConnectionID)
	if err != nil {
		return nil, err
	}
	if c.Kind != KindExternal || c.External.ExternalConnectionID != src.ID || c.OrganizationID != st.OrganizationID {
		return nil, apierr.New(unsolicited(src))
	}
	if c.Status != StatusActive {
		return nil, apierr.New(apierr.ExternalConnectionNotActive)
	}
	return c, nil
}

// externalWire renders an external connection for the API.
func externalWire(c *conn) *ExternalConnection {
	x := c.External
	return &ExternalConnection{OrganizationID: c.OrganizationID, ConnectionID: c.ID,
		ExternalOrganizationID: x.ExternalOrganizationID, ExternalConnectionID: x.ExternalConnectionID,
		DisplayName: c.DisplayName, Status: c.Status,
		ExternalConnectionImplicitRoleAssignments: nonNil(x.ConnectionRoles),
		ExternalGroupImplicitRoleAssignments:      nonNil(x.GroupRoles)}
}

type externalCreate struct {
	ExternalOrganizationID string                 `json:"external_organization_id"`
	ExternalConnectionID   string                 `json:"external_connection_id"`
	DisplayName            string                 `json:"display_name"`
	ConnectionRoles        *[]RoleAssignment      `json:"connection_implicit_role_assignments"`
	GroupRoles             *[]GroupRoleAssignment `json:"group_implicit_role_assignments"`
}

type externalUpdate struct {
	DisplayName     *string                `json:"display_name"`
	ConnectionRoles *[]RoleAssignment      `json:"external_connection_implicit_role_assignments"`
	GroupRoles      *[]GroupRoleAssignment `json:"external_group_implicit_role_assignments"`
}

// Role assignment field names of the two calls.
var (
	createRoleFields = [2]string{"connection_implicit_role_assignments", "group_implicit_role_assignments"}
	updateRoleFields = [2]string{"external_connection_implicit_role_assignments", "external_group_implicit_role_assignments"}
)

// CreateExternal handles POST b2b/sso/external: the organization starts
// using another organization's SAML or OIDC connection. Implicit role
// assignments also take stytch.organization's
// update.settings.implicit-roles (organization.ImplicitRolesGrant).
func (h Handlers) CreateExternal(r *http.Request) (any, error) {
	var req externalCreate
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	who, err := h.caller(r, actionCreate)
	if err != nil {
		return nil, err
	}
	// A new connection's assignments are a change from none, refused
	// before anything is locked.
	if err := who.AuthorizeImplicitRoles(r.Context(), req.ConnectionRoles != nil || req.GroupRoles != nil).Check(
		organization.AssignmentsChanged(req.ConnectionRoles, nil) || organization.AssignmentsChanged(req.GroupRoles, nil)); err != nil {
		return nil, err
	}
	p, orgID := who.Project, who.Organization.OrganizationID
	x := &externalConfig{ExternalOrganizationID: strings.TrimSpace(req.ExternalOrganizationID),
		ExternalConnectionID: strings.TrimSpace(req.ExternalConnectionID)}
	for _, f := range [][2]string{{"external_organization_id", x.ExternalOrganizationID}, {"external_connection_id", x.ExternalConnectionID}} {
		if err := httpapi.Required(f[0], f[1]); err != nil {
			return nil, err
		}
		if err := checkLength(f[0], f[1], MaxIDBytes); err != nil {
			return nil, err
		}
	}
	name, err := checkDisplayName(req.DisplayName)
	if err != nil {
		return nil, err
	}
	c := &conn{ID: newConnectionID(KindExternal, p.Env), ProjectID: p.ID, OrganizationID: orgID, Kind: KindExternal,
		DisplayName: name, External: x}
	ctx := r.Context()
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The policy lock before any row (organization.Store.LockRoles).
		if err := h.s.d.Orgs.LockRoles(ctx, q, p.ID, assignedRoleIDs(req.ConnectionRoles, req.GroupRoles)); err != nil {
			return err
		}
		// Only rows of this project are locked: the names are checked
		// first with plain reads (and again under the locks below).
		if _, err := h.s.checkSource(ctx, q, c); err != nil {
			return err
		}
		// Then the source's organization and connection, as a change or
		// deletion of the source locks them before its dependents: such a
		// change either commits first, and checkSource reads its outcome
		// (a pending or deleted source), or waits for this insert and
		// refreshes or deletes it with the others. Then the target
		// organization, as every connection change takes it: the
		// duplicate check below sees every committed insert.
		for _, row := range [][2]string{{"organizations", x.ExternalOrganizationID},
			{"sso_connections", x.ExternalConnectionID}, {"organizations", orgID}} {
			key := "organization_id"
			if row[0] == "sso_connections" {
				key = "connection_id"
			}
			// A source gone meanwhile is checkSource's to answer, a
			// target organization gone the insert's (organization_not_found).
			if err := h.s.d.DB.LockRow(ctx, q, row[0], key, row[1]); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		src, err := h.s.checkSource(ctx, q, c)
		if err != nil {
			return err
		}
		if c.DisplayName == "" {
			c.DisplayName = src.DisplayName
		}
		if err := h.s.setExternalRoles(ctx, q, c, src, req.ConnectionRoles, req.GroupRoles, createRoleFields); err != nil {
			return err
		}
		return h.s.insert(ctx, q, c)
	})
	if err != nil {
		return nil, err
	}
	return &ExternalResponse{Connection: externalWire(c)}, nil
}

// UpdateExternal handles PUT of an external connection: its name and its
// own implicit role assignments (the source's settings are the source
// organization's to change); changing the assignments also takes
// stytch.organization's update.settings.implicit-roles.
func (h Handlers) UpdateExternal(r *http.Request) (any, error) {
	var u externalUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	who, err := h.caller(r, actionUpdate)
	if err != nil {
		return nil, err
	}
	ctx, p, orgID := r.Context(), who.Project, who.Organization.OrganizationID
	grant := who.AuthorizeImplicitRoles(ctx, u.ConnectionRoles != nil || u.GroupRoles != nil)
	var out *conn
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The policy lock before the rows changeTx locks, as UpdateSAML.
		if err := h.s.d.Orgs.LockRoles(ctx, q, p.ID, assignedRoleIDs(u.ConnectionRoles, u.GroupRoles)); err != nil {
			return err
		}
		out, err = h.s.changeTx(ctx, q, changeTarget{p.ID, orgID, r.PathValue("connection_id"), KindExternal},
			func(ctx context.Context, c *conn) error {
				// Against the lists read under the lock, as UpdateSAML.
				if err := grant.Check(organization.AssignmentsChanged(u.ConnectionRoles, c.External.ConnectionRoles) ||
					organization.AssignmentsChanged(u.GroupRoles, c.External.GroupRoles)); err != nil {
					return err
				}
				if err := updateDisplayName(&c.DisplayName, u.DisplayName); err != nil {
					return err
				}
				if u.ConnectionRoles == nil && u.GroupRoles == nil {
					return nil
				}
				src, err := h.s.source(ctx, q, c)
				if errors.Is(err, errNoSource) {
					return apierr.Wrap(apierr.SSOConnectionNotFound, err)
				}
				if err != nil {
					return err
				}
				return h.s.setExternalRoles(ctx, q, c, src, u.ConnectionRoles, u.GroupRoles, updateRoleFields)
			})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ExternalResponse{Connection: externalWire(out)}, nil
}

// checkSource checks what a new external connection names: another
// organization of the project, one of its SAML or OIDC connections, not
// yet used by this organization.
func (s *Service) checkSource(ctx context.Context, q store.Querier, c *conn) (*conn, error) {
	x := c.External
	if x.ExternalOrganizationID == c.OrganizationID {
		return nil, apierr.New(apierr.ExternalOrganizationIsOwn).WithDetails(map[string]any{"field": "external_organization_id"})
	}
	if _, err := s.d.Orgs.GetIn(ctx, q, c.ProjectID, x.ExternalOrganizationID); err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	src, err := s.load(ctx, q, c.ProjectID, x.ExternalOrganizationID, x.ExternalConnectionID)
	if err != nil {
		return nil, err // sso_connection_not_found: not a connection of that organization
	}
	if src.Kind == KindExternal {
		return nil, apierr.Invalid("external_connection_id",
			"external_connection_id must name a SAML or OIDC connection, not another external connection.")
	}
	deps, err := dependents(ctx, q, `source_connection_id = $1`, src.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		if d.orgID == c.OrganizationID {
			return nil, apierr.New(apierr.DuplicateExternalSSOConnection).WithMessage(
				"The organization already has an external connection to this connection (" + d.connID + ").")
		}
	}
	return src, nil
}

// setExternalRoles checks and sets the external connection's implicit role
// assignments (nil leaves a list as it is). They are refused when the
// source is an OIDC connection, as in the API family; group assignments
// need the source SAML connection to map a groups attribute, which is
// where a login's groups are read from.
func (s *Service) setExternalRoles(ctx context.Context, q store.Querier, c, src *conn, conn *[]RoleAssignment,
	group *[]GroupRoleAssignment, fields [2]string) error {
	if conn == nil && group == nil {
		return nil
	}
	if src.Kind == KindOIDC && (conn != nil && len(*conn) > 0 || group != nil && len(*group) > 0) {
		field := fields[0]
		if conn == nil || len(*conn) == 0 {
			field = fields[1]
		}
		return apierr.Invalid(field, "Implicit role assignments are not supported for an external connection whose "+
			"source is an OIDC connection.")
	}
	if group != nil && len(*group) > 0 {
		if name, _ := src.SAML.AttributeMapping["groups"].(string); name == "" {
			return apierr.Invalid(fields[1], "Group role assignments need a groups attribute in the attribute_mapping "+
				"of the source SAML connection.")
		}
	}
	org, err := s.d.Orgs.GetIn(ctx, q, c.ProjectID, c.OrganizationID)
	if err != nil {
		return fmt.Errorf("sso: organization of connection: %w", err)
	}
	if err := s.checkImplicitRoles(ctx, q, org, fields, deref(conn), deref(group)); err != nil {
		return err
	}
	if conn != nil {
		c.External.ConnectionRoles = *conn
	}
	if group != nil {
		c.External.GroupRoles = *group
	}
	return nil
}

func deref[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}
