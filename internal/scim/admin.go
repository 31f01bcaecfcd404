package scim

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// admin serves connection management on one API face. On the SDK face the
// organization is the logged-in member's and every call is authorized on
// the RBAC resource stytch.scim; on the backend face the organization is
// named in the path and the project secret suffices, unless the call
// carries a member session header, whose roles are then authorized the
// same way.
type admin struct {
	s   *Service
	sdk bool
}

// caller resolves who acts, in which organization, and authorizes action
// on stytch.scim.
func (h admin) caller(r *http.Request, action string) (*organization.SessionCaller, error) {
	c, err := organization.CallerOf(r, h.sdk, h.s.d.Orgs, h.s.d.Members)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(r.Context(), organization.ResourceSCIM, action); err != nil {
		return nil, err
	}
	return c, nil
}

// recorder files changes of a connection's bearer tokens in the audit
// log, as other client secrets are (clientsecret.Record), naming who made
// them: the face, and the member whose session acted, if one did. The
// event names the connection, never a token.
func (h admin) recorder(ctx context.Context, c *organization.SessionCaller) func(q store.Querier, conn *conn, change string) error {
	by := organization.ActorOf(c, h.sdk)
	return func(q store.Querier, conn *conn, change string) error {
		return h.s.recordToken(ctx, q, conn, change, by)
	}
}

type createRequest struct {
	DisplayName      string `json:"display_name"`
	IdentityProvider string `json:"identity_provider"`
}

func checkIdentityProvider(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "generic", nil
	}
	if !slices.Contains(IdentityProviders, v) {
		return "", refused(apierr.InvalidSCIMIdP, "identity_provider", "identity_provider must be one of "+strings.Join(IdentityProviders, ", ")+".")
	}
	return v, nil
}

// MaxDisplayName bounds a connection's display_name, in characters.
const MaxDisplayName = 256

// checkDisplayName trims a connection's display_name. The organization's
// admins read it (scim_active_connection, the admin portal): control and
// bidirectional formatting characters are refused as in every name others
// read (displaytext), and a name with nothing visible is blank.
func checkDisplayName(v string) (string, error) {
	v, why := displaytext.Line("display_name", v, MaxDisplayName)
	if why != "" {
		return "", refused(apierr.InvalidDisplayName, "display_name", why)
	}
	return v, nil
}

// refused is the catalogued error t with a message for this request and
// the offending field in error_details, as apierr.Invalid names it.
func refused(t apierr.Type, field, message string) error {
	return apierr.New(t).WithMessage(message).WithDetails(map[string]any{"field": field})
}

// Create handles POST b2b/scim: the answer carries the bearer token, the
// only time it is shown.
func (h admin) Create(r *http.Request) (any, error) {
	var req createRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := h.caller(r, organization.ActionSCIMCreate)
	if err != nil {
		return nil, err
	}
	idp, err := checkIdentityProvider(req.IdentityProvider)
	if err != nil {
		return nil, err
	}
	name, err := checkDisplayName(req.DisplayName)
	if err != nil {
		return nil, err
	}
	conn, token, err := h.s.create(r.Context(), c.Organization, c.Project.Env, name, idp, h.recorder(r.Context(), c))
	if err != nil {
		return nil, err
	}
	w, err := h.s.wire(r.Context(), h.s.d.DB.Read(), conn)
	if err != nil {
		return nil, err
	}
	w.BearerToken = token
	return &connectionResponse{Connection: w, shown: shownCreate}, nil
}

// Get handles GET b2b/scim: the organization's connection, or no
// connection field when it has none.
func (h admin) Get(r *http.Request) (any, error) {
	c, err := h.caller(r, organization.ActionSCIMGet)
	if err != nil {
		return nil, err
	}
	q := h.s.d.DB.Read()
	conn, err := h.s.orgConn(r.Context(), q, c.Project.ID, c.Organization.OrganizationID)
	if apierr.Is(err, apierr.NoActiveSCIMConnection) {
		return &connectionResponse{}, nil
	}
	if err != nil {
		return nil, err
	}
	w, err := h.s.wire(r.Context(), q, conn)
	if err != nil {
		return nil, err
	}
	return &connectionResponse{Connection: w}, nil
}

type updateRequest struct {
	DisplayName      *string `json:"display_name"`
	IdentityProvider *string `json:"identity_provider"`
	GroupRoles       *[]struct {
		RoleID  string `json:"role_id"`
		GroupID string `json:"group_id"`
	} `json:"scim_group_implicit_role_assignments"`
}

