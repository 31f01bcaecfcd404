package sso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// Connection kinds.
const (
	KindSAML     = "saml"
	KindOIDC     = "oidc"
	KindExternal = "external"
)

// Connection statuses: pending until every setting a login needs is
// present, then active; an external connection is active while its source
// is. Only active connections can be started and appear in the
// organization's sso_active_connections.
const (
	StatusPending = "pending"
	StatusActive  = "active"
)

// conn is one stored connection with its kind's settings decoded.
type conn struct {
	ID               string
	ProjectID        string
	OrganizationID   string
	Kind             string
	DisplayName      string
	IdentityProvider string
	Status           string
	SAML             *samlConfig
	OIDC             *oidcConfig
	External         *externalConfig
	CreatedAt        int64
}

// complete reports whether the connection has every setting a login needs.
func (c *conn) complete() bool {
	switch c.Kind {
	case KindSAML:
		s := c.SAML
		return s.IdPEntityID != "" && s.IdPSSOURL != "" && len(s.VerificationCertificates) > 0
	case KindOIDC:
		o := c.OIDC
		return o.Issuer != "" && o.ClientID != "" && o.ClientSecret != "" && o.AuthorizationURL != "" &&
			o.TokenURL != "" && o.JWKSURL != ""
	}
	return false // external connections: their source's status (status)
}

// status is the connection's status as it now stands. An external
// connection is as active as its source, whose identity_provider it shows
// in the organization's sso_active_connections (status sets it).
func (s *Service) status(ctx context.Context, q store.Querier, c *conn) (string, error) {
	if c.Kind != KindExternal {
		if c.complete() {
			return StatusActive, nil
		}
		return StatusPending, nil
	}
	src, err := s.source(ctx, q, c)
	if errors.Is(err, errNoSource) {
		return StatusPending, nil
	}
	if err != nil {
		return "", err
	}
	c.IdentityProvider = src.IdentityProvider
	return src.Status, nil
}

const connColumns = `connection_id, project_id, organization_id, kind, display_name, identity_provider, status, config, created_at`

func scanConn(row interface{ Scan(...any) error }) (*conn, error) {
	var c conn
	var cfg string
	if err := row.Scan(&c.ID, &c.ProjectID, &c.OrganizationID, &c.Kind, &c.DisplayName, &c.IdentityProvider,
		&c.Status, &cfg, &c.CreatedAt); err != nil {
		return nil, store.MapError(err)
	}
	var dst any
	switch c.Kind {
	case KindSAML:
		c.SAML = &samlConfig{}
		dst = c.SAML
	case KindOIDC:
		c.OIDC = &oidcConfig{}
		dst = c.OIDC
	default:
		c.External = &externalConfig{}
		dst = c.External
	}
	if err := json.Unmarshal([]byte(cfg), dst); err != nil {
		return nil, fmt.Errorf("sso: decode %s config: %w", c.Kind, err)
	}
	return &c, nil
}

// load reads a connection of the organization; another organization's or
// project's connection is indistinguishable from a missing one.
func (s *Service) load(ctx context.Context, q store.Querier, projectID, orgID, connID string) (*conn, error) {
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM sso_connections
		WHERE connection_id = $1 AND project_id = $2 AND organization_id = $3`, connID, projectID, orgID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Wrap(apierr.SSOConnectionNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("sso: load connection: %w", err)
	}
	return c, attachSecrets(ctx, q, c)
}

// loadLocked is load for a change that writes the connection back or
// deletes it: the connection's row is locked before it is read, so a
// concurrent change commits first and is read rather than overwritten
// (store.DB.LockRow). The organization's row is locked before it: the
// write rebuilds the organization's summary (syncOrganization), and
// every change takes organization, then connection, then member locks in
// that order, so two of them wait for each other rather than deadlock.
//
// A row that is not there locks nothing: load answers the connection
// missing (sso_connection_not_found), as it would had it never been.
func (s *Service) loadLocked(ctx context.Context, q store.Querier, projectID, orgID, connID string) (*conn, error) {
	if err := s.d.DB.LockRow(ctx, q, "organizations", "organization_id", orgID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if err := s.d.DB.LockRow(ctx, q, "sso_connections", "connection_id", connID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return s.load(ctx, q, projectID, orgID, connID)
}

// loadAny reads a connection of the project whatever its organization (the
// browser routes name only the connection).
func (s *Service) loadAny(ctx context.Context, projectID, connID string) (*conn, error) {
	q := s.d.DB.Read()
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM sso_connections
		WHERE connection_id = $1 AND ($2 = '' OR project_id = $2)`, connID, projectID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Wrap(apierr.SSOConnectionNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("sso: load connection: %w", err)
	}
	return c, attachSecrets(ctx, q, c)
}

func (s *Service) list(ctx context.Context, q store.Querier, projectID, orgID string) ([]*conn, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+connColumns+` FROM sso_connections
		WHERE project_id = $1 AND organization_id = $2 ORDER BY created_at, connection_id`, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("sso: list connections: %w", err)
	}
	defer rows.Close()
	var out []*conn
	for rows.Next() {
		c, err := scanConn(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sso: list connections: %w", err)
	}
	rows.Close()
	return out, attachSecrets(ctx, q, out...)
}

