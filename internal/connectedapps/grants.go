package connectedapps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// AllowedIn applies the organization's connected-app policy: the
// first-party or third-party allowed type (ALL_ALLOWED, RESTRICTED to the
// allowed list, NOT_ALLOWED).
func AllowedIn(o *organization.Organization, a *App) error {
	kind, list := o.ThirdPartyConnectedAppsAllowedType, o.AllowedThirdPartyConnectedApps
	if a.FirstPartyApp() {
		kind, list = o.FirstPartyConnectedAppsAllowedType, o.AllowedFirstPartyConnectedApps
	}
	switch kind {
	case organization.NotAllowed:
	case organization.Restricted:
		if slices.Contains(list, a.ClientID) {
			return nil
		}
	default:
		return nil
	}
	return apierr.New(apierr.UnauthorizedAction).WithMessage("This organization does not allow this connected app.")
}

// AllowsEveryApp reports whether the organization's policy allows every
// connected app, first- and third-party alike: AllowedIn then needs no
// app to answer, and a check made on every token use can skip loading it.
// It is AllowedIn's own rule: only NOT_ALLOWED and RESTRICTED refuse.
func AllowsEveryApp(o *organization.Organization) bool {
	open := func(kind string) bool { return kind != organization.NotAllowed && kind != organization.Restricted }
	return open(o.FirstPartyConnectedAppsAllowedType) && open(o.ThirdPartyConnectedAppsAllowedType)
}

// Grant is consent on record: the scopes a member granted an app.
type Grant struct {
	MemberID       string
	OrganizationID string
	ClientID       string
	Scopes         []string
}