// Update handles PUT of a connection. Changing its group role assignments
// is a change of who holds which role, so a member acting needs
// stytch.organization's update.settings.implicit-roles for it (as the
// browser SDK documents), beside stytch.scim's update; sending back the
// stored list does not (organization.ImplicitRolesGrant).
func (h admin) Update(r *http.Request) (any, error) {
	var req updateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := h.caller(r, organization.ActionSCIMUpdate)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	grant := c.AuthorizeImplicitRoles(ctx, req.GroupRoles != nil)
	var roles []GroupRole
	if req.GroupRoles != nil {
		if len(*req.GroupRoles) > organization.MaxRoleAssignments {
			return nil, organization.TooMany("scim_group_implicit_role_assignments", organization.MaxRoleAssignments)
		}
		roles = []GroupRole{}
		for _, a := range *req.GroupRoles {
			a := GroupRole{RoleID: strings.TrimSpace(a.RoleID), GroupID: strings.TrimSpace(a.GroupID)}
			const field = "scim_group_implicit_role_assignments"
			if a.GroupID == "" {
				return nil, refused(apierr.SCIMGroupRoleAssignmentNoGroupID, field, "Each assignment needs a group_id.")
			}
			if a.RoleID == "" {
				return nil, refused(apierr.EmptyRBACRoleID, field, "Each assignment needs a role_id.")
			}
			if !slices.Contains(roles, a) {
				roles = append(roles, a)
			}
		}
	}
	var out *connectionWire
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		if roles != nil {
			// The policy lock before the connection's row (LockRoles).
			ids := make([]string, len(roles))
			for i, a := range roles {
				ids[i] = a.RoleID
			}
			if err := h.s.d.Orgs.CheckRoles(ctx, q, c.Organization, "scim_group_implicit_role_assignments", ids); err != nil {
				return err
			}
		}
		conn, err := h.s.load(ctx, q, c.Project.ID, c.Organization.OrganizationID, r.PathValue("connection_id"), true)
		if err != nil {
			return err
		}
		if req.DisplayName != nil {
			if conn.DisplayName, err = checkDisplayName(*req.DisplayName); err != nil {
				return err
			}
		}
		if req.IdentityProvider != nil {
			if conn.IdP, err = checkIdentityProvider(*req.IdentityProvider); err != nil {
				return err
			}
		}
		if roles != nil {
			// Against the list read under the connection's lock: sending
			// back the stored one needs no more than stytch.scim update.
			if err := grant.Check(organization.AssignmentsChanged(&roles, conn.GroupRoles)); err != nil {
				return err
			}
			if err := h.s.checkGroups(ctx, q, conn.ID, roles); err != nil {
				return err
			}
			conn.GroupRoles = roles
		}
		if err := h.s.save(ctx, q, conn); err != nil {
			return err
		}
		out, err = h.s.wire(ctx, q, conn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &connectionResponse{Connection: out}, nil
}

// deleteResponse answers a connection delete.
type deleteResponse struct {
	httpapi.Common
	ConnectionID string `json:"connection_id"`
}

// Delete handles DELETE of a connection. Deleting a connection that maps
// groups to roles takes those roles from every member holding them through
// it, so a member acting needs the implicit-roles permission for it
// (guardRoles).
func (h admin) Delete(r *http.Request) (any, error) {
	c, err := h.caller(r, organization.ActionSCIMDelete)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	id := r.PathValue("connection_id")
	grant := guardRoles(ctx, c)
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		conn, err := h.s.load(ctx, q, c.Project.ID, c.Organization.OrganizationID, id, true)
		if err != nil {
			return err
		}
		if err := grant.Check(mapsRoles(conn)); err != nil {
			return err
		}
		if err := h.recorder(ctx, c)(q, conn, clientsecret.Deleted); err != nil {
			return err
		}
		return h.s.remove(ctx, q, conn)
	})
	if err != nil {
		return nil, err
	}
	return &deleteResponse{ConnectionID: id}, nil
}

type rotateRequest struct {
	ConnectionID string `json:"connection_id"`
}

// RotateStart handles rotate/start: a second bearer token, shown once,
// valid beside the first until the rotation completes or is cancelled.
func (h admin) RotateStart(r *http.Request) (any, error) {
	return h.rotate(r, clientsecret.StepStart)
}

// RotateComplete handles rotate/complete: the second token replaces the first.
func (h admin) RotateComplete(r *http.Request) (any, error) {
	return h.rotate(r, clientsecret.StepComplete)
}

// RotateCancel handles rotate/cancel: the second token is dropped.
func (h admin) RotateCancel(r *http.Request) (any, error) {
	return h.rotate(r, clientsecret.StepCancel)
}

