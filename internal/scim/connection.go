package scim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// TokenLifetime is how long a bearer token is accepted after it is issued
// (bearer_token_expires_at). An identity provider's token must be rotated
// before then; rotation issues the next token with a full lifetime.
const TokenLifetime = 365 * 24 * time.Hour

// IdentityProviders are the identity_provider values the API family names
// for SCIM connections; "generic" is the default.
var IdentityProviders = []string{"generic", "okta", "microsoft-entra", "cyberark", "jumpcloud", "onelogin", "pingfederate", "rippling"}

// entraQuery is appended to a microsoft-entra connection's base URL: it
// turns on Entra's RFC-compliant SCIM behaviour (the API family does the
// same).
const entraQuery = "?aadOptscim062020"

// GroupRole is one scim_group_implicit_role_assignments entry: members of
// the group hold the role.
type GroupRole struct {
	RoleID  string `json:"role_id"`
	GroupID string `json:"group_id"`
}

// conn is a stored connection.
type conn struct {
	ID, ProjectID, OrgID string
	DisplayName, IdP     string
	Token                clientsecret.Pair
	Expires, NextExpires int64 // Unix milliseconds
	GroupRoles           []GroupRole
	Created, Updated     int64
}

const connColumns = `connection_id, project_id, organization_id, display_name, identity_provider, token_hash, token_last_four,
	token_expires_at, next_token_hash, next_token_last_four, next_token_expires_at, group_roles, created_at, updated_at`

func scanConn(row interface{ Scan(...any) error }) (*conn, error) {
	var c conn
	var roles string
	if err := row.Scan(&c.ID, &c.ProjectID, &c.OrgID, &c.DisplayName, &c.IdP, &c.Token.Hash, &c.Token.LastFour,
		&c.Expires, &c.Token.NextHash, &c.Token.NextLastFour, &c.NextExpires, &roles, &c.Created, &c.Updated); err != nil {
		return nil, store.MapError(err)
	}
	if err := json.Unmarshal([]byte(roles), &c.GroupRoles); err != nil {
		return nil, fmt.Errorf("scim: decode group_roles: %w", err)
	}
	if c.GroupRoles == nil {
		c.GroupRoles = []GroupRole{}
	}
	return &c, nil
}

// notFound is the refusal of a connection the organization does not have.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Wrap(apierr.NoActiveSCIMConnection, err)
	}
	return err
}

// orgConn loads the organization's connection (no_active_scim_connection
// when it has none).
func (s *Service) orgConn(ctx context.Context, q store.Querier, projectID, orgID string) (*conn, error) {
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM scim_connections
		WHERE organization_id = $1 AND project_id = $2`, orgID, projectID))
	if err != nil {
		return nil, notFound(fmt.Errorf("scim: connection of %s: %w", orgID, err))
	}
	return c, nil
}

// load loads connection id of the organization; with lock, the row is
// locked for a change written back from the read (store.DB.LockRow).
//
// The organization's row is locked before the connection's: every
// connection write then rewrites the organization's row (summarise), and
// every other writer of both takes the organization first (its deletion,
// whose cascade reaches the connection; the SSO module; the RBAC
// referrers). Taking the connection first would deadlock with them. A
// caller assigning roles takes the policy lock before calling this
// (LockRoles' order).
func (s *Service) load(ctx context.Context, q store.Querier, projectID, orgID, id string, lock bool) (*conn, error) {
	if lock {
		err := s.d.DB.LockRow(ctx, q, "organizations", "organization_id", orgID)
		if err == nil {
			err = s.d.DB.LockRow(ctx, q, "scim_connections", "connection_id", id)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM scim_connections
		WHERE connection_id = $1 AND organization_id = $2 AND project_id = $3`, id, orgID, projectID))
	if err != nil {
		return nil, notFound(fmt.Errorf("scim: connection %s: %w", id, err))
	}
	return c, nil
}

// byID loads a connection by id alone (the SCIM service, which knows no
// project until the connection is found).
func (s *Service) byID(ctx context.Context, q store.Querier, id string) (*conn, error) {
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM scim_connections WHERE connection_id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("scim: connection %s: %w", id, err)
	}
	return c, nil
}

