package scim

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// GroupRoleWire is a scim_group_implicit_role_assignments entry as the
// backend face answers it (the Node client's SCIMGroupImplicitRoleAssignments,
// with the group's name).
type GroupRoleWire struct {
	RoleID    string `json:"role_id"`
	GroupID   string `json:"group_id"`
	GroupName string `json:"group_name"`
}

// connectionWire is a connection on the backend face: the Node client's
// SCIMConnection, plus the one-time bearer_token (create) or
// next_bearer_token (rotation start) when just issued.
type connectionWire struct {
	OrganizationID           string          `json:"organization_id"`
	ConnectionID             string          `json:"connection_id"`
	Status                   string          `json:"status"`
	DisplayName              string          `json:"display_name"`
	IdentityProvider         string          `json:"identity_provider"`
	BaseURL                  string          `json:"base_url"`
	BearerToken              string          `json:"bearer_token,omitempty"`
	BearerTokenLastFour      string          `json:"bearer_token_last_four"`
	BearerTokenExpiresAt     string          `json:"bearer_token_expires_at"`
	NextBearerToken          string          `json:"next_bearer_token,omitempty"`
	NextBearerTokenLastFour  string          `json:"next_bearer_token_last_four"`
	NextBearerTokenExpiresAt string          `json:"next_bearer_token_expires_at,omitempty"`
	GroupRoles               []GroupRoleWire `json:"scim_group_implicit_role_assignments"`
}

// BaseURL is the SCIM service's URL for a connection: what the identity
// provider is configured with.
func BaseURL(serverURL, connectionID, idp string) string {
	u := serverURL + "/v1/b2b/scim/" + connectionID
	if idp == "microsoft-entra" {
		u += entraQuery
	}
	return u
}

// wire is c's backend wire form, with its assignments' group names read
// in q.
func (s *Service) wire(ctx context.Context, q store.Querier, c *conn) (*connectionWire, error) {
	w := &connectionWire{OrganizationID: c.OrgID, ConnectionID: c.ID, Status: "active", DisplayName: c.DisplayName,
		IdentityProvider: c.IdP, BaseURL: BaseURL(s.d.BaseURL(), c.ID, c.IdP), BearerTokenLastFour: c.Token.LastFour,
		BearerTokenExpiresAt: rfc3339(c.Expires), NextBearerTokenLastFour: c.Token.NextLastFour,
		GroupRoles: []GroupRoleWire{}}
	if c.Token.NextHash != "" {
		w.NextBearerTokenExpiresAt = rfc3339(c.NextExpires)
	}
	for _, a := range c.GroupRoles {
		var name string
		err := q.QueryRowContext(ctx, `SELECT display_name FROM scim_groups WHERE group_id = $1`, a.GroupID).Scan(&name)
		if err != nil && store.MapError(err) != store.ErrNotFound {
			return nil, fmt.Errorf("scim: group name: %w", err)
		}
		w.GroupRoles = append(w.GroupRoles, GroupRoleWire{RoleID: a.RoleID, GroupID: a.GroupID, GroupName: name})
	}
	return w, nil
}

func rfc3339(ms int64) string { return store.Time(ms).UTC().Format(time.RFC3339) }

// Which one-time token an answer shows, which decides its SDK shape.
const (
	shownNone     = iota
	shownCreate   // bearer_token (SCIMConnectionWithBearerToken)
	shownRotation // next_bearer_token (SCIMConnectionWithNextBearerToken)
)

// connectionResponse answers every connection call but delete; Connection
// is nil (and left out) when an organization has none.
type connectionResponse struct {
	httpapi.Common
	Connection *connectionWire `json:"connection,omitempty"`
	shown      int
}

// sdkGroupRole is an assignment as the browser SDK declares it.
type sdkGroupRole struct {
	RoleID  string `json:"role_id"`
	GroupID string `json:"group_id"`
}

// sdkConnection is a connection on the SDK face: the browser SDK's
// SCIMConnection, SCIMConnectionWithBearerToken or
// SCIMConnectionWithNextBearerToken, whichever the call answers with
// (they differ in which last-four fields they carry).
type sdkConnection struct {
	OrganizationID           string         `json:"organization_id"`
	ConnectionID             string         `json:"connection_id"`
	Status                   string         `json:"status"`
	DisplayName              string         `json:"display_name"`
	IdentityProvider         string         `json:"identity_provider"`
	BaseURL                  string         `json:"base_url"`
	GroupRoles               []sdkGroupRole `json:"scim_group_implicit_role_assignments"`
	BearerToken              string         `json:"bearer_token,omitempty"`
	BearerTokenLastFour      string         `json:"bearer_token_last_four,omitempty"`
	BearerTokenExpiresAt     string         `json:"bearer_token_expires_at"`
	NextBearerToken          string         `json:"next_bearer_token,omitempty"`
	NextBearerTokenLastFour  string         `json:"next_bearer_token_last_four,omitempty"`
	NextBearerTokenExpiresAt string         `json:"next_bearer_token_expires_at,omitempty"`
}

