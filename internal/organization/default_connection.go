package organization

import (
	"context"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// SSOConnections tells whether an organization has an SSO connection (the
// SSO module), whatever the connection's status.
type SSOConnections interface {
	// HasConnection reports, inside q, whether connectionID is one of the
	// organization's own SSO connections.
	HasConnection(ctx context.Context, q store.Querier, projectID, orgID, connectionID string) (bool, error)
}

// UseSSOConnections lets sso_default_connection_id name a connection that
// is not active yet (see applySettings). The composition root calls it
// once, before serving; without it only active connections are accepted.
func (s *Store) UseSSOConnections(c SSOConnections) { s.ssoConns = c }

// checkDefaultConnection refuses a default SSO connection (set) that is not
// one of the organization's connections. An active one is in o's summary,
// which o was read with under its row's lock (UpdateIn), the lock the SSO
// module takes to rewrite it. One not active yet is asked of the SSO
// module: the vendor's Admin Portal offers "Set as default" for a
// connection still waiting for its IdP's values. A new organization has no
// connections.
func (s *Store) checkDefaultConnection(ctx context.Context, q store.Querier, o *Organization, set Settings, creating bool) error {
	if set.SSODefaultConnectionID == nil || o.SSODefaultConnectionID == nil {
		return nil
	}
	id := *o.SSODefaultConnectionID
	if slices.ContainsFunc(o.SSOActiveConnections, func(c SSOActiveConnection) bool { return c.ConnectionID == id }) {
		return nil
	}
	if !creating && s.ssoConns != nil {
		ok, err := s.ssoConns.HasConnection(ctx, q, o.projectID, o.OrganizationID, id)
		if err != nil || ok {
			return err
		}
	}
	return apierr.New(apierr.InvalidSSODefaultConnection).WithDetails(map[string]any{"field": "sso_default_connection_id"})
}
