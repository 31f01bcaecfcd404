// Package project owns projects: their public tokens and hashed secrets,
// registered redirect URLs, authorized browser origins, enabled products and
// session defaults. It also authenticates the two API faces (public token
// for the SDK face, project secret for the backend face) and serves the
// SDK bootstrap.
package project

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// Products the widget can offer; config.products uses the same names.
var AllProducts = []string{"emailMagicLinks", "emailOtp", "passwords", "oauth", "sso"}

// RedirectType is a kind of redirect URL; each flow may only send people to
// URLs registered for its type.
type RedirectType string

// Redirect types.
const (
	RedirectLogin         RedirectType = "login"
	RedirectSignup        RedirectType = "signup"
	RedirectDiscovery     RedirectType = "discovery"
	RedirectResetPassword RedirectType = "reset_password"
	RedirectInvite        RedirectType = "invite"
)

// RedirectTypes lists every redirect type.
var RedirectTypes = []RedirectType{RedirectLogin, RedirectSignup, RedirectDiscovery, RedirectResetPassword, RedirectInvite}

// Project is one tenant of this Latchkey server (one customer app).
type Project struct {
	ID                     string
	Name                   string
	Env                    ids.Env
	SessionDurationMinutes int
	// SDKMaxSessionDurationMinutes is the longest session_duration_minutes
	// the SDK face accepts (session.DurationMinutes): a browser holds only
	// the public token and its session, and must not set its own session
	// to a year. The backend face is bounded by MaxSessionDurationMinutes.
	SDKMaxSessionDurationMinutes   int
	Products                       []string
	PKCERequiredForEmailMagicLinks bool
	CreateOrganizationEnabled      bool
	DisableSDKWatermark            bool
	SlugPattern                    string

	// Passwords: the strength policy (zxcvbn or luds), the LUDS minimum
	// length and number of character classes, and whether password resets
	// must use PKCE.
	PasswordStrengthPolicy        string
	LUDSMinPasswordLength         int
	LUDSMinPasswordComplexity     int
	PKCERequiredForPasswordResets bool

	// PKCERequiredForSSO makes SSO starts require a code challenge, and
	// PKCERequiredForOAuth OAuth starts and One Tap submits.
	PKCERequiredForSSO   bool
	PKCERequiredForOAuth bool
}

// Session duration bounds, in minutes: the API family's range for
// session_duration_minutes, and the SDK face's default maximum (a day:
// above the widget's default of 60 and every duration the widget, the
// demo page and the e2e harness configure, far below the year a script
// could otherwise ask for).
const (
	MinSessionDurationMinutes           = 5
	MaxSessionDurationMinutes           = 527040 // 366 days
	DefaultSDKMaxSessionDurationMinutes = 1440
)

// ValidSessionDuration reports whether minutes is in the API family's
// range for a session duration.
func ValidSessionDuration(minutes int) bool {
	return minutes >= MinSessionDurationMinutes && minutes <= MaxSessionDurationMinutes
}

// Password strength policies.
const (
	PolicyZXCVBN = "zxcvbn"
	PolicyLUDS   = "luds"
)

// HasProduct reports whether the product is enabled for the project.
func (p *Project) HasProduct(name string) bool { return slices.Contains(p.Products, name) }

// Store reads and writes projects.
type Store struct {
	db    *store.DB
	clock clock.Clock
	box   *secretbox.Box // seals signing private keys at rest
	// parsed keeps signing keys parsed, by kid (see SigningKeys).
	parsed sync.Map // kid → parsedKey
	// newKey makes new signing keys; nil generates them (UseKeySource).
	newKey KeySource
}

// NewStore returns a project store; box seals the signing keys.
func NewStore(db *store.DB, c clock.Clock, box *secretbox.Box) *Store {
	return &Store{db: db, clock: c, box: box}
}

// CreateParams describes a new project.
type CreateParams struct {
	Name         string
	Env          ids.Env
	RedirectURLs []string // registered for every redirect type
	Origins      []string
	Products     []string // nil means all products
	// SDKMaxSessionDurationMinutes is the project's
	// SDKMaxSessionDurationMinutes; 0 means the default.
	SDKMaxSessionDurationMinutes int
}

// Created is a new project with its one-time-visible credentials.
type Created struct {
	Project     *Project
	Secret      string
	PublicToken string
}