// SaveGrant records (or widens) a member's consent. Scopes granted earlier
// stay granted: consent only grows until it is revoked.
//
// The consent on record is read locked (FOR UPDATE on PostgreSQL), as
// DropScopes reads it: the union is written back, so a read made before
// a concurrent change commits would restore what that change removed (a
// scope that left the policy, another submit's scopes). Locked, it waits
// for the change and reads what it committed, or the change waits and
// reads what this writes. It cannot lock a consent not yet on record; the
// caller orders those with a policy change by the policy lock (the
// provider's submit, rbac HoldPolicy).
func (s *Store) SaveGrant(ctx context.Context, q store.Querier, g Grant) error {
	old, err := s.grantLocked(ctx, q, g.MemberID, g.ClientID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var scopes []string
	if old != nil {
		scopes = old.Scopes
	}
	for _, sc := range g.Scopes {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	now := store.Millis(s.clock.Now())
	_, err = q.ExecContext(ctx, `INSERT INTO idp_grants (member_id, client_id, organization_id, scopes, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (member_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at`,
		g.MemberID, g.ClientID, g.OrganizationID, jsonList(scopes), now)
	if err != nil {
		return fmt.Errorf("connectedapps: save grant: %w", err)
	}
	return nil
}

// GrantOf returns a member's consent for an app, or a not-found error.
func (s *Store) GrantOf(ctx context.Context, memberID, clientID string) (*Grant, error) {
	return s.grant(ctx, s.db.Read(), memberID, clientID)
}

// GrantIn is GrantOf read inside the caller's transaction q, for a check
// whose writes must commit only while the consent is still on record.
func (s *Store) GrantIn(ctx context.Context, q store.Querier, memberID, clientID string) (*Grant, error) {
	return s.grant(ctx, q, memberID, clientID)
}

func (s *Store) grant(ctx context.Context, q store.Querier, memberID, clientID string) (*Grant, error) {
	return s.readGrant(ctx, q, memberID, clientID, "")
}

// grantLocked is grant holding the row until q ends (SaveGrant).
func (s *Store) grantLocked(ctx context.Context, q store.Querier, memberID, clientID string) (*Grant, error) {
	lock := ""
	if s.db.Dialect() == store.Postgres {
		lock = " FOR UPDATE"
	}
	return s.readGrant(ctx, q, memberID, clientID, lock)
}

func (s *Store) readGrant(ctx context.Context, q store.Querier, memberID, clientID, lock string) (*Grant, error) {
	g := Grant{MemberID: memberID, ClientID: clientID}
	var scopes string
	err := q.QueryRowContext(ctx, `SELECT organization_id, scopes FROM idp_grants WHERE member_id = $1 AND client_id = $2`+lock,
		memberID, clientID).Scan(&g.OrganizationID, &scopes)
	if err != nil {
		return nil, fmt.Errorf("connectedapps: grant: %w", store.MapError(err))
	}
	if err := json.Unmarshal([]byte(scopes), &g.Scopes); err != nil {
		return nil, fmt.Errorf("connectedapps: grant scopes: %w", err)
	}
	return &g, nil
}

// Covers reports whether the grant includes every scope.
func (g *Grant) Covers(scopes []string) bool {
	for _, sc := range scopes {
		if !slices.Contains(g.Scopes, sc) {
			return false
		}
	}
	return true
}

// RevokeGrant deletes a member's consent for an app inside q; the
// provider revokes the tokens in the same transaction.
func (s *Store) RevokeGrant(ctx context.Context, q store.Querier, memberID, clientID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM idp_grants WHERE member_id = $1 AND client_id = $2`, memberID, clientID); err != nil {
		return fmt.Errorf("connectedapps: revoke grant: %w", err)
	}
	return nil
}

// MemberApp is an app a member has granted, with the scopes.
type MemberApp struct {
	App    *App
	Scopes []string
}

// MemberApps lists the apps a member has granted access, oldest grant first.
func (s *Store) MemberApps(ctx context.Context, projectID, memberID string) ([]MemberApp, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT `+prefixed("a.", appColumns)+`, g.scopes FROM idp_grants g
		JOIN idp_connected_apps a ON a.client_id = g.client_id
		WHERE a.project_id = $1 AND g.member_id = $2 ORDER BY g.created_at, a.client_id`, projectID, memberID)
	if err != nil {
		return nil, fmt.Errorf("connectedapps: member apps: %w", err)
	}
	defer rows.Close()
	out := []MemberApp{}
	for rows.Next() {
		var scopes string
		a, err := scanApp(multiScan{rows, &scopes})
		if err != nil {
			return nil, err
		}
		ma := MemberApp{App: a}
		if err := json.Unmarshal([]byte(scopes), &ma.Scopes); err != nil {
			return nil, fmt.Errorf("connectedapps: grant scopes: %w", err)
		}
		out = append(out, ma)
	}
	return out, rows.Err()
}

// OrgApps lists the apps any member of the organization has granted.
func (s *Store) OrgApps(ctx context.Context, projectID, orgID string) ([]*App, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT `+appColumns+` FROM idp_connected_apps
		WHERE project_id = $1 AND client_id IN (SELECT client_id FROM idp_grants WHERE organization_id = $2)
		ORDER BY created_at, client_id`, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("connectedapps: org apps: %w", err)
	}
	defer rows.Close()
	out := []*App{}
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// OrgGrants lists an organization's grants of one app.
func (s *Store) OrgGrants(ctx context.Context, orgID, clientID string) ([]Grant, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT member_id, scopes FROM idp_grants
		WHERE organization_id = $1 AND client_id = $2 ORDER BY created_at, member_id`, orgID, clientID)
	if err != nil {
		return nil, fmt.Errorf("connectedapps: org grants: %w", err)
	}
	defer rows.Close()
	out := []Grant{}
	for rows.Next() {
		g := Grant{OrganizationID: orgID, ClientID: clientID}
		var scopes string
		if err := rows.Scan(&g.MemberID, &scopes); err != nil {
			return nil, fmt.Errorf("connectedapps: org grants: %w", err)
		}
		if err := json.Unmarshal([]byte(scopes), &g.Scopes); err != nil {
			return nil, fmt.Errorf("connectedapps: grant scopes: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// multiScan scans an app row followed by extra columns.
type multiScan struct {
	s     scanner
	extra *string
}

func (m multiScan) Scan(dest ...any) error { return m.s.Scan(append(dest, m.extra)...) }

func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// DropScopes removes scopes from every consent on record for the
// project's apps, inside q (rbac.ScopeHolder: the project's policy no
// longer defines them). A consent left with no scope stays, empty, as
// the member did consent to the app; its tokens lose the scopes at
// their next refresh (the provider narrows them to the policy).
//
// Rows are read and rewritten locked (FOR UPDATE on PostgreSQL), so a
// consent widened meanwhile (SaveGrant) is not written back as read.
// The LIKE only narrows the rows read: scope names are JSON strings in
// the column, and may contain '_', which LIKE takes as any character,
// so each row is checked again here.
func (s *Store) DropScopes(ctx context.Context, q store.Querier, projectID string, scopes []string) error {
	for _, sc := range scopes {
		if err := s.dropScope(ctx, q, projectID, sc); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) dropScope(ctx context.Context, q store.Querier, projectID, scope string) error {
	name, err := json.Marshal(scope)
	if err != nil {
		return fmt.Errorf("connectedapps: drop scope: %w", err)
	}
	query := `SELECT member_id, client_id, scopes FROM idp_grants WHERE scopes LIKE $1
		AND client_id IN (SELECT client_id FROM idp_connected_apps WHERE project_id = $2)`
	if s.db.Dialect() == store.Postgres {
		query += ` FOR UPDATE`
	}
	rows, err := q.QueryContext(ctx, query, "%"+string(name)+"%", projectID)
	if err != nil {
		return fmt.Errorf("connectedapps: drop scope %s: %w", scope, err)
	}
	defer rows.Close()
	var held []Grant
	for rows.Next() {
		var g Grant
		var text string
		if err := rows.Scan(&g.MemberID, &g.ClientID, &text); err != nil {
			return fmt.Errorf("connectedapps: drop scope %s: %w", scope, err)
		}
		if err := json.Unmarshal([]byte(text), &g.Scopes); err != nil {
			return fmt.Errorf("connectedapps: grant scopes: %w", err)
		}
		if slices.Contains(g.Scopes, scope) {
			held = append(held, g)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("connectedapps: drop scope %s: %w", scope, err)
	}
	rows.Close()
	now := store.Millis(s.clock.Now())
	for _, g := range held {
		rest := slices.DeleteFunc(g.Scopes, func(x string) bool { return x == scope })
		if _, err := q.ExecContext(ctx, `UPDATE idp_grants SET scopes = $1, updated_at = $2 WHERE member_id = $3 AND client_id = $4`,
			jsonList(rest), now, g.MemberID, g.ClientID); err != nil {
			return fmt.Errorf("connectedapps: drop scope %s: %w", scope, err)
		}
	}
	return nil
}