// create stores a new connection of org and returns it with its bearer
// token, shown this once; record files the token's issue in the
// creation's transaction. A second connection of the organization is
// refused by the unique index, even when two creates race.
func (s *Service) create(ctx context.Context, org *organization.Organization, env ids.Env, name, idp string,
	record func(q store.Querier, c *conn, change string) error) (*conn, string, error) {
	token, pair := clientsecret.New()
	now := s.d.Clock.Now()
	c := &conn{ID: ids.New("scim-connection", env), ProjectID: org.ProjectID(), OrgID: org.OrganizationID, DisplayName: name,
		IdP: idp, Token: pair, Expires: store.Millis(now.Add(TokenLifetime)), GroupRoles: []GroupRole{},
		Created: store.Millis(now), Updated: store.Millis(now)}
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		// An organization deleted after the request read it (its deletion
		// committed while the lock waited, or before this transaction got
		// SQLite's writer) is answered as it would be a moment later; the
		// insert's foreign key says the same should it ever get there.
		if err := s.d.DB.LockRow(ctx, q, "organizations", "organization_id", org.OrganizationID); errors.Is(err, store.ErrNotFound) {
			return apierr.Wrap(apierr.OrganizationNotFound, err)
		} else if err != nil {
			return err
		}
		if _, err := s.orgConn(ctx, q, c.ProjectID, c.OrgID); err == nil {
			return apierr.New(apierr.ActiveSCIMConnectionExists)
		} else if !apierr.Is(err, apierr.NoActiveSCIMConnection) {
			return err
		}
		_, err := q.ExecContext(ctx, `INSERT INTO scim_connections (`+connColumns+`)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
			c.ID, c.ProjectID, c.OrgID, c.DisplayName, c.IdP, c.Token.Hash, c.Token.LastFour, c.Expires,
			"", "", 0, "[]", c.Created, c.Updated)
		switch err := store.MapError(err); {
		case errors.Is(err, store.ErrConflict):
			return apierr.Wrap(apierr.ActiveSCIMConnectionExists, err)
		case errors.Is(err, store.ErrParentGone):
			return apierr.Wrap(apierr.OrganizationNotFound, err)
		case err != nil:
			return fmt.Errorf("scim: create connection: %w", err)
		}
		if err := record(q, c, clientsecret.Created); err != nil {
			return err
		}
		return s.summarise(ctx, q, c.OrgID)
	})
	if err != nil {
		return nil, "", err
	}
	return c, token, nil
}

// recordToken files change of c's bearer tokens in the audit log inside
// q, as other client secrets' are (clientsecret.Record): by names the face
// and the member whose session acted, if one did. The event names the
// connection, never a token.
func (s *Service) recordToken(ctx context.Context, q store.Querier, c *conn, change string, by organization.Actor) error {
	ch := clientsecret.Change{ProjectID: c.ProjectID, ClientType: "scim_connection", ClientID: c.ID, Change: change,
		OrganizationID: c.OrgID, Actor: by.Face, ActorMemberID: by.MemberID}
	var a audit.InTx
	if s.d.Audit != nil { // a nil *audit.Log would not be a nil audit.InTx
		a = s.d.Audit
	}
	return clientsecret.Record(ctx, q, a, ch)
}

// BeforeOrganizationDelete records the end of the organization's
// connection's bearer tokens, which the organization's deletion cascades
// away, as deleting the connection itself records it
// (organization.DeletionHook): in the deletion's transaction, naming
// who deletes it. The organization's row is locked already, and every
// connection write takes it first, so the connection read is the one
// that goes.
func (s *Service) BeforeOrganizationDelete(ctx context.Context, q store.Querier, projectID, orgID string, by organization.Actor) error {
	c, err := s.orgConn(ctx, q, projectID, orgID)
	if apierr.Is(err, apierr.NoActiveSCIMConnection) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.recordToken(ctx, q, c, clientsecret.Deleted, by)
}

// save writes c's settings and token state back.
func (s *Service) save(ctx context.Context, q store.Querier, c *conn) error {
	c.Updated = store.Millis(s.d.Clock.Now())
	_, err := q.ExecContext(ctx, `UPDATE scim_connections SET display_name = $1, identity_provider = $2, token_hash = $3,
		token_last_four = $4, token_expires_at = $5, next_token_hash = $6, next_token_last_four = $7, next_token_expires_at = $8,
		group_roles = $9, updated_at = $10 WHERE connection_id = $11`,
		c.DisplayName, c.IdP, c.Token.Hash, c.Token.LastFour, c.Expires, c.Token.NextHash, c.Token.NextLastFour, c.NextExpires,
		mustJSON(c.GroupRoles), c.Updated, c.ID)
	if err != nil {
		return fmt.Errorf("scim: save connection: %w", err)
	}
	return s.summarise(ctx, q, c.OrgID)
}

// remove deletes c with its groups and registrations (the members stay,
// as in the API family: deleting a connection deprovisions nobody).
func (s *Service) remove(ctx context.Context, q store.Querier, c *conn) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM scim_connections WHERE connection_id = $1`, c.ID); err != nil {
		return fmt.Errorf("scim: delete connection: %w", err)
	}
	return s.summarise(ctx, q, c.OrgID)
}

