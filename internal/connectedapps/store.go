package connectedapps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/keyset"
	"github.com/latchkey/latchkey/internal/store"
)

// Store reads and writes connected apps and grants.
type Store struct {
	db    *store.DB
	clock clock.Clock
	audit audit.InTx
}

// NewStore returns a store on db.
func NewStore(db *store.DB, c clock.Clock) *Store { return &Store{db: db, clock: c} }

// UseAudit has the confidential clients' secret changes (create, rotation
// steps, delete) recorded in a, each in the transaction that makes it.
// The composition root calls it once, before serving; without it nothing
// is recorded.
func (s *Store) UseAudit(a audit.InTx) { s.audit = a }

// record files a change of a's secrets in q. A public client has no
// secret: nothing to record.
func (s *Store) record(ctx context.Context, q store.Querier, a *App, change string) error {
	if a.Public() {
		return nil
	}
	return clientsecret.Record(ctx, q, s.audit, clientsecret.Change{ProjectID: a.ProjectID, ClientType: "connected_app",
		ClientID: a.ClientID, Change: change})
}

const appColumns = `client_id, project_id, client_type, client_name, client_description, status, full_access_allowed,
	redirect_urls, post_logout_redirect_urls, access_token_expiry_minutes, access_token_custom_audience,
	access_token_template_content, id_token_template_content, bypass_consent_for_offline_access, logo_url,
	secret_hash, secret_last_four, next_secret_hash, next_secret_last_four, created_at, updated_at`

type scanner interface{ Scan(dest ...any) error }

func scanApp(s scanner) (*App, error) {
	var a App
	var redirects, logouts string
	var created, updated int64
	err := s.Scan(&a.ClientID, &a.ProjectID, &a.ClientType, &a.ClientName, &a.ClientDescription, &a.Status,
		&a.FullAccessAllowed, &redirects, &logouts, &a.AccessTokenExpiryMinutes, &a.AccessTokenCustomAudience,
		&a.AccessTokenTemplateContent, &a.IDTokenTemplateContent, &a.BypassConsentForOfflineAccess, &a.LogoURL,
		&a.Secret.Hash, &a.Secret.LastFour, &a.Secret.NextHash, &a.Secret.NextLastFour, &created, &updated)
	if err != nil {
		return nil, store.MapError(err)
	}
	if err := errors.Join(json.Unmarshal([]byte(redirects), &a.RedirectURLs), json.Unmarshal([]byte(logouts), &a.PostLogoutRedirectURLs)); err != nil {
		return nil, fmt.Errorf("connectedapps: decode %s: %w", a.ClientID, err)
	}
	a.CreatedAt, a.UpdatedAt = store.Time(created), store.Time(updated)
	return &a, nil
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Create registers a client. Confidential clients get a secret, returned
// once; public clients get none.
func (s *Store) Create(ctx context.Context, projectID string, env ids.Env, clientType string, f Fields) (*App, string, error) {
	if err := validType(clientType); err != nil {
		return nil, "", err
	}
	now := s.clock.Now()
	a := &App{ProjectID: projectID, ClientID: ids.New("connected-app", env), ClientType: clientType, Status: "active",
		AccessTokenExpiryMinutes: DefaultAccessTokenMinutes, RedirectURLs: []string{}, PostLogoutRedirectURLs: []string{},
		CreatedAt: now, UpdatedAt: now}
	if err := f.apply(a); err != nil {
		return nil, "", err
	}
	var secret string
	if !a.Public() {
		secret, a.Secret = clientsecret.New()
	}
	err := s.db.Tx(ctx, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `INSERT INTO idp_connected_apps (`+appColumns+`)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)`,
			a.ClientID, a.ProjectID, a.ClientType, a.ClientName, a.ClientDescription, a.Status, a.FullAccessAllowed,
			jsonList(a.RedirectURLs), jsonList(a.PostLogoutRedirectURLs), a.AccessTokenExpiryMinutes, a.AccessTokenCustomAudience,
			a.AccessTokenTemplateContent, a.IDTokenTemplateContent, a.BypassConsentForOfflineAccess, a.LogoURL,
			a.Secret.Hash, a.Secret.LastFour, a.Secret.NextHash, a.Secret.NextLastFour, store.Millis(now), store.Millis(now))
		if err != nil {
			return fmt.Errorf("connectedapps: create: %w", err)
		}
		return s.record(ctx, q, a, clientsecret.Created)
	})
	if err != nil {
		return nil, "", err
	}
	return a, secret, nil
}

// Get loads a client of the project; a client of another project is not
// found.
func (s *Store) Get(ctx context.Context, projectID, clientID string) (*App, error) {
	return s.get(ctx, s.db.Read(), projectID, clientID)
}

func (s *Store) get(ctx context.Context, q store.Querier, projectID, clientID string) (*App, error) {
	a, err := scanApp(q.QueryRowContext(ctx, `SELECT `+appColumns+` FROM idp_connected_apps
		WHERE project_id = $1 AND client_id = $2`, projectID, clientID))
	if err != nil {
		return nil, fmt.Errorf("connectedapps: get %s: %w", clientID, err)
	}
	return a, nil
}

