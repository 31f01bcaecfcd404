package project

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

func addRedirectURL(ctx context.Context, q store.Querier, projectID, u string, types []RedirectType, now int64) error {
	for _, t := range types {
		// The first URL of a type becomes its default, used when a request
		// names none.
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM project_redirect_urls WHERE project_id = $1 AND redirect_type = $2`,
			projectID, string(t)).Scan(&n); err != nil {
			return fmt.Errorf("count redirect urls: %w", err)
		}
		_, err := q.ExecContext(ctx, `INSERT INTO project_redirect_urls (project_id, redirect_type, url, is_default, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, redirect_type, url) DO NOTHING`, projectID, string(t), u, n == 0, now)
		if err != nil {
			return fmt.Errorf("insert redirect url: %w", err)
		}
	}
	return nil
}

func addOrigin(ctx context.Context, q store.Querier, projectID, origin string, now int64) error {
	_, err := q.ExecContext(ctx, `INSERT INTO project_origins (project_id, origin, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (project_id, origin) DO NOTHING`, projectID, origin, now)
	if err != nil {
		return fmt.Errorf("insert origin: %w", err)
	}
	return nil
}

// AddRedirectURL registers u for the given types (all types when empty),
// running also in the same transaction with the project id.
func (s *Store) AddRedirectURL(ctx context.Context, projectID, u string, types []RedirectType, also ...Also) error {
	if err := ValidateRedirectURL(u); err != nil {
		return err
	}
	if len(types) == 0 {
		types = RedirectTypes
	}
	for _, t := range types {
		if !slices.Contains(RedirectTypes, t) {
			return fmt.Errorf("project: unknown redirect type %q", t)
		}
	}
	return s.db.Tx(ctx, func(q store.Querier) error {
		if err := addRedirectURL(ctx, q, projectID, u, types, store.Millis(s.clock.Now())); err != nil {
			return err
		}
		return runAlso(q, projectID, also)
	})
}

// AddOrigin authorizes a browser origin for the SDK face (stored as
// NormalizeOrigin gives it), running also in the same transaction.
func (s *Store) AddOrigin(ctx context.Context, projectID, origin string, also ...Also) error {
	norm, err := NormalizeOrigin(origin)
	if err != nil {
		return err
	}
	return s.db.Tx(ctx, func(q store.Querier) error {
		if err := addOrigin(ctx, q, projectID, norm, store.Millis(s.clock.Now())); err != nil {
			return err
		}
		return runAlso(q, projectID, also)
	})
}

// noRedirectURLs names, per redirect type, the API family's error for a
// project without a URL of that type. The family has no_*_urls_set for
// login, signup, discovery and invite, and for password resets only
// no_password_reset_redirect_url. (Its no_default_*_redirect_url_set
// cannot arise here: a type's first URL is its default until another is
// named.)
var noRedirectURLs = map[RedirectType]apierr.Type{
	RedirectLogin:         apierr.NoLoginRedirectURLsSet,
	RedirectSignup:        apierr.NoSignupRedirectURLsSet,
	RedirectDiscovery:     apierr.NoDiscoveryRedirectURLsSet,
	RedirectResetPassword: apierr.NoPasswordResetRedirectURL,
	RedirectInvite:        apierr.NoInviteRedirectURLsSet,
}

// NoRedirectURLs is the error type ResolveRedirect answers when the
// project has no URL of type t.
func NoRedirectURLs(t RedirectType) apierr.Type {
	if e, ok := noRedirectURLs[t]; ok {
		return e
	}
	return apierr.NoLoginRedirectURLsSet
}

// ResolveRedirect returns the URL a flow may redirect to: requested, when it
// exactly matches a registered URL of type t, or the type's default when
// requested is empty. A mismatch is an error (no_match_for_provided_magic_link_url,
// the email links' type; see ResolveRedirectAs), never a redirect; so is a
// type without URLs (NoRedirectURLs).
func (s *Store) ResolveRedirect(ctx context.Context, projectID string, t RedirectType, requested string) (string, error) {
	return s.ResolveRedirectAs(ctx, projectID, t, requested, apierr.NoMatchForMagicLinkURL)
}

// ResolveRedirectAs is ResolveRedirect with the mismatch refused as
// mismatch: the API family names it per flow (OAuth, SSO, email links).
func (s *Store) ResolveRedirectAs(ctx context.Context, projectID string, t RedirectType, requested string, mismatch apierr.Type) (string, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT url, is_default FROM project_redirect_urls
		WHERE project_id = $1 AND redirect_type = $2 ORDER BY created_at, url`, projectID, string(t))
	if err != nil {
		return "", fmt.Errorf("project: redirect urls: %w", err)
	}
	defer rows.Close()
	var first, def string
	for rows.Next() {
		var u string
		var isDefault bool
		if err := rows.Scan(&u, &isDefault); err != nil {
			return "", fmt.Errorf("project: scan redirect url: %w", err)
		}
		if requested != "" && u == requested {
			return u, nil
		}
		if first == "" {
			first = u
		}
		if isDefault && def == "" {
			def = u
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("project: redirect urls: %w", err)
	}
	if first == "" {
		return "", apierr.New(NoRedirectURLs(t))
	}
	if requested != "" {
		return "", apierr.New(mismatch).WithDetails(map[string]any{"redirect_type": string(t)})
	}
	if def == "" {
		def = first
	}
	return def, nil
}

// OriginAllowed reports whether origin is authorized for the project.
func (s *Store) OriginAllowed(ctx context.Context, projectID, origin string) (bool, error) {
	var n int
	err := s.db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM project_origins WHERE project_id = $1 AND origin = $2`,
		projectID, origin).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("project: origin: %w", err)
	}
	return n > 0, nil
}

// AnyOriginAllowed reports whether any project authorizes origin (used for
// CORS preflights, which carry no credentials).
func (s *Store) AnyOriginAllowed(ctx context.Context, origin string) (bool, error) {
	var n int
	err := s.db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM project_origins WHERE origin = $1`, origin).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("project: origin: %w", err)
	}
	return n > 0, nil
}