// Create makes a project with one public token and one secret. The secret
// is shown once and stored only as a hash. also runs in the creation's
// transaction, with the new project's id.
func (s *Store) Create(ctx context.Context, p CreateParams, also ...Also) (*Created, error) {
	if strings.TrimSpace(p.Name) == "" {
		return nil, errors.New("project: name is required")
	}
	if p.Env == "" {
		p.Env = ids.Test
	}
	if !p.Env.Valid() {
		return nil, fmt.Errorf("project: unknown environment %q", p.Env)
	}
	sdkMax := p.SDKMaxSessionDurationMinutes
	if sdkMax == 0 {
		sdkMax = DefaultSDKMaxSessionDurationMinutes
	}
	if !ValidSessionDuration(sdkMax) {
		return nil, fmt.Errorf("project: the SDK's maximum session duration must be %d to %d minutes",
			MinSessionDurationMinutes, MaxSessionDurationMinutes)
	}
	products := p.Products
	if products == nil {
		products = AllProducts
	}
	for _, pr := range products {
		if !slices.Contains(AllProducts, pr) {
			return nil, fmt.Errorf("project: unknown product %q", pr)
		}
	}
	for _, u := range p.RedirectURLs {
		if err := ValidateRedirectURL(u); err != nil {
			return nil, err
		}
	}
	origins := make([]string, 0, len(p.Origins))
	for _, o := range p.Origins {
		norm, err := NormalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		origins = append(origins, norm)
	}
	proj := &Project{
		ID: ids.New("project", p.Env), Name: strings.TrimSpace(p.Name), Env: p.Env,
		SessionDurationMinutes: 60, SDKMaxSessionDurationMinutes: sdkMax, Products: products, CreateOrganizationEnabled: true,
		PasswordStrengthPolicy: PolicyZXCVBN, LUDSMinPasswordLength: 8, LUDSMinPasswordComplexity: 3,
	}
	out := &Created{Project: proj, Secret: "secret-" + string(p.Env) + "-" + ids.Token(),
		PublicToken: ids.New("public-token", p.Env)}
	now := store.Millis(s.clock.Now())
	productsJSON, _ := json.Marshal(products)
	err := s.db.Tx(ctx, func(q store.Querier) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO projects (project_id, name, env, session_duration_minutes,
			sdk_max_session_duration_minutes, products, create_organization_enabled, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, proj.ID, proj.Name, string(proj.Env), proj.SessionDurationMinutes,
			proj.SDKMaxSessionDurationMinutes, string(productsJSON), proj.CreateOrganizationEnabled, now); err != nil {
			return fmt.Errorf("insert project: %w", err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO project_public_tokens (public_token, project_id, created_at) VALUES ($1, $2, $3)`,
			out.PublicToken, proj.ID, now); err != nil {
			return fmt.Errorf("insert public token: %w", err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO project_secrets (secret_id, project_id, secret_hash, last_four, created_at) VALUES ($1, $2, $3, $4, $5)`,
			ids.New("secret", p.Env), proj.ID, ids.Hash(out.Secret), out.Secret[len(out.Secret)-4:], now); err != nil {
			return fmt.Errorf("insert secret: %w", err)
		}
		// The first key signs at once: no key is there to sign before it,
		// and no replica can hold a JWT of the project yet.
		if _, err := s.newSigningKey(ctx, q, proj.ID, p.Env, now, now); err != nil {
			return err
		}
		for _, u := range p.RedirectURLs {
			if err := addRedirectURL(ctx, q, proj.ID, u, RedirectTypes, now); err != nil {
				return err
			}
		}
		for _, o := range origins {
			if err := addOrigin(ctx, q, proj.ID, o, now); err != nil {
				return err
			}
		}
		return runAlso(q, proj.ID, also)
	})
	if err != nil {
		return nil, fmt.Errorf("project: create: %w", err)
	}
	return out, nil
}

const selectProject = `SELECT project_id, name, env, session_duration_minutes, sdk_max_session_duration_minutes, products,
	pkce_required_for_email_magic_links, create_organization_enabled, disable_sdk_watermark, COALESCE(slug_pattern, ''),
	password_strength_policy, luds_min_password_length, luds_min_password_complexity, pkce_required_for_password_resets,
	pkce_required_for_sso, pkce_required_for_oauth FROM projects `