// summarise rewrites the organization's scim_active_connection from its
// connection, in the transaction that changed it (so a rotation's new
// last four show at once); the organizations watch then drops every
// cached copy.
func (s *Service) summarise(ctx context.Context, q store.Querier, orgID string) error {
	var a organization.SCIMConnection
	var expires int64
	err := q.QueryRowContext(ctx, `SELECT connection_id, display_name, token_last_four, token_expires_at FROM scim_connections
		WHERE organization_id = $1`, orgID).Scan(&a.ConnectionID, &a.DisplayName, &a.BearerTokenLastFour, &expires)
	summary := ""
	switch {
	case err == nil:
		a.BearerTokenExpiresAt = rfc3339(expires)
		summary = mustJSON(a)
	case !errors.Is(store.MapError(err), store.ErrNotFound):
		return fmt.Errorf("scim: summarise %s: %w", orgID, err)
	}
	if _, err := q.ExecContext(ctx, `UPDATE organizations SET scim_active_connection = $1 WHERE organization_id = $2`,
		summary, orgID); err != nil {
		return fmt.Errorf("scim: summarise %s: %w", orgID, err)
	}
	return nil
}

// rotate runs one rotation step on c (clientsecret.StepStart...) and
// returns the next token on start.
func (s *Service) rotate(c *conn, step string) (string, error) {
	now := s.d.Clock.Now()
	var next string
	var err error
	switch step {
	case clientsecret.StepStart:
		next, err = c.Token.Start()
		c.NextExpires = store.Millis(now.Add(TokenLifetime))
	case clientsecret.StepComplete:
		if err = c.Token.Complete(); err == nil {
			c.Expires, c.NextExpires = c.NextExpires, 0
		}
	default:
		if err = c.Token.Cancel(); err == nil {
			c.NextExpires = 0
		}
	}
	switch {
	case errors.Is(err, clientsecret.ErrRotationStarted):
		return "", apierr.Invalid("connection_id", "A bearer token rotation is already in progress: complete or cancel it first.")
	case errors.Is(err, clientsecret.ErrNoRotation):
		return "", apierr.New(apierr.SCIMConnectionNotRotatingToken)
	}
	return next, err
}

// accepts reports whether token is c's current or next bearer token and
// has not expired. Both hashes are compared whatever the outcome.
func (c *conn) accepts(token string, now time.Time) bool {
	if token == "" || c.Token.Hash == "" {
		return false
	}
	h := ids.Hash(token)
	cur := ids.Equal(h, c.Token.Hash) && store.Millis(now) < c.Expires
	next := c.Token.NextHash != "" && ids.Equal(h, c.Token.NextHash) && store.Millis(now) < c.NextExpires
	return cur || next
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Errorf("scim: marshal: %w", err))
	}
	return string(b)
}