// List returns every project (for the CLI).
func (s *Store) List(ctx context.Context) ([]*Project, error) {
	rows, err := s.db.Read().QueryContext(ctx, selectProject+`ORDER BY created_at`)
	if err != nil {
		return nil, fmt.Errorf("project: list: %w", err)
	}
	defer rows.Close()
	var out []*Project
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, fmt.Errorf("project: list: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// IsNotFound reports whether err means the project (or credential) is unknown.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// ByName returns the first project with this name (the dev seed finds its
// demo project this way).
func (s *Store) ByName(ctx context.Context, name string) (*Project, error) {
	p, err := scanProject(s.db.Read().QueryRowContext(ctx, selectProject+`WHERE name = $1 ORDER BY created_at LIMIT 1`, name))
	if err != nil {
		return nil, fmt.Errorf("project: by name: %w", err)
	}
	return p, nil
}

// PublicToken returns the project's oldest public token.
func (s *Store) PublicToken(ctx context.Context, projectID string) (string, error) {
	var tok string
	err := s.db.Read().QueryRowContext(ctx, `SELECT public_token FROM project_public_tokens WHERE project_id = $1
		ORDER BY created_at, public_token LIMIT 1`, projectID).Scan(&tok)
	if err != nil {
		return "", fmt.Errorf("project: public token: %w", store.MapError(err))
	}
	return tok, nil
}

// Update changes a project's settings; nil fields stay as they are.
type Update struct {
	Name                           *string
	Products                       *[]string
	SessionDurationMinutes         *int
	SDKMaxSessionDurationMinutes   *int
	PKCERequiredForEmailMagicLinks *bool
	CreateOrganizationEnabled      *bool
	DisableSDKWatermark            *bool
	SlugPattern                    *string

	PasswordStrengthPolicy        *string
	LUDSMinPasswordLength         *int
	LUDSMinPasswordComplexity     *int
	PKCERequiredForPasswordResets *bool
	PKCERequiredForSSO            *bool
	PKCERequiredForOAuth          *bool
}

// Update applies u to the project and returns the result. Everything in u
// is checked before anything is written, and also runs in the same
// transaction (with the project id), so a change that fails anywhere,
// including in also, leaves the project as it was.
//
// Every setting is written back as read, so the project is read inside
// the transaction with its row locked (store.DB.LockRow): a concurrent
// update (another CLI run) commits first and is not undone.
func (s *Store) Update(ctx context.Context, projectID string, u Update, also ...Also) (*Project, error) {
	var p *Project
	err := s.db.Tx(ctx, func(q store.Querier) error {
		if err := s.db.LockRow(ctx, q, "projects", "project_id", projectID); err != nil {
			return fmt.Errorf("project: update: %w", err)
		}
		var err error
		if p, err = scanProject(q.QueryRowContext(ctx, selectProject+`WHERE project_id = $1`, projectID)); err != nil {
			return fmt.Errorf("project: by id: %w", err)
		}
		if err := u.apply(p); err != nil {
			return err
		}
		return s.write(ctx, q, p, also)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// apply checks u and sets it on p.
func (u Update) apply(p *Project) error {
	if u.Name != nil {
		if *u.Name == "" {
			return errors.New("project: name must not be empty")
		}
		p.Name = *u.Name
	}
	if u.Products != nil {
		for _, pr := range *u.Products {
			if !slices.Contains(AllProducts, pr) {
				return fmt.Errorf("project: unknown product %q (known: %v)", pr, AllProducts)
			}
		}
		p.Products = *u.Products
	}
	if u.SessionDurationMinutes != nil {
		if !ValidSessionDuration(*u.SessionDurationMinutes) {
			return fmt.Errorf("project: session duration must be %d to %d minutes", MinSessionDurationMinutes, MaxSessionDurationMinutes)
		}
		p.SessionDurationMinutes = *u.SessionDurationMinutes
	}
	if u.SDKMaxSessionDurationMinutes != nil {
		if !ValidSessionDuration(*u.SDKMaxSessionDurationMinutes) {
			return fmt.Errorf("project: the SDK's maximum session duration must be %d to %d minutes",
				MinSessionDurationMinutes, MaxSessionDurationMinutes)
		}
		p.SDKMaxSessionDurationMinutes = *u.SDKMaxSessionDurationMinutes
	}
	for _, b := range []struct {
		in  *bool
		dst *bool
	}{{u.PKCERequiredForEmailMagicLinks, &p.PKCERequiredForEmailMagicLinks},
		{u.CreateOrganizationEnabled, &p.CreateOrganizationEnabled}, {u.DisableSDKWatermark, &p.DisableSDKWatermark},
		{u.PKCERequiredForPasswordResets, &p.PKCERequiredForPasswordResets}, {u.PKCERequiredForSSO, &p.PKCERequiredForSSO},
		{u.PKCERequiredForOAuth, &p.PKCERequiredForOAuth}} {
		if b.in != nil {
			*b.dst = *b.in
		}
	}
	if u.SlugPattern != nil {
		if *u.SlugPattern != "" && !strings.Contains(*u.SlugPattern, "{{slug}}") {
			return errors.New("project: a slug pattern must contain {{slug}}")
		}
		p.SlugPattern = *u.SlugPattern
	}
	return applyPasswordPolicy(p, u)
}

// write stores every setting of p, then runs also, inside q.
func (s *Store) write(ctx context.Context, q store.Querier, p *Project, also []Also) error {
	products, _ := json.Marshal(p.Products)
	var slug any
	if p.SlugPattern != "" {
		slug = p.SlugPattern
	}
	if _, err := q.ExecContext(ctx, `UPDATE projects SET name = $1, products = $2, session_duration_minutes = $3,
		pkce_required_for_email_magic_links = $4, create_organization_enabled = $5, disable_sdk_watermark = $6,
		slug_pattern = $7, password_strength_policy = $9, luds_min_password_length = $10,
		luds_min_password_complexity = $11, pkce_required_for_password_resets = $12, pkce_required_for_sso = $13,
		pkce_required_for_oauth = $14, sdk_max_session_duration_minutes = $15 WHERE project_id = $8`,
		p.Name, string(products), p.SessionDurationMinutes,
		p.PKCERequiredForEmailMagicLinks, p.CreateOrganizationEnabled, p.DisableSDKWatermark, slug, p.ID,
		p.PasswordStrengthPolicy, p.LUDSMinPasswordLength, p.LUDSMinPasswordComplexity, p.PKCERequiredForPasswordResets,
		p.PKCERequiredForSSO, p.PKCERequiredForOAuth, p.SDKMaxSessionDurationMinutes); err != nil {
		return fmt.Errorf("project: update: %w", err)
	}
	return runAlso(q, p.ID, also)
}

// LUDS bounds: a minimum length below 8 is weaker than any current
// guidance allows, and there are only four character classes.
const (
	MinLUDSLength = 8
	MaxLUDSLength = 64
)

func applyPasswordPolicy(p *Project, u Update) error {
	if u.PasswordStrengthPolicy != nil {
		if *u.PasswordStrengthPolicy != PolicyZXCVBN && *u.PasswordStrengthPolicy != PolicyLUDS {
			return fmt.Errorf("project: password strength policy must be %s or %s", PolicyZXCVBN, PolicyLUDS)
		}
		p.PasswordStrengthPolicy = *u.PasswordStrengthPolicy
	}
	if u.LUDSMinPasswordLength != nil {
		if *u.LUDSMinPasswordLength < MinLUDSLength || *u.LUDSMinPasswordLength > MaxLUDSLength {
			return fmt.Errorf("project: LUDS minimum length must be %d to %d", MinLUDSLength, MaxLUDSLength)
		}
		p.LUDSMinPasswordLength = *u.LUDSMinPasswordLength
	}
	if u.LUDSMinPasswordComplexity != nil {
		if *u.LUDSMinPasswordComplexity < 1 || *u.LUDSMinPasswordComplexity > 4 {
			return errors.New("project: LUDS complexity must be 1 to 4 (of lowercase, uppercase, digit, symbol)")
		}
		p.LUDSMinPasswordComplexity = *u.LUDSMinPasswordComplexity
	}
	return nil
}