func scanProject(row interface{ Scan(...any) error }) (*Project, error) {
	var p Project
	var env, products string
	if err := row.Scan(&p.ID, &p.Name, &env, &p.SessionDurationMinutes, &p.SDKMaxSessionDurationMinutes, &products,
		&p.PKCERequiredForEmailMagicLinks, &p.CreateOrganizationEnabled, &p.DisableSDKWatermark, &p.SlugPattern,
		&p.PasswordStrengthPolicy, &p.LUDSMinPasswordLength, &p.LUDSMinPasswordComplexity, &p.PKCERequiredForPasswordResets,
		&p.PKCERequiredForSSO, &p.PKCERequiredForOAuth); err != nil {
		return nil, store.MapError(err)
	}
	p.Env = ids.Env(env)
	if err := json.Unmarshal([]byte(products), &p.Products); err != nil {
		return nil, fmt.Errorf("products column: %w", err)
	}
	return &p, nil
}

// ByID loads a project.
func (s *Store) ByID(ctx context.Context, id string) (*Project, error) {
	p, err := scanProject(s.db.Read().QueryRowContext(ctx, selectProject+`WHERE project_id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("project: by id: %w", err)
	}
	return p, nil
}

// ByPublicToken loads the project owning a public token.
func (s *Store) ByPublicToken(ctx context.Context, token string) (*Project, error) {
	p, err := scanProject(s.db.Read().QueryRowContext(ctx, selectProject+
		`WHERE project_id = (SELECT project_id FROM project_public_tokens WHERE public_token = $1)`, token))
	if err != nil {
		return nil, fmt.Errorf("project: by public token: %w", err)
	}
	return p, nil
}

// secretEntry loads a project with its secret hashes; an unknown project
// id gives an entry without a project (its refusal then costs the same as
// a wrong secret of a real project, so timing does not reveal which
// projects exist).
func (s *Store) secretEntry(ctx context.Context, projectID string) (secretEntry, error) {
	var e secretEntry
	var err error
	if e.hashes, err = store.Strings(ctx, s.db.Read(), `SELECT secret_hash FROM project_secrets WHERE project_id = $1`, projectID); err != nil {
		return secretEntry{}, fmt.Errorf("project: secrets: %w", err)
	}
	if len(e.hashes) == 0 {
		return e, nil
	}
	if e.p, err = s.ByID(ctx, projectID); err != nil && !IsNotFound(err) {
		return secretEntry{}, err
	}
	return e, nil
}

// CheckSecret returns the project when secret is one of its secrets.
// Hashes are compared in constant time.
func (s *Store) CheckSecret(ctx context.Context, projectID, secret string) (*Project, error) {
	e, err := s.secretEntry(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if e.p == nil || !e.check(secret) {
		return nil, fmt.Errorf("project: secret mismatch: %w", store.ErrNotFound)
	}
	return e.p, nil
}

// ValidateRedirectURL accepts absolute http(s) URLs without fragments.
func ValidateRedirectURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("project: redirect URL %q must be an absolute http(s) URL without a fragment", raw)
	}
	return nil
}

// defaultPorts are the ports a browser leaves out of an Origin header.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

// maxHostLen is the longest DNS name in text form (RFC 1035 allows 255
// octets on the wire, two of them length bytes): no browser can send an
// http(s) origin with a longer host. An IPv6 literal is shorter.
const maxHostLen = 253

// maxOriginLen bounds a serialized http(s) origin: the longer scheme, the
// longest host and the longest port.
const maxOriginLen = len("https://") + maxHostLen + len(":65535")

// NormalizeOrigin reduces an origin to scheme://host[:port] as browsers
// send it in the Origin header: lower case, and without the scheme's
// default port (a browser never sends https://host:443, so an origin
// stored with it would match nothing).
func NormalizeOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	// Hostname, not Host: "http://:" and "https://:443" have a Host (":",
	// ":443") but no host, and would be stored as "http://", an origin no
	// browser sends.
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || len(u.Hostname()) > maxHostLen {
		return "", fmt.Errorf("project: origin %q must look like https://app.example.com", raw)
	}
	host := u.Host
	if p := u.Port(); p == "" || p == defaultPorts[u.Scheme] {
		host = strings.TrimSuffix(strings.TrimSuffix(host, p), ":")
	}
	return strings.ToLower(u.Scheme + "://" + host), nil
}

// serializedOrigin reports whether an Origin header is an http(s) origin
// exactly as browsers serialize it, which is also how NormalizeOrigin
// stores one: anything else (a path, user info, upper case, a default
// port, "null", a host no DNS name can be) matches no stored origin. The
// length is checked first, so a megabyte header costs no parsing.
func serializedOrigin(origin string) bool {
	if len(origin) > maxOriginLen {
		return false
	}
	norm, err := NormalizeOrigin(origin)
	return err == nil && norm == origin
}