// getForUpdate is get for a change written back from the read (every
// writer of a client: save writes all mutable columns as read). The row
// is locked first (store.DB.LockRow) and held until q ends: on PostgreSQL
// (READ COMMITTED) a plain read would not wait for a concurrent change,
// and saving would put back what that change replaced (redirect URLs, a
// completed rotation).
func (s *Store) getForUpdate(ctx context.Context, q store.Querier, projectID, clientID string) (*App, error) {
	// A client that is not there is get's to answer.
	if err := s.db.LockRow(ctx, q, "idp_connected_apps", "client_id", clientID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("connectedapps: %w", err)
	}
	return s.get(ctx, q, projectID, clientID)
}

// save writes every mutable column of a, read by getForUpdate in q.
func (s *Store) save(ctx context.Context, q store.Querier, a *App) error {
	a.UpdatedAt = s.clock.Now()
	_, err := q.ExecContext(ctx, `UPDATE idp_connected_apps SET client_name = $3, client_description = $4,
		full_access_allowed = $5, redirect_urls = $6, post_logout_redirect_urls = $7, access_token_expiry_minutes = $8,
		access_token_custom_audience = $9, bypass_consent_for_offline_access = $10, logo_url = $11,
		secret_hash = $12, secret_last_four = $13, next_secret_hash = $14, next_secret_last_four = $15, updated_at = $16
		WHERE project_id = $1 AND client_id = $2`,
		a.ProjectID, a.ClientID, a.ClientName, a.ClientDescription, a.FullAccessAllowed, jsonList(a.RedirectURLs),
		jsonList(a.PostLogoutRedirectURLs), a.AccessTokenExpiryMinutes, a.AccessTokenCustomAudience,
		a.BypassConsentForOfflineAccess, a.LogoURL, a.Secret.Hash, a.Secret.LastFour, a.Secret.NextHash,
		a.Secret.NextLastFour, store.Millis(a.UpdatedAt))
	if err != nil {
		return fmt.Errorf("connectedapps: save %s: %w", a.ClientID, err)
	}
	return nil
}

// Update changes the given fields.
func (s *Store) Update(ctx context.Context, projectID, clientID string, f Fields) (*App, error) {
	var out *App
	err := s.db.Tx(ctx, func(q store.Querier) error {
		a, err := s.getForUpdate(ctx, q, projectID, clientID)
		if err != nil {
			return err
		}
		if err := f.apply(a); err != nil {
			return err
		}
		out = a
		return s.save(ctx, q, a)
	})
	return out, err
}

// Delete removes a client with its grants and tokens.
func (s *Store) Delete(ctx context.Context, projectID, clientID string) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		// The audit event is only for a client that had a secret, which
		// its type tells: the deletion answers it, so no read goes first.
		a := &App{ProjectID: projectID, ClientID: clientID}
		err := q.QueryRowContext(ctx, `DELETE FROM idp_connected_apps WHERE project_id = $1 AND client_id = $2
			RETURNING client_type`, projectID, clientID).Scan(&a.ClientType)
		if err != nil {
			return fmt.Errorf("connectedapps: delete %s: %w", clientID, store.MapError(err))
		}
		return s.record(ctx, q, a, clientsecret.Deleted)
	})
}

// Rotate runs one step of a secret rotation; start returns the next
// secret (shown once).
func (s *Store) Rotate(ctx context.Context, projectID, clientID, step string) (*App, string, error) {
	var out *App
	var next string
	err := s.db.Tx(ctx, func(q store.Querier) error {
		a, err := s.getForUpdate(ctx, q, projectID, clientID)
		if err != nil {
			return err
		}
		if a.Public() {
			return apierr.Invalid("client_id", "Public clients have no client secret to rotate.")
		}
		refuse := clientsecret.Refusals{AlreadyRotating: apierr.ConnectedAppAlreadyRotatingSecret,
			NotRotating: apierr.ConnectedAppNotRotatingSecret}
		if next, err = a.Secret.Rotate(step, refuse); err != nil {
			return err
		}
		out = a
		if err := s.save(ctx, q, a); err != nil {
			return err
		}
		return s.record(ctx, q, a, clientsecret.StepChange(step))
	})
	return out, next, err
}

// Page is one page of a client search.
type Page struct {
	Apps       []*App
	Total      int
	NextCursor *string
}

// Search lists the project's clients, oldest first, with keyset paging
// on (created_at, client_id).
func (s *Store) Search(ctx context.Context, projectID, cursor string, limit int) (*Page, error) {
	limit, err := keyset.Limit(limit)
	if err != nil {
		return nil, err
	}
	after, err := keyset.Decode(cursor)
	if err != nil {
		return nil, err
	}
	page, err := keyset.Read(ctx, s.db.Read(), keyset.Spec[*App]{Table: "idp_connected_apps", Columns: appColumns,
		IDCol: "client_id", Scan: func(r interface{ Scan(...any) error }) (*App, error) { return scanApp(r) },
		Key: func(a *App) keyset.Cursor { return keyset.Cursor{CreatedAt: store.Millis(a.CreatedAt), ID: a.ClientID} }},
		"project_id = $1", []any{projectID}, after, limit)
	if err != nil {
		return nil, fmt.Errorf("connectedapps: %w", err)
	}
	return &Page{Apps: page.Items, Total: page.Total, NextCursor: page.Next}, nil
}