type sdkConnectionResponse struct {
	httpapi.Common
	Connection *sdkConnection `json:"connection,omitempty"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *connectionResponse) SDKWire() any {
	w := r.Connection
	if w == nil {
		return &sdkConnectionResponse{}
	}
	out := &sdkConnection{OrganizationID: w.OrganizationID, ConnectionID: w.ConnectionID, Status: w.Status,
		DisplayName: w.DisplayName, IdentityProvider: w.IdentityProvider, BaseURL: w.BaseURL,
		GroupRoles: make([]sdkGroupRole, len(w.GroupRoles)), BearerTokenExpiresAt: w.BearerTokenExpiresAt,
		NextBearerTokenExpiresAt: w.NextBearerTokenExpiresAt}
	for i, a := range w.GroupRoles {
		out.GroupRoles[i] = sdkGroupRole{RoleID: a.RoleID, GroupID: a.GroupID}
	}
	switch r.shown {
	case shownCreate:
		out.BearerToken = w.BearerToken
	case shownRotation:
		out.NextBearerToken, out.BearerTokenLastFour = w.NextBearerToken, w.BearerTokenLastFour
	default:
		out.BearerTokenLastFour, out.NextBearerTokenLastFour = w.BearerTokenLastFour, w.NextBearerTokenLastFour
	}
	return &sdkConnectionResponse{Connection: out}
}

// GroupWire is a SCIM group as the connection APIs list it.
type GroupWire struct {
	GroupID        string `json:"group_id"`
	GroupName      string `json:"group_name"`
	OrganizationID string `json:"organization_id"`
	ConnectionID   string `json:"connection_id"`
}

// groupsResponse answers the groups listing; next_cursor is null on the
// last page.
type groupsResponse struct {
	httpapi.Common
	SCIMGroups []GroupWire `json:"scim_groups"`
	NextCursor *string     `json:"next_cursor"`
}

// connectionWithToken is a connection in the answer that shows a new
// token on the backend face: the Node client's SCIMConnectionWithToken
// (create: no last-four fields) or SCIMConnectionWithNextToken
// (rotate/start: the current token's last four only).
type connectionWithToken struct {
	OrganizationID           string          `json:"organization_id"`
	ConnectionID             string          `json:"connection_id"`
	Status                   string          `json:"status"`
	DisplayName              string          `json:"display_name"`
	IdentityProvider         string          `json:"identity_provider"`
	BaseURL                  string          `json:"base_url"`
	BearerToken              string          `json:"bearer_token,omitempty"`
	BearerTokenLastFour      string          `json:"bearer_token_last_four,omitempty"`
	BearerTokenExpiresAt     string          `json:"bearer_token_expires_at"`
	NextBearerToken          string          `json:"next_bearer_token,omitempty"`
	NextBearerTokenExpiresAt string          `json:"next_bearer_token_expires_at,omitempty"`
	GroupRoles               []GroupRoleWire `json:"scim_group_implicit_role_assignments"`
}

type connectionWithTokenResponse struct {
	httpapi.Common
	Connection *connectionWithToken `json:"connection"`
}

// BackendWire implements httpapi.BackendWirer: the answers that show a
// token carry the last-four fields their Node client type declares; the
// others are the full SCIMConnection.
func (r *connectionResponse) BackendWire() any {
	w := r.Connection
	if w == nil || r.shown == shownNone {
		return r
	}
	out := &connectionWithToken{OrganizationID: w.OrganizationID, ConnectionID: w.ConnectionID, Status: w.Status,
		DisplayName: w.DisplayName, IdentityProvider: w.IdentityProvider, BaseURL: w.BaseURL,
		BearerToken: w.BearerToken, BearerTokenExpiresAt: w.BearerTokenExpiresAt, NextBearerToken: w.NextBearerToken,
		NextBearerTokenExpiresAt: w.NextBearerTokenExpiresAt, GroupRoles: w.GroupRoles}
	if r.shown == shownRotation {
		out.BearerTokenLastFour = w.BearerTokenLastFour
	}
	return &connectionWithTokenResponse{Connection: out}
}