// insert stores a new connection and refreshes the organization's summary.
func (s *Service) insert(ctx context.Context, q store.Querier, c *conn) error {
	var err error
	if c.Status, err = s.status(ctx, q, c); err != nil {
		return err
	}
	now := store.Millis(s.d.Clock.Now())
	c.CreatedAt = now
	if _, err := q.ExecContext(ctx, `INSERT INTO sso_connections (`+connColumns+`, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,'{}',$8,$9)`, c.ID, c.ProjectID, c.OrganizationID, c.Kind, c.DisplayName,
		c.IdentityProvider, c.Status, now, now); err != nil {
		if err = store.MapError(err); errors.Is(err, store.ErrParentGone) {
			// The organization was deleted after the request read it.
			return apierr.Wrap(apierr.OrganizationNotFound, err)
		}
		return fmt.Errorf("sso: insert connection: %w", err)
	}
	if c.Kind == KindExternal {
		if _, err := q.ExecContext(ctx, `UPDATE sso_connections SET source_connection_id = $1 WHERE connection_id = $2`,
			c.External.ExternalConnectionID, c.ID); err != nil {
			return fmt.Errorf("sso: insert connection: %w", err)
		}
	}
	if err := s.writeConfig(ctx, q, c); err != nil {
		return err
	}
	return s.syncOrganization(ctx, q, c.ProjectID, c.OrganizationID)
}

// save writes a changed connection, recomputing its status, and refreshes
// the organization's summary, then the external connections that use it
// (saveDependents).
func (s *Service) save(ctx context.Context, q store.Querier, c *conn) error {
	var err error
	if c.Status, err = s.status(ctx, q, c); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, `UPDATE sso_connections SET display_name = $1, identity_provider = $2, status = $3,
		updated_at = $4 WHERE connection_id = $5`, c.DisplayName, c.IdentityProvider, c.Status,
		store.Millis(s.d.Clock.Now()), c.ID); err != nil {
		return fmt.Errorf("sso: update connection: %w", err)
	}
	if err := s.writeConfig(ctx, q, c); err != nil {
		return err
	}
	if err := s.syncOrganization(ctx, q, c.ProjectID, c.OrganizationID); err != nil {
		return err
	}
	return s.saveDependents(ctx, q, c)
}

// idpIdentity names the identity provider whose identities c's
// registrations hold: a SAML connection's idp_entity_id, an OIDC
// connection's issuer; "" for an external connection (its source's
// counts) and for one not configured yet.
func (c *conn) idpIdentity() string {
	switch c.Kind {
	case KindSAML:
		return c.SAML.IdPEntityID
	case KindOIDC:
		return c.OIDC.Issuer
	}
	return ""
}