// guardRoles decides, before the transaction, the caller's right to act
// on a connection that maps groups to roles beyond editing its name:
// whoever holds the token of such a connection decides who holds those
// roles (they can link any member through SCIM and put them in a group
// assigned stytch_admin), and deleting it takes the roles from everyone
// holding them through it. So a member starting, completing or cancelling
// a rotation (which token the identity provider must use) or deleting the
// connection needs what changing the assignments needs,
// stytch.organization's update.settings.implicit-roles, beside
// stytch.scim's action (organization.ImplicitRolesGrant). The grant is
// checked with mapsRoles of the connection read under its lock, so an
// assignment added since the caller looked cannot slip past.
func guardRoles(ctx context.Context, c *organization.SessionCaller) organization.ImplicitRolesGrant {
	return c.AuthorizeImplicitRoles(ctx, true)
}

// mapsRoles reports whether conn maps any group to a role; without an
// assignment stytch.scim's action suffices (guardRoles).
func mapsRoles(conn *conn) bool { return len(conn.GroupRoles) > 0 }

// rotate runs one rotation step; on a connection mapping groups to roles
// a member needs the implicit-roles permission for every step
// (guardRoles).
func (h admin) rotate(r *http.Request, step string) (any, error) {
	id := r.PathValue("connection_id")
	if h.sdk {
		var req rotateRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return nil, err
		}
		if err := httpapi.Required("connection_id", req.ConnectionID); err != nil {
			return nil, err
		}
		id = req.ConnectionID
	}
	c, err := h.caller(r, organization.ActionSCIMUpdate)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	grant := guardRoles(ctx, c)
	var out *connectionWire
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		conn, err := h.s.load(ctx, q, c.Project.ID, c.Organization.OrganizationID, id, true)
		if err != nil {
			return err
		}
		if err := grant.Check(mapsRoles(conn)); err != nil {
			return err
		}
		next, err := h.s.rotate(conn, step)
		if err != nil {
			return err
		}
		if err := h.recorder(ctx, c)(q, conn, clientsecret.StepChange(step)); err != nil {
			return err
		}
		if err := h.s.save(ctx, q, conn); err != nil {
			return err
		}
		if out, err = h.s.wire(ctx, q, conn); err != nil {
			return err
		}
		out.NextBearerToken = next
		return nil
	})
	if err != nil {
		return nil, err
	}
	shown := shownNone
	if step == clientsecret.StepStart {
		shown = shownRotation
	}
	return &connectionResponse{Connection: out, shown: shown}, nil
}

// groupsRequest is the groups listing's paging (query on the backend,
// body on the SDK face).
type groupsRequest struct {
	Limit  *int   `json:"limit"`
	Cursor string `json:"cursor"`
}

// maxGroups is the largest page of groups (the API family's limit).
const maxGroups = 1000

// Groups lists the connection's groups, a page at a time.
func (h admin) Groups(r *http.Request) (any, error) {
	var req groupsRequest
	if h.sdk {
		if err := httpapi.Decode(r, &req); err != nil {
			return nil, err
		}
	} else {
		req.Cursor = r.URL.Query().Get("cursor")
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, apierr.Invalid("limit", "limit must be a number.")
			}
			req.Limit = &n
		}
	}
	limit := 100
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > maxGroups {
			return nil, apierr.Invalid("limit", "limit must be between 1 and 1000.")
		}
		limit = *req.Limit
	}
	c, err := h.caller(r, organization.ActionSCIMGet)
	if err != nil {
		return nil, err
	}
	ctx, q := r.Context(), h.s.d.DB.Read()
	var conn *conn
	if h.sdk {
		conn, err = h.s.orgConn(ctx, q, c.Project.ID, c.Organization.OrganizationID)
		// The SDK call names no connection, so an organization without one
		// has no groups, as GET b2b/scim answers it without a connection
		// rather than an error; the Admin Portal's settings screen lists the
		// groups of every organization whose admin may read SCIM.
		if apierr.Is(err, apierr.NoActiveSCIMConnection) {
			return &groupsResponse{SCIMGroups: []GroupWire{}}, nil
		}
	} else {
		conn, err = h.s.load(ctx, q, c.Project.ID, c.Organization.OrganizationID, r.PathValue("connection_id"), false)
	}
	if err != nil {
		return nil, err
	}
	groups, next, err := h.s.groupPage(ctx, q, conn, req.Cursor, limit)
	if err != nil {
		return nil, err
	}
	return &groupsResponse{SCIMGroups: groups, NextCursor: next}, nil
}

// checkGroups refuses role assignments naming groups the connection does
// not have: groups are pushed by the identity provider first.
func (s *Service) checkGroups(ctx context.Context, q store.Querier, connID string, roles []GroupRole) error {
	for _, a := range roles {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_groups WHERE group_id = $1 AND connection_id = $2`,
			a.GroupID, connID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return refused(apierr.SCIMGroupRoleAssignmentNoSuchGroup, "scim_group_implicit_role_assignments",
				"Group "+strconv.Quote(a.GroupID)+" is not a group of this SCIM connection; the identity provider must push it first.")
		}
	}
	return nil
}