// forgetIdentities deletes the registrations of c, and of the external
// connections that use it, once c names another identity provider
// (changeTx): a NameID is unique only within the identity provider that
// issued it (SAML core 2.2.3, 8.3.7), an OIDC sub within its issuer, so
// the new one's "jsmith" or "1234" may be someone else than the member
// the old one's was. The next login of each member is found by its
// address, as a first login is, and registers anew. The members'
// summaries are rewritten after the organization's, which save locked
// (the order remove takes).
func (s *Service) forgetIdentities(ctx context.Context, q store.Querier, c *conn) error {
	const where = `connection_id = $1 OR connection_id IN (SELECT connection_id FROM sso_connections
		WHERE kind = 'external' AND source_connection_id = $1)`
	members, err := store.Strings(ctx, q, `SELECT DISTINCT member_id FROM sso_registrations WHERE `+where+`
		ORDER BY member_id`, c.ID)
	if err != nil {
		return fmt.Errorf("sso: registrations of connection: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_registrations WHERE `+where, c.ID); err != nil {
		return fmt.Errorf("sso: forget registrations: %w", err)
	}
	for _, m := range members {
		if err := s.syncMember(ctx, q, m); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes a connection with its registrations and refreshes the
// summaries of the organization and of the members who had one. The
// external connections that use it go first, each as if deleted by its
// organization: an external connection without its source can never log
// anyone in again, and keeping it would only leave a dead button.
func (s *Service) remove(ctx context.Context, q store.Querier, c *conn) error {
	if err := s.removeDependents(ctx, q, `source_connection_id = $1`, c.ID); err != nil {
		return err
	}
	members, err := store.Strings(ctx, q, `SELECT member_id FROM sso_registrations WHERE connection_id = $1`, c.ID)
	if err != nil {
		return fmt.Errorf("sso: registrations of connection: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_registrations WHERE connection_id = $1`, c.ID); err != nil {
		return fmt.Errorf("sso: delete registrations: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_secrets WHERE connection_id = $1`, c.ID); err != nil {
		return fmt.Errorf("sso: delete secrets: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_connections WHERE connection_id = $1`, c.ID); err != nil {
		return fmt.Errorf("sso: delete connection: %w", err)
	}
	// The organization's summary first: its row is locked
	// (syncOrganization) before the members' (syncMember), so two removals
	// wait for each other there rather than lock shared members in
	// opposite orders.
	if err := s.syncOrganization(ctx, q, c.ProjectID, c.OrganizationID); err != nil {
		return err
	}
	for _, m := range members {
		if err := s.syncMember(ctx, q, m); err != nil {
			return err
		}
	}
	return nil
}

// syncOrganization rewrites the organization's sso_active_connections and
// keeps sso_default_connection_id pointing at an active connection: the
// first connection to become active becomes the default (so a single
// connection works with no further setting, as in the best hosted
// products), and a default that is deleted or not active moves to the
// oldest remaining active one, or is cleared. (An admin may choose a
// connection still pending, as the vendor's Admin Portal offers; the
// choice holds until the organization's connections next change, and
// becomes permanent when that connection is configured, since it is then
// active.) The organization's row is locked before the connections are
// read: two connection changes at once would each rebuild the summary
// without the other's change, and the last write would drop it.
func (s *Service) syncOrganization(ctx context.Context, q store.Querier, projectID, orgID string) error {
	if err := s.d.DB.LockRow(ctx, q, "organizations", "organization_id", orgID); err != nil {
		return err
	}
	conns, err := s.list(ctx, q, projectID, orgID)
	if err != nil {
		return err
	}
	active := []organization.SSOActiveConnection{}
	for _, c := range conns {
		if c.Status == StatusActive {
			active = append(active, organization.SSOActiveConnection{ConnectionID: c.ID, DisplayName: c.DisplayName,
				IdentityProvider: c.IdentityProvider})
		}
	}
	summary, err := json.Marshal(active)
	if err != nil {
		return fmt.Errorf("sso: encode active connections: %w", err)
	}
	var def *string
	if err := q.QueryRowContext(ctx, `SELECT sso_default_connection_id FROM organizations WHERE organization_id = $1`,
		orgID).Scan(&def); err != nil {
		return fmt.Errorf("sso: organization default: %w", store.MapError(err))
	}
	keep := false
	for _, a := range active {
		keep = keep || (def != nil && *def == a.ConnectionID)
	}
	var newDef any
	switch {
	case keep:
		newDef = *def
	case len(active) > 0:
		newDef = active[0].ConnectionID
	}
	if _, err := q.ExecContext(ctx, `UPDATE organizations SET sso_active_connections = $1, sso_default_connection_id = $2,
		updated_at = $3 WHERE organization_id = $4`, string(summary), newDef, store.Millis(s.d.Clock.Now()), orgID); err != nil {
		return fmt.Errorf("sso: write organization summary: %w", err)
	}
	return nil
}

// HasConnection reports, inside q, whether connectionID is one of the
// organization's own connections, whatever its status
// (organization.SSOConnections).
func (s *Service) HasConnection(ctx context.Context, q store.Querier, projectID, orgID, connectionID string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM sso_connections WHERE project_id = $1 AND organization_id = $2
		AND connection_id = $3`, projectID, orgID, connectionID).Scan(&n); err != nil {
		return false, fmt.Errorf("sso: connection of organization: %w", err)
	}
	return n > 0, nil
}

// syncMember rewrites the member's sso_registrations from the registrations
// table. The member's row is locked before the registrations are read, as
// the organization's is in syncOrganization: a connection's deletion and a
// registration through another connection at once would otherwise each
// write a summary missing the other's change.
//
// A member that is gone (deleted with its registrations meanwhile) has no
// summary left to write.
func (s *Service) syncMember(ctx context.Context, q store.Querier, memberID string) error {
	if err := s.d.DB.LockRow(ctx, q, "members", "member_id", memberID); errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, `SELECT registration_id, connection_id, external_id, sso_attributes
		FROM sso_registrations WHERE member_id = $1 ORDER BY created_at, registration_id`, memberID)
	if err != nil {
		return fmt.Errorf("sso: member registrations: %w", err)
	}
	defer rows.Close()
	regs := []organization.SSORegistration{}
	for rows.Next() {
		var r organization.SSORegistration
		var attrs string
		if err := rows.Scan(&r.RegistrationID, &r.ConnectionID, &r.ExternalID, &attrs); err != nil {
			return fmt.Errorf("sso: scan registration: %w", err)
		}
		if err := json.Unmarshal([]byte(attrs), &r.SSOAttributes); err != nil {
			return fmt.Errorf("sso: decode registration attributes: %w", err)
		}
		regs = append(regs, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sso: member registrations: %w", err)
	}
	rows.Close()
	text, err := json.Marshal(regs)
	if err != nil {
		return fmt.Errorf("sso: encode registrations: %w", err)
	}
	if _, err := q.ExecContext(ctx, `UPDATE members SET sso_registrations = $1 WHERE member_id = $2`, string(text), memberID); err != nil {
		return fmt.Errorf("sso: write member registrations: %w", err)
	}
	return nil
}

// newConnectionID mints a connection id of the kind, in the SDKs' format.
func newConnectionID(kind string, env ids.Env) string {
	return ids.New(kind+"-connection", env)
}
